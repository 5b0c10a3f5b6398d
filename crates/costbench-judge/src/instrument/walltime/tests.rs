//! Tests of [`compare`]'s wall-time and throughput verdicts: separate runs that need a
//! threshold from history, paired rounds of one session, the bootstrap, rows of different
//! machines. (The second pass over paired rows is tested in `rounds`; load rounds judged slice
//! by slice in `instrument::throughput`.)

use super::*;
use crate::compare::{compare, compare_with, noise, CompareOptions};
use crate::testing::*;
use costbench_record::model::RunRecord;
use costbench_record::testing::*;

fn opts() -> CompareOptions {
    CompareOptions::default()
}

#[test]
fn walltime_of_separate_runs_needs_history_threshold_and_interval() {
    // Issue 13: two separate runs are judged only against a threshold learned from history's
    // between-run changes (here set directly), and then only when the bootstrap interval also
    // excludes 1. A change beyond that threshold whose interval does not agree is unresolved
    // (it was "unchanged" before), and too few samples are unresolved too.
    use Verdict::*;
    struct Case {
        what: &'static str,
        base: Vec<f64>,
        cand: Vec<f64>,
        threshold: f64,
        verdict: Verdict,
        reason: &'static str,
    }
    let same = |seed| noisy(100.0, 0.10, 100, seed);
    let cases = [
        Case {
            what: "same distribution, ±10 % noise",
            base: same(1),
            cand: same(2),
            threshold: 5.0,
            verdict: Unchanged,
            reason: "within 5 % (history) threshold",
        },
        Case {
            what: "same distribution, interval alone decides",
            base: same(3),
            cand: same(4),
            threshold: 0.0,
            verdict: Unresolved,
            reason: "does not exclude 1",
        },
        Case {
            what: "+20 % with the same noise",
            base: same(5),
            cand: noisy(120.0, 0.10, 100, 6),
            threshold: 5.0,
            verdict: Regression,
            reason: "excludes 1",
        },
        Case {
            what: "-20 % with the same noise",
            base: same(7),
            cand: noisy(80.0, 0.10, 100, 8),
            threshold: 5.0,
            verdict: Improvement,
            reason: "excludes 1",
        },
        Case {
            what: "+3 %, clear but below the noise threshold",
            base: noisy(100.0, 0.005, 100, 9),
            cand: noisy(103.0, 0.005, 100, 10),
            threshold: 5.0,
            verdict: Unchanged,
            reason: "within 5 % (history) threshold",
        },
        Case {
            what: "+10 % hidden in ±60 % noise",
            base: noisy(100.0, 0.6, 10, 11),
            cand: noisy(110.0, 0.6, 10, 12),
            threshold: 5.0,
            verdict: Unresolved,
            reason: "does not exclude 1",
        },
        Case {
            what: "too few samples",
            base: vec![100.0; 3],
            cand: vec![150.0; 3],
            threshold: 5.0,
            verdict: Unresolved,
            reason: "too few samples to judge (3 and 3, need 5 each)",
        },
    ];
    for case in cases {
        let base = record("b", vec![with_walltime(scenario("s"), &case.base)]);
        let cand = record("c", vec![with_walltime(scenario("s"), &case.cand)]);
        let mut h = noise::HistoricThresholds::default();
        h.set("s", Figure::Walltime, case.threshold, 28);
        let cmp = compare_with(&base, &cand, &opts(), &h);
        let row = only_row(&cmp, Figure::Walltime);
        assert_eq!(row.verdict, case.verdict, "{}: {row:#?}", case.what);
        assert!(row.reason.contains(case.reason), "{}: {row:#?}", case.what);
        assert_eq!(
            row.evidence,
            "separate runs: between-run noise from 28 consecutive changes of history"
        );
        assert_eq!(row.threshold_pct, case.threshold);
        // Without history, none of them gets a verdict, and the row says what to run instead.
        let cmp = compare(&base, &cand, &opts());
        let row = only_row(&cmp, Figure::Walltime);
        assert_eq!(row.verdict, Unresolved, "{}: {row:#?}", case.what);
        assert!(
            row.reason.contains("check --baseline-rev") && row.reason.contains("--history-branch"),
            "{}",
            row.reason
        );
        let (bm, cm) = (summarize_median(&case.base), summarize_median(&case.cand));
        assert_eq!((row.base, row.cand), (bm, cm), "{}", case.what);
        assert_eq!(row.ci.is_some(), case.base.len() >= MIN_WALLTIME_SAMPLES);
        if let Some(ci) = row.ci {
            assert!(ci.low <= ci.high, "{}", case.what);
            assert_eq!(ci.level, 0.95);
        }
    }
}

