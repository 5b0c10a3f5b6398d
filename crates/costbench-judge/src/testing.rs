//! Comparisons and variant matrices built in code, and deterministic noise, for the tests of
//! this crate and of the crates above it (behind the `testing` feature). Test-only.
//!
//! Run records built in code and the snapshot assertion are `costbench_record::testing`'s: the
//! fixtures here are built from those, and no crate builds its own copy of either kind.

use crate::compare::{self, CompareOptions, Comparison, FunctionChanges, FunctionDelta};
use crate::instrument::walltime::bootstrap::SplitMix64;
use crate::variants::{matrix, Column, Matrix};
use costbench_record::instrument::throughput::testing::with_throughput;
use costbench_record::model::{Icount, RunRecord, ScenarioResult};
use costbench_record::testing::{
    record, rounds_pair, scenario, with_failure, with_icount, with_ops, with_rounds, with_walltime,
};
use costbench_record::variant::Variant;

/// The one row of `c` that compares `inst`; fails the test unless there is exactly one.
pub fn only_row(c: &Comparison, inst: costbench_record::instrument::Figure) -> &compare::Row {
    let rows: Vec<&compare::Row> = c.rows.iter().filter(|r| r.instrument == inst).collect();
    assert_eq!(rows.len(), 1, "{:#?}", c.rows);
    rows[0]
}

/// `n` samples uniform in `center * (1 ± spread)`, from their own generator: deterministic noise.
pub fn noisy(center: f64, spread: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| center * (1.0 + spread * (2.0 * rng.unit_f64() - 1.0)))
        .collect()
}

/// A run of two scenarios with wall time drawn from `seed`: `slower`, 1,000 instructions and
/// 100 ns per op times `slow`, and `same`, 500 instructions and 50 ns. Two of them with `slow` 1
/// and 1.2 are a baseline and a candidate with one significant change.
pub fn one_slower(id: &str, slow: f64, seed: u64) -> RunRecord {
    record(
        id,
        vec![
            with_walltime(
                with_icount(scenario("slower"), 1000.0 * slow),
                &noisy(100.0 * slow, 0.01, 30, seed),
            ),
            with_walltime(
                with_icount(scenario("same"), 500.0),
                &noisy(50.0, 0.01, 30, seed + 1),
            ),
        ],
    )
}

/// A comparison with a row of every verdict the reports render: instruction-count regressions
/// and improvements (one with a changed unit), an unchanged row, interleaved wall time judged by
/// its paired interval, separate-run wall time left unresolved, missing, new and failed
/// scenarios, and the functions behind a change. For the snapshots of the comparison reports.
pub fn every_verdict() -> Comparison {
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
    let mut c = compare::compare(&base, &cand, &CompareOptions::default());
    c.functions.push(FunctionChanges {
        id: "slow".into(),
        top: vec![
            FunctionDelta {
                name: "core::slice::sort".into(),
                base_self: 400.0,
                cand_self: 1_200_000.5,
                base_inclusive: 600.0,
                cand_inclusive: 1_230_000.0,
                base_calls: 1.0,
                cand_calls: 1.0,
                share: Some(1.000_004_17),
                presence: compare::Presence::Both,
            },
            FunctionDelta {
                name: "alloc::vec::Vec<T>::push".into(),
                base_self: 5.5,
                cand_self: 0.0,
                base_inclusive: 5.5,
                cand_inclusive: 0.0,
                base_calls: 2.0,
                cand_calls: 0.0,
                share: Some(-0.000_004_58),
                presence: compare::Presence::BaselineOnly,
            },
        ],
        change: 1_199_595.5,
        omitted: Some(compare::Omitted {
            functions: 3,
            change: 0.5,
        }),
        unavailable: None,
        placement_note: Some("code moved".into()),
        inlining_note: None,
        codegen_note: None,
    });
    c
}

/// A run of `variant` with instruction counts (`(id, Ir)`, 10 ops per run).
pub fn variant_record(variant: &str, figures: &[(&str, u64)]) -> RunRecord {
    let results = figures
        .iter()
        .map(|(id, ir)| ScenarioResult {
            icount: Some(Icount {
                ir: *ir,
                ir_per_op: *ir as f64 / 10.0,
                callgrind_out: String::new(),
                placement: None,
            }),
            ..ScenarioResult::empty(*id, *id, None, 10, "ops")
        })
        .collect();
    let mut r = record(variant, results);
    r.variant = variant.to_string();
    r
}

