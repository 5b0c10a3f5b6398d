//! The CI gate of `costbench check`: which rows of a comparison, and which figures of the
//! candidate, break the limits of `costbench.toml` (`[check]`). Pure: a function of the
//! comparison, the candidate's record and the configuration.
//!
//! - A row that `compare` judged a significant regression fails the gate, unless its change is
//!   within the soft limit (percent) of the last `[[check.limit]]` entry that matches its id and
//!   metric (default 0: every significant regression fails).
//! - A candidate figure above the hard limit (absolute, per op) fails the gate whatever the
//!   baseline says, also for scenarios the baseline does not have.
//! - Ids matching an `ignore` glob never fail the gate; they are listed as ignored.
//! - Unresolved rows (the measurement could not tell) and placement rows (the same
//!   instructions, the time moved with code or data placement) never fail the gate; they are
//!   listed as notes, so a reader knows what the check did not settle.

use crate::compare::{Comparison, Instrument, Verdict};
use crate::config::{glob_match, CheckConfig, LimitMetric};
use crate::fmt::fmt_change;
use crate::model::RunRecord;
use serde::Serialize;

/// Why the gate failed for one id and metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    pub id: String,
    pub instrument: Instrument,
    /// `regression` or `hard-limit`.
    pub kind: &'static str,
    /// The candidate's per-op figure.
    pub value: f64,
    /// The limit it broke: the soft limit in percent, or the hard limit per op.
    pub limit: f64,
    /// One line for people: "+3.10 % (significant; soft limit 1 %)".
    pub message: String,
}

/// The verdict of the gate.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Gate {
    pub violations: Vec<Violation>,
    /// Ids with a significant regression that `ignore` excused.
    pub ignored: Vec<String>,
    /// Rows the gate did not act on because the comparison could not settle them: unresolved
    /// and placement verdicts.
    pub notes: Vec<Note>,
}

/// A row that was neither gated nor unchanged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Note {
    pub id: String,
    pub instrument: Instrument,
    pub verdict: Verdict,
    pub change_pct: f64,
    pub reason: String,
}

impl Gate {
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }
}

/// The soft and hard limits in force for `id` and `inst`: later entries override earlier ones.
fn limits(cfg: &CheckConfig, id: &str, inst: Instrument) -> (f64, Option<f64>) {
    let mut soft = 0.0;
    let mut hard = None;
    for l in &cfg.limit {
        let metric_matches = match l.metric {
            // The limits' language names icount and walltime only: counter and memory figures
            // (compared since the counters instruments) are not limited by a metric-less entry.
            None => matches!(inst, Instrument::Icount | Instrument::Walltime),
            Some(LimitMetric::Icount) => inst == Instrument::Icount,
            Some(LimitMetric::Walltime) => inst == Instrument::Walltime,
        };
        if metric_matches && glob_match(&l.scenario, id) {
            if let Some(s) = l.soft {
                soft = s;
            }
            if let Some(h) = l.hard {
                hard = Some(h);
            }
        }
    }
    (soft, hard)
}

/// Applies `cfg` to a comparison whose candidate is `cand`.
pub fn evaluate(cmp: &Comparison, cand: &RunRecord, cfg: &CheckConfig) -> Gate {
    let mut gate = Gate::default();
    let ignored = |id: &str| cfg.ignore.iter().any(|g| glob_match(g, id));
    for r in &cmp.rows {
        if matches!(r.verdict, Verdict::Unresolved | Verdict::Placement) {
            gate.notes.push(Note {
                id: r.id.clone(),
                instrument: r.instrument,
                verdict: r.verdict,
                change_pct: r.change_pct,
                reason: r.reason.clone(),
            });
        }
        if r.verdict != Verdict::Regression {
            continue;
        }
        if ignored(&r.id) {
            if !gate.ignored.contains(&r.id) {
                gate.ignored.push(r.id.clone());
            }
            continue;
        }
        let (soft, _) = limits(cfg, &r.id, r.instrument);
        if r.change_pct > soft {
            gate.violations.push(Violation {
                id: r.id.clone(),
                instrument: r.instrument,
                kind: "regression",
                value: r.cand,
                limit: soft,
                message: if soft > 0.0 {
                    format!(
                        "{} (significant; beyond the soft limit of {soft} %)",
                        fmt_change(r.change_pct)
                    )
                } else {
                    format!("{} (significant)", fmt_change(r.change_pct))
                },
            });
        }
    }
    for res in &cand.results {
        if ignored(&res.id) {
            continue;
        }
        for inst in Instrument::ALL {
            let (_, Some(hard)) = limits(cfg, &res.id, inst) else {
                continue;
            };
            let Some(v) = inst.per_op(res) else { continue };
            if v > hard {
                gate.violations.push(Violation {
                    id: res.id.clone(),
                    instrument: inst,
                    kind: "hard-limit",
                    value: v,
                    limit: hard,
                    message: format!(
                        "{} per op, above the hard limit of {}",
                        inst.fmt_value(v),
                        inst.fmt_value(hard)
                    ),
                });
            }
        }
    }
    gate
}

