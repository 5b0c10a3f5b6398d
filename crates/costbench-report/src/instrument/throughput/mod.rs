//! The throughput instrument's slice of the reports: service scenarios under load (the rows
//! `SCENARIO@Nc` of `--instrument throughput`, one per scenario and number of clients). Those
//! rows have none of the per-op figures of a run's table (a scenario's per-request costs are on
//! its `_client` and `_server` rows), so they are rows of its own ([`is_load_row`]): the run's
//! terminal table, the HTML overview and the scenario sections leave them out, and this slice
//! shows them in a section of the run's table after its results ([`terminal`]) and in a section
//! of the HTML page drawn from every build the page shows ([`html`]: latency percentile charts,
//! ops/s and latency per number of clients and build), which the overview points to. Here too
//! the spellings of its figures that both sections share ([`fmt_rate`], [`rate_cell`],
//! [`p99_cell`], [`load_label`]), and the threshold the markdown report's folded negligible
//! changes under load say they were within. Formats only: nothing here judges a change.

mod html;
mod terminal;

use super::{BuildsSection, OwnRows, Slice};
use costbench_record::fmt::{fmt_ir_grouped, fmt_ns};
use costbench_record::model::{ScenarioResult, Throughput};
use std::fmt::Write as _;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    own_rows: Some(OwnRows {
        is: is_load_row,
        terminal: terminal::section,
        overview_note,
    }),
    builds_html: Some(BuildsSection {
        anchor: "throughput",
        title: "Throughput",
        any: html::any,
        section: html::section,
    }),
    ..Slice::NONE
};

/// Whether `r` is a row of the throughput instrument (`SCENARIO@Nc`), measured or failed.
fn is_load_row(r: &ScenarioResult) -> bool {
    r.clients.is_some()
}

/// What the HTML overview says under its table when the run has `loads` rows under load.
fn overview_note(loads: usize) -> String {
    format!(
        "<p class=\"note\">Service scenarios under load ({loads} row{}, one per scenario and \
         number of clients): ops/s and latency in <a href=\"#throughput\">Throughput</a>.</p>",
        if loads == 1 { "" } else { "s" }
    )
}

/// Operations per second: whole and grouped from 1,000 up ("99,091"), a few decimals below.
fn fmt_rate(v: f64) -> String {
    fmt_ir_grouped(v)
}

/// "99,091 ops/s (95,968 – 102,317)": ops per second with the repeat interval where there is
/// one.
fn rate_cell(t: &Throughput) -> String {
    let mut s = format!("{} ops/s", fmt_rate(t.ops_per_sec));
    if let Some(i) = &t.ops_per_sec_repeat {
        let _ = write!(s, " ({} – {})", fmt_rate(i.low), fmt_rate(i.high));
    }
    s
}

/// "66.28 µs (59.66 µs – 72.91 µs)": the 99th percentile of latency with its repeat interval
/// where there is one.
fn p99_cell(t: &Throughput) -> String {
    let mut s = fmt_ns(t.latency.p99_ns);
    if let Some(i) = &t.p99_repeat {
        let _ = write!(s, " ({} – {})", fmt_ns(i.low), fmt_ns(i.high));
    }
    s
}

/// "closed loop", or "open loop at 20,000 ops/s" (the rate asked for).
fn load_label(t: &Throughput) -> String {
    match (t.load.as_str(), t.target_rate) {
        ("open", Some(rate)) => format!("open loop at {} ops/s", fmt_rate(rate)),
        (load, _) => format!("{load} loop"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::instrument::throughput::testing::load_row;

    #[test]
    fn cells_spell_rates_latencies_and_loads() {
        let r = load_row("s", 4, 99_091.4, 40_511.0);
        let t = r.throughput.as_ref().unwrap();
        assert_eq!(rate_cell(t), "99,091 ops/s (95,128 – 103,055)");
        assert_eq!(p99_cell(t), "121.5 µs (109.4 µs – 133.7 µs)");
        assert_eq!(load_label(t), "closed loop");
        let mut t = t.clone();
        t.load = "open".into();
        t.target_rate = Some(20_000.0);
        t.ops_per_sec_repeat = None;
        t.p99_repeat = None;
        t.ops_per_sec = 543.21;
        assert_eq!(load_label(&t), "open loop at 20,000 ops/s");
        assert_eq!(rate_cell(&t), "543.21 ops/s");
        assert_eq!(p99_cell(&t), "121.5 µs");
    }

    /// The markdown report folds negligible changes under load "within" the threshold they were
    /// judged against: the load threshold, not paired wall time's (it said 3 % before).
    #[test]
    fn negligible_changes_under_load_are_within_the_load_threshold() {
        use costbench_judge::compare::{compare, CompareOptions};
        use costbench_record::instrument::throughput::testing::with_throughput;
        use costbench_record::testing::{record, scenario};
        // Twelve rounds taking turns, sharing their wobble; the candidate 0.5 % slower.
        let base: Vec<f64> = (0..12).map(|k| 50_000.0 * (1.0 + 0.01 * (k % 4) as f64)).collect();
        let cand: Vec<f64> = base.iter().map(|o| o / 1.005).collect();
        let p99: Vec<f64> = vec![40_000.0; 12];
        let row = |ops: &[f64]| with_throughput(scenario("svc@2c"), 2, ops, &p99, Some("s"));
        let opts = CompareOptions {
            load_threshold_pct: 2.5,
            ..CompareOptions::default()
        };
        let c = compare(&record("b", vec![row(&base)]), &record("c", vec![row(&cand)]), &opts);
        let md = crate::markdown::comparison(&c);
        assert!(md.contains("negligible change"), "{md}");
        assert!(md.contains("(within 2.5 %)"), "{md}");
        assert!(!md.contains("(within 3 %)"), "{md}");
    }
}
