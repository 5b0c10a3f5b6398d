//! The history line chart of one figure over past runs, with its significance band.

use super::scale::{Scale, W};
use crate::html::escape::escape;
use std::fmt::Write as _;

/// One run's value in a history chart.
#[derive(Debug)]
pub struct HistoryPoint {
    /// The per-op value.
    pub value: f64,
    /// Tooltip: run, commit, value, change (untrusted parts included; escaped here).
    pub title: String,
    /// The change from the previous run is beyond the threshold.
    pub crossed: bool,
}

/// A line through the runs' values, oldest left, with the band of ±`threshold_pct` around each
/// previous value shaded: a point outside the band moved significantly, and is drawn as a
/// larger, marked dot.
pub fn history(
    points: &[HistoryPoint],
    threshold_pct: f64,
    first_label: &str,
    last_label: &str,
    fmt: fn(f64) -> String,
) -> String {
    let (left, right, top, h) = (90.0, 20.0, 10.0, 190.0);
    let bottom = h - 30.0;
    let t = threshold_pct / 100.0;
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for (i, p) in points.iter().enumerate() {
        lo = lo.min(p.value);
        hi = hi.max(p.value);
        if i > 0 {
            let prev = points[i - 1].value;
            lo = lo.min((prev * (1.0 - t)).max(0.0));
            hi = hi.max(prev * (1.0 + t));
        }
    }
    // At least ±0.5 % around the values: a count that never moved is a flat line in a thin
    // band, not a line in a band filling the chart, with axis labels that all read the same.
    let mid = (lo + hi) / 2.0;
    if hi - lo < 0.01 * mid.abs() {
        lo = mid - 0.005 * mid.abs();
        hi = mid + 0.005 * mid.abs();
    }
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" data-chart="history" data-series="1" data-points="{}" data-crossed="{}" viewBox="0 0 {W} {h}" role="img" xmlns="http://www.w3.org/2000/svg">"#,
        points.len(),
        points.iter().filter(|p| p.crossed).count()
    );
    if points.is_empty() {
        s.push_str("</svg>");
        return s;
    }
    let y = Scale::new(lo, hi, bottom, top);
    let n = points.len();
    let xs = |i: usize| {
        if n == 1 {
            (left + W - right) / 2.0
        } else {
            left + (W - right - left) * i as f64 / (n - 1) as f64
        }
    };
    let mut prev_label = String::new();
    for tk in y.ticks() {
        let py = y.at(tk);
        let label = fmt(tk);
        if label == prev_label {
            continue;
        }
        prev_label.clone_from(&label);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{left}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            W - right,
            left - 6.0,
            py + 4.0,
            escape(&label)
        );
    }
    if n > 1 {
        let mut band = String::new();
        for i in 1..n {
            let _ = write!(
                band,
                "{:.1},{:.1} ",
                xs(i),
                y.at(points[i - 1].value * (1.0 + t))
            );
        }
        for i in (1..n).rev() {
            let _ = write!(
                band,
                "{:.1},{:.1} ",
                xs(i),
                y.at((points[i - 1].value * (1.0 - t)).max(0.0))
            );
        }
        let _ = write!(
            s,
            r#"<polygon class="band" points="{}"><title>±{threshold_pct} % around the previous run</title></polygon>"#,
            band.trim_end()
        );
    }
    let line: Vec<String> = (0..n)
        .map(|i| format!("{:.1},{:.1}", xs(i), y.at(points[i].value)))
        .collect();
    let _ = write!(
        s,
        r#"<polyline class="series s0 line" points="{}"/>"#,
        line.join(" ")
    );
    for (i, p) in points.iter().enumerate() {
        let _ = write!(
            s,
            r#"<circle class="{}" cx="{:.1}" cy="{:.1}" r="{}"><title>{}</title></circle>"#,
            if p.crossed { "point crossed" } else { "point" },
            xs(i),
            y.at(p.value),
            if p.crossed { 5 } else { 3 },
            escape(&p.title)
        );
    }
    let _ = write!(
        s,
        r#"<text class="tick" x="{left}" y="{:.1}">{}</text><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
        h - 8.0,
        escape(first_label),
        W - right,
        h - 8.0,
        escape(last_label)
    );
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(v: f64) -> String {
        format!("{v}")
    }

    #[test]
    fn history_marks_points_outside_the_band() {
        let p = |v: f64, crossed| HistoryPoint {
            value: v,
            title: format!("v {v}"),
            crossed,
        };
        let svg = history(
            &[p(100.0, false), p(100.1, false), p(120.0, true)],
            5.0,
            "first",
            "last",
            fmt,
        );
        assert!(svg.contains(r#"data-points="3" data-crossed="1""#), "{svg}");
        assert_eq!(svg.matches(r#"class="point crossed""#).count(), 1);
        assert_eq!(svg.matches("<polygon").count(), 1);
        assert_eq!(svg.matches("<polyline").count(), 1);
    }
}
