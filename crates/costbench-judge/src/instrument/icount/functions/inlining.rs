//! Changes of code rather than of placement: functions with a cost of their own on one side
//! only ([`inlining_note`]), and, where the caller knows both revisions, such a change in code
//! the pull request left untouched, which is code generation ([`codegen_note`]). Pure: the
//! caller says which source files are unchanged.

use super::routines::is_placement_dependent;
use costbench_record::fmt::fmt_count;
use costbench_record::profile::Profile;
use std::collections::BTreeSet;

/// Smallest self cost per op, as a share of the change, of a function found in one profile only
/// for [`inlining_note`] to name it: smaller ones are noise of the listing, not the change.
const ONE_SIDED_SHARE: f64 = 0.05;

/// The note of [`FunctionChanges::inlining_note`]: the (at most three) functions with a self cost
/// of their own in one profile only, largest first, each at least `ONE_SIDED_SHARE` of the
/// change. A function the compiler inlined on one side and called on the other shows so; so does
/// code the pull request added or removed, which the note cannot tell apart from inlining.
///
/// [`FunctionChanges::inlining_note`]: crate::compare::FunctionChanges::inlining_note
pub fn inlining_note(
    base: &Profile,
    cand: &Profile,
    base_ops: u64,
    cand_ops: u64,
) -> Option<String> {
    let (bo, co) = (base_ops.max(1) as f64, cand_ops.max(1) as f64);
    let per_op = |p: &Profile, n: &str, ops: f64| {
        p.functions.get(n).map_or(0.0, |f| f.self_cost as f64 / ops)
    };
    let names: BTreeSet<&String> = base.functions.keys().chain(cand.functions.keys()).collect();
    let total: f64 = names
        .iter()
        .map(|n| (per_op(cand, n, co) - per_op(base, n, bo)).abs())
        .sum();
    if total == 0.0 {
        return None;
    }
    let mut one_sided: Vec<(f64, &str, &str, u64, f64)> = Vec::new();
    for (here, other, side, ops) in [(cand, base, "candidate", co), (base, cand, "baseline", bo)] {
        for (name, f) in &here.functions {
            let cost = f.self_cost as f64 / ops;
            if other.functions.contains_key(name)
                || cost < ONE_SIDED_SHARE * total
                || is_placement_dependent(name).is_some()
            {
                continue;
            }
            let calls = here.calls.get(name).copied().unwrap_or(0);
            one_sided.push((cost, name, side, calls, ops));
        }
    }
    if one_sided.is_empty() {
        return None;
    }
    one_sided.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let shown: Vec<String> = one_sided
        .iter()
        .take(3)
        .map(|(cost, name, side, calls, ops)| {
            let other = if *side == "candidate" {
                "baseline"
            } else {
                "candidate"
            };
            format!(
                "{name} is a function of its own in the {side} only ({} Ir/op self, {} calls per \
                 op); in the {other} it was inlined into its callers or not run",
                fmt_count(*cost),
                fmt_count(*calls as f64 / ops)
            )
        })
        .collect();
    Some(format!(
        "inlining or code changed: {}{}",
        shown.join("; "),
        if one_sided.len() > shown.len() {
            "; ..."
        } else {
            ""
        }
    ))
}

/// Whether the pull request left a source file (as a profile names it) unchanged: given by the
/// caller that knows both revisions (`check --baseline-rev`).
pub type Unchanged<'a> = &'a dyn Fn(&str) -> bool;

/// The note that relabels a change of inlining as code generation: set when `inlining` (the
/// [`inlining_note`]) is, and every source file of every function whose own cost per op moved,
/// on either side, is one the pull request left `unchanged`. The compiler then laid out
/// unchanged source differently because other code in the crate changed; an edit of the
/// inlined function, of its callers or of any function that moved keeps the change gated.
pub fn codegen_note(
    base: &Profile,
    cand: &Profile,
    base_ops: u64,
    cand_ops: u64,
    inlining: &str,
    unchanged: Unchanged,
) -> Option<String> {
    let (bo, co) = (base_ops.max(1) as f64, cand_ops.max(1) as f64);
    let per_op = |p: &Profile, n: &str, ops: f64| {
        p.functions.get(n).map_or(0.0, |f| f.self_cost as f64 / ops)
    };
    let names: BTreeSet<&String> = base.functions.keys().chain(cand.functions.keys()).collect();
    let mut files = BTreeSet::new();
    for name in names {
        if per_op(cand, name, co) == per_op(base, name, bo) {
            continue;
        }
        let sources: Vec<&String> = [base, cand]
            .iter()
            .filter_map(|p| p.sources.get(name.as_str()))
            .flatten()
            .collect();
        // A function that moved without a known source cannot be vouched for.
        if sources.is_empty() {
            return None;
        }
        files.extend(sources);
    }
    if files.is_empty() || !files.iter().all(|f| unchanged(f)) {
        return None;
    }
    Some(format!(
        "code generation moved, its source did not: {inlining}; none of the {} source files of \
         the functions that moved changed between the two revisions",
        files.len()
    ))
}
