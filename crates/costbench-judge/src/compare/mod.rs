//! Comparison of two runs (`costbench compare BASE CAND`): matching measured ids across the two
//! run records, and deciding per compared figure whether a per-op change is a regression, an
//! improvement, unchanged, unresolved (the measurement cannot tell) or a placement effect
//! ([`compare`]), with the evidence behind each verdict. The data it produces is in `types`
//! (re-exported here); what a verdict is judged from and made of is in `judge`; the verdicts
//! themselves are decided by the instruments' slices (`crate::instrument`), by the kind of
//! judging each figure's spec names, and this module names none of them.
//!
//! Pure: everything is a function of its inputs, and reading a run record back is
//! `output::load_run`'s job. No files, no processes, no clocks, no unseeded randomness: the same
//! two records always give the same [`Comparison`], confidence intervals included. Rendering
//! lives in `report::comparison` (plain text) and `report::markdown` (PR comments).

pub mod asm;
pub mod explain;
pub(crate) mod judge;
pub mod noise;
mod presence;
pub(crate) mod types;

// The statistics of timings measured in rounds, where other crates have always found them
// (the measuring crate's adaptive sessions, the CLI's options); they are wall time's slice's.
pub use crate::instrument::walltime::bootstrap::RatioCi;
pub use crate::instrument::walltime::{family, paired};
// Instruction counts' explanation of a change, where other crates have always found it: the
// functions that moved and the differential flame graph, from the two sides' profiles.
pub use crate::instrument::icount::{flame, functions};
pub use types::*;

// The options' defaults and thresholds are the slices' that judge each kind of figure, which say
// why they are what they are; here under the paths the command line has always read them from.
pub use crate::instrument::defaults::*;

use crate::instrument::{self, Outcome};
use costbench_record::instrument::Figure;
use costbench_record::model::{Failure, RunRecord, ScenarioResult};
use judge::{Pair, Threshold};
use std::collections::{HashMap, HashSet};

/// The first result for each id (a record should not hold duplicates; if it does, the first
/// wins, as in the run's own table).
fn by_id(run: &RunRecord) -> HashMap<&str, &ScenarioResult> {
    let mut m = HashMap::new();
    for r in &run.results {
        m.entry(r.id.as_str()).or_insert(r);
    }
    m
}

