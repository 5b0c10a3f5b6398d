//! The advice of `costbench advise`: candidate changes of the user's crate (a build choice, a
//! source change clippy knows how to apply), each measured on its own against the unchanged
//! code, with its effect on every scenario and a verdict. Serialised as versioned JSON
//! (`"schema": "costbench-advice"`); the terminal table and markdown are `costbench-report`'s
//! `advice`.
//!
//! A candidate's verdict comes only from what `compare` judged significant: **worth it** when at
//! least one figure improved significantly and none got significantly worse, **costs more** the
//! other way round, **mixed** with both, and **no measurable effect** with neither. Unresolved
//! rows (an interval straddling the threshold) and placement rows (the same instructions, the
//! time moved with code or data placement) are never counted as gains or losses. Binary size and
//! build time are reported beside the verdict, never part of it: they are prices the user weighs.
//!
//! Pure: functions of comparisons and the variant matrix. Renders nothing.

use crate::compare::{self, Comparison, RatioCi};
use crate::variants::Matrix;
use costbench_record::instrument::Figure;
use serde::Serialize;

/// `schema` of the advice document.
pub const SCHEMA: &str = "costbench-advice";
/// Bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 2;

/// What measuring a candidate concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A significant improvement of some figure of some scenario, nothing significantly worse.
    WorthIt,
    /// Nothing changed significantly (unresolved and placement rows included).
    NoMeasurableEffect,
    /// Something got significantly worse, nothing significantly better.
    CostsMore,
    /// Some figures significantly better, others significantly worse.
    Mixed,
    /// The candidate did not compile: never measured.
    BuildFailed,
    /// The candidate compiled but the crate's own tests failed with it: never measured.
    TestsFailed,
    /// An idiom found where no rewrite can be made safely: reported with no claimed saving.
    NoRewrite,
    /// Found but not measured (`--list`, or no figure could be compared).
    NotMeasured,
}

impl Verdict {
    /// The verdict in words, as the reports print it.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::WorthIt => "worth it",
            Verdict::NoMeasurableEffect => "no measurable effect",
            Verdict::CostsMore => "costs more",
            Verdict::Mixed => "mixed",
            Verdict::BuildFailed => "build failed",
            Verdict::TestsFailed => "tests failed",
            Verdict::NoRewrite => "no safe rewrite",
            Verdict::NotMeasured => "not measured",
        }
    }
}

/// What a candidate changes.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Change {
    /// A build choice: a variant of the bench profile (`costbench variants --preset
    /// build-choices`).
    Build {
        /// The variant's name (`lto-fat`).
        variant: String,
        /// Its settings in words (`lto=fat`).
        settings: String,
        /// The choice turns a safety check on (overflow checks, debug assertions): its effect is
        /// the price of the check, reported as a cost, never as advice to turn checks off.
        safety_check: bool,
    },
    /// A source change, applied alone: a suggestion clippy marked machine-applicable, or the
    /// rewrite of a slow idiom no linter flags.
    Source {
        /// Where it comes from: the lint (`clippy::redundant_clone`) or the idiom
        /// (`idiom::unbuffered_writes`).
        rule: String,
        /// What was found and what the change does.
        message: String,
        /// The file of the first replacement, relative to the workspace.
        file: String,
        /// Its line (1-based).
        line: u32,
        /// The change as a unified diff.
        diff: String,
    },
}

/// The effect of a candidate on one figure of one scenario: `compare`'s row, kept whole enough
/// to show the figures, the interval and the verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Effect {
    /// The measured id.
    pub id: String,
    /// The compared figure.
    pub figure: Figure,
    /// What one op is.
    pub unit: String,
    /// Per op, unchanged code.
    pub base: f64,
    /// Per op, with the candidate.
    pub cand: f64,
    /// `100 * (cand - base) / base`.
    pub change_pct: f64,
    /// The interval of `cand / base`, where the row's judging gives one (timings: paired
    /// signed-rank).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci: Option<RatioCi>,
    /// `compare`'s verdict on the row.
    pub verdict: compare::Verdict,
    /// Why, in a few words (empty where the matrix does not say).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// A before and after of one of a candidate's prices.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Price {
    /// With the unchanged code.
    pub base: f64,
    /// With the candidate.
    pub cand: f64,
}

/// A scenario that executes the code a source change touches, and how much of its cost that
/// code is (instructions at the changed function's lines, with the calls made from them, out of
/// the scenario's; read from the unchanged code's profile).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Share {
    /// The scenario's id.
    pub id: String,
    /// Percent of the scenario's instructions.
    pub percent: f64,
}

