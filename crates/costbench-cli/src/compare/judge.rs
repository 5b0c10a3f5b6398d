//! Wall-time verdicts, and the verdicts that need every row at once: what [`compare_with`]
//! (super::compare_with) decides about time, and what backs each decision.
//!
//! - Paired rows (two builds measured in interleaved rounds) are judged in two passes: first every
//!   row's per-round log ratios give an exact signed-rank p-value (times the session's looks at
//!   its intervals), then [`family::row_alphas`] turns those p-values into the error rate each row
//!   is judged at, and [`paired::assess`] places the row's interval against the threshold: beyond
//!   it a regression or improvement, inside it unchanged, straddling it unresolved.
//! - Separate runs never get a wall-time verdict from the spread inside each run: that spread
//!   never sees the level shift between two processes (measured: 9 to 21 of 35 rows flagged
//!   between two runs of one build). Only a threshold learned from history's between-run changes
//!   ([`noise`]) can judge them; without one the row is unresolved and says what to run.
//! - Last, a wall-time regression or improvement whose instruction count did not move is a
//!   placement effect (code layout, data alignment), reported and not gated.
//!
//! Pure: no clocks, no processes.

use super::{
    bootstrap, change_pct, direction, family, fmt_ci, fmt_confidence, fmt_threshold, noise, paired,
    Instrument, RatioCi, Row, Verdict, MIN_WALLTIME_SAMPLES,
};
use super::{fmt_change, CompareOptions};
use crate::model::ScenarioResult;

/// A row's verdict with everything that backs it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Judgement {
    pub change_pct: f64,
    pub threshold_pct: f64,
    pub ci: Option<RatioCi>,
    pub paired_rounds: Option<usize>,
    pub verdict: Verdict,
    pub reason: String,
    pub evidence: String,
    pub p_value: Option<f64>,
    pub min_detectable_pct: Option<f64>,
    pub spread_pct: Option<f64>,
}

impl Judgement {
    pub fn new(
        change_pct: f64,
        threshold_pct: f64,
        verdict: Verdict,
        reason: String,
        evidence: String,
    ) -> Self {
        Judgement {
            change_pct,
            threshold_pct,
            ci: None,
            paired_rounds: None,
            verdict,
            reason,
            evidence,
            p_value: None,
            min_detectable_pct: None,
            spread_pct: None,
        }
    }
}

/// The interleaved rounds of one id, waiting for the second pass.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Rounds {
    /// Per-round log ratios `ln(cand / base)`.
    pub d: Vec<f64>,
    /// How often the measuring session looked at the interval (at least 1).
    pub looks: u32,
    /// Every round ran a code layout of its own.
    pub layouts_varied: bool,
}

/// Per-op samples of one side: each sample's per-iteration time divided by the ops per iteration.
pub(super) fn per_op_samples(r: &ScenarioResult) -> Vec<f64> {
    let ops = r.ops.max(1) as f64;
    r.walltime.as_ref().map_or_else(Vec::new, |w| {
        w.iteration_ns.iter().map(|ns| ns / ops).collect()
    })
}

/// The rounds of two sides measured in the same interleaved session (`None` when they were
/// not), as per-round log ratios of each round's fastest sample. Interference from other
/// processes only ever adds time, so the least disturbed sample of a round is the steadiest
/// estimate of the code's own speed; with the sides taking turns sample by sample (lockstep),
/// both rounds' fastest samples were taken within the same few milliseconds.
///
/// Chosen by measurement (docs/accuracy.md): on this project's 2-core VM under heavy load, the
/// median of each round's sample-pair ratios flagged as many A/A comparisons but found a +5 %
/// change in 11 of 15 checks; round minimums found it in 14 of 15.
pub(super) fn paired_rounds(b: &ScenarioResult, c: &ScenarioResult) -> Option<Rounds> {
    let (bp, cp) = (
        b.walltime.as_ref()?.paired.as_ref()?,
        c.walltime.as_ref()?.paired.as_ref()?,
    );
    if bp.session != cp.session {
        return None;
    }
    let (br, cr) = (&bp.round_min_ns_per_op, &cp.round_min_ns_per_op);
    (br.len() == cr.len()).then(|| Rounds {
        d: br
            .iter()
            .zip(cr)
            .filter_map(|(b, c)| paired::log_ratio(*b, *c))
            .collect(),
        looks: bp.looks.unwrap_or(1).max(cp.looks.unwrap_or(1)).max(1),
        layouts_varied: !bp.round_layouts.is_empty() && !cp.round_layouts.is_empty(),
    })
}

