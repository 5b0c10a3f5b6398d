//! Tests of [`compare`](super::compare) over run records built in code: matching ids across the
//! two runs, exact figures against their thresholds, options. Wall time and throughput, judged
//! from samples and rounds, are tested in their slice (`instrument::walltime`).

use super::*;
use crate::testing::*;
use costbench_record::fmt::fmt_ops_per_sec;
use costbench_record::testing::*;

fn opts() -> CompareOptions {
    CompareOptions::default()
}

#[test]
fn memory_and_simulated_cycles_are_compared() {
    use costbench_record::instrument::cache::CacheSim;
    use costbench_record::instrument::memory::{Allocations, Memory};
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
    let mem = only_row(&cmp, Figure::Memory);
    assert_eq!(mem.verdict, Verdict::Regression);
    assert_eq!(mem.change_pct, 10.0);
    assert_eq!(only_row(&cmp, Figure::Cache).verdict, Verdict::Unchanged);
    // 2 % more RSS is within its 5 % threshold.
    let rss = only_row(&cmp, Figure::Rss);
    assert_eq!((rss.verdict, rss.threshold_pct), (Verdict::Unchanged, 5.0));
    assert_eq!(Figure::Memory.fmt_value(2500.0), "2500 B");
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
        let row = only_row(&cmp, Figure::Icount);
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
    let rows: Vec<(&str, Figure, Verdict)> = cmp
        .rows
        .iter()
        .map(|r| (r.id.as_str(), r.instrument, r.verdict))
        .collect();
    assert_eq!(
        rows,
        [
            ("kept", Figure::Icount, Verdict::Unchanged),
            ("half", Figure::Icount, Verdict::Regression),
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
    let notes: Vec<(&str, Figure, Option<&str>, &str)> = cmp
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
            ("resized", Figure::Icount, resized, "lookups"),
            ("resized", Figure::Walltime, resized, "lookups"),
            ("reclocked", Figure::Icount, None, "op"),
            (
                "reclocked",
                Figure::Walltime,
                Some("clock monotonic → thread-cpu"),
                "op"
            ),
            ("steady", Figure::Icount, None, "op"),
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
            instrument: Figure::Walltime,
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
        .sorted_rows(Figure::Icount)
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(order, ["b", "c", "a", "d"]);
    assert_eq!(cmp.sorted_rows(Figure::Walltime), Vec::<&Row>::new());
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
    assert_eq!(Figure::Icount.fmt_value(2003.0), "2003 Ir");
    assert_eq!(Figure::Walltime.fmt_value(12.345), "12.35 ns");
}

#[test]
fn ops_per_second_read_like_numbers() {
    assert_eq!(fmt_ops_per_sec(99_091.4), "99,091 ops/s");
    assert_eq!(fmt_ops_per_sec(512.0), "512 ops/s");
    assert_eq!(fmt_ops_per_sec(12_345_678.0), "12.3 M ops/s");
}
