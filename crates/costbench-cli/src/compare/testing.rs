//! Run records built in code, for the tests of `compare` and of the comparison reports. Test-only.

use super::bootstrap::SplitMix64;
use crate::model::{
    Environment, Failure, Git, Host, Icount, RunRecord, ScenarioResult, Settings, SuiteInfo, Tool,
    Walltime, SCHEMA, SCHEMA_VERSION,
};
use crate::stats::summarize;

/// A run record holding `results`, labelled `run_id`.
pub fn record(run_id: &str, results: Vec<ScenarioResult>) -> RunRecord {
    RunRecord {
        schema: SCHEMA.into(),
        schema_version: SCHEMA_VERSION,
        run_id: run_id.into(),
        started_at: "2025-01-01T00:00:00Z".into(),
        finished_at: Some("2025-01-01T00:01:00Z".into()),
        tool: Tool {
            name: "costbench".into(),
            version: "0.1.0".into(),
            protocol: 1,
        },
        suite: SuiteInfo {
            package: "suite".into(),
            bench: "bench".into(),
            library_version: "0.1.0".into(),
        },
        variant: "release".into(),
        environment: Environment {
            rustc: None,
            valgrind: None,
            host: Host {
                cpu: None,
                cores: 1,
                os: None,
                kernel: None,
                arch: "x86_64".into(),
            },
            git: Some(Git {
                commit: format!("{run_id}0123456789abcdef"),
                branch: Some("main".into()),
                dirty: false,
            }),
        },
        settings: Settings {
            instruments: vec!["icount".into(), "walltime".into()],
            filter: None,
            jobs: 1,
            timeout_secs: 60,
            samples: None,
            walltime_cpu: None,
            code_align: None,
        },
        skipped: vec![],
        harness_residual_ir: None,
        results,
    }
}

/// A scenario of one op per run ("op"), with no figures yet.
pub fn scenario(id: &str) -> ScenarioResult {
    ScenarioResult {
        id: id.into(),
        scenario: id.into(),
        party: None,
        ops: 1,
        unit: "op".into(),
        icount: None,
        walltime: None,
        counters: Default::default(),
        census: None,
        failures: vec![],
    }
}

pub fn with_ops(mut r: ScenarioResult, ops: u64, unit: &str) -> ScenarioResult {
    r.ops = ops;
    r.unit = unit.into();
    r
}

pub fn with_icount(mut r: ScenarioResult, ir_per_op: f64) -> ScenarioResult {
    r.icount = Some(Icount {
        ir: (ir_per_op * r.ops as f64).round() as u64,
        ir_per_op,
        callgrind_out: format!("callgrind/{}.out", r.id),
        placement: None,
    });
    r
}

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
    });
    r
}

pub fn with_failure(mut r: ScenarioResult, instrument: &str, kind: &str) -> ScenarioResult {
    r.failures.push(Failure {
        instrument: instrument.into(),
        kind: kind.into(),
        message: format!("{instrument} {kind}\nsecond line"),
        stderr_tail: String::new(),
    });
    r
}

/// `n` samples uniform in `center * (1 ± spread)`, from their own generator: deterministic noise.
pub fn noisy(center: f64, spread: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| center * (1.0 + spread * (2.0 * rng.unit_f64() - 1.0)))
        .collect()
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
    w.paired = Some(crate::model::Paired {
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

/// Baseline and candidate round figures whose per-round log ratios are `ln(ratio) + e_k` for
/// the given wobble `e`, around a baseline drifting between rounds.
pub fn rounds_pair(ratio: f64, wobble: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let base: Vec<f64> = (0..wobble.len())
        .map(|k| 100.0 * (1.0 + 0.2 * ((k % 3) as f64)))
        .collect();
    let cand = base
        .iter()
        .zip(wobble)
        .map(|(b, e)| b * ratio * e.exp())
        .collect();
    (base, cand)
}
