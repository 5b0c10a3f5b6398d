//! Wall-time figures built in code, for the tests of this crate and of the crates above it (the
//! `testing` feature; `crate::testing` re-exports them). Test-only.

use super::figure::{Paired, Walltime};
use crate::model::ScenarioResult;
use crate::stats::summarize;

/// Wall-time figures whose per-op samples are `per_op` (as the runner computes them).
pub fn with_walltime(mut r: ScenarioResult, per_op: &[f64]) -> ScenarioResult {
    let ops = r.ops as f64;
    r.walltime = Some(Walltime {
        clock: "monotonic".into(),
        samples: per_op.len(),
        iterations_per_sample: 1000,
        warmup_iterations: 100,
        clock_overhead_ns: 20.0,
        ns_per_op: summarize(per_op),
        iteration_ns: per_op.iter().map(|x| x * ops).collect(),
        paired: None,
        step: None,
    });
    r
}

/// Wall-time figures of one side of an interleaved session "session": one sample per round,
/// `round_min` per op (each round's fastest sample), `layouts` when every round ran its own
/// code layout, `looks` the session's looks at its interval.
pub fn with_rounds(
    r: ScenarioResult,
    round_min: &[f64],
    layouts: bool,
    looks: u32,
) -> ScenarioResult {
    let mut r = with_walltime(r, round_min);
    let w = r.walltime.as_mut().expect("set above");
    w.paired = Some(Paired {
        session: "session".into(),
        round_medians_ns_per_op: round_min.to_vec(),
        round_min_ns_per_op: round_min.to_vec(),
        round_samples: vec![1; round_min.len()],
        lockstep: true,
        round_layouts: if layouts {
            (1..=round_min.len() as u64).collect()
        } else {
            vec![]
        },
        layout_note: None,
        looks: (looks != 1).then_some(looks),
    });
    r
}
