//! Wall time's slice of the run record: a result has its figure when it has a wall time;
//! its compared figure and history series are the median per op, and its paired step a series.

use super::slice::Slice;
use super::{Figure, FigureSpec, Judged, Metric, MetricSpec, Steps};
use crate::fmt::fmt_ns;
use crate::model::ScenarioResult;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.walltime.is_some()),
    memory_csv: &[],
    figures: &[FigureSpec {
        figure: Figure::Walltime,
        evidence: "one figure per run",
        name: "walltime",
        title: "Wall time",
        short_title: "time",
        unit: None,
        judged: Judged::Walltime,
        history: Some(Metric::Walltime),
        fmt_value: fmt_ns,
        per_op: median,
    }],
    metrics: &[
        MetricSpec {
            metric: Metric::Walltime,
            title: "time/op (median)",
            chart_title: "median time per op",
            unit: "ns/op",
            fmt_value: fmt_ns,
            with_unit: fmt_ns,
            steps: Steps::Scattered,
            name: "walltime",
            arg: "walltime",
            help: "Median wall time per op",
            per_op: median,
        },
        MetricSpec {
            metric: Metric::WalltimeStep,
            title: "time/op over the previous measured commit's (paired)",
            chart_title: "time per op over the previous measured commit's (paired)",
            unit: "× previous commit",
            fmt_value: |v| format!("×{v:.3}"),
            with_unit: |v| format!("×{v:.3}"),
            steps: Steps::Paired,
            name: "walltime_step",
            arg: "walltime-step",
            help: "Wall time over the previous measured commit's, paired (history backfill): 1 where no change was resolved",
            per_op: |r| {
                let s = r.walltime.as_ref()?.step.as_ref()?;
                Some(if s.resolved() { s.ratio } else { 1.0 })
            },
        },
    ],
    findings: None,
};

/// The median wall time per op, if timed.
fn median(r: &ScenarioResult) -> Option<f64> {
    r.walltime.as_ref().map(|w| w.ns_per_op.median)
}
