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
//! - An instrument asked for that could not run (valgrind missing: no instruction counts) fails
//!   the gate, unless the caller allows it ([`Gate::allow_missing`]): a gate must not pass on
//!   figures it never had.
//! - A broken budget ([`crate::budget`]) fails the gate, `ignore` or not: a budget is a test;
//!   so does a family of sized ids whose growth changed or disagrees with its declared class
//!   ([`crate::complexity`]).
//! - An instrument's finding ([`Finding`]) fails the gate unless costbench.toml accepted it
//!   (an entry its judge slice reads, [`crate::instrument`]): then it is listed as accepted, with
//!   the entry's reason.
//! - Unresolved rows (the measurement could not tell) and placement rows (the same
//!   instructions, the time moved with code or data placement) never fail the gate; they are
//!   listed as notes, so a reader knows what the check did not settle.

use crate::compare::{Comparison, NotMeasured, Verdict};
use crate::glob::glob_match;
use costbench_record::fmt::fmt_change;
use costbench_record::instrument::{serialize_by_instrument, Figure, Finding};
use costbench_record::model::RunRecord;
use serde::{Deserialize, Serialize};

/// `[check]`: the CI gate's limits.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// Measured ids (globs: `*` matches any run of characters) that never fail the check.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// The `[[check.limit]]` entries, in file order: later ones override earlier ones.
    #[serde(default)]
    pub limit: Vec<Limit>,
}

/// One `[[check.limit]]` entry.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    /// Glob over measured ids.
    #[serde(default = "any")]
    pub scenario: String,
    /// `icount` or `walltime`; both when absent.
    pub metric: Option<LimitMetric>,
    /// Percent: a significant regression fails the check only when its change exceeds this.
    pub soft: Option<f64>,
    /// Absolute per-op ceiling for the candidate (instructions per op, or median ns per op).
    pub hard: Option<f64>,
}

fn any() -> String {
    "*".into()
}

/// Which figure a `[[check.limit]]` entry limits.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LimitMetric {
    /// Instructions per op.
    Icount,
    /// Median wall time per op, ns.
    Walltime,
}

impl CheckConfig {
    /// Refuses entries that limit nothing and limits that are not numbers in range; the
    /// message names the entry by its position.
    pub fn validate(&self) -> anyhow::Result<()> {
        for (i, l) in self.limit.iter().enumerate() {
            let n = i + 1;
            if l.soft.is_none() && l.hard.is_none() {
                anyhow::bail!(
                    "[[check.limit]] number {n} ({:?}) sets neither soft nor hard",
                    l.scenario
                );
            }
            if let Some(v) = l.soft.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                anyhow::bail!(
                    "[[check.limit]] number {n}: soft must be a percentage of at least 0, not {v}"
                );
            }
            if let Some(v) = l.hard.filter(|v| !(v.is_finite() && *v > 0.0)) {
                anyhow::bail!(
                    "[[check.limit]] number {n}: hard must be a positive per-op figure, not {v}"
                );
            }
        }
        Ok(())
    }
}

/// Why the gate failed for one id and metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    /// The measured id.
    pub id: String,
    /// The figure that broke the limit.
    pub instrument: Figure,
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
    /// Every broken limit, regressions first, then hard limits.
    pub violations: Vec<Violation>,
    /// Ids with a significant regression that `ignore` excused.
    pub ignored: Vec<String>,
    /// Rows the gate did not act on because the comparison could not settle them: unresolved
    /// and placement verdicts.
    pub notes: Vec<Note>,
    /// Instruments asked for that could not run (the comparison's `not_measured`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<NotMeasured>,
    /// Whether [`missing`](Self::missing) instruments are allowed (`--allow-missing-instrument`):
    /// then they are said, not failed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing_allowed: bool,
    /// Budgets the candidate broke (a figure above its limit, or not measured): see
    /// [`crate::budget`]. Filled by [`Gate::with_budgets`].
    pub budgets: Vec<costbench_record::model::budget::BudgetCheck>,
    /// Families of sized ids whose growth changed from the baseline, or that disagree with their
    /// declared class: see [`crate::complexity`]. Filled by [`Gate::with_complexity`] from [`complexity_findings`].
    pub complexity: Vec<ComplexityFinding>,
    /// Rows of a side that did not finish (`check --allow-unfinished`) that were never measured,
    /// as "ID (baseline)": the gate never passes them. Absent from JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_reached: Vec<String>,
    /// The instruments' findings in the candidate that fail the gate, whatever the baseline
    /// had. In JSON, one key per instrument that has some (its slice's `json_key`, each
    /// `{"id", "finding"}`), absent when there are none.
    #[serde(flatten, serialize_with = "failing_by_instrument")]
    pub findings: Vec<Finding>,
    /// The instruments' findings that costbench.toml accepted (each names its entry and why):
    /// listed, never failing. In JSON under `KEY_accepted`, absent when there are none.
    #[serde(flatten, serialize_with = "accepted_by_instrument")]
    pub findings_accepted: Vec<Finding>,
}

