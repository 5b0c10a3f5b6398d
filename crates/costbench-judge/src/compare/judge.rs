//! The verdicts: what [`compare_with`](super::compare_with) decides about each figure, and what
//! backs each decision.
//!
//! - Exact figures (instruction counts, simulated cycles, allocation counts, RSS) are judged
//!   against a threshold, the default or one learned from history ([`judge_icount`]).
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

use super::bootstrap::{self, RatioCi};
use super::types::{CompareOptions, Row, Verdict, HISTORY_EVIDENCE, MIN_WALLTIME_SAMPLES};
use super::{family, noise, paired};
use costbench_record::fmt::{fmt_ci, fmt_confidence, fmt_threshold};
use costbench_record::instrument::Figure;
use costbench_record::model::ScenarioResult;

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
    /// What was paired: `rounds` of wall time, or `rounds under load`.
    pub unit: &'static str,
    /// The threshold the row is judged against, percent.
    pub threshold_pct: f64,
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
pub(super) fn paired_rounds(
    b: &ScenarioResult,
    c: &ScenarioResult,
    opts: &CompareOptions,
) -> Option<Rounds> {
    let (bp, cp) = (
        b.walltime.as_ref()?.paired.as_ref()?,
        c.walltime.as_ref()?.paired.as_ref()?,
    );
    if bp.session != cp.session {
        return None;
    }
    let (br, cr) = (&bp.round_min_ns_per_op, &cp.round_min_ns_per_op);
    (br.len() == cr.len()).then(|| Rounds {
        d: paired::log_ratios(br, cr),
        looks: bp.looks.unwrap_or(1).max(cp.looks.unwrap_or(1)).max(1),
        layouts_varied: !bp.round_layouts.is_empty() && !cp.round_layouts.is_empty(),
        unit: "rounds",
        threshold_pct: opts.paired_walltime_threshold_pct,
    })
}