/// One candidate change, measured or not.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// Its id in this document: `b1`, `b2`, ... for build choices, `c1`, `c2`, ... for clippy's.
    pub id: String,
    /// What it changes.
    pub change: Change,
    /// What measuring it concluded.
    pub verdict: Verdict,
    /// Why, in a sentence: which figures moved, how many rows could not be resolved.
    pub reason: String,
    /// One per (scenario, figure) compared.
    pub effects: Vec<Effect>,
    /// Source changes: the scenarios that execute the code it changes, the largest share
    /// first (empty: none does, or not looked for: build choices, `--list`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub executed_by: Vec<Share>,
    /// The bench binary's loaded size (`text + data`) in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary_bytes: Option<Price>,
    /// Seconds the build took (build choices: each variant builds cold in its own directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_seconds: Option<Price>,
    /// The compiler's error, when it did not build.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The whole advice, as `--format json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Advice {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The package whose code was advised on.
    pub package: String,
    /// Whether the candidates were measured (`false` with `--list`).
    pub measured: bool,
    /// The instruments measured, by name.
    pub instruments: Vec<String>,
    /// The scenarios measured.
    pub scenarios: Vec<String>,
    /// Every candidate, build choices first, then clippy's, each group in the order found.
    pub candidates: Vec<Candidate>,
    /// What the user might expect and this command does not do, said once.
    pub notes: Vec<String>,
}

