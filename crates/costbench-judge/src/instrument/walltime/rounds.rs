//! Wall time measured in interleaved rounds, judged paired: the rounds of two sides of one
//! session as per-round log ratios ([`paired_rounds`]), a row waiting for the second pass
//! ([`pending`]), and the second pass over every paired row ([`judge_paired`]): each row's
//! exact signed-rank p-value (times the session's looks at its interval), the family error
//! control that turns those p-values into the rate each row is judged at ([`family`]), and
//! [`paired::assess`], which places the row's interval against its threshold: beyond it a
//! regression or improvement, inside it unchanged, straddling it unresolved. Figures under load
//! pair their rounds too (`instrument::throughput`) and are judged here with the others.
//!
//! Pure: no clocks, no processes.

use super::{family, paired};
use crate::compare::judge::{change_pct, direction, Judgement};
use crate::compare::types::{CompareOptions, Row, Verdict};
use costbench_record::fmt::{fmt_ci, fmt_confidence, fmt_threshold};
use costbench_record::model::ScenarioResult;

/// The interleaved rounds of one id, waiting for the second pass.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rounds {
    /// Per-round log ratios `ln(cand / base)`.
    pub d: Vec<f64>,
    /// How often the measuring session looked at the interval (at least 1).
    pub looks: u32,
    /// Every round ran a code layout of its own.
    pub layouts_varied: bool,
    /// What was paired: `rounds` of wall time, or `rounds under load`.
    pub unit: &'static str,
    /// How the sides took turns, when not sample by sample, as the evidence says it after the
    /// rounds (", builds taking turns slice by slice"); empty otherwise.
    pub turns: &'static str,
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
pub(crate) fn paired_rounds(
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
        turns: "",
        threshold_pct: opts.paired_walltime_threshold_pct,
    })
}

/// A paired row before the second pass: unresolved until [`judge_paired`] judges it (and for
/// good when there are too few rounds to judge, with the change of the two medians `base` and
/// `cand`).
pub(crate) fn pending(r: &Rounds, base: f64, cand: f64) -> Judgement {
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
/// rounds. Rows with too few rounds keep their [`pending`](fn@pending) verdict and take no part
/// in the family.
pub(crate) fn judge_paired(rows: &mut [Row], pending: &[(usize, Rounds)], opts: &CompareOptions) {
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
        evidence.push_str(r.turns);
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

#[cfg(test)]
mod tests {
    use super::super::family::ErrorControl;
    use super::*;
    use crate::compare::{compare, Comparison};
    use costbench_record::instrument::Figure;
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
