//! Throughput's slice of the judge: its figures under load (time per op at the measured
//! throughput, p99 latency) are judged only when two builds took turns in one session, round
//! by round, with wall time's paired judging (`walltime::rounds`: the rows under load join the
//! same family); two separate runs are never judged. Its default
//! threshold and why.
//!
//! Pure: no clocks, no processes.

use super::walltime::rounds::Rounds;
use super::walltime::{paired, separate::UNPAIRED_ADVICE};
use super::Judging;
use crate::compare::judge::{change_pct, Judgement, Pair};
use crate::compare::types::{CompareOptions, Verdict};
use costbench_record::instrument::Figure;
use costbench_record::model::{ScenarioResult, Throughput};

/// Threshold for throughput and p99 latency under load of builds measured together, in percent.
/// Lower than wall time's: a round under load is a whole server process against its own
/// clients, so code and data placement are drawn afresh every round and are part of the spread
/// the interval already holds.
pub const DEFAULT_LOAD_THRESHOLD_PCT: f64 = 2.0;

/// How figures under load are judged (`Judged::UnderLoad`): history's floor 1 %.
pub(super) const JUDGING: Judging = Judging {
    threshold_pct: |o| o.load_threshold_pct,
    history_floor_pct: 1.0,
    history_at_least_largest: false,
    short_history: None,
    judge: |p| {
        let rounds = paired_load_rounds(p.figure, p.b, p.c, p.opts);
        super::walltime::timed(p, rounds, separate)
    },
    setup: None,
};

/// The rounds of two builds measured under load in the same session, taking turns slice by
/// slice (`None` when they were not), as per-round log ratios of `inst`'s figure: time per op
/// (the inverse of the round's throughput) or the round's p99 latency.
///
/// Rounds, not slices, are the pairs: every round is a fresh server process, whose code and
/// data placement (and, for a large working set, whether it got huge pages) move its speed by
/// more than its slices vary among themselves, so slices of one round are not independent
/// evidence. Measured: pairing slices flagged 1 of the first 4 A/A checks at 32 %.
fn paired_load_rounds(
    inst: Figure,
    b: &ScenarioResult,
    c: &ScenarioResult,
    opts: &CompareOptions,
) -> Option<Rounds> {
    let (bt, ct) = (b.throughput.as_ref()?, c.throughput.as_ref()?);
    if bt.paired.as_ref()?.session != ct.paired.as_ref()?.session {
        return None;
    }
    let figures = |t: &Throughput| -> Vec<f64> {
        match inst {
            Figure::P99 => t.round_p99_ns.clone(),
            _ => t
                .round_ops_per_sec
                .iter()
                .map(|o| if *o > 0.0 { 1.0 / o } else { f64::NAN })
                .collect(),
        }
    };
    let (bf, cf) = (figures(bt), figures(ct));
    let varied = |t: &Throughput| {
        t.paired
            .as_ref()
            .is_some_and(|p| !p.round_layouts.is_empty())
    };
    (bf.len() == cf.len()).then(|| Rounds {
        d: paired::log_ratios(&bf, &cf),
        looks: 1,
        layouts_varied: varied(bt) && varied(ct),
        unit: "rounds under load",
        turns: ", builds taking turns slice by slice",
        threshold_pct: opts.load_threshold_pct,
    })
}

/// A figure under load of two separate runs: never judged. Servers under load drift with the
/// machine between runs by more than the changes worth finding; the repeat intervals are shown
/// for reading.
fn separate(p: &Pair<'_>) -> Judgement {
    Judgement::new(
        change_pct(p.bv, p.cv),
        p.opts.load_threshold_pct,
        Verdict::Unresolved,
        format!(
            "separate runs: figures under load are only judged when both builds took turns \
             slice by slice; {UNPAIRED_ADVICE} (with --instrument throughput)"
        ),
        "separate runs under load".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare, CompareOptions};
    use crate::testing::only_row;
    use costbench_record::instrument::throughput::testing::with_throughput;
    use costbench_record::testing::{record, scenario};

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
            &CompareOptions::default(),
        );
        let t = only_row(&c, Figure::Throughput);
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
        assert_eq!(only_row(&c, Figure::P99).verdict, Verdict::Unchanged);
        assert!(Figure::Throughput.fmt_value(t.base).contains("ops/s"));

        // Separate runs (no shared session): unresolved, whatever the figures.
        let c = compare(
            &side("b", &base_ops, &base_p99, Some("s1")),
            &side("c", &cand_ops, &cand_p99, Some("s2")),
            &CompareOptions::default(),
        );
        for inst in [Figure::Throughput, Figure::P99] {
            let r = only_row(&c, inst);
            assert_eq!(r.verdict, Verdict::Unresolved, "{r:#?}");
            assert!(r.reason.starts_with("separate runs"), "{}", r.reason);
        }
    }
}