impl Advice {
    /// An empty document for `package`.
    pub fn new(package: &str, measured: bool) -> Advice {
        Advice {
            schema: SCHEMA,
            schema_version: SCHEMA_VERSION,
            package: package.to_string(),
            measured,
            instruments: Vec::new(),
            scenarios: Vec::new(),
            candidates: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// The effects of a comparison of the unchanged code (its baseline) with a candidate.
pub fn effects(cmp: &Comparison) -> Vec<Effect> {
    cmp.rows
        .iter()
        .map(|r| Effect {
            id: r.id.clone(),
            figure: r.instrument,
            unit: r.unit.clone(),
            base: r.base,
            cand: r.cand,
            change_pct: r.change_pct,
            ci: r.ci,
            verdict: r.verdict,
            reason: r.reason.clone(),
        })
        .collect()
}

/// The verdict over a candidate's effects, and its reason. `failed` counts the rows an
/// instrument failed for (not compared).
pub fn decide(effects: &[Effect], failed: usize) -> (Verdict, String) {
    let count = |v: compare::Verdict| effects.iter().filter(|e| e.verdict == v).count();
    let (better, worse) = (
        count(compare::Verdict::Improvement),
        count(compare::Verdict::Regression),
    );
    let (unresolved, placement) = (
        count(compare::Verdict::Unresolved),
        count(compare::Verdict::Placement),
    );
    if effects.is_empty() {
        let why = if failed > 0 {
            format!("no figure could be compared ({failed} failed)")
        } else {
            "no figure could be compared".to_string()
        };
        return (Verdict::NotMeasured, why);
    }
    let verdict = match (better > 0, worse > 0) {
        (true, false) => Verdict::WorthIt,
        (false, true) => Verdict::CostsMore,
        (true, true) => Verdict::Mixed,
        (false, false) => Verdict::NoMeasurableEffect,
    };
    let mut parts = Vec::new();
    if better > 0 {
        parts.push(format!(
            "{better} of {} significantly better",
            effects.len()
        ));
    }
    if worse > 0 {
        parts.push(format!("{worse} of {} significantly worse", effects.len()));
    }
    if better == 0 && worse == 0 {
        parts.push(format!("none of {} changed significantly", effects.len()));
    }
    if unresolved > 0 {
        parts.push(format!("{unresolved} unresolved (not counted)"));
    }
    if placement > 0 {
        parts.push(format!(
            "{placement} placement (same work, moved with layout; not counted)"
        ));
    }
    if failed > 0 {
        parts.push(format!("{failed} failed"));
    }
    (verdict, parts.join("; "))
}

/// A measured candidate: its effects from `cmp`, its verdict and reason.
pub fn measured(id: String, change: Change, cmp: &Comparison) -> Candidate {
    let effects = effects(cmp);
    let (verdict, reason) = decide(&effects, cmp.failed.len());
    Candidate {
        id,
        change,
        verdict,
        reason,
        effects,
        executed_by: Vec::new(),
        binary_bytes: cmp
            .base
            .binary_bytes
            .zip(cmp.cand.binary_bytes)
            .map(|(b, c)| Price {
                base: b as f64,
                cand: c as f64,
            }),
        // A source change rebuilds one crate on top of the unchanged build's dependencies: its
        // build time is no price to set beside a cold build's.
        build_seconds: None,
        error: None,
    }
}

/// The build choices of a variant matrix, each variant other than the baseline as a candidate
/// (ids `b1`, `b2`, ... in column order): its effects from the matrix's cells, its binary size
/// and build time beside the baseline's.
pub fn build_choices(matrix: &Matrix) -> Vec<Candidate> {
    let base = matrix.columns.iter().find(|c| c.name == matrix.baseline);
    let mut out = Vec::new();
    for col in matrix.columns.iter().filter(|c| c.name != matrix.baseline) {
        let spec = &col.spec;
        let on = |key: &str| spec.profile_value(key) == Some("true");
        let change = Change::Build {
            variant: col.name.clone(),
            settings: col.settings.clone(),
            safety_check: on("overflow-checks") || on("debug-assertions"),
        };
        let id = format!("b{}", out.len() + 1);
        let build_seconds = base.and_then(|b| {
            Some(Price {
                base: b.build.as_ref()?.seconds,
                cand: col.build.as_ref()?.seconds,
            })
        });
        let binary_bytes = base.and_then(|b| {
            Some(Price {
                base: b.binary.as_ref()?.total as f64,
                cand: col.binary.as_ref()?.total as f64,
            })
        });
        if let Some(e) = &col.build_error {
            out.push(Candidate {
                id,
                change,
                verdict: Verdict::BuildFailed,
                reason: "the variant did not build".into(),
                effects: Vec::new(),
                executed_by: Vec::new(),
                binary_bytes: None,
                build_seconds,
                error: Some(e.clone()),
            });
            continue;
        }
        let mut effects = Vec::new();
        let mut failed = 0;
        for row in &matrix.rows {
            let cell = |name: &str| row.cells.iter().find(|c| c.variant == name);
            let (Some(b), Some(c)) = (cell(&matrix.baseline), cell(&col.name)) else {
                continue;
            };
            failed += c.failed.len();
            for figure in Figure::ALL {
                let (Some(bf), Some(cf)) = (b.figure(figure), c.figure(figure)) else {
                    continue;
                };
                let Some(verdict) = cf.verdict else { continue };
                effects.push(Effect {
                    id: row.id.clone(),
                    figure,
                    unit: row.unit.clone(),
                    base: bf.per_op,
                    cand: cf.per_op,
                    change_pct: cf.change_pct.unwrap_or(0.0),
                    ci: cf.ci,
                    verdict,
                    reason: String::new(),
                });
            }
        }
        let (verdict, mut reason) = decide(&effects, failed);
        if matches!(
            change,
            Change::Build {
                safety_check: true,
                ..
            }
        ) {
            reason.push_str(
                "; a safety check: its effect is what the check costs, not advice to turn it off",
            );
        }
        out.push(Candidate {
            id,
            change,
            verdict,
            reason,
            effects,
            executed_by: Vec::new(),
            binary_bytes,
            build_seconds,
            error: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use compare::Verdict as V;

    fn effect(verdict: V) -> Effect {
        Effect {
            id: "x".into(),
            figure: Figure::Icount,
            unit: "op".into(),
            base: 100.0,
            cand: 90.0,
            change_pct: -10.0,
            ci: None,
            verdict,
            reason: String::new(),
        }
    }

    /// Only significant rows decide; unresolved and placement rows are said, never counted as
    /// gains or losses.
    #[test]
    fn verdicts_count_only_significant_rows() {
        let cases: &[(&[V], Verdict)] = &[
            (&[V::Improvement, V::Unchanged], Verdict::WorthIt),
            (&[V::Regression, V::Unchanged], Verdict::CostsMore),
            (&[V::Improvement, V::Regression], Verdict::Mixed),
            (&[V::Unchanged, V::Unresolved], Verdict::NoMeasurableEffect),
            (&[V::Placement, V::Unresolved], Verdict::NoMeasurableEffect),
            (&[V::Placement, V::Improvement], Verdict::WorthIt),
            (&[], Verdict::NotMeasured),
        ];
        for (rows, want) in cases {
            let effects: Vec<Effect> = rows.iter().map(|v| effect(*v)).collect();
            assert_eq!(decide(&effects, 0).0, *want, "{rows:?}");
        }
        let (_, why) = decide(&[effect(V::Unchanged), effect(V::Unresolved)], 1);
        assert_eq!(
            why,
            "none of 2 changed significantly; 1 unresolved (not counted); 1 failed"
        );
        let (_, why) = decide(&[effect(V::Improvement), effect(V::Placement)], 0);
        assert_eq!(
            why,
            "1 of 2 significantly better; 1 placement (same work, moved with layout; not counted)"
        );
    }

    /// A comparison's rows become effects, with the verdict they decide.
    #[test]
    fn a_comparison_becomes_a_candidate() {
        use costbench_record::testing::{record, scenario, with_icount};
        let a = record(
            "a",
            vec![
                with_icount(scenario("hot"), 3001.0),
                with_icount(scenario("cold"), 50.0),
            ],
        );
        let b = record(
            "b",
            vec![
                with_icount(scenario("hot"), 1000.0),
                with_icount(scenario("cold"), 50.0),
            ],
        );
        let cmp = compare::compare(&a, &b, &compare::CompareOptions::default());
        let c = measured(
            "c1".into(),
            Change::Source {
                rule: "clippy::redundant_clone".into(),
                message: "redundant clone".into(),
                file: "src/lib.rs".into(),
                line: 3,
                diff: String::new(),
            },
            &cmp,
        );
        assert_eq!(c.verdict, Verdict::WorthIt);
        assert_eq!(c.effects.len(), 2);
        assert_eq!(c.effects[0].cand - c.effects[0].base, -2001.0);
        assert_eq!(c.reason, "1 of 2 significantly better");
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["verdict"], "worth-it");
        assert_eq!(json["change"]["kind"], "source");
        assert_eq!(json["change"]["rule"], "clippy::redundant_clone");
    }
}
