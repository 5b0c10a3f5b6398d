//! The history chart of one series (a measured id's metric, or the bench binary's size or
//! build time) with its caption: the band a change must leave and the runs that left it. Shared
//! by the scenario sections and the contracts section; renders only, the series comes judged.

use super::{short_commit, svg, History};
use costbench_record::fmt::{fmt_change, fmt_threshold};
use costbench_record::history::Metric;
use std::fmt::Write as _;

fn metric_title(m: Metric) -> &'static str {
    m.spec().chart_title
}

fn metric_fmt(m: Metric) -> fn(f64) -> String {
    m.spec().fmt_value
}

/// The chart of `h` in a `<figure>` with its caption.
pub(super) fn history_chart(page: &mut String, h: &History) {
    let (t, from, crossed) = (h.threshold_pct, h.threshold_from, &h.crossed);
    let fmt = metric_fmt(h.metric);
    let points: Vec<svg::HistoryPoint> = h
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let change = if i > 0 && h.points[i - 1].per_op > 0.0 {
                let prev = h.points[i - 1].per_op;
                format!(" ({})", fmt_change(100.0 * (p.per_op - prev) / prev))
            } else {
                String::new()
            };
            svg::HistoryPoint {
                value: p.per_op,
                title: format!(
                    "{} · {} · commit {} · {}{}",
                    p.run_id,
                    p.started_at,
                    p.commit.as_deref().map_or("-", short_commit),
                    fmt(p.per_op),
                    change
                ),
                crossed: crossed.contains(&i),
            }
        })
        .collect();
    let first = h.points.first().map_or("", |p| p.started_at.as_str());
    let last = h.points.last().map_or("", |p| p.started_at.as_str());
    let band = if t.is_finite() {
        format!("±{}", fmt_threshold(t))
    } else {
        "none".to_string()
    };
    let _ = write!(
        page,
        "<figure><figcaption>History of {} over {} runs; band: {band} around the previous run ({}); {} crossed it</figcaption>{}</figure>",
        metric_title(h.metric),
        h.points.len(),
        from,
        crossed.len(),
        // No band to draw without a threshold.
        svg::history(&points, if t.is_finite() { t } else { 0.0 }, first, last, fmt)
    );
}
