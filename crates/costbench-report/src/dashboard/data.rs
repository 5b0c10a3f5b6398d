//! The data the page's script draws the charts from: the timeline, the change points and the
//! lists the filters index, as one JSON document embedded in a
//! `<script type="application/json">` element ([`script_json`] keeps a string of it from ending
//! that element).
//!
//! Compact, because a history of a thousand runs of a hundred series is a hundred thousand
//! points: arrays rather than an object per point, each commit once (in `runs`, which a point
//! names by index), a series' run indices as a start when they are consecutive and as
//! differences otherwise, whole numbers without a fraction, and the figures of noisy metrics
//! (the series judged by a t-test) to six significant digits, finer than their run-to-run noise.
//! Exact figures (instruction counts) are kept whole: a step of one instruction is real.
//!
//! The document (`"schema": "costbench-dashboard"`, `"version"`):
//! - `metrics`: `[name, unit, noisy]` (`Metric::as_str`, [`super::unit`], 1 for the metrics
//!   judged by a t-test), the filter's order;
//! - `machines`, `variants`: names, sorted;
//! - `runs`: `[commit, subject, author_date, started_at, carried_from]` in branch order (any
//!   of them `null` when unknown; `carried_from` is set on a run whose figures are another
//!   commit's);
//! - `series`: `[id, metric, machine, variant, runs, values]`: `runs` is the index of the first
//!   run when the series' runs are consecutive, else the differences between successive run
//!   indices (the first from 0); `values` has one per-op figure per run (`null`: not finite);
//! - `changes`: `[series, run, previous_run, before, after, change_pct, flags, p_value]`, in
//!   the order of the change points given (the page's anchors `change-K` follow it); `flags`:
//!   1 narrowed to one commit, 2 acknowledged, 4 explained, 8 not yet confirmed.

use super::{unit, DashboardInput, Facts};
use costbench_judge::changes::Method;
use costbench_record::history::TimelineSeries;
use serde_json::{json, Value};

/// The document's schema version: the script reads this shape.
pub(super) const SCHEMA_VERSION: u32 = 1;

/// Significant digits kept of a noisy figure.
const NOISY_DIGITS: i32 = 6;

/// The document for `input`.
pub(super) fn json(input: &DashboardInput, facts: &Facts) -> Value {
    let t = input.timeline;
    let metrics: Vec<Value> = facts
        .metrics
        .iter()
        .map(|m| {
            json!([
                m.as_str(),
                unit(*m),
                u8::from(Method::of(*m) == Method::TTest)
            ])
        })
        .collect();
    let runs: Vec<Value> = t
        .runs
        .iter()
        .map(|r| {
            json!([
                r.commit,
                r.subject,
                r.author_date,
                r.started_at,
                r.carried_from
            ])
        })
        .collect();
    let series: Vec<Value> = t.series.iter().map(|s| series(s, facts)).collect();
    let none = super::ChangeNote::default();
    let changes: Vec<Value> = input
        .changes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let n = input.notes.get(i).unwrap_or(&none);
            let flags = u8::from(n.exact_commit)
                | u8::from(n.acknowledged.is_some()) << 1
                | u8::from(n.explanation.is_some()) << 2
                | u8::from(!c.confirmed) << 3;
            json!([
                c.series,
                c.run,
                c.previous_run,
                number(c.before),
                number(c.after),
                number(c.change_pct),
                flags,
                c.p_value
            ])
        })
        .collect();
    json!({
        "schema": "costbench-dashboard",
        "version": SCHEMA_VERSION,
        "metrics": metrics,
        "machines": facts.machines,
        "variants": facts.variants,
        "runs": runs,
        "series": series,
        "changes": changes,
    })
}

fn series(s: &TimelineSeries, facts: &Facts) -> Value {
    let index = |list: &[String], name: &str| list.iter().position(|x| x == name);
    let noisy = Method::of(s.metric) == Method::TTest;
    let values: Vec<Value> = s
        .points
        .iter()
        .map(|p| {
            number(if noisy {
                round_significant(p.1, NOISY_DIGITS)
            } else {
                p.1
            })
        })
        .collect();
    json!([
        s.id,
        facts.metrics.iter().position(|m| *m == s.metric),
        index(&facts.machines, &s.machine),
        index(&facts.variants, &s.variant),
        run_indices(&s.points),
        values
    ])
}

/// A series' run indices: the first when they are consecutive (the usual case: every run
/// measured every id), else the differences between successive ones.
fn run_indices(points: &[(usize, f64)]) -> Value {
    let consecutive = points.windows(2).all(|w| w[1].0 == w[0].0 + 1);
    match points.first() {
        Some(first) if consecutive => json!(first.0),
        _ => {
            let mut prev = 0;
            let deltas: Vec<usize> = points
                .iter()
                .map(|p| {
                    let d = p.0 - prev;
                    prev = p.0;
                    d
                })
                .collect();
            json!(deltas)
        }
    }
}

/// `v` as a JSON number, whole numbers without the `.0` (`null` when not finite, which JSON
/// cannot hold).
fn number(v: f64) -> Value {
    // 2^53: every whole number up to it is exactly an i64 and back.
    if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// `v` rounded to `digits` significant digits.
fn round_significant(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let p = digits - 1 - v.abs().log10().floor() as i32;
    // Dividing by an exact power of ten (rather than multiplying by an inexact 10^-p) gives the
    // double nearest to the rounded decimal, which JSON then prints in its few digits.
    if p >= 0 {
        let m = 10f64.powi(p);
        (v * m).round() / m
    } else {
        let m = 10f64.powi(-p);
        (v / m).round() * m
    }
}

/// `v` as the text of a `<script type="application/json">` element: `<`, `>` and `&` as JSON
/// escapes, so that no string in it ("</script>", "<!--") can end the element or change how
/// the HTML parser reads it, and U+2028 and U+2029 escaped for readers that take the text for
/// JavaScript. Outside strings JSON has none of these characters, so the text parses to the
/// same value.
pub(super) fn script_json(v: &Value) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 64);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_text_cannot_end_its_element_and_parses_back() {
        let v = json!({"id": "</script><!-- a & b > c \u{2028}", "n": 1.5});
        let s = script_json(&v);
        assert!(
            !s.contains('<') && !s.contains('>') && !s.contains('&'),
            "{s}"
        );
        assert!(s.contains("\\u003c/script\\u003e\\u003c!--"));
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn run_indices_are_a_start_or_differences() {
        assert_eq!(run_indices(&[(3, 1.0), (4, 1.0), (5, 1.0)]), json!(3));
        assert_eq!(
            run_indices(&[(1, 1.0), (4, 1.0), (5, 1.0)]),
            json!([1, 3, 1])
        );
        assert_eq!(run_indices(&[(7, 1.0)]), json!(7));
        assert_eq!(run_indices(&[]), json!([]));
    }

    #[test]
    fn numbers_are_short_and_noisy_ones_rounded() {
        assert_eq!(number(1000.0).to_string(), "1000");
        assert_eq!(number(12.25).to_string(), "12.25");
        assert_eq!(number(f64::INFINITY), Value::Null);
        assert_eq!(number(f64::NAN), Value::Null);
        let r = |v| number(round_significant(v, 6)).to_string();
        assert_eq!(r(123.456_789_123), "123.457");
        assert_eq!(r(0.000_123_456_789), "0.000123457");
        assert_eq!(r(1_234_567_890.0), "1234570000");
        assert_eq!(r(0.0), "0");
    }
}
