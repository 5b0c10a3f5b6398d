//! Wall time's slice of the judge: how its rows are judged and everything that backs their
//! verdicts. Two builds measured in interleaved rounds are judged paired (`rounds`: the
//! signed-rank interval of [`paired`], at the rate the family's error control gives each row,
//! [`family`]); two separate runs only against a threshold history learned, with the bootstrap
//! of `bootstrap` (`separate`); two machines never. Its defaults and why they are what they
//! are, the setup change only its rows note (the clock), what history's thresholds take of its
//! noise, what its paired steps stand for in `history changes`, and the threshold a
//! comparison's summaries say it was held against ([`Comparison::walltime_threshold`]).
//!
//! Whether a time that moved with the same instructions is placement is instruction counts'
//! verdict (`instrument::icount::placement`), which runs after these. Pure: no clocks, no
//! processes.

pub(crate) mod bootstrap;
pub mod family;
pub mod paired;
pub(crate) mod rounds;
pub(crate) mod separate;

use super::{Judging, Outcome};
use crate::compare::judge::{change_pct, Judgement, Pair};
use crate::compare::types::{Comparison, Verdict};
use costbench_record::fmt::fmt_threshold;
use costbench_record::history::Metric;
use costbench_record::instrument::Figure;
use costbench_record::model::ScenarioResult;
use rounds::Rounds;

/// Wall time on shared machines moves by a few percent between runs of the same binary (CPU
/// frequency, neighbours, layout); rustls measured its walltime noise just below 5 %
/// (rustls/rustls#1487). A confidence interval alone would flag such shifts between two
/// processes as "significant", so both tests must pass.
pub const DEFAULT_WALLTIME_THRESHOLD_PCT: f64 = 5.0;
/// Wall time measured in interleaved rounds (`costbench check --baseline-rev`, build variants)
/// is free of the drift between runs, so a smaller change is still real: the paired interval
/// decides, and this floor keeps changes too small to matter (or to trust on a shared machine)
/// out of the report. Chosen from the A/A and power measurements in `docs/accuracy.md`.
pub const DEFAULT_PAIRED_WALLTIME_THRESHOLD_PCT: f64 = 3.0;
/// Confidence of the paired interval. Ten rounds at 99 % need every round but three of the 55
/// Walsh averages on one side of 1: measured on this VM, 1 false alarm in 350 A/A comparisons
/// and 14 of 15 +5 % changes found (95 %: 7 in 350 and the same power).
pub const DEFAULT_PAIRED_CONFIDENCE: f64 = 0.99;
/// The chance that a whole check of an unchanged pull request flags any paired wall-time row
/// (Holm): one false failure in twenty checks, whatever the suite's size.
pub const DEFAULT_FAMILY_ALPHA: f64 = 0.05;
/// Enough resamples for stable 2.5 % and 97.5 % percentiles (50 resamples beyond each bound).
pub const DEFAULT_RESAMPLES: usize = 2000;
/// Confidence level of the bootstrap interval of two separate runs' wall time.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Fixed, so that a comparison is reproducible. Every row starts from this seed, so a row's
/// interval does not depend on which other scenarios the runs contain.
pub const DEFAULT_SEED: u64 = 0x636f_7374_6265_6e63; // "costbenc"
/// Below this many samples on either side the bootstrap of a median says little, and wall-time
/// changes are not judged.
pub const MIN_WALLTIME_SAMPLES: usize = 5;

/// How the evidence of separate runs judged against history begins.
pub(crate) const HISTORY_EVIDENCE: &str = "separate runs: between-run noise from";

/// How wall time is judged (`Judged::Walltime`).
///
/// History's threshold for it is at least the largest change its window shows between
/// consecutive runs: history recorded those changes between runs of code that (as far as the
/// gate knows) did not change, so a change no larger than one of them is no evidence of a
/// regression, however rare it was. Q3 + 3·IQR alone lets through the one-in-twenty run whose
/// machine was busier (measured: 16 of 420 rows flagged between runs of one commit whose
/// history included the very runs judged). Its floor is 1 %. A series too short to learn a
/// threshold from has none at all (infinite: nothing crosses it), as `compare` gives two
/// separate runs no verdict without history.
pub(super) const JUDGING: Judging = Judging {
    threshold_pct: |o| o.walltime_threshold_pct,
    history_floor_pct: 1.0,
    history_at_least_largest: true,
    short_history: Some((
        f64::INFINITY,
        "history too short to judge wall time between runs",
    )),
    judge: |p| timed(p, rounds::paired_rounds(p.b, p.c, p.opts), separate::judge),
    setup: Some(clock),
};

/// A change of the clock wall time was read with, between the two runs of one id.
fn clock(b: &ScenarioResult, c: &ScenarioResult) -> Option<String> {
    match (&b.walltime, &c.walltime) {
        (Some(bw), Some(cw)) if bw.clock != cw.clock => {
            Some(format!("clock {} → {}", bw.clock, cw.clock))
        }
        _ => None,
    }
}

/// A timing's row (wall time, or a figure under load): never judged across two machines; paired
/// when both sides have `rounds` of one session (judged in the second pass, with every other
/// paired row); else as `separate` judges two separate runs.
pub(super) fn timed(
    p: &Pair<'_>,
    rounds: Option<Rounds>,
    separate: fn(&Pair<'_>) -> Judgement,
) -> Outcome {
    let (bh, ch) = (p.base.host_of(&p.b.id), p.cand.host_of(&p.c.id));
    if bh.differs_from(ch) {
        // Two machines differ by more than any change worth finding (CPU model, frequency,
        // neighbours): their timings are never judged together, paired or not. Merged runs
        // keep each row's machine for this.
        return Outcome::Judged(Judgement::new(
            change_pct(p.bv, p.cv),
            p.opts.walltime_threshold_pct,
            Verdict::Unresolved,
            format!(
                "measured on different machines ({} and {}): timings are only compared on one machine",
                bh.label(),
                ch.label()
            ),
            "not compared: different machines".into(),
        ));
    }
    match rounds {
        Some(r) => Outcome::Paired(rounds::pending(&r, p.bv, p.cv), r),
        None => Outcome::Judged(separate(p)),
    }
}

/// Where wall time was measured paired (`history backfill`), its series of steps over the
/// previous measured commit stands for its series of medians: `history changes` judges the
/// steps.
pub(super) fn stands_for(steps: Metric) -> Option<Metric> {
    (steps == Metric::WalltimeStep).then_some(Metric::Walltime)
}

impl Comparison {
    /// The wall-time threshold the rows were held against, for summaries: the paired one when
    /// rows were judged paired, "history's per scenario" when separate runs were judged against
    /// thresholds from history, else the separate-run default.
    pub fn walltime_threshold(&self) -> String {
        let wall = || {
            self.rows
                .iter()
                .filter(|r| r.instrument == Figure::Walltime)
        };
        if wall().any(|r| r.paired_rounds.is_some()) {
            fmt_threshold(self.options.paired_walltime_threshold_pct)
        } else if wall().any(|r| r.evidence.starts_with(HISTORY_EVIDENCE)) {
            "history's threshold per scenario".into()
        } else {
            fmt_threshold(self.options.walltime_threshold_pct)
        }
    }
}

#[cfg(test)]
mod tests;
