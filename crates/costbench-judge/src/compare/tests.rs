//! Tests of [`compare`](super::compare): matching, thresholds and verdicts over run records built
//! in code.

use super::*;
use crate::testing::*;
use costbench_record::testing::*;

fn opts() -> CompareOptions {
    CompareOptions::default()
}

fn only_row(c: &Comparison, inst: Instrument) -> &Row {
    let rows: Vec<&Row> = c.rows.iter().filter(|r| r.instrument == inst).collect();
    assert_eq!(rows.len(), 1, "{:#?}", c.rows);
    rows[0]
}

#[test]
fn memory_and_simulated_cycles_are_compared() {
    use costbench_record::model::{Allocations, CacheSim, Memory};
    let side = |bytes: f64, cycles: f64, rss: u64| {
        let mut r = scenario("s");
        r.counters.memory = Some(Memory {
            allocator: "system".into(),
            allocations: Some(Allocations {
                allocs: 1,
                deallocs: 1,
                reallocs: 0,
                bytes_allocated: bytes as u64,
                peak_live_bytes: bytes as u64,
                allocs_per_op: 1.0,
                deallocs_per_op: 1.0,
                reallocs_per_op: 0.0,
                bytes_allocated_per_op: bytes,
            }),
            not_counted: None,
            max_rss_kib: rss,
        });
        r.counters.cache = Some(CacheSim {
            simulated: true,
            totals: Default::default(),
            per_op: [("EstimatedCycles".to_string(), cycles)].into(),
            callgrind_out: String::new(),
        });
        r
    };
    let base = record("b", vec![side(1000.0, 500.0, 2000)]);
    let cand = record("c", vec![side(1100.0, 500.0, 2040)]);
    let cmp = compare(&base, &cand, &opts());
    let mem = only_row(&cmp, Instrument::Memory);
    assert_eq!(mem.verdict, Verdict::Regression);
    assert_eq!(mem.change_pct, 10.0);
    assert_eq!(
        only_row(&cmp, Instrument::Cache).verdict,
        Verdict::Unchanged
    );
    // 2 % more RSS is within its 5 % threshold.
    let rss = only_row(&cmp, Instrument::Rss);
    assert_eq!((rss.verdict, rss.threshold_pct), (Verdict::Unchanged, 5.0));
    assert_eq!(Instrument::Memory.fmt_value(2500.0), "2500 B");
}