fn summarize_median(v: &[f64]) -> f64 {
    costbench_record::stats::summarize(v).median
}

#[test]
fn clear_small_shift_has_an_interval_excluding_one() {
    // The +3 % case above is held back by the threshold alone, not by the interval.
    let base = record(
        "b",
        vec![with_walltime(scenario("s"), &noisy(100.0, 0.005, 100, 9))],
    );
    let cand = record(
        "c",
        vec![with_walltime(scenario("s"), &noisy(103.0, 0.005, 100, 10))],
    );
    let cmp = compare(&base, &cand, &opts());
    let ci = only_row(&cmp, Figure::Walltime).ci.expect("interval");
    assert!(ci.low > 1.02 && ci.high < 1.04, "{ci:?}");
}

/// Two sides of one lockstep session: `base` and `cand` per-op samples, rounds of `n`.
fn lockstep_pair(base: &[f64], cand: &[f64], n: usize) -> (RunRecord, RunRecord) {
    let side = |run: &str, v: &[f64], mins: Vec<f64>| {
        let mut r = with_walltime(scenario("s"), v);
        let w = r.walltime.as_mut().unwrap();
        w.paired = Some(costbench_record::model::Paired {
            session: "session".into(),
            round_medians_ns_per_op: vec![],
            round_min_ns_per_op: mins,
            round_samples: vec![n; v.len() / n],
            lockstep: true,
            round_layouts: vec![],
            layout_note: None,
            looks: None,
        });
        record(run, vec![r])
    };
    let mins = |v: &[f64]| {
        v.chunks(n)
            .map(|c| c.iter().copied().fold(f64::MAX, f64::min))
            .collect()
    };
    (side("b", base, mins(base)), side("c", cand, mins(cand)))
}

#[test]
fn paired_rounds_compare_each_rounds_fastest_sample() {
    // 8 rounds of 5 samples drifting by up to 60 % between rounds; load bursts (x3) hit
    // both sides' samples at the same moments and a few hit one side only (x2); the
    // candidate is 4 % slower: the rounds' fastest samples see exactly that.
    let mut base = Vec::new();
    let mut cand = Vec::new();
    for k in 0..40 {
        let drift = 1.0 + 0.3 * ((k / 5) % 3) as f64;
        let shared = if k % 7 == 3 { 3.0 } else { 1.0 };
        let own = if k % 11 == 5 { 2.0 } else { 1.0 };
        base.push(10.0 * drift * shared * own);
        cand.push(10.4 * drift * shared * if k % 13 == 8 { 2.0 } else { 1.0 });
    }
    let (b, c) = lockstep_pair(&base, &cand, 5);
    let cmp = compare(&b, &c, &CompareOptions::default());
    let row = &cmp.rows[0];
    assert_eq!(row.paired_rounds, Some(8));
    assert!((row.change_pct - 4.0).abs() < 0.01, "{row:?}");
    assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
    // Sides that took turns process by process are paired the same way.
    let (mut b, mut c) = lockstep_pair(&base, &cand, 5);
    for r in [&mut b, &mut c] {
        r.results[0]
            .walltime
            .as_mut()
            .unwrap()
            .paired
            .as_mut()
            .unwrap()
            .lockstep = false;
    }
    let row = &compare(&b, &c, &CompareOptions::default()).rows[0];
    assert!((row.change_pct - 4.0).abs() < 0.01, "{row:?}");
    // Another session: not paired; two separate runs without history get no verdict.
    let (b, mut c) = lockstep_pair(&base, &cand, 5);
    c.results[0]
        .walltime
        .as_mut()
        .unwrap()
        .paired
        .as_mut()
        .unwrap()
        .session = "other".into();
    let row = &compare(&b, &c, &CompareOptions::default()).rows[0];
    assert_eq!(row.paired_rounds, None);
    assert_eq!(row.verdict, Verdict::Unresolved);
}

#[test]
fn per_op_samples_divide_by_ops() {
    // 10 ops per iteration: 1000 ns per iteration is 100 ns per op.
    let r = with_walltime(with_ops(scenario("s"), 10, "lookups"), &[100.0, 110.0]);
    assert_eq!(
        r.walltime.as_ref().unwrap().iteration_ns,
        vec![1000.0, 1100.0]
    );
    assert_eq!(r.per_op_samples(), vec![100.0, 110.0]);
}