/// The gate's verdict for the terminal, after the comparison table.
pub fn terminal(gate: &Gate) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if gate.passed() {
        out.push_str("\ncheck: passed\n");
    } else {
        let _ = writeln!(
            out,
            "\ncheck: FAILED, {} violation(s):",
            gate.violations.len()
        );
        for v in &gate.violations {
            let _ = writeln!(
                out,
                "  {} ({}): {}",
                crate::report::escape::clean(&v.id),
                v.instrument.name(),
                v.message
            );
        }
    }
    if !gate.ignored.is_empty() {
        let ids: Vec<String> = gate
            .ignored
            .iter()
            .map(|i| crate::report::escape::clean(i))
            .collect();
        let _ = writeln!(out, "ignored by costbench.toml: {}", ids.join(", "));
    }
    if !gate.notes.is_empty() {
        let n = |v: Verdict| gate.notes.iter().filter(|x| x.verdict == v).count();
        let _ = writeln!(
            out,
            "not gated: {} unresolved, {} placement (listed above with their reasons)",
            n(Verdict::Unresolved),
            n(Verdict::Placement)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::testing::{record, scenario, with_icount};
    use crate::compare::{compare, CompareOptions};
    use crate::config::Config;

    fn runs() -> (RunRecord, RunRecord) {
        let base = record(
            "b",
            vec![
                with_icount(scenario("index/a"), 100.0),
                with_icount(scenario("index/b"), 100.0),
                with_icount(scenario("pipe/x"), 100.0),
            ],
        );
        let cand = record(
            "c",
            vec![
                with_icount(scenario("index/a"), 103.0),
                with_icount(scenario("index/b"), 100.5),
                with_icount(scenario("pipe/x"), 150.0),
                with_icount(scenario("new"), 9.0),
            ],
        );
        (base, cand)
    }

    fn gate(toml: &str) -> Gate {
        let (base, cand) = runs();
        let cmp = compare(&base, &cand, &CompareOptions::default());
        evaluate(&cmp, &cand, &Config::parse(toml).unwrap().check)
    }

    fn ids(g: &Gate) -> Vec<(&str, &str)> {
        g.violations
            .iter()
            .map(|v| (v.id.as_str(), v.kind))
            .collect()
    }

    #[test]
    fn every_significant_regression_fails_by_default() {
        let g = gate("");
        assert_eq!(
            ids(&g),
            [
                ("index/a", "regression"),
                ("index/b", "regression"),
                ("pipe/x", "regression")
            ]
        );
        assert!(!g.passed());
    }

    #[test]
    fn unresolved_and_placement_rows_are_notes_never_violations() {
        use crate::compare::testing::{rounds_pair, with_rounds};
        // "moved": 7 % slower with identical instructions (placement); "wide": rounds spread
        // ±14 % (unresolved); "plain": separate-run wall time is not in this session.
        let tight: Vec<f64> = (0..12).map(|k| 0.0005 * (k % 5) as f64).collect();
        let wide: Vec<f64> = (0..12).map(|k| 0.06 * ((k % 5) as f64 - 2.0)).collect();
        let side = |pick: usize| {
            let v = |ratio: f64, w: &[f64]| {
                let (b, c) = rounds_pair(ratio, w);
                if pick == 0 {
                    b
                } else {
                    c
                }
            };
            record(
                "r",
                vec![
                    with_rounds(
                        with_icount(scenario("moved"), 100.0),
                        &v(1.07, &tight),
                        true,
                        1,
                    ),
                    with_rounds(scenario("wide"), &v(1.02, &wide), true, 1),
                ],
            )
        };
        let (base, cand) = (side(0), side(1));
        let cmp = compare(&base, &cand, &CompareOptions::default());
        let g = evaluate(&cmp, &cand, &Config::parse("").unwrap().check);
        assert!(g.passed(), "{g:#?}");
        let notes: Vec<(&str, Verdict)> =
            g.notes.iter().map(|n| (n.id.as_str(), n.verdict)).collect();
        assert_eq!(
            notes,
            [("moved", Verdict::Placement), ("wide", Verdict::Unresolved)]
        );
        assert_eq!(
            terminal(&g),
            "\ncheck: passed\nnot gated: 1 unresolved, 1 placement (listed above with their reasons)\n"
        );
        // The comparison's terminal table lists them with their reasons.
        let text = crate::report::comparison::terminal(&cmp);
        assert!(
            text.contains("\nnot gated (1 unresolved, 1 placement):\n  moved (walltime) +7."),
            "{text}"
        );
        assert!(
            text.contains(" placement: same instructions (+0.00 %); time +7."),
            "{text}"
        );
        assert!(
            text.contains("  wide (walltime) +")
                && text.contains(" unresolved: cannot resolve 3 %: ratio ["),
            "{text}"
        );
        assert!(text.contains("no significant change\n"), "{text}");
    }

    #[test]
    fn soft_limits_ignores_and_hard_limits() {
        let g = gate(
            "[check]\nignore = [\"pipe/*\"]\n\
             [[check.limit]]\nsoft = 1\n\
             [[check.limit]]\nscenario = \"index/a\"\nmetric = \"icount\"\nsoft = 5\n\
             [[check.limit]]\nscenario = \"new\"\nhard = 8\n",
        );
        // index/a: +3 % within its own soft limit of 5 %; index/b: +0.5 % within 1 %;
        // pipe/x ignored; new: 9 Ir/op above its hard limit of 8.
        assert_eq!(ids(&g), [("new", "hard-limit")]);
        assert_eq!(g.ignored, ["pipe/x"]);
        assert!(g.violations[0].message.contains("above the hard limit"));
        // A soft limit for wall time does not apply to instruction counts.
        let g = gate("[[check.limit]]\nmetric = \"walltime\"\nsoft = 50\n");
        assert_eq!(g.violations.len(), 3);
    }
}
