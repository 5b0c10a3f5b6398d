//! The cache simulation's slice of the run record: a result has its figure when it has
//! simulated counters;
//! its compared figure and history series are the estimated cycles per op.

use super::slice::Slice;
use super::{Figure, FigureSpec, Judged, Metric, MetricSpec, Steps};
use crate::fmt::fmt_ir;
use crate::model::ScenarioResult;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.cache.is_some()),
    memory_csv: &[],
    figures: &[FigureSpec {
        figure: Figure::Cache,
        evidence: "simulated cycles (exact)",
        name: "cache",
        title: "Estimated cycles (simulated)",
        short_title: "est. cycles",
        unit: Some("cycles"),
        judged: Judged::Exact,
        history: Some(Metric::Cycles),
        fmt_value: |v| format!("{} cyc (sim)", fmt_ir(v)),
        per_op: cycles,
    }],
    metrics: &[MetricSpec {
        metric: Metric::Cycles,
        title: "estimated cycles/op (simulated)",
        chart_title: "estimated cycles per op (simulated)",
        unit: "cycles/op",
        fmt_value: fmt_ir,
        with_unit: |v| format!("{} cycles", fmt_ir(v)),
        steps: Steps::Exact,
        name: "cache_cycles",
        arg: "cycles",
        help: "Simulated estimated cycles per op (--instrument cache)",
        per_op: cycles,
    }],
    findings: None,
};

/// Simulated estimated cycles per op, if simulated.
fn cycles(r: &ScenarioResult) -> Option<f64> {
    r.counters.cache.as_ref()?.per_op.get("EstimatedCycles").copied()
}
