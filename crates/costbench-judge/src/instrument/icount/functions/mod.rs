//! The functions behind a significant instruction-count change (or one labelled placement): the
//! two callgrind function profiles of a scenario, diffed per function: the functions whose own
//! cost per op changed, largest change first, each with its calls and share of the change
//! ([`diff`], [`movers`]), with a note when nearly all of the change is in functions
//! whose work depends on data placement (`routines`: glibc malloc's internals, the mem*/str*
//! families) or when functions of their own appear on one side only (`inlining`). [`attach`]
//! fills a comparison's function changes and relabels the verdicts they explain.
//!
//! Pure: the caller reads the profiles (the runner's `measure::callgrind::profile::load`) and
//! passes them in, as the record's plain-data [`Profile`]. This module reads no files.

mod inlining;
mod routines;
#[cfg(test)]
mod tests;

pub use inlining::{codegen_note, inlining_note, Unchanged};
pub use routines::{
    entered_as_often, is_placement_dependent, placement_note, CALLS_SLACK_PER_RUN, CALLS_TOLERANCE,
    PLACEMENT_SHARE,
};

use crate::compare::types::{
    Comparison, FunctionChanges, FunctionDelta, Omitted, Presence, Verdict,
};
use costbench_record::instrument::Figure;
use costbench_record::profile::{Profile, ScenarioProfile};
use std::collections::BTreeSet;

/// Functions listed per scenario: enough to find the cause, short enough for a PR comment.
pub const TOP: usize = 10;

/// Every function whose self cost per op changed, largest change first (ties: by name), with
/// calls per op on both sides and its share of the scenario's change; and that change (the sum
/// of every self-cost change per op). Functions whose own cost did not change are left out
/// whatever their inclusive cost did: a caller's inclusive cost moves with any callee's, so
/// listing it (`main`, `(below main)`, the harness's frames) explains nothing.
pub fn movers(
    base: &Profile,
    cand: &Profile,
    base_ops: u64,
    cand_ops: u64,
) -> (Vec<FunctionDelta>, f64) {
    let names: BTreeSet<&String> = base.functions.keys().chain(cand.functions.keys()).collect();
    let (bo, co) = (base_ops.max(1) as f64, cand_ops.max(1) as f64);
    let calls =
        |p: &Profile, name: &str, ops: f64| p.calls.get(name).map_or(0.0, |&n| n as f64 / ops);
    let mut all: Vec<FunctionDelta> = names
        .into_iter()
        .filter_map(|name| {
            let (b, c) = (base.functions.get(name), cand.functions.get(name));
            let presence = match (b, c) {
                (Some(_), Some(_)) => Presence::Both,
                (Some(_), None) => Presence::BaselineOnly,
                _ => Presence::CandidateOnly,
            };
            let (b, c) = (
                b.copied().unwrap_or_default(),
                c.copied().unwrap_or_default(),
            );
            let d = FunctionDelta {
                name: name.clone(),
                base_self: b.self_cost as f64 / bo,
                cand_self: c.self_cost as f64 / co,
                base_inclusive: b.inclusive as f64 / bo,
                cand_inclusive: c.inclusive as f64 / co,
                base_calls: calls(base, name, bo),
                cand_calls: calls(cand, name, co),
                share: None,
                presence,
            };
            (d.self_change() != 0.0).then_some(d)
        })
        .collect();
    // The profiles' totals are the sums of every self cost, so the shares add up to one.
    // Over equal ops, the difference of whole counts first: exact to the last digit.
    let change = if base_ops == cand_ops {
        (i128::from(cand.total) - i128::from(base.total)) as f64 / co
    } else {
        cand.total as f64 / co - base.total as f64 / bo
    };
    for d in &mut all {
        d.share = (change != 0.0).then(|| d.self_change() / change);
    }
    all.sort_by(|a, b| {
        b.self_change()
            .abs()
            .total_cmp(&a.self_change().abs())
            .then_with(|| a.name.cmp(&b.name))
    });
    (all, change)
}

/// The `n` functions whose self cost per op changed most ([`movers`]).
pub fn top_changes(
    base: &Profile,
    cand: &Profile,
    base_ops: u64,
    cand_ops: u64,
    n: usize,
) -> Vec<FunctionDelta> {
    let mut all = movers(base, cand, base_ops, cand_ops).0;
    all.truncate(n);
    all
}

