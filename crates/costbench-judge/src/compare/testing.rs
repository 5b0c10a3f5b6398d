//! Comparisons built in code, and deterministic noise, for the tests of `compare` and of the
//! comparison reports; everything of `costbench_record::testing` (run records built in code,
//! the snapshot assertion) is re-exported here, so one import serves a test. Test-only: behind
//! the `testing` feature for the crates above this one.

pub use costbench_record::testing::*;

use crate::compare::bootstrap::SplitMix64;

/// `n` samples uniform in `center * (1 ± spread)`, from their own generator: deterministic noise.
pub fn noisy(center: f64, spread: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| center * (1.0 + spread * (2.0 * rng.unit_f64() - 1.0)))
        .collect()
}

/// A comparison with a row of every verdict the reports render: instruction-count regressions
/// and improvements (one with a changed unit), an unchanged row, interleaved wall time judged by
/// its paired interval, separate-run wall time left unresolved, missing, new and failed
/// scenarios, and the functions behind a change. For the snapshots of the comparison reports.
pub fn every_verdict() -> crate::compare::Comparison {
    let tight: Vec<f64> = (0..12).map(|k| 0.0005 * (k % 5) as f64).collect();
    let (base_rounds, cand_rounds) = rounds_pair(1.2, &tight);
    let base = record(
        "b",
        vec![
            with_icount(scenario("fast"), 1000.0),
            with_icount(scenario("slow"), 1000.0),
            with_icount(with_ops(scenario("unit"), 4, "bytes"), 52.25),
            with_icount(scenario("same"), 1000.0),
            with_icount(scenario("gone"), 10.0),
            with_rounds(scenario("paired"), &base_rounds, true, 1),
            with_walltime(scenario("apart/1"), &noisy(100.0, 0.01, 20, 1)),
            with_walltime(scenario("apart/2"), &noisy(200.0, 0.01, 20, 2)),
        ],
    );
    let cand = record(
        "c",
        vec![
            with_icount(scenario("fast"), 900.0),
            with_icount(scenario("slow"), 1_234_567.0),
            with_icount(with_ops(scenario("unit"), 4, "words"), 60.5),
            with_icount(scenario("same"), 1000.0),
            with_icount(scenario("new\u{1b}"), 10.0),
            with_failure(scenario("broken"), "icount", "panicked"),
            with_rounds(scenario("paired"), &cand_rounds, true, 1),
            with_walltime(scenario("apart/1"), &noisy(150.0, 0.01, 20, 1)),
            with_walltime(scenario("apart/2"), &noisy(300.0, 0.01, 20, 2)),
        ],
    );
    let mut c = crate::compare::compare(&base, &cand, &crate::compare::CompareOptions::default());
    c.functions
        .push(crate::compare::functions::FunctionChanges {
            id: "slow".into(),
            top: vec![
                crate::compare::functions::FunctionDelta {
                    name: "core::slice::sort".into(),
                    base_self: 400.0,
                    cand_self: 1_200_000.5,
                    base_inclusive: 600.0,
                    cand_inclusive: 1_230_000.0,
                },
                crate::compare::functions::FunctionDelta {
                    name: "alloc::vec::Vec<T>::push".into(),
                    base_self: 5.5,
                    cand_self: 0.25,
                    base_inclusive: 5.5,
                    cand_inclusive: 5.5,
                },
            ],
            unavailable: None,
            placement_note: Some("code moved".into()),
            inlining_note: None,
            codegen_note: None,
        });
    c
}
