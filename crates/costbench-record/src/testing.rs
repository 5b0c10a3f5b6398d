//! Run records built in code, and the snapshot assertion, for the tests of this crate and of the
//! crates above it (which enable the `testing` feature in their dev-dependencies). Test-only.
//! An instrument's figures for tests are built in its slice (`instrument::NAME::testing`).
//! Comparisons and variant matrices built in code are `costbench_judge::testing`'s.

use crate::model::{
    Environment, Failure, Git, Host, RunRecord, ScenarioResult, Settings, SuiteInfo, Tool,
};

// The figures of instruments, built in their slices: re-exported here, where the tests of every
// crate have taken them from.
pub use crate::instrument::icount::testing::with_icount;
pub use crate::instrument::walltime::testing::{with_rounds, with_walltime};

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