fn failed_instruments(r: &ScenarioResult) -> HashSet<&str> {
    r.failures.iter().map(|f| f.instrument.as_str()).collect()
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// What differs between the two runs' setup of one id: ops and unit (every figure's).
fn setup_notes(b: &ScenarioResult, c: &ScenarioResult) -> Vec<String> {
    let mut ops_unit = Vec::new();
    if b.ops != c.ops {
        ops_unit.push(format!("ops {} → {}", b.ops, c.ops));
    }
    if b.unit != c.unit {
        ops_unit.push(format!("unit {} → {}", b.unit, c.unit));
    }
    ops_unit
}

/// Compares the per-op figures of every id measured in both runs. Pure and deterministic.
///
/// - Each figure is judged as the slice of the kind its spec names decides
///   (`crate::instrument::Judging`): exact counts against their threshold (or the id's
///   threshold from history), timings measured in interleaved rounds by their paired interval
///   (all such rows of the comparison together, in a second pass), timings of separate runs
///   only against a threshold history learned; a time that moved while the instructions did
///   not is a placement effect, not a regression.
/// - An instrument that failed for an id in either run is listed in `failed` and not compared
///   for that id; its other instruments still are.
/// - Ids in one run only go to `missing_in_cand` / `new_in_cand`; an instrument measured in one
///   run only goes to `not_compared`; a change of ops, unit or clock goes to `setup_changes` and
///   into the rows' `note`.
pub fn compare(base: &RunRecord, cand: &RunRecord, opts: &CompareOptions) -> Comparison {
    compare_with(base, cand, opts, &noise::HistoricThresholds::default())
}

/// The instruments either run recorded as skipped, in the candidate's order then the
/// baseline's.
fn not_measured(base: &RunRecord, cand: &RunRecord) -> Vec<NotMeasured> {
    let mut out: Vec<NotMeasured> = Vec::new();
    for (run, side) in [(cand, Side::Candidate), (base, Side::Baseline)] {
        for s in &run.skipped {
            match out.iter_mut().find(|n| n.instrument == s.instrument) {
                Some(n) => n.missing_in = Side::Both,
                None => out.push(NotMeasured {
                    instrument: s.instrument.clone(),
                    missing_in: side,
                    reason: s.reason.clone(),
                }),
            }
        }
    }
    out
}

/// [`compare`], with per-id thresholds measured from history where `historic` has them and the
/// options' defaults elsewhere.
pub fn compare_with(
    base: &RunRecord,
    cand: &RunRecord,
    opts: &CompareOptions,
    historic: &noise::HistoricThresholds,
) -> Comparison {
    let threshold = |id: &str, inst: Figure| match historic.get(id, inst) {
        Some(pct) => Threshold {
            pct,
            from_history: true,
        },
        None => Threshold {
            pct: opts.threshold_pct(inst),
            from_history: false,
        },
    };
    let cand_ids = by_id(cand);
    let base_ids = by_id(base);
    let mut out = Comparison {
        schema: COMPARISON_SCHEMA,
        schema_version: COMPARISON_SCHEMA_VERSION,
        unfinished: [(base, Side::Baseline), (cand, Side::Candidate)]
            .into_iter()
            .filter_map(|(run, side)| UnfinishedSide::of(run, side))
            .collect(),
        base: RunLabel::of(base),
        cand: RunLabel::of(cand),
        options: *opts,
        rows: Vec::new(),
        missing_in_cand: Vec::new(),
        new_in_cand: Vec::new(),
        failed: Vec::new(),
        setup_changes: Vec::new(),
        not_compared: Vec::new(),
        not_measured: not_measured(base, cand),
        functions: Vec::new(),
        census: Vec::new(),
        asm: Vec::new(),
        flames: Vec::new(),
    };
    let mut pending = Vec::new();
    let mut seen = HashSet::new();
    for b in &base.results {
        if !seen.insert(b.id.as_str()) {
            continue;
        }
        let Some(c) = cand_ids.get(b.id.as_str()).copied() else {
            out.missing_in_cand.push(b.id.clone());
            push_failures(&mut out.failed, b, Side::Baseline);
            continue;
        };
        record_failures(&mut out.failed, b, c);
        let ops_unit = setup_notes(b, c);
        let setup = instrument::setup_changes(b, c);
        if !ops_unit.is_empty() || !setup.is_empty() {
            out.setup_changes.push(SetupChange {
                id: b.id.clone(),
                changes: ops_unit
                    .iter()
                    .chain(setup.iter().map(|(_, s)| s))
                    .cloned()
                    .collect(),
            });
        }
        let (bf, cf) = (failed_instruments(b), failed_instruments(c));
        for inst in Figure::ALL {
            if bf.contains(inst.instrument().name()) || cf.contains(inst.instrument().name()) {
                continue;
            }
            let (bv, cv) = match (inst.per_op(b), inst.per_op(c)) {
                (Some(bv), Some(cv)) => (bv, cv),
                (None, None) => continue,
                (Some(_), None) | (None, Some(_)) => {
                    out.not_compared.push(NotCompared {
                        id: b.id.clone(),
                        instrument: inst,
                        measured_in: if inst.per_op(b).is_some() {
                            Side::Baseline
                        } else {
                            Side::Candidate
                        },
                    });
                    continue;
                }
            };
            let mut notes: Vec<&str> = ops_unit.iter().map(String::as_str).collect();
            let kind = inst.judged();
            notes.extend(
                setup
                    .iter()
                    .filter(|(k, _)| *k == kind)
                    .map(|(_, s)| s.as_str()),
            );
            let pair = Pair {
                figure: inst,
                base,
                cand,
                b,
                c,
                bv,
                cv,
                threshold: threshold(&b.id, inst),
                learned: historic.learned(&b.id, inst),
                opts,
            };
            let j = match (instrument::judging(kind).judge)(&pair) {
                Outcome::Judged(j) => j,
                // Judged in the second pass, with every other paired row.
                Outcome::Paired(j, rounds) => {
                    pending.push((out.rows.len(), rounds));
                    j
                }
            };
            out.rows.push(Row {
                id: b.id.clone(),
                instrument: inst,
                unit: c.unit.clone(),
                base: bv,
                cand: cv,
                change_pct: j.change_pct,
                threshold_pct: j.threshold_pct,
                ci: j.ci,
                paired_rounds: j.paired_rounds,
                p_value: j.p_value,
                min_detectable_pct: j.min_detectable_pct,
                spread_pct: j.spread_pct,
                verdict: j.verdict,
                reason: j.reason,
                evidence: j.evidence,
                note: (!notes.is_empty()).then(|| notes.join("; ")),
            });
        }
    }
    instrument::finish(&mut out.rows, &pending, opts);
    let mut seen = HashSet::new();
    for c in &cand.results {
        if !base_ids.contains_key(c.id.as_str()) && seen.insert(c.id.as_str()) {
            out.new_in_cand.push(c.id.clone());
            push_failures(&mut out.failed, c, Side::Candidate);
        }
    }
    out
}

/// Failures of an id present in one run only.
fn push_failures(out: &mut Vec<FailedEntry>, r: &ScenarioResult, side: Side) {
    for f in &r.failures {
        push_one(out, &r.id, side, f);
    }
}

/// Failures of an id present in both runs; the same failure (instrument and kind) on both sides
/// is listed once, as `Both`, with the candidate's message.
fn record_failures(out: &mut Vec<FailedEntry>, b: &ScenarioResult, c: &ScenarioResult) {
    let same = |x: &Failure, y: &Failure| x.instrument == y.instrument && x.kind == y.kind;
    for f in &b.failures {
        if !c.failures.iter().any(|g| same(f, g)) {
            push_one(out, &b.id, Side::Baseline, f);
        }
    }
    for f in &c.failures {
        let side = if b.failures.iter().any(|g| same(f, g)) {
            Side::Both
        } else {
            Side::Candidate
        };
        push_one(out, &c.id, side, f);
    }
}

fn push_one(out: &mut Vec<FailedEntry>, id: &str, side: Side, f: &Failure) {
    out.push(FailedEntry {
        id: id.to_string(),
        side,
        instrument: f.instrument.clone(),
        kind: f.kind.clone(),
        message: first_line(&f.message),
    });
}

#[cfg(test)]
mod tests;
