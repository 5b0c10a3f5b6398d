//! Wall time of two separate runs. It never gets a verdict from the spread inside each run: that
//! spread never sees the level shift between two processes (measured: 9 to 21 of 35 rows
//! flagged between two runs of one build). Only a threshold learned from history's between-run
//! changes (`compare::noise`) can judge it, and then only when the bootstrap interval of the
//! ratio of medians ([`bootstrap`]) also excludes 1 on the side of the change; without one the
//! row is unresolved and says what to run.
//!
//! Pure: no clocks, no processes.

use super::{bootstrap, HISTORY_EVIDENCE, MIN_WALLTIME_SAMPLES};
use crate::compare::judge::{change_pct, direction, Judgement, Pair};
use crate::compare::types::Verdict;
use costbench_record::fmt::{fmt_ci, fmt_threshold};

/// What to run instead when two separate runs cannot judge wall time (or figures under load).
pub(crate) const UNPAIRED_ADVICE: &str = "run `costbench check --baseline-rev REV` to measure \
     both builds in interleaved rounds, or record runs of the baseline branch and pass \
     --history-branch";

/// Wall time of two separate runs: judged only against a threshold learned from history's
/// between-run changes (`p.learned`), and then only when the bootstrap interval of the ratio of
/// medians also excludes 1 on the side of the change.
pub(crate) fn judge(p: &Pair<'_>) -> Judgement {
    let (b, c, opts) = (p.b, p.c, p.opts);
    let change = change_pct(p.bv, p.cv);
    let Some(h) = p.learned else {
        // The bootstrap of one run's samples sees none of the shift between processes, so it
        // cannot back a verdict; the interval is still computed when it can be, for reading.
        let (bs, cs) = (b.per_op_samples(), c.per_op_samples());
        let mut j = Judgement::new(
            change,
            opts.walltime_threshold_pct,
            Verdict::Unresolved,
            format!("separate runs: not judged from within-run spread; {UNPAIRED_ADVICE}"),
            "separate runs, no history of between-run noise".into(),
        );
        if bs.len() >= MIN_WALLTIME_SAMPLES && cs.len() >= MIN_WALLTIME_SAMPLES {
            j.ci = Some(bootstrap::ratio_of_medians_ci(
                &bs,
                &cs,
                opts.resamples,
                opts.confidence,
                opts.seed,
            ));
        }
        return j;
    };
    let t = format!("{} (history)", fmt_threshold(h.pct));
    let evidence = format!(
        "{HISTORY_EVIDENCE} {} consecutive changes of history",
        h.changes
    );
    let (bs, cs) = (b.per_op_samples(), c.per_op_samples());
    if bs.len() < MIN_WALLTIME_SAMPLES || cs.len() < MIN_WALLTIME_SAMPLES {
        let reason = format!(
            "too few samples to judge ({} and {}, need {MIN_WALLTIME_SAMPLES} each)",
            bs.len(),
            cs.len()
        );
        return Judgement::new(change, h.pct, Verdict::Unresolved, reason, evidence);
    }
    let ci = bootstrap::ratio_of_medians_ci(&bs, &cs, opts.resamples, opts.confidence, opts.seed);
    let clear = (change > 0.0 && ci.low > 1.0) || (change < 0.0 && ci.high < 1.0);
    let (verdict, reason) = if change.abs() <= h.pct {
        (Verdict::Unchanged, format!("within {t} threshold"))
    } else if clear {
        (
            direction(change),
            format!(
                "beyond {t} threshold; CI: ratio {} excludes 1",
                fmt_ci(ci.low, ci.high)
            ),
        )
    } else {
        // Beyond anything history saw, but the run's own samples do not agree on a direction.
        (
            Verdict::Unresolved,
            format!(
                "beyond {t} threshold, but CI: ratio {} does not exclude 1 on its side",
                fmt_ci(ci.low, ci.high)
            ),
        )
    };
    let mut j = Judgement::new(change, h.pct, verdict, reason, evidence);
    j.ci = Some(ci);
    j
}
