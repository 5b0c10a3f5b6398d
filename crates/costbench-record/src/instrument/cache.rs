//! The cache simulation's slice of the run record: a result has its figure when it has
//! simulated counters;
//! its compared figure and history series are the estimated cycles per op.

use super::slice::Slice;
use super::{Figure, FigureSpec, Judged, Metric, MetricSpec, Steps};
use crate::csv::CounterRow;
use crate::fmt::fmt_ir;
use crate::model::ScenarioResult;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.cache.is_some()),
    counters_csv: Some(counters_csv),
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
    #[cfg(any(test, feature = "testing"))]
    sample: Some(sample),
    ..Slice::NONE
};

/// Simulated estimated cycles per op, if simulated.
fn cycles(r: &ScenarioResult) -> Option<f64> {
    r.counters.cache.as_ref()?.per_op.get("EstimatedCycles").copied()
}

/// Its lines of `counters.csv`: every simulated counter, total and per op.
fn counters_csv(r: &ScenarioResult) -> Vec<CounterRow> {
    let Some(c) = &r.counters.cache else {
        return Vec::new();
    };
    c.totals
        .iter()
        .map(|(k, v)| {
            [
                "simulated".into(),
                k.clone(),
                v.to_string(),
                c.per_op[k].to_string(),
            ]
        })
        .collect()
}

/// Its figures in the fixtures' run of every figure: every simulated counter, on the first row.
#[cfg(any(test, feature = "testing"))]
fn sample(run: &mut crate::model::RunRecord) {
    use crate::model::{CacheSim, CACHE_ROWS};
    let per_op: std::collections::BTreeMap<String, f64> = CACHE_ROWS
        .iter()
        .enumerate()
        .map(|(k, (key, _))| (key.to_string(), 1234.5 / (k as f64 + 1.0).powi(3)))
        .collect();
    run.results[0].counters.cache = Some(CacheSim {
        simulated: true,
        totals: per_op
            .iter()
            .map(|(k, v)| (k.clone(), (v * 1000.0).round() as u64))
            .collect(),
        per_op,
        callgrind_out: "callgrind-cache/index%2Fsum%2Fchecked.out".into(),
    });
}