#[test]
fn icount_change_against_threshold() {
    use Verdict::*;
    // (baseline Ir/op, candidate Ir/op, threshold %, change %, verdict, reason)
    let cases = [
        (
            1000.0,
            1005.0,
            0.2,
            0.5,
            Regression,
            "beyond 0.2 % threshold",
        ),
        (
            1000.0,
            995.0,
            0.2,
            -0.5,
            Improvement,
            "beyond 0.2 % threshold",
        ),
        (
            1000.0,
            1001.0,
            0.2,
            0.1,
            Unchanged,
            "within 0.2 % threshold",
        ),
        (
            1000.0,
            999.0,
            0.2,
            -0.1,
            Unchanged,
            "within 0.2 % threshold",
        ),
        // Exactly at the threshold is not beyond it.
        (
            1000.0,
            1002.0,
            0.2,
            0.2,
            Unchanged,
            "within 0.2 % threshold",
        ),
        (
            1000.0,
            1000.0,
            0.2,
            0.0,
            Unchanged,
            "within 0.2 % threshold",
        ),
        (
            1000.0,
            1001.0,
            0.05,
            0.1,
            Regression,
            "beyond 0.05 % threshold",
        ),
        (1000.0, 1010.0, 2.0, 1.0, Unchanged, "within 2 % threshold"),
        (0.0, 0.0, 0.2, 0.0, Unchanged, "within 0.2 % threshold"),
        (
            0.0,
            3.0,
            0.2,
            f64::INFINITY,
            Regression,
            "beyond 0.2 % threshold",
        ),
    ];
    for (b, c, threshold, change, verdict, reason) in cases {
        let base = record("b", vec![with_icount(scenario("s"), b)]);
        let cand = record("c", vec![with_icount(scenario("s"), c)]);
        let o = CompareOptions {
            icount_threshold_pct: threshold,
            ..opts()
        };
        let cmp = compare(&base, &cand, &o);
        let row = only_row(&cmp, Instrument::Icount);
        let case = format!("{b} -> {c} at {threshold} %");
        assert_eq!(row.change_pct, change, "{case}");
        assert_eq!(row.verdict, verdict, "{case}");
        assert_eq!(row.reason, reason, "{case}");
        assert_eq!(row.threshold_pct, threshold, "{case}");
        assert_eq!((row.base, row.cand, row.ci), (b, c, None), "{case}");
        assert_eq!(cmp.has_regression(), verdict == Regression, "{case}");
    }
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
        h.set("s", Instrument::Walltime, case.threshold, 28);
        let cmp = compare_with(&base, &cand, &opts(), &h);
        let row = only_row(&cmp, Instrument::Walltime);
        assert_eq!(row.verdict, case.verdict, "{}: {row:#?}", case.what);
        assert!(row.reason.contains(case.reason), "{}: {row:#?}", case.what);
        assert_eq!(
            row.evidence,
            "separate runs: between-run noise from 28 consecutive changes of history"
        );
        assert_eq!(row.threshold_pct, case.threshold);
        // Without history, none of them gets a verdict, and the row says what to run instead.
        let cmp = compare(&base, &cand, &opts());
        let row = only_row(&cmp, Instrument::Walltime);
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
    let ci = only_row(&cmp, Instrument::Walltime).ci.expect("interval");
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

#[test]
fn missing_new_and_failed_are_listed_apart() {
    let base = record(
        "b",
        vec![
            with_icount(scenario("kept"), 100.0),
            with_icount(scenario("dropped"), 100.0),
            with_failure(scenario("broke"), "icount", "panicked"),
            with_failure(scenario("always_broken"), "walltime", "timed-out"),
            // Walltime failed, icount fine: icount is still compared.
            with_failure(with_icount(scenario("half"), 100.0), "walltime", "crashed"),
            with_failure(scenario("gone_broken"), "icount", "crashed"),
        ],
    );
    let cand = record(
        "c",
        vec![
            with_icount(scenario("kept"), 100.0),
            with_icount(scenario("fresh"), 1.0),
            with_failure(scenario("broke"), "icount", "timed-out"),
            with_failure(scenario("always_broken"), "walltime", "timed-out"),
            with_walltime(
                with_icount(scenario("half"), 200.0),
                &noisy(1.0, 0.1, 20, 1),
            ),
            with_failure(scenario("fresh_broken"), "icount", "misuse"),
        ],
    );
    let cmp = compare(&base, &cand, &opts());
    assert_eq!(cmp.missing_in_cand, ["dropped", "gone_broken"]);
    assert_eq!(cmp.new_in_cand, ["fresh", "fresh_broken"]);
    let failed: Vec<(&str, Side, &str, &str)> = cmp
        .failed
        .iter()
        .map(|f| {
            (
                f.id.as_str(),
                f.side,
                f.instrument.as_str(),
                f.kind.as_str(),
            )
        })
        .collect();
    assert_eq!(
        failed,
        [
            ("broke", Side::Baseline, "icount", "panicked"),
            ("broke", Side::Candidate, "icount", "timed-out"),
            ("always_broken", Side::Both, "walltime", "timed-out"),
            ("half", Side::Baseline, "walltime", "crashed"),
            ("gone_broken", Side::Baseline, "icount", "crashed"),
            ("fresh_broken", Side::Candidate, "icount", "misuse"),
        ]
    );
    assert_eq!(cmp.failed[0].message, "icount panicked", "first line only");
    let rows: Vec<(&str, Instrument, Verdict)> = cmp
        .rows
        .iter()
        .map(|r| (r.id.as_str(), r.instrument, r.verdict))
        .collect();
    assert_eq!(
        rows,
        [
            ("kept", Instrument::Icount, Verdict::Unchanged),
            ("half", Instrument::Icount, Verdict::Regression),
        ]
    );
    // A failed instrument is listed as failed, not as "measured in one run only".
    assert_eq!(cmp.not_compared, []);
    assert!(cmp.has_regression() && cmp.has_failures());
    assert_eq!(
        cmp.summary(),
        "1 regression, 0 improvements, 1 unchanged, 5 failed, \
         2 missing in candidate, 2 new in candidate"
    );
}

#[test]
fn changed_ops_unit_or_clock_are_flagged_and_still_compared() {
    let samples = noisy(10.0, 0.1, 20, 1);
    let base = record(
        "b",
        vec![
            with_walltime(
                with_icount(with_ops(scenario("resized"), 100, "bytes"), 5.0),
                &samples,
            ),
            with_walltime(with_icount(scenario("reclocked"), 5.0), &samples),
            with_icount(scenario("steady"), 5.0),
        ],
    );
    let mut reclocked = with_walltime(with_icount(scenario("reclocked"), 5.0), &samples);
    reclocked.walltime.as_mut().unwrap().clock = "thread-cpu".into();
    let cand = record(
        "c",
        vec![
            with_walltime(
                with_icount(with_ops(scenario("resized"), 200, "lookups"), 5.0),
                &samples,
            ),
            reclocked,
            with_icount(scenario("steady"), 5.0),
        ],
    );
    let cmp = compare(&base, &cand, &opts());
    assert_eq!(
        cmp.setup_changes,
        [
            SetupChange {
                id: "resized".into(),
                changes: vec!["ops 100 → 200".into(), "unit bytes → lookups".into()],
            },
            SetupChange {
                id: "reclocked".into(),
                changes: vec!["clock monotonic → thread-cpu".into()],
            },
        ]
    );
    let notes: Vec<(&str, Instrument, Option<&str>, &str)> = cmp
        .rows
        .iter()
        .map(|r| {
            (
                r.id.as_str(),
                r.instrument,
                r.note.as_deref(),
                r.unit.as_str(),
            )
        })
        .collect();
    let resized = Some("ops 100 → 200; unit bytes → lookups");
    assert_eq!(
        notes,
        [
            ("resized", Instrument::Icount, resized, "lookups"),
            ("resized", Instrument::Walltime, resized, "lookups"),
            ("reclocked", Instrument::Icount, None, "op"),
            (
                "reclocked",
                Instrument::Walltime,
                Some("clock monotonic → thread-cpu"),
                "op"
            ),
            ("steady", Instrument::Icount, None, "op"),
        ]
    );
}

#[test]
fn instrument_in_one_run_only_is_not_compared() {
    let base = record(
        "b",
        vec![with_walltime(
            with_icount(scenario("x"), 10.0),
            &noisy(5.0, 0.1, 20, 1),
        )],
    );
    let cand = record("c", vec![with_icount(scenario("x"), 10.0)]);
    let cmp = compare(&base, &cand, &opts());
    assert_eq!(cmp.rows.len(), 1);
    assert_eq!(
        cmp.not_compared,
        [NotCompared {
            id: "x".into(),
            instrument: Instrument::Walltime,
            measured_in: Side::Baseline,
        }]
    );
}

#[test]
fn duplicate_ids_first_wins() {
    let base = record(
        "b",
        vec![
            with_icount(scenario("x"), 10.0),
            with_icount(scenario("x"), 99.0),
        ],
    );
    let cand = record("c", vec![with_icount(scenario("x"), 10.0)]);
    let cmp = compare(&base, &cand, &opts());
    assert_eq!(cmp.rows.len(), 1);
    assert_eq!(cmp.rows[0].base, 10.0);
}

#[test]
fn rows_sort_significant_first_then_by_size() {
    let ids = [("a", 1001.0), ("b", 1100.0), ("c", 950.0), ("d", 999.5)];
    let base = record(
        "b",
        ids.iter()
            .map(|(id, _)| with_icount(scenario(id), 1000.0))
            .collect(),
    );
    let cand = record(
        "c",
        ids.iter()
            .map(|(id, v)| with_icount(scenario(id), *v))
            .collect(),
    );
    let cmp = compare(&base, &cand, &opts());
    let order: Vec<&str> = cmp
        .sorted_rows(Instrument::Icount)
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(order, ["b", "c", "a", "d"]);
    assert_eq!(cmp.sorted_rows(Instrument::Walltime), Vec::<&Row>::new());
    assert_eq!(cmp.summary(), "1 regression, 1 improvement, 2 unchanged");
    assert!(cmp.has_regression());
}

#[test]
fn improvements_alone_are_not_regressions() {
    let base = record("b", vec![with_icount(scenario("x"), 10.0)]);
    let cand = record("c", vec![with_icount(scenario("x"), 5.0)]);
    let cmp = compare(&base, &cand, &opts());
    assert_eq!(cmp.count(Verdict::Improvement), 1);
    assert!(!cmp.has_regression() && !cmp.has_failures());
}

#[test]
fn option_validation() {
    assert!(opts().validate().is_ok());
    let bad = [
        CompareOptions {
            icount_threshold_pct: -1.0,
            ..opts()
        },
        CompareOptions {
            walltime_threshold_pct: f64::NAN,
            ..opts()
        },
        CompareOptions {
            resamples: 10,
            ..opts()
        },
        CompareOptions {
            confidence: 1.0,
            ..opts()
        },
        CompareOptions {
            confidence: 95.0,
            ..opts()
        },
    ];
    for o in bad {
        assert!(o.validate().is_err(), "{o:?}");
    }
}

#[test]
fn values_carry_their_units() {
    assert_eq!(Instrument::Icount.fmt_value(2003.0), "2003 Ir");
    assert_eq!(Instrument::Walltime.fmt_value(12.345), "12.35 ns");
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
        only_row(&same, Instrument::Walltime).verdict,
        Verdict::Regression
    );
    let apart = compare(&side("b", &bw, "m1"), &side("c", &cw, "m2"), &opts());
    let row = only_row(&apart, Instrument::Walltime);
    assert_eq!(row.verdict, Verdict::Unresolved, "{row:#?}");
    assert!(
        row.reason.contains("different machines (m1 and m2)"),
        "{}",
        row.reason
    );
    // Instruction counts are compared across machines as before.
    assert_eq!(
        only_row(&apart, Instrument::Icount).verdict,
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
        Instrument::Walltime,
    )
    .clone();
    assert_eq!(row.verdict, Verdict::Unresolved, "{row:#?}");
    // Records without host names (older ones) fall back to the CPU model; unknown is not
    // different.
    let (mut b, mut c) = (side("b", &bw, "x"), side("c", &cw, "y"));
    b.environment.host.name = None;
    c.environment.host.name = None;
    assert_eq!(
        only_row(&compare(&b, &c, &opts()), Instrument::Walltime).verdict,
        Verdict::Regression
    );
    b.environment.host.cpu = Some("cpu A".into());
    c.environment.host.cpu = Some("cpu B".into());
    assert_eq!(
        only_row(&compare(&b, &c, &opts()), Instrument::Walltime).verdict,
        Verdict::Unresolved
    );
}