#[test]
fn bootstrap_is_deterministic_and_independent_of_other_rows() {
    let b = with_walltime(scenario("s"), &noisy(100.0, 0.1, 60, 1));
    let c = with_walltime(scenario("s"), &noisy(104.0, 0.1, 60, 2));
    let other_b = with_walltime(scenario("other"), &noisy(10.0, 0.3, 80, 3));
    let other_c = with_walltime(scenario("other"), &noisy(11.0, 0.3, 80, 4));
    let alone = compare(
        &record("b", vec![b.clone()]),
        &record("c", vec![c.clone()]),
        &opts(),
    );
    let again = compare(
        &record("b", vec![b.clone()]),
        &record("c", vec![c.clone()]),
        &opts(),
    );
    assert_eq!(alone, again);
    let with_others = compare(
        &record("b", vec![other_b, b]),
        &record("c", vec![c, other_c]),
        &opts(),
    );
    let ci = |cmp: &Comparison| {
        cmp.rows
            .iter()
            .find(|r| r.id == "s")
            .and_then(|r| r.ci)
            .expect("interval")
    };
    assert_eq!(ci(&alone), ci(&with_others));
    // A different seed gives a (slightly) different interval: the seed is really used.
    let reseeded = compare(
        &record(
            "b",
            vec![with_walltime(scenario("s"), &noisy(100.0, 0.1, 60, 1))],
        ),
        &record(
            "c",
            vec![with_walltime(scenario("s"), &noisy(104.0, 0.1, 60, 2))],
        ),
        &CompareOptions { seed: 1, ..opts() },
    );
    assert_ne!(ci(&alone), ci(&reseeded));
}

/// Issue 15: verdicts never pair wall time measured on different machines, whether the machine
/// is the run's or, in a merged run, the row's own shard's.
#[test]
fn issue_15_wall_time_of_different_machines_is_unresolved() {
    use costbench_record::model::{Merged, MergedShard};
    // A clear 20 % regression, paired over 12 rounds of one session.
    let (bw, cw) = rounds_pair(
        1.2,
        &[
            0.001, -0.002, 0.0, 0.002, -0.001, 0.001, 0.0, -0.002, 0.001, 0.002, -0.001, 0.0,
        ],
    );
    // The instruction count moved too (10 → 12), so the change is a regression, not placement.
    let side = |id: &str, rounds: &[f64], host: &str| {
        let ir = if id == "b" { 10.0 } else { 12.0 };
        let mut r = record(
            id,
            vec![with_icount(with_rounds(scenario("s"), rounds, true, 1), ir)],
        );
        r.environment.host.name = Some(host.into());
        r
    };
    let same = compare(&side("b", &bw, "m1"), &side("c", &cw, "m1"), &opts());
    assert_eq!(
        only_row(&same, Figure::Walltime).verdict,
        Verdict::Regression
    );
    let apart = compare(&side("b", &bw, "m1"), &side("c", &cw, "m2"), &opts());
    let row = only_row(&apart, Figure::Walltime);
    assert_eq!(row.verdict, Verdict::Unresolved, "{row:#?}");
    assert!(
        row.reason.contains("different machines (m1 and m2)"),
        "{}",
        row.reason
    );
    // Instruction counts are compared across machines as before.
    assert_eq!(
        only_row(&apart, Figure::Icount).verdict,
        Verdict::Regression
    );
    // A merged candidate whose row came from a shard on m2, though shard 1 (the run's own
    // environment) ran on m1.
    let mut merged = side("c", &cw, "m1");
    let host = |name: &str| {
        let mut h = merged.environment.host.clone();
        h.name = Some(name.into());
        h
    };
    let shard = |index, name: &str, ids: &[&str]| MergedShard {
        index,
        count: 2,
        run_id: format!("c{index}"),
        started_at: String::new(),
        finished_at: None,
        host: host(name),
        ids: ids.iter().map(|s| s.to_string()).collect(),
    };
    merged.merged = Some(Merged {
        shards: vec![shard(1, "m1", &["other"]), shard(2, "m2", &["s"])],
    });
    let row = only_row(
        &compare(&side("b", &bw, "m1"), &merged, &opts()),
        Figure::Walltime,
    )
    .clone();
    assert_eq!(row.verdict, Verdict::Unresolved, "{row:#?}");
    // Records without host names (older ones) fall back to the CPU model; unknown is not
    // different.
    let (mut b, mut c) = (side("b", &bw, "x"), side("c", &cw, "y"));
    b.environment.host.name = None;
    c.environment.host.name = None;
    assert_eq!(
        only_row(&compare(&b, &c, &opts()), Figure::Walltime).verdict,
        Verdict::Regression
    );
    b.environment.host.cpu = Some("cpu A".into());
    c.environment.host.cpu = Some("cpu B".into());
    assert_eq!(
        only_row(&compare(&b, &c, &opts()), Figure::Walltime).verdict,
        Verdict::Unresolved
    );
}