/// The rounds of two builds measured under load in the same session, taking turns slice by
/// slice (`None` when they were not), as per-round log ratios of `inst`'s figure: time per op
/// (the inverse of the round's throughput) or the round's p99 latency.
///
/// Rounds, not slices, are the pairs: every round is a fresh server process, whose code and
/// data placement (and, for a large working set, whether it got huge pages) move its speed by
/// more than its slices vary among themselves, so slices of one round are not independent
/// evidence. Measured: pairing slices flagged 1 of the first 4 A/A checks at 32 %.
pub(super) fn paired_load_rounds(
    inst: Figure,
    b: &ScenarioResult,
    c: &ScenarioResult,
    opts: &CompareOptions,
) -> Option<Rounds> {
    let (bt, ct) = (b.throughput.as_ref()?, c.throughput.as_ref()?);
    if bt.paired.as_ref()?.session != ct.paired.as_ref()?.session {
        return None;
    }
    let figures = |t: &costbench_record::model::Throughput| -> Vec<f64> {
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
    let varied = |t: &costbench_record::model::Throughput| {
        t.paired
            .as_ref()
            .is_some_and(|p| !p.round_layouts.is_empty())
    };
    (bf.len() == cf.len()).then(|| Rounds {
        d: paired::log_ratios(&bf, &cf),
        looks: 1,
        layouts_varied: varied(bt) && varied(ct),
        unit: "rounds under load",
        threshold_pct: opts.load_threshold_pct,
    })
}

/// A figure under load of two separate runs: never judged. Servers under load drift with the
/// machine between runs by more than the changes worth finding; the repeat intervals are shown
/// for reading.
pub(super) fn unpaired_load(base: f64, cand: f64, opts: &CompareOptions) -> Judgement {
    Judgement::new(
        change_pct(base, cand),
        opts.load_threshold_pct,
        Verdict::Unresolved,
        format!(
            "separate runs: figures under load are only judged when both builds took turns \
             slice by slice; {UNPAIRED_ADVICE} (with --instrument throughput)"
        ),
        "separate runs under load".into(),
    )
}

/// A paired row before the second pass: unresolved until [`paired_rows`] judges it (and for
/// good when there are too few rounds to judge, with the change of the two medians `base` and
/// `cand`).
pub(super) fn pending_paired(r: &Rounds, base: f64, cand: f64) -> Judgement {
    let mut j = Judgement::new(
        change_pct(base, cand),
        r.threshold_pct,
        Verdict::Unresolved,
        format!(
            "only {} paired {}; {} are needed to judge",
            r.d.len(),
            r.unit,
            paired::MIN_ROUNDS
        ),
        format!("paired over {} {}", r.d.len(), r.unit),
    );
    j.paired_rounds = Some(r.d.len());
    j
}

/// Robust round-to-round spread of `d` (1.4826 × median absolute deviation), as a percent.
fn spread_pct(d: &[f64]) -> f64 {
    let mut s = d.to_vec();
    s.sort_by(f64::total_cmp);
    let med = costbench_record::stats::quantile(&s, 0.5);
    let mut dev: Vec<f64> = s.iter().map(|x| (x - med).abs()).collect();
    dev.sort_by(f64::total_cmp);
    ((1.4826 * costbench_record::stats::quantile(&dev, 0.5)).exp() - 1.0) * 100.0
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
    let together = |method: &str| match judged.len() {
        1 => format!("the only paired row ({method})"),
        n => format!("{n} rows judged together ({method})"),
    };
    let control = match opts.error_control {
        family::ErrorControl::Holm => together("Holm"),
        family::ErrorControl::Fdr => together("FDR"),
        family::ErrorControl::None => {
            format!("each row at {}", fmt_confidence(opts.paired_confidence))
        }
    };
    for (((i, r), p), alpha) in judged.into_iter().zip(p).zip(alphas) {
        let t = r.threshold_pct;
        let Some(a) = paired::assess(&r.d, t, alpha / r.looks as f64) else {
            continue;
        };
        let n = r.d.len();
        let change = (a.estimate - 1.0) * 100.0;
        let ci = fmt_ci(a.ci.low, a.ci.high);
        let (verdict, mut reason) = match a.resolution {
            paired::Resolution::Beyond => (
                direction(change),
                format!(
                    "beyond {} threshold; paired over {n} {}: ratio {ci} excludes 1",
                    fmt_threshold(t),
                    r.unit
                ),
            ),
            paired::Resolution::Within => (
                Verdict::Unchanged,
                format!(
                    "within {} threshold: ratio {ci} over {n} {}",
                    fmt_threshold(t),
                    r.unit
                ),
            ),
            paired::Resolution::Straddles => (
                Verdict::Unresolved,
                format!(
                    "cannot resolve {}: ratio {ci} over {n} {}; smallest detectable change {}",
                    fmt_threshold(t),
                    r.unit,
                    fmt_threshold(a.min_detectable_pct)
                ),
            ),
        };
        let mut evidence = format!("paired over {n} {}", r.unit);
        if r.unit != "rounds" {
            evidence.push_str(", builds taking turns slice by slice");
        }
        evidence.push_str(if r.layouts_varied {
            ", code layout varied every round"
        } else {
            ", one code layout per side"
        });
        if r.looks > 1 {
            evidence.push_str(&format!(
                ", judged after each of {} batches of rounds",
                r.looks
            ));
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

/// `100 * (cand - base) / base`. Multiplying before dividing keeps integral inputs exact up to
/// the one rounding of the division, so 1002 vs 1000 gives the same double as the literal `0.2`:
/// a change exactly at the threshold is reliably not beyond it.
pub(crate) fn change_pct(base: f64, cand: f64) -> f64 {
    if base == 0.0 {
        if cand == 0.0 {
            0.0
        } else {
            f64::INFINITY.copysign(cand)
        }
    } else {
        100.0 * (cand - base) / base
    }
}

pub(crate) fn direction(change_pct: f64) -> Verdict {
    if change_pct > 0.0 {
        Verdict::Regression
    } else {
        Verdict::Improvement
    }
}

pub(super) fn judge_icount(base: f64, cand: f64, threshold: Threshold) -> (f64, Verdict, String) {
    let change = change_pct(base, cand);
    let t = threshold.describe();
    if change.abs() > threshold.pct {
        (change, direction(change), format!("beyond {t} threshold"))
    } else {
        (change, Verdict::Unchanged, format!("within {t} threshold"))
    }
}

/// A threshold and where it came from.
#[derive(Debug, Clone, Copy)]
pub(super) struct Threshold {
    pub pct: f64,
    pub from_history: bool,
}

impl Threshold {
    fn describe(self) -> String {
        if self.from_history {
            format!("{} (history)", fmt_threshold(self.pct))
        } else {
            fmt_threshold(self.pct)
        }
    }
}

/// What backs a verdict on an exact figure.
pub(super) fn exact_evidence(
    inst: Figure,
    id: &str,
    historic: &noise::HistoricThresholds,
) -> String {
    let what = inst.spec().evidence;
    match historic.learned(id, inst) {
        Some(l) => format!("{what}; threshold from {} changes of history", l.changes),
        None => what.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{compare, family::ErrorControl, CompareOptions, Comparison};
    use super::*;
    use costbench_record::model::RunRecord;
    use costbench_record::testing::{record, rounds_pair, scenario, with_icount, with_rounds};

    /// Round wobble whose signed-rank statistic is known: magnitudes `0.05 + 0.001 k` (rank
    /// `k + 1`), negative where `negative` says.
    fn signed(n: usize, negative: &[usize]) -> Vec<f64> {
        (0..n)
            .map(|k| {
                let m = 0.05 + 0.001 * k as f64;
                if negative.contains(&(k + 1)) {
                    -m
                } else {
                    m
                }
            })
            .collect()
    }

    /// Unchanged rows: small wobble of alternating sign, so their p-values are large.
    fn null_wobble(n: usize, seed: usize) -> Vec<f64> {
        (0..n)
            .map(|k| {
                let m = 0.001 * ((k + seed) % 4 + 1) as f64;
                if (k + seed).is_multiple_of(2) {
                    m
                } else {
                    -m
                }
            })
            .collect()
    }

    /// Two records with one paired id per `(id, ratio, wobble)`, layouts varied, no icount.
    fn suite(rows: &[(String, f64, Vec<f64>)], looks: u32) -> (RunRecord, RunRecord) {
        let side = |pick: usize| {
            rows.iter()
                .map(|(id, ratio, w)| {
                    let (b, c) = rounds_pair(*ratio, w);
                    with_rounds(scenario(id), if pick == 0 { &b } else { &c }, true, looks)
                })
                .collect()
        };
        (record("b", side(0)), record("c", side(1)))
    }

    fn row<'a>(c: &'a Comparison, id: &str) -> &'a Row {
        c.rows.iter().find(|r| r.id == id).expect("row")
    }

    /// `target`'s rounds, with 34 unchanged rows beside it.
    fn with_34_unchanged(target: Vec<f64>, looks: u32) -> (RunRecord, RunRecord) {
        let mut rows = vec![("target".to_string(), 1.0, target)];
        rows.extend((0..34).map(|i| (format!("null{i:02}"), 1.0, null_wobble(12, i))));
        suite(&rows, looks)
    }

    #[test]
    fn a_clear_change_is_rejected_by_holm_over_35_rows() {
        // 24 rounds all ~6 % slower: p = 2 / 2^24, far below 0.05 / 35.
        let tight: Vec<f64> = (0..24).map(|k| 0.06 + 0.0005 * (k % 5) as f64).collect();
        let (b, c) = with_34_unchanged(tight, 1);
        let cmp = compare(&b, &c, &CompareOptions::default());
        let r = row(&cmp, "target");
        assert_eq!(r.verdict, Verdict::Regression, "{r:#?}");
        assert_eq!(
            r.evidence,
            "paired over 24 rounds, code layout varied every round, 35 rows judged together (Holm)"
        );
        assert!(r.p_value.unwrap() < 1e-6, "{r:?}");
        assert!(r.min_detectable_pct.unwrap() < 5.0, "{r:?}");
        assert!(r.spread_pct.unwrap() < 1.0, "{r:?}");
        assert!(r
            .reason
            .starts_with("beyond 3 % threshold; paired over 24 rounds: ratio ["));
        // None of the unchanged rows is flagged, and each is resolved as within 3 %.
        assert_eq!(cmp.count(Verdict::Unchanged), 34, "{:#?}", cmp.rows);
    }

    #[test]
    fn the_same_p_value_is_rejected_alone_but_not_among_35() {
        // 12 rounds of ~+5.5 %, the second smallest negative: T+ = 76, p = 6 / 4096 = 0.00146,
        // below 1 - 0.99 but above 0.05 / 35 = 0.00143.
        let d = signed(12, &[2]);
        let p = paired::signed_rank_p(&d).unwrap();
        assert!((p - 6.0 / 4096.0).abs() < 1e-12, "{p}");
        let (b, c) = with_34_unchanged(d.clone(), 1);
        type Expect = (ErrorControl, Verdict, &'static str);
        let cases: [Expect; 3] = [
            (ErrorControl::None, Verdict::Regression, "each row at 99 %"),
            (
                ErrorControl::Holm,
                Verdict::Unresolved,
                "35 rows judged together (Holm)",
            ),
            (
                ErrorControl::Fdr,
                Verdict::Unresolved,
                "35 rows judged together (FDR)",
            ),
        ];
        for (control, verdict, evidence) in cases {
            let opts = CompareOptions {
                error_control: control,
                ..CompareOptions::default()
            };
            let r = row(&compare(&b, &c, &opts), "target").clone();
            assert_eq!(r.verdict, verdict, "{control:?}: {r:#?}");
            assert!(
                r.evidence.ends_with(evidence),
                "{control:?}: {}",
                r.evidence
            );
            assert!((r.p_value.unwrap() - p).abs() < 1e-12);
            if verdict == Verdict::Unresolved {
                assert!(
                    r.reason.starts_with("cannot resolve 3 %: ratio [")
                        && r.reason
                            .contains("] over 12 rounds; smallest detectable change "),
                    "{}",
                    r.reason
                );
            }
        }
        // Alone (a one-row family), Holm is the row's own test at 0.05.
        let (b, c) = suite(&[("target".into(), 1.0, d)], 1);
        let r = row(&compare(&b, &c, &CompareOptions::default()), "target").clone();
        assert_eq!(r.verdict, Verdict::Regression, "{r:#?}");
        assert_eq!(
            r.evidence,
            "paired over 12 rounds, code layout varied every round, the only paired row (Holm)"
        );
    }

    #[test]
    fn every_look_spends_error_rate() {
        // The same rounds, looked at twice by an adaptive session: p doubles, so the row that
        // one look rejects at 99 % (p = 0.00146 <= 0.01) is judged at 0.005 per look.
        let d = signed(12, &[2]);
        let opts = CompareOptions {
            error_control: ErrorControl::None,
            ..CompareOptions::default()
        };
        let (b, c) = suite(&[("target".into(), 1.0, d.clone())], 2);
        let r = row(&compare(&b, &c, &opts), "target").clone();
        assert!((r.p_value.unwrap() - 12.0 / 4096.0).abs() < 1e-12, "{r:?}");
        assert!(
            r.evidence
                .contains(", judged after each of 2 batches of rounds, "),
            "{}",
            r.evidence
        );
        // Twelve looks: p = 0.0176 > 0.01.
        let (b, c) = suite(&[("target".into(), 1.0, d)], 12);
        let r = row(&compare(&b, &c, &opts), "target").clone();
        assert_eq!(r.verdict, Verdict::Unresolved, "{r:#?}");
    }

    #[test]
    fn a_wide_spread_across_layouts_is_unresolved_and_said_so() {
        let wide: Vec<f64> = (0..12).map(|k| 0.06 * ((k % 5) as f64 - 2.0)).collect();
        let (b, c) = suite(&[("wide".into(), 1.02, wide.clone())], 1);
        let r = row(&compare(&b, &c, &CompareOptions::default()), "wide").clone();
        assert_eq!(r.verdict, Verdict::Unresolved, "{r:#?}");
        let spread = r.spread_pct.unwrap();
        assert!(spread > 10.0, "{spread}");
        assert!(r.min_detectable_pct.unwrap() > 10.0, "{r:?}");
        let said = format!(
            "layout-sensitive: rounds spread ±{} across code layouts",
            fmt_threshold(spread)
        );
        assert!(r.reason.ends_with(&said), "{}", r.reason);
        assert!(r.evidence.ends_with(&said), "{}", r.evidence);
        // The same rounds with one layout per side: no spread reported, and the evidence says
        // the layouts were not varied.
        let one = |pick: usize| {
            let (bv, cv) = rounds_pair(1.02, &wide);
            let v = if pick == 0 { bv } else { cv };
            record("r", vec![with_rounds(scenario("wide"), &v, false, 1)])
        };
        let r = row(
            &compare(&one(0), &one(1), &CompareOptions::default()),
            "wide",
        )
        .clone();
        assert_eq!(r.spread_pct, None);
        assert!(
            r.evidence
                .starts_with("paired over 12 rounds, one code layout per side"),
            "{}",
            r.evidence
        );
        assert!(!r.reason.contains("layout-sensitive"), "{}", r.reason);
    }

    #[test]
    fn time_that_moved_with_the_same_instructions_is_placement() {
        let tight: Vec<f64> = (0..12).map(|k| 0.0005 * (k % 5) as f64).collect();
        let make = |pick: usize, cand_ir: f64| {
            let (b, c) = rounds_pair(1.071, &tight);
            let v = if pick == 0 { b } else { c };
            let ir = if pick == 0 { 1000.0 } else { cand_ir };
            let rows = vec![
                with_rounds(with_icount(scenario("same_ir"), ir), &v, true, 1),
                with_rounds(scenario("no_ir"), &v, true, 1),
            ];
            record("r", rows)
        };
        let cmp = compare(
            &make(0, 1000.0),
            &make(1, 1000.0),
            &CompareOptions::default(),
        );
        let r = cmp
            .rows
            .iter()
            .find(|x| x.id == "same_ir" && x.instrument == Figure::Walltime)
            .unwrap();
        assert_eq!(r.verdict, Verdict::Placement, "{r:#?}");
        assert!(
            r.reason
                .starts_with("same instructions (+0.00 %); time +7.1")
                && r.reason
                    .ends_with(" %: placement or memory effect, not gated"),
            "{}",
            r.reason
        );
        assert!(r
            .evidence
            .ends_with("; instruction counts unchanged (exact)"));
        // No instruction count to tell: the time regression stands.
        let no_ir = cmp
            .rows
            .iter()
            .find(|x| x.id == "no_ir" && x.instrument == Figure::Walltime)
            .unwrap();
        assert_eq!(no_ir.verdict, Verdict::Regression);
        assert_eq!(cmp.count(Verdict::Placement), 1);
        assert_eq!(cmp.count(Verdict::Regression), 1);
        assert!(cmp.summary().ends_with("1 placement"), "{}", cmp.summary());
        // Instructions that moved beyond their threshold too: a real change, not placement.
        let cmp = compare(
            &make(0, 1000.0),
            &make(1, 1050.0),
            &CompareOptions::default(),
        );
        let r = cmp
            .rows
            .iter()
            .find(|x| x.id == "same_ir" && x.instrument == Figure::Walltime)
            .unwrap();
        assert_eq!(r.verdict, Verdict::Regression, "{r:#?}");
    }

    #[test]
    fn too_few_rounds_are_unresolved_and_stay_out_of_the_family() {
        let (b, c) = suite(
            &[
                ("few".into(), 1.2, null_wobble(7, 0)),
                ("many".into(), 1.0, null_wobble(12, 1)),
            ],
            1,
        );
        let cmp = compare(&b, &c, &CompareOptions::default());
        let few = row(&cmp, "few");
        assert_eq!(few.verdict, Verdict::Unresolved);
        assert_eq!(few.reason, "only 7 paired rounds; 8 are needed to judge");
        assert_eq!(few.p_value, None);
        assert!(row(&cmp, "many")
            .evidence
            .ends_with("the only paired row (Holm)"));
    }
}