/// A column that built, with no run yet.
pub fn column(name: &str) -> Column {
    Column {
        name: name.into(),
        settings: name.into(),
        spec: Variant::plain(name),
        build: None,
        binary: None,
        build_error: None,
        run_id: None,
        output_dir: None,
    }
}

/// Instruction counts of "base", "oc" (a +10 %), a variant that did not build, and "fast"
/// (a −50 %).
pub fn ratios() -> Matrix {
    let recs = [
        variant_record("base", &[("a", 1000), ("b", 2000)]),
        variant_record("oc", &[("a", 1100), ("b", 2001)]),
        variant_record("fast", &[("a", 500), ("b", 2000)]),
    ];
    let mut broken = column("broken");
    broken.build_error = Some("error[E0425]: cannot find value `x`".into());
    let cols = vec![column("base"), column("oc"), broken, column("fast")];
    matrix("base", cols, &recs, &CompareOptions::default())
}

/// A service's two parties with instruction counts and its load row with throughput, in
/// "base" and "slow" (whose load rounds are 10 % slower): rows of two kinds.
pub fn service() -> Matrix {
    let side = |variant: &str, f: f64| {
        let mut r = variant_record(variant, &[("svc_client", 1000), ("svc_server", 2000)]);
        let ops: Vec<f64> = (0..10)
            .map(|k| 1000.0 * f * (1.0 + 0.01 * k as f64))
            .collect();
        let p99: Vec<f64> = (0..10)
            .map(|k| 50_000.0 * (1.0 + 0.01 * k as f64))
            .collect();
        r.results.push(with_throughput(
            scenario("svc@4c"),
            4,
            &ops,
            &p99,
            Some("s"),
        ));
        r
    };
    let recs = [side("base", 1.0), side("slow", 1.0 / 1.1)];
    matrix(
        "base",
        vec![column("base"), column("slow")],
        &recs,
        &CompareOptions::default(),
    )
}

/// Wall time of "base" and "s1" in paired rounds (issue 13).
pub fn marks() -> Matrix {
    // Issue 13: two variants are two binaries. "moved": the same instructions, 7 % slower
    // (a link-order shuffle does that); "wide": rounds spread ±14 %; "real": 20 % more
    // instructions and 20 % slower.
    let tight: Vec<f64> = (0..12).map(|k| 0.0005 * (k % 5) as f64).collect();
    let wide: Vec<f64> = (0..12).map(|k| 0.06 * ((k % 5) as f64 - 2.0)).collect();
    let side = |variant: &str, pick: usize| {
        let v = |ratio: f64, w: &[f64]| {
            let (b, c) = rounds_pair(ratio, w);
            if pick == 0 {
                b
            } else {
                c
            }
        };
        let ir = |x: f64| if pick == 0 { x } else { x * 1.2 };
        let mut r = record(
            variant,
            vec![
                with_rounds(
                    with_icount(scenario("moved"), 100.0),
                    &v(1.07, &tight),
                    true,
                    1,
                ),
                with_rounds(
                    with_icount(scenario("wide"), 100.0),
                    &v(1.02, &wide),
                    true,
                    1,
                ),
                with_rounds(
                    with_icount(scenario("real"), ir(100.0)),
                    &v(1.2, &tight),
                    true,
                    1,
                ),
            ],
        );
        r.variant = variant.into();
        r
    };
    let recs = [side("base", 0), side("s1", 1)];
    matrix(
        "base",
        vec![column("base"), column("s1")],
        &recs,
        &CompareOptions::default(),
    )
}

/// Scenario `id`'s function changes with `names` as its movers, in that order: each on both
/// sides, its own cost from 1 to 2 per op, called once.
pub fn movers(id: &str, names: &[&str]) -> FunctionChanges {
    let mover = |name: &str| FunctionDelta {
        name: name.into(),
        base_self: 1.0,
        cand_self: 2.0,
        base_inclusive: 1.0,
        cand_inclusive: 2.0,
        base_calls: 1.0,
        cand_calls: 1.0,
        share: None,
        presence: compare::Presence::Both,
    };
    FunctionChanges {
        id: id.into(),
        top: names.iter().map(|n| mover(n)).collect(),
        change: names.len() as f64,
        omitted: None,
        unavailable: None,
        placement_note: None,
        inlining_note: None,
        codegen_note: None,
    }
}