/// Rounds of two builds taking turns under load: the candidate 10 % slower with wobble that
/// both share, judged paired; the same figures from separate runs are never judged.
#[test]
fn throughput_rows_are_judged_slice_by_slice_and_only_when_paired() {
    let wobble: Vec<f64> = (0..12)
        .map(|k| 1.0 + 0.2 * ((k * 7) % 5) as f64 / 5.0)
        .collect();
    let base_ops: Vec<f64> = wobble.iter().map(|w| 50_000.0 * w).collect();
    let cand_ops: Vec<f64> = base_ops
        .iter()
        .enumerate()
        .map(|(k, o)| o / (1.10 + 0.002 * (k % 3) as f64))
        .collect();
    let base_p99: Vec<f64> = wobble.iter().map(|w| 40_000.0 * w).collect();
    // p99 unchanged but for a tiny symmetric wobble.
    let cand_p99: Vec<f64> = base_p99
        .iter()
        .enumerate()
        .map(|(k, p)| p * if k % 2 == 0 { 1.001 } else { 0.999 })
        .collect();
    let side = |id, ops: &[f64], p99: &[f64], session| {
        record(
            id,
            vec![with_throughput(scenario("svc@4c"), 4, ops, p99, session)],
        )
    };
    let c = compare(
        &side("b", &base_ops, &base_p99, Some("s1")),
        &side("c", &cand_ops, &cand_p99, Some("s1")),
        &opts(),
    );
    let t = only_row(&c, Instrument::Throughput);
    assert_eq!(t.verdict, Verdict::Regression, "{t:#?}");
    assert!((t.change_pct - 10.0).abs() < 0.5, "{}", t.change_pct);
    assert_eq!(t.paired_rounds, Some(12));
    assert_eq!(t.threshold_pct, DEFAULT_LOAD_THRESHOLD_PCT);
    assert!(
        t.reason.contains("over 12 rounds under load"),
        "{}",
        t.reason
    );
    assert!(
        t.evidence.contains("builds taking turns slice by slice"),
        "{}",
        t.evidence
    );
    assert_eq!(only_row(&c, Instrument::P99).verdict, Verdict::Unchanged);
    assert!(Instrument::Throughput.fmt_value(t.base).contains("ops/s"));

    // Separate runs (no shared session): unresolved, whatever the figures.
    let c = compare(
        &side("b", &base_ops, &base_p99, Some("s1")),
        &side("c", &cand_ops, &cand_p99, Some("s2")),
        &opts(),
    );
    for inst in [Instrument::Throughput, Instrument::P99] {
        let r = only_row(&c, inst);
        assert_eq!(r.verdict, Verdict::Unresolved, "{r:#?}");
        assert!(r.reason.starts_with("separate runs"), "{}", r.reason);
    }
}