/// A paired row before the second pass: unresolved until [`paired_rows`] judges it (and for
/// good when there are too few rounds to judge).
pub(super) fn pending_paired(r: &Rounds, opts: &CompareOptions) -> Judgement {
    let mut j = Judgement::new(
        0.0,
        opts.paired_walltime_threshold_pct,
        Verdict::Unresolved,
        format!(
            "only {} paired rounds; {} are needed to judge",
            r.d.len(),
            paired::MIN_ROUNDS
        ),
        format!("paired over {} rounds", r.d.len()),
    );
    j.paired_rounds = Some(r.d.len());
    j
}

/// Robust round-to-round spread of `d` (1.4826 × median absolute deviation), as a percent.
fn spread_pct(d: &[f64]) -> f64 {
    let mut s = d.to_vec();
    s.sort_by(f64::total_cmp);
    let med = crate::stats::quantile(&s, 0.5);
    let mut dev: Vec<f64> = s.iter().map(|x| (x - med).abs()).collect();
    dev.sort_by(f64::total_cmp);
    ((1.4826 * crate::stats::quantile(&dev, 0.5)).exp() - 1.0) * 100.0
}

/// The second pass over paired rows: `pending` holds each paired row's index in `rows` and its
/// rounds. Rows with too few rounds keep their [`pending_paired`] verdict and take no part in
/// the family.
pub(super) fn paired_rows(rows: &mut [Row], pending: &[(usize, Rounds)], opts: &CompareOptions) {
    let judged: Vec<&(usize, Rounds)> = pending
        .iter()
        .filter(|(_, r)| r.d.len() >= paired::MIN_ROUNDS)
        .collect();
    // Bonferroni over looks: a session that looked k times at its interval spends its rate k
    // ways, so its p-value counts k times.
    let p: Vec<f64> = judged
        .iter()
        .map(|(_, r)| (paired::signed_rank_p(&r.d).unwrap_or(1.0) * r.looks as f64).min(1.0))
        .collect();
    let alphas = family::row_alphas(
        &p,
        opts.family_alpha,
        1.0 - opts.paired_confidence,
        opts.error_control,
    );
    let control = match opts.error_control {
        family::ErrorControl::Holm => format!("Holm over {} rows", judged.len()),
        family::ErrorControl::Fdr => format!("FDR over {} rows", judged.len()),
        family::ErrorControl::None => {
            format!("each row at {}", fmt_confidence(opts.paired_confidence))
        }
    };
    let t = opts.paired_walltime_threshold_pct;
    for (((i, r), p), alpha) in judged.into_iter().zip(p).zip(alphas) {
        let Some(a) = paired::assess(&r.d, t, alpha / r.looks as f64) else {
            continue;
        };
        let n = r.d.len();
        let change = (a.estimate - 1.0) * 100.0;
        let ci = fmt_ci(&a.ci);
        let (verdict, mut reason) = match a.resolution {
            paired::Resolution::Beyond => (
                direction(change),
                format!(
                    "beyond {} threshold; paired over {n} rounds: ratio {ci} excludes 1",
                    fmt_threshold(t)
                ),
            ),
            paired::Resolution::Within => (
                Verdict::Unchanged,
                format!(
                    "within {} threshold: ratio {ci} over {n} rounds",
                    fmt_threshold(t)
                ),
            ),
            paired::Resolution::Straddles => (
                Verdict::Unresolved,
                format!(
                    "cannot resolve {}: ratio {ci} over {n} rounds; smallest detectable change {}",
                    fmt_threshold(t),
                    fmt_threshold(a.min_detectable_pct)
                ),
            ),
        };
        let mut evidence = format!("paired over {n} rounds");
        evidence.push_str(if r.layouts_varied {
            ", code layout varied every round"
        } else {
            ", one code layout per side"
        });
        if r.looks > 1 {
            evidence.push_str(&format!(", {} looks", r.looks));
        }
        evidence.push_str(&format!(", {control}"));
        let spread = r.layouts_varied.then(|| spread_pct(&r.d));
        if let Some(s) = spread.filter(|s| *s > t) {
            let note = format!(
                "layout-sensitive: rounds spread ±{} across code layouts",
                fmt_threshold(s)
            );
            reason.push_str(&format!("; {note}"));
            evidence.push_str(&format!("; {note}"));
        }
        let row = &mut rows[*i];
        row.change_pct = change;
        row.threshold_pct = t;
        row.ci = Some(a.ci);
        row.paired_rounds = Some(n);
        row.verdict = verdict;
        row.reason = reason;
        row.evidence = evidence;
        row.p_value = Some(p);
        row.min_detectable_pct = a
            .min_detectable_pct
            .is_finite()
            .then_some(a.min_detectable_pct);
        row.spread_pct = spread;
    }
}

