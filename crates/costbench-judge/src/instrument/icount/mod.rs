//! Instruction counts' slice of the judge: exact figures judged against a threshold, the
//! default or one learned from history (`exact`, which every exact figure shares: simulated
//! cycles, allocations, max RSS with a threshold of its own), its default threshold and why, and
//! its placement verdicts ([`placement`]): a count change within the spread of its
//! data-placement runs, and a time that moved while its instructions did not; what explains a
//! count change, from the two sides' callgrind profiles: the functions that moved
//! ([`functions`]) and the differential flame graph ([`flame`]). Also what `history changes`
//! tolerates of its series, and its figure a budget limits.
//!
//! Pure: no clocks, no processes.

pub mod flame;
pub mod functions;
pub mod placement;

use super::{Judging, Outcome};
use crate::compare::judge::{change_pct, direction, Judgement, Pair};
use crate::compare::types::{Comparison, Verdict};
use costbench_record::history::Metric;
use costbench_record::instrument::Figure;
use costbench_record::model::ScenarioResult;

/// Instruction counts repeat exactly for deterministic code on one machine and toolchain, so any
/// real change shows. 0.2 % is what rustls first chose for its CI (rustls/rustls#1404) and sits
/// well above the drift of its deterministic scenarios (single instructions in 10^8,
/// rustls/rustls#2483), but code with non-deterministic work (RSA key validation in aws-lc,
/// rejection sampling) drifted up to 1.7 % on doc-only changes (rustls/rustls#1645): such suites
/// need a larger threshold, hence the option.
pub const DEFAULT_ICOUNT_THRESHOLD_PCT: f64 = 0.2;

/// The harness residual, in instructions per run: what an empty measured body counts (the call's
/// jump and `ret`). Two runs of one binary differ by no more.
pub const HARNESS_RESIDUAL_IR: f64 = 2.0;

/// The tolerance of its exact series in `history changes`: instruction counts within the
/// harness residual.
pub(super) fn exact_tolerance(metric: Metric) -> Option<f64> {
    (metric == Metric::Icount).then_some(HARNESS_RESIDUAL_IR)
}

/// The ids whose count change the comparison explains (their functions, checks and machine
/// code), in its rows' order: significant or labelled placement.
pub fn explained(cmp: &Comparison) -> Vec<String> {
    cmp.rows
        .iter()
        .filter(|r| {
            r.instrument == Figure::Icount
                && (r.verdict.is_significant() || r.verdict == Verdict::Placement)
        })
        .map(|r| r.id.clone())
        .collect()
}

/// Its budget figure (`instructions`): instructions per op.
pub(super) fn budget_value(r: &ScenarioResult) -> Option<f64> {
    r.icount.as_ref().map(|i| i.ir_per_op)
}

/// How exact figures are judged (`Judged::Exact`): against the instruction-count threshold,
/// instruction counts themselves against the spread of their data-placement runs too.
///
/// History's threshold for them is Q3 + 3·IQR alone: their history is flat unless the code
/// changed, and the largest change would be the last real change merged. A history that never
/// moved (exact counts of deterministic code) would give a threshold of 0 %, flagging a
/// one-instruction change in a million; the floor, 0.01 %, keeps such scenarios tight but sane.
pub(super) const JUDGING: Judging = Judging {
    threshold_pct: |o| o.icount_threshold_pct,
    history_floor_pct: 0.01,
    history_at_least_largest: false,
    short_history: None,
    judge: |p| Outcome::Judged(judge(p)),
    setup: None,
};

/// An exact figure's row; for instruction counts, a significant change with data-placement runs
/// on both sides is judged against their spread ([`placement::judge`]).
fn judge(p: &Pair<'_>) -> Judgement {
    let mut j = exact(p);
    if p.figure == Figure::Icount {
        if let Some(n) = placement::runs(p.b, p.c) {
            j.evidence
                .push_str(&format!("; {n} data placements per side"));
        }
        if j.verdict.is_significant() {
            if let Some((v, r)) = placement::judge(p.b, p.c, p.threshold.pct) {
                (j.verdict, j.reason) = (v, r);
            }
        }
    }
    j
}

/// An exact figure's row: beyond its threshold a regression or improvement, else unchanged;
/// backed by what its spec says backs it, and by history when its threshold came from there.
pub(super) fn exact(p: &Pair<'_>) -> Judgement {
    let change = change_pct(p.bv, p.cv);
    let t = p.threshold.describe();
    let (verdict, reason) = if change.abs() > p.threshold.pct {
        (direction(change), format!("beyond {t} threshold"))
    } else {
        (Verdict::Unchanged, format!("within {t} threshold"))
    };
    let what = p.figure.spec().evidence;
    let evidence = match p.learned {
        Some(l) => format!("{what}; threshold from {} changes of history", l.changes),
        None => what.to_string(),
    };
    Judgement::new(change, p.threshold.pct, verdict, reason, evidence)
}
