//! Comparison of two runs (`costbench compare BASE CAND`): matching measured ids across the two
//! run records, and deciding per instrument whether a per-op change is a regression, an
//! improvement, unchanged, unresolved (the measurement cannot tell) or a placement effect
//! ([`compare`]), with the evidence behind each verdict. The data it produces is in `types`
//! (re-exported here); the verdicts themselves are decided in `judge` (wall time, which needs
//! every row at once, as well as the exact figures).
//!
//! Pure: everything is a function of its inputs, and reading a run record back is
//! `output::load_run`'s job. No files, no processes, no clocks, no unseeded randomness: the same
//! two records always give the same [`Comparison`], confidence intervals included. Rendering
//! lives in `report::comparison` (plain text) and `report::markdown` (PR comments).

pub mod asm;
pub(crate) mod bootstrap;
pub mod explain;
pub mod family;
pub mod flame;
pub mod functions;
mod judge;
pub mod noise;
pub mod paired;
pub mod placement;
mod presence;
mod types;

pub use bootstrap::RatioCi;
pub use types::*;

use costbench_record::instrument::Figure;
use costbench_record::model::{Failure, RunRecord, ScenarioResult};
use judge::{exact_evidence, judge_icount, Threshold};
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

/// What differs between the two runs' setup of one id: ops and unit (both instruments), and the
/// wall-time clock (wall time only).
fn setup_notes(b: &ScenarioResult, c: &ScenarioResult) -> (Vec<String>, Option<String>) {
    let mut ops_unit = Vec::new();
    if b.ops != c.ops {
        ops_unit.push(format!("ops {} → {}", b.ops, c.ops));
    }
    if b.unit != c.unit {
        ops_unit.push(format!("unit {} → {}", b.unit, c.unit));
    }
    let clock = match (&b.walltime, &c.walltime) {
        (Some(bw), Some(cw)) if bw.clock != cw.clock => {
            Some(format!("clock {} → {}", bw.clock, cw.clock))
        }
        _ => None,
    };
    (ops_unit, clock)
}

/// Compares the per-op figures of every id measured in both runs. Pure and deterministic.
///
/// - icount (and the other exact figures): significant when the change is beyond
///   `icount_threshold_pct` (or the id's threshold from history).
/// - walltime measured in interleaved rounds: the paired signed-rank interval, at the rate the
///   family's error control gives the row, against `paired_walltime_threshold_pct`: beyond it a
///   regression or improvement, inside it unchanged, straddling it unresolved (see `judge`).
/// - walltime of two separate runs: unresolved unless history gave the id a threshold; then
///   significant when the change is beyond it *and* the bootstrap interval of the ratio of
///   medians excludes 1 on the side of the change.
/// - A wall-time change whose instruction count stayed within its threshold is a placement
///   effect, not a regression.
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
        let (ops_unit, clock) = setup_notes(b, c);
        if !ops_unit.is_empty() || clock.is_some() {
            out.setup_changes.push(SetupChange {
                id: b.id.clone(),
                changes: ops_unit.iter().chain(&clock).cloned().collect(),
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
            let j = match inst.judged().is_exact() {
                true => {
                    let t = threshold(&b.id, inst);
                    let mut evidence = exact_evidence(inst, &b.id, historic);
                    if let (Figure::Icount, Some(p)) = (inst, placement::runs(b, c)) {
                        evidence.push_str(&format!("; {p} data placements per side"));
                    }
                    let (ch, v, r) = judge_icount(bv, cv, t);
                    // A count change with data-placement runs on both sides is judged against
                    // their spread (compare/placement.rs).
                    let (v, r) = match placement::judge(b, c, t.pct) {
                        Some(j) if inst == Figure::Icount && v.is_significant() => j,
                        _ => (v, r),
                    };
                    judge::Judgement::new(ch, t.pct, v, r, evidence)
                }
                false => {
                    if inst == Figure::Walltime {
                        notes.extend(clock.as_deref());
                    }
                    let (bh, ch) = (base.host_of(&b.id), cand.host_of(&c.id));
                    let paired = if inst == Figure::Walltime {
                        judge::paired_rounds(b, c, opts)
                    } else {
                        judge::paired_load_rounds(inst, b, c, opts)
                    };
                    if bh.differs_from(ch) {
                        // Two machines differ by more than any change worth finding (CPU model,
                        // frequency, neighbours): their timings are never judged together,
                        // paired or not. Merged runs keep each row's machine for this.
                        judge::Judgement::new(
                            judge::change_pct(bv, cv),
                            opts.walltime_threshold_pct,
                            Verdict::Unresolved,
                            format!(
                                "measured on different machines ({} and {}): timings are only compared on one machine",
                                bh.label(),
                                ch.label()
                            ),
                            "not compared: different machines".into(),
                        )
                    } else {
                        match paired {
                            // Judged in the second pass, with every other paired row.
                            Some(rounds) => {
                                let j = judge::pending_paired(&rounds, bv, cv);
                                pending.push((out.rows.len(), rounds));
                                j
                            }
                            None if inst.under_load() => judge::unpaired_load(bv, cv, opts),
                            None => {
                                let learned = historic.learned(&b.id, inst);
                                judge::unpaired(b, c, bv, cv, learned, opts)
                            }
                        }
                    }
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
    judge::paired_rows(&mut out.rows, &pending, opts);
    placement::mark_placement(&mut out.rows, &[]);
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