/// What to run instead when two separate runs cannot judge wall time.
const UNPAIRED_ADVICE: &str = "run `costbench check --baseline-rev REV` to measure both builds \
     in interleaved rounds, or record runs of the baseline branch and pass --history-branch";

/// Wall time of two separate runs: judged only against a threshold learned from history's
/// between-run changes (`learned`), and then only when the bootstrap interval of the ratio of
/// medians also excludes 1 on the side of the change.
pub(super) fn unpaired(
    b: &ScenarioResult,
    c: &ScenarioResult,
    base: f64,
    cand: f64,
    learned: Option<noise::Learned>,
    opts: &CompareOptions,
) -> Judgement {
    let change = change_pct(base, cand);
    let Some(h) = learned else {
        // The bootstrap of one run's samples sees none of the shift between processes, so it
        // cannot back a verdict; the interval is still computed when it can be, for reading.
        let (bs, cs) = (per_op_samples(b), per_op_samples(c));
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
        "separate runs: between-run noise from {} consecutive changes of history",
        h.changes
    );
    let (bs, cs) = (per_op_samples(b), per_op_samples(c));
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
            format!("beyond {t} threshold; CI: ratio {} excludes 1", fmt_ci(&ci)),
        )
    } else {
        // Beyond anything history saw, but the run's own samples do not agree on a direction.
        (
            Verdict::Unresolved,
            format!(
                "beyond {t} threshold, but CI: ratio {} does not exclude 1 on its side",
                fmt_ci(&ci)
            ),
        )
    };
    let mut j = Judgement::new(change, h.pct, verdict, reason, evidence);
    j.ci = Some(ci);
    j
}

/// Wall-time regressions and improvements of ids whose instruction count stayed within its
/// threshold become [`Verdict::Placement`]: the same instructions took another time, which is
/// where the code or its data landed, not what it does. Ids without an instruction-count row
/// keep their verdict.
pub(super) fn mark_placement(rows: &mut [Row]) {
    let same: Vec<(String, f64)> = rows
        .iter()
        .filter(|r| r.instrument == Instrument::Icount && r.change_pct.abs() <= r.threshold_pct)
        .map(|r| (r.id.clone(), r.change_pct))
        .collect();
    for r in rows
        .iter_mut()
        .filter(|r| r.instrument == Instrument::Walltime && r.verdict.is_significant())
    {
        if let Some((_, ir)) = same.iter().find(|(id, _)| *id == r.id) {
            r.reason = format!(
                "same instructions ({}); time {}: placement or memory effect, not gated",
                fmt_change(*ir),
                fmt_change(r.change_pct)
            );
            r.evidence
                .push_str("; instruction counts unchanged (exact)");
            r.verdict = Verdict::Placement;
        }
    }
}