fn failing_by_instrument<S: serde::Serializer>(f: &[Finding], s: S) -> Result<S::Ok, S::Error> {
    serialize_by_instrument(f, "", s)
}

fn accepted_by_instrument<S: serde::Serializer>(f: &[Finding], s: S) -> Result<S::Ok, S::Error> {
    serialize_by_instrument(f, "_accepted", s)
}

/// A family whose growth the gate fails.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComplexityFinding {
    /// The family (`sort` of `sort/100`).
    pub family: String,
    /// `growth` (changed from the baseline) or `declared` (disagrees with its declared class).
    pub kind: &'static str,
    /// For people.
    pub message: String,
}

/// A row that was neither gated nor unchanged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Note {
    /// The measured id.
    pub id: String,
    /// The figure the row compared.
    pub instrument: Figure,
    /// `unresolved` or `placement`.
    pub verdict: Verdict,
    /// The row's change, percent.
    pub change_pct: f64,
    /// Why the comparison gave that verdict (its row's `reason`).
    pub reason: String,
}

impl Gate {
    /// No violations, and no missing instrument unless allowed: the check succeeds.
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
            && self.budgets.is_empty()
            && self.complexity.is_empty()
            && self.findings.is_empty()
            && !self.missing_fails()
            && self.not_reached.is_empty()
    }

    /// How many limits, budgets, growths and findings it fails.
    pub fn broken(&self) -> usize {
        self.violations.len() + self.budgets.len() + self.complexity.len() + self.findings.len()
    }

    /// Whether a missing instrument fails the gate.
    pub fn missing_fails(&self) -> bool {
        !self.missing.is_empty() && !self.missing_allowed
    }

    /// Allows the missing instruments (`--allow-missing-instrument`): still said, no failure.
    pub fn allow_missing(&mut self) {
        self.missing_allowed = true;
    }

    /// This gate with the complexity `findings` ([`complexity_findings`]).
    #[must_use]
    pub fn with_complexity(mut self, findings: Vec<ComplexityFinding>) -> Gate {
        self.complexity = findings;
        self
    }

    /// This gate with the budgets of `checks` that failed (the others passed: not listed).
    #[must_use]
    pub fn with_budgets(mut self, checks: &[costbench_record::model::budget::BudgetCheck]) -> Gate {
        self.budgets = checks.iter().filter(|c| c.failed()).cloned().collect();
        self
    }
}

/// The families a gate fails: the growth `changes` from the baseline, then the declared classes
/// of `checks` that failed. Worked out before the limits are applied ([`evaluate`]), since it
/// needs only the two records.
pub fn complexity_findings(
    changes: &[crate::complexity::Change],
    checks: &[costbench_record::model::complexity::ComplexityCheck],
) -> Vec<ComplexityFinding> {
    changes
        .iter()
        .map(|c| ComplexityFinding {
            family: c.family.clone(),
            kind: "growth",
            message: c.message.clone(),
        })
        .chain(
            checks
                .iter()
                .filter(|c| !c.passed)
                .map(|c| ComplexityFinding {
                    family: c.family.clone(),
                    kind: "declared",
                    message: format!("{} ({})", c.message, c.source),
                }),
        )
        .collect()
}

