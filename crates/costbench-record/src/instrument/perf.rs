//! Hardware counters' slice of the run record: its figure ([`Perf`], the key `perf` of a
//! result), whether a result has it, and its lines of `counters.csv`. It has no compared figure
//! and no history metric (its registry entry lists none).

use super::slice::Slice;
use crate::csv::CounterRow;
use crate::model::ScenarioResult;
use serde::{Deserialize, Serialize};

/// Hardware counters of one run of the body, scaled for multiplexing.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Perf {
    /// The counters read, in the order they were asked for.
    pub counters: Vec<PerfCounter>,
    /// instructions / cycles, when both were counted.
    pub ipc: Option<f64>,
    /// Counters the kernel refused, with its reason.
    pub unavailable: Vec<String>,
}

/// One hardware counter of one run of the body.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PerfCounter {
    /// The event's name (`instructions`, `cycles`, `branch-misses` ...).
    pub name: String,
    /// What the counter read.
    pub raw: u64,
    /// Nanoseconds the counter was enabled.
    pub time_enabled_ns: u64,
    /// Nanoseconds the counter was actually counting (less than enabled when multiplexed).
    pub time_running_ns: u64,
    /// `raw × time_enabled / time_running`: the estimate for the whole run when the kernel
    /// multiplexed the counter (equal to `raw` when it ran all the time).
    pub scaled: f64,
    /// `scaled` divided by the scenario's ops.
    pub per_op: f64,
    /// `time_running / time_enabled` (1 when not multiplexed).
    pub running_fraction: f64,
}

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| figure(r).is_some()),
    counters_csv: Some(counters_csv),
    #[cfg(any(test, feature = "testing"))]
    sample: Some(sample),
    ..Slice::NONE
};

/// The figure of a result, if it has one.
pub fn figure(r: &ScenarioResult) -> Option<&Perf> {
    r.counters.perf.as_ref()
}

/// Its lines of `counters.csv`: every counter (its total scaled for multiplexing) and the IPC.
fn counters_csv(r: &ScenarioResult) -> Vec<CounterRow> {
    let Some(p) = figure(r) else {
        return Vec::new();
    };
    let mut lines: Vec<CounterRow> = p
        .counters
        .iter()
        .map(|c| {
            [
                "hardware".into(),
                c.name.clone(),
                c.scaled.to_string(),
                c.per_op.to_string(),
            ]
        })
        .collect();
    if let Some(ipc) = p.ipc {
        let ipc = ipc.to_string();
        lines.push(["hardware".into(), "ipc".into(), ipc.clone(), ipc]);
    }
    lines
}

/// Its figures in the fixtures' run of every figure: two counters on the first row, one
/// multiplexed, and one the kernel refused; and the skip of a machine that refuses them all.
#[cfg(any(test, feature = "testing"))]
fn sample(run: &mut crate::model::RunRecord) {
    use crate::model::Skipped;
    run.results[0].counters.perf = Some(Perf {
        counters: vec![
            PerfCounter {
                name: "cycles".into(),
                raw: 3_000_000,
                time_enabled_ns: 1000,
                time_running_ns: 1000,
                scaled: 3_000_000.0,
                per_op: 3000.0,
                running_fraction: 1.0,
            },
            PerfCounter {
                name: "branch-misses".into(),
                raw: 5,
                time_enabled_ns: 1000,
                time_running_ns: 500,
                scaled: 10.0,
                per_op: 0.01,
                running_fraction: 0.5,
            },
        ],
        ipc: Some(0.667),
        unavailable: vec!["L1-icache-load-misses: not supported by this CPU".into()],
    });
    run.skipped.push(Skipped {
        instrument: "perf".into(),
        reason: "perf_event_paranoid is 3".into(),
    });
}
