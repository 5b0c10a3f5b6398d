//! The cache simulation's slice of the run record: its figure ([`CacheSim`], the key `cache` of
//! a result) and the events the reports show of it ([`ROWS`]), whether a result has it, its
//! lines of `counters.csv`; its compared figure and history series are the estimated cycles
//! per op.

use super::slice::Slice;
use super::{Figure, FigureSpec, Judged, Metric, MetricSpec, Steps};
use crate::csv::CounterRow;
use crate::fmt::fmt_ir;
use crate::model::ScenarioResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The events of [`CacheSim`] that the counters table shows: (event key, label), in display
/// order.
pub const ROWS: &[(&str, &str)] = &[
    ("Ir", "instructions"),
    ("Dr", "data reads"),
    ("Dw", "data writes"),
    ("I1mr", "I1 misses"),
    ("D1mr", "D1 read misses"),
    ("D1mw", "D1 write misses"),
    ("ILmr", "LL instr misses"),
    ("DLmr", "LL read misses"),
    ("DLmw", "LL write misses"),
    ("Bc", "cond. branches"),
    ("Bcm", "cond. mispredicts"),
    ("Bi", "indirect branches"),
    ("Bim", "indirect mispredicts"),
    ("L1hits", "L1 hits"),
    ("LLhits", "LL hits"),
    ("RAMhits", "RAM accesses"),
    ("EstimatedCycles", "est. cycles"),
];

/// Simulated counters of one run of the body (valgrind's cache and branch model, not the host's
/// caches): the raw events and the derived figures, totals and per op.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheSim {
    /// Always `true`: a reminder in the record that these figures come from a model.
    pub simulated: bool,
    /// Callgrind's events for the run (`Ir`, `Dr`, `Dw`, `I1mr`, `D1mr`, `D1mw`, `ILmr`, `DLmr`,
    /// `DLmw`, `Bc`, `Bcm`, `Bi`, `Bim`) and the derived `L1hits`, `LLhits`, `RAMhits`,
    /// `EstimatedCycles`.
    pub totals: BTreeMap<String, u64>,
    /// `totals` divided by the scenario's ops.
    pub per_op: BTreeMap<String, f64>,
    /// Callgrind's output for this id, relative to the output directory.
    pub callgrind_out: String,
}

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| figure(r).is_some()),
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

/// The figure of a result, if it has one.
pub fn figure(r: &ScenarioResult) -> Option<&CacheSim> {
    r.counters.cache.as_ref()
}

/// Simulated estimated cycles per op, if simulated.
fn cycles(r: &ScenarioResult) -> Option<f64> {
    figure(r)?.per_op.get("EstimatedCycles").copied()
}

/// Its lines of `counters.csv`: every simulated counter, total and per op.
fn counters_csv(r: &ScenarioResult) -> Vec<CounterRow> {
    let Some(c) = figure(r) else {
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
    let per_op: BTreeMap<String, f64> = ROWS
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