/// The function changes of scenario `id` between two profiles, each with the ops its run counted
/// (figures are per op). Pure: the profiles come from the caller
/// (`measure::callgrind::profile::load`).
pub fn diff(
    id: String,
    base: &Profile,
    base_ops: u64,
    cand: &Profile,
    cand_ops: u64,
) -> FunctionChanges {
    let inlining_note = inlining_note(base, cand, base_ops, cand_ops);
    let (mut top, change) = movers(base, cand, base_ops, cand_ops);
    let rest = top.split_off(top.len().min(TOP));
    FunctionChanges {
        id,
        top,
        change,
        omitted: (!rest.is_empty()).then(|| Omitted {
            functions: rest.len(),
            change: rest.iter().map(FunctionDelta::self_change).sum(),
        }),
        unavailable: None,
        // Code that became a call or stopped being one is a change of the code, never placement.
        placement_note: placement_note(base, cand, base_ops, cand_ops)
            .filter(|_| inlining_note.is_none()),
        inlining_note,
        codegen_note: None,
    }
}

/// Fills `cmp.functions` for every significant instruction-count change (or one labelled
/// placement), from the two profiles `profiles(id)` gives for it: (base profile and ops,
/// candidate profile and ops), or why they cannot be had (a run loaded from history keeps no
/// callgrind output). A change found to lie in placement-dependent functions becomes a placement
/// verdict ([`placement_note`]), and so does the wall-time change of its id while the instruction
/// change is at most [`PLACEMENT_WALLTIME_BOUND_PCT`]. With `unchanged` (the caller knows both
/// revisions), a change of inlining in code the pull request did not touch ([`codegen_note`])
/// becomes a placement verdict the same way. Each scenario's differential flame graph
/// ([`flame::diff`](super::flame::diff)) goes into `cmp.flames` from the same profiles. The
/// loading is the caller's, so this stays pure.
///
/// [`PLACEMENT_WALLTIME_BOUND_PCT`]: super::placement::PLACEMENT_WALLTIME_BOUND_PCT
pub fn attach(
    cmp: &mut Comparison,
    mut profiles: impl FnMut(&str) -> Result<(ScenarioProfile, ScenarioProfile), String>,
    unchanged: Option<Unchanged>,
) {
    let ids = super::explained(cmp);
    // Ids whose instruction-count change the profiles turned into placement.
    let mut by_profile = Vec::new();
    for id in ids {
        let entry = match profiles(&id) {
            Ok(((b, bo), (c, co))) => {
                cmp.flames
                    .push(super::flame::diff(id.clone(), &b, bo, &c, co));
                let mut entry = diff(id, &b, bo, &c, co);
                if let (Some(inlining), Some(unchanged)) = (&entry.inlining_note, unchanged) {
                    entry.codegen_note = codegen_note(&b, &c, bo, co, inlining, unchanged);
                }
                entry
            }
            Err(e) => FunctionChanges {
                id,
                top: Vec::new(),
                change: 0.0,
                omitted: None,
                unavailable: Some(e),
                placement_note: None,
                inlining_note: None,
                codegen_note: None,
            },
        };
        if let Some(note) = entry
            .placement_note
            .as_ref()
            .or(entry.codegen_note.as_ref())
        {
            for r in cmp.rows.iter_mut().filter(|r| {
                r.id == entry.id && r.instrument == Figure::Icount && r.verdict.is_significant()
            }) {
                r.verdict = Verdict::Placement;
                r.reason = note.clone();
                r.evidence.push_str(if entry.codegen_note.is_some() {
                    "; callgrind function profiles of both sides and the revisions' changed files"
                } else {
                    "; callgrind function profiles of both sides"
                });
                by_profile.push(entry.id.clone());
            }
        }
        cmp.functions.push(entry);
    }
    // Their wall time, if it moved, moved with placement too (for those, while the instruction
    // change is at most PLACEMENT_WALLTIME_BOUND_PCT).
    super::placement::mark_placement(&mut cmp.rows, &by_profile);
}