/// The soft and hard limits in force for `id` and `inst`: later entries override earlier ones.
fn limits(cfg: &CheckConfig, id: &str, inst: Figure) -> (f64, Option<f64>) {
    let mut soft = 0.0;
    let mut hard = None;
    for l in &cfg.limit {
        let metric_matches = match l.metric {
            // The limits' language names icount and walltime only: counter and memory figures
            // (compared since the counters instruments) are not limited by a metric-less entry.
            None => matches!(inst, Figure::Icount | Figure::Walltime),
            Some(LimitMetric::Icount) => inst == Figure::Icount,
            Some(LimitMetric::Walltime) => inst == Figure::Walltime,
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
    let mut gate = Gate {
        missing: cmp.not_measured.clone(),
        findings: cand.failing_findings().collect(),
        findings_accepted: cand.accepted_findings().collect(),
        ..Gate::default()
    };
    let ignored = |id: &str| cfg.ignore.iter().any(|g| glob_match(g, id));
    // A row a side never reached has no figure to hold against a limit: it cannot pass.
    for u in &cmp.unfinished {
        gate.not_reached
            .extend(u.not_reached.iter().map(|id| format!("{id} ({})", u.side)));
    }
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
        for inst in Figure::ALL {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare, CompareOptions};
    use costbench_record::testing::{record, scenario, with_icount};

    /// The `[check]` table of a `costbench.toml`, validated as the runner's configuration
    /// loader validates it.
    fn check_config(toml: &str) -> CheckConfig {
        #[derive(Deserialize)]
        struct File {
            #[serde(default)]
            check: CheckConfig,
        }
        let cfg = toml::from_str::<File>(toml).unwrap().check;
        cfg.validate().unwrap();
        cfg
    }

    /// Issue 29: without valgrind, `check` judged wall time only and passed, its summary
    /// claiming "icount within 0.2 %".
    #[test]
    fn issue_29_a_missing_instrument_fails_the_gate_unless_allowed() {
        let (base, mut cand) = runs();
        cand.skipped.push(costbench_record::model::Skipped {
            instrument: "icount".into(),
            reason: "valgrind not found".into(),
        });
        let cmp = compare(&base, &cand, &CompareOptions::default());
        assert_eq!(cmp.not_measured.len(), 1);
        assert_eq!(
            cmp.not_measured[0].missing_in,
            crate::compare::Side::Candidate
        );
        let mut gate = evaluate(&cmp, &cand, &CheckConfig::default());
        assert!(gate.missing_fails() && !gate.passed());
        gate.allow_missing();
        assert!(!gate.missing_fails());
        assert_eq!(gate.passed(), gate.violations.is_empty());
    }

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

    #[test]
    fn rows_an_unfinished_side_never_reached_fail_the_gate() {
        let (mut base, cand) = runs();
        base.settings.instruments = vec!["icount".into()];
        base.finished_at = None;
        base.results[1].icount = None;
        let cmp = compare(&base, &cand, &CompareOptions::default());
        assert_eq!(cmp.unfinished.len(), 1);
        assert_eq!(cmp.unfinished[0].side, crate::compare::Side::Baseline);
        assert_eq!(cmp.unfinished[0].not_reached, ["index/b"]);
        assert!(cmp.unfinished[0]
            .note
            .starts_with("baseline: run b did not finish (killed"));
        let g = evaluate(&cmp, &cand, &CheckConfig::default());
        assert_eq!(g.not_reached, ["index/b (baseline)"]);
        assert!(!g.passed());
        // Both finished: nothing of this is said, and JSON stays as it was.
        let (base, cand) = runs();
        let cmp = compare(&base, &cand, &CompareOptions::default());
        assert!(cmp.unfinished.is_empty());
        assert!(serde_json::to_value(&cmp)
            .unwrap()
            .get("unfinished")
            .is_none());
    }

    fn gate(toml: &str) -> Gate {
        let (base, cand) = runs();
        let cmp = compare(&base, &cand, &CompareOptions::default());
        evaluate(&cmp, &cand, &check_config(toml))
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
