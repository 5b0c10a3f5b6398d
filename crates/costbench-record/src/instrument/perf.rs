//! Hardware counters' slice of the run record: a result has its figure when it has counters.

use super::slice::Slice;
use crate::csv::CounterRow;
use crate::model::ScenarioResult;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.perf.is_some()),
    counters_csv: Some(counters_csv),
    #[cfg(any(test, feature = "testing"))]
    sample: Some(sample),
    ..Slice::NONE
};

/// Its lines of `counters.csv`: every counter (its total scaled for multiplexing) and the IPC.
fn counters_csv(r: &ScenarioResult) -> Vec<CounterRow> {
    let Some(p) = &r.counters.perf else {
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
    use crate::model::{Perf, PerfCounter, Skipped};
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
