//! Run records built in code, and the snapshot assertion, for the tests of this crate and of the
//! crates above it (which enable the `testing` feature in their dev-dependencies). Test-only.
//! Comparisons and variant matrices built in code are `costbench_judge::testing`'s.

use crate::model::{
    Environment, Failure, Git, Host, Icount, RunRecord, ScenarioResult, Settings, SuiteInfo, Tool,
    Walltime,
};
use crate::stats::summarize;

/// A run record holding `results`, labelled `run_id`.
pub fn record(run_id: &str, results: Vec<ScenarioResult>) -> RunRecord {
    let mut run = RunRecord::new(
        run_id.into(),
        "2025-01-01T00:00:00Z".into(),
        Tool {
            name: "costbench".into(),
            version: "0.1.0".into(),
            protocol: 1,
        },
        SuiteInfo {
            package: "suite".into(),
            bench: "bench".into(),
            library_version: "0.1.0".into(),
        },
        Environment {
            rustc: None,
            valgrind: None,
            host: Host {
                name: None,
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
                ..Default::default()
            }),
        },
        Settings {
            instruments: vec!["icount".into(), "walltime".into()],
            filter: None,
            jobs: 1,
            timeout_secs: 60,
            samples: None,
            walltime_cpu: None,
            code_align: None,
            features: Vec::new(),
            all_features: false,
            no_default_features: false,
            profile: None,
        },
        results,
    );
    run.finished_at = Some("2025-01-01T00:01:00Z".into());
    run.variant = "release".into();
    run
}

/// A scenario of one op per run ("op"), with no figures yet.
pub fn scenario(id: &str) -> ScenarioResult {
    ScenarioResult::empty(id, id, None, 1, "op")
}

/// `r` measuring `ops` ops, what one op is named `unit`.
pub fn with_ops(mut r: ScenarioResult, ops: u64, unit: &str) -> ScenarioResult {
    r.ops = ops;
    r.unit = unit.into();
    r
}

/// `r` with an instruction count of `ir_per_op` per op (its callgrind output named after the id).
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
        step: None,
    });
    r
}

/// `r` with a failure of `instrument` of `kind`, with a two-line message.
pub fn with_failure(mut r: ScenarioResult, instrument: &str, kind: &str) -> ScenarioResult {
    r.failures.push(Failure {
        instrument: instrument.into(),
        kind: kind.into(),
        message: format!("{instrument} {kind}\nsecond line"),
        stderr_tail: String::new(),
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

/// Compares `got` with the committed snapshot `src/snapshots/NAME.txt` of the crate whose test
/// calls it, byte for byte, so that a change to a report's output shows as a reviewed diff of
/// that file. `COSTBENCH_BLESS=1` (re)writes the snapshot instead. A macro so that the snapshot
/// directory is the calling crate's, not this one's.
#[macro_export]
macro_rules! assert_snapshot {
    ($name:expr, $got:expr $(,)?) => {
        $crate::testing::assert_snapshot_in(
            ::std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
            $name,
            $got,
        )
    };
}
pub use crate::assert_snapshot;

/// [`assert_snapshot!`] for the crate whose manifest is in `manifest_dir`.
pub fn assert_snapshot_in(manifest_dir: &std::path::Path, name: &str, got: &str) {
    let path = manifest_dir
        .join("src/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("COSTBENCH_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("a snapshot has a directory"))
            .expect("creating the snapshot directory");
        std::fs::write(&path, got).expect("writing the snapshot");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (COSTBENCH_BLESS=1 writes it from this output:\n{got})",
            path.display()
        )
    });
    assert!(
        got == want,
        "output differs from {}\n--- got\n{got}\n--- want\n{want}",
        path.display()
    );
}

/// A run with a figure of every kind the run reports show, for the snapshots of the run table
/// and the CSV files: four rows (two scenarios of 1000 elements, one of 3 calls, one of one op)
/// and the harness residual, where each instrument's slice sets its figures and what else of
/// the run they show, a failure with its stderr tail or a skipped instrument
/// ([`Slice::sample`](crate::instrument::Slice::sample); each slice's says what it sets).
pub fn every_figure() -> RunRecord {
    let rows = vec![
        with_ops(scenario("index/sum/checked"), 1000, "elements"),
        with_ops(scenario("index/sum/unchecked"), 1000, "elements"),
        with_ops(scenario("µs/tiny"), 3, "calls"),
        scenario("parse/broken"),
    ];
    let mut run = record("every", rows);
    run.harness_residual_ir = Some(123);
    for i in crate::instrument::Instrument::ALL {
        if let Some(sample) = i.slice().sample {
            sample(&mut run);
        }
    }
    run
}

/// One point of a history series from run `run`, its commit carrying a `</title>` that the HTML
/// page must show as text: the history charts' fixture.
pub fn series_point(run: &str, per_op: f64) -> crate::history::SeriesPoint {
    crate::history::SeriesPoint {
        run_id: run.into(),
        started_at: format!("2026-01-01T00:00:{run}Z"),
        commit: Some(format!("{run}</title>")),
        per_op,
    }
}

/// The machine code of a function `f` whose instructions are `insns` (text, executions), 4
/// bytes apart from offset 0, all at `src/lib.rs:7`, with counts.
pub fn asm_listing(insns: &[(&str, u64)]) -> crate::asm::Listing {
    crate::asm::Listing {
        function: "f".into(),
        insns: insns
            .iter()
            .enumerate()
            .map(|(i, &(text, executions))| crate::asm::AsmInsn {
                offset: 4 * i as u64,
                text: text.into(),
                executions,
                file: Some("src/lib.rs".into()),
                line: Some(7),
            })
            .collect(),
        counted: true,
    }
}
