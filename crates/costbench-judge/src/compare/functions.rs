//! The functions behind a significant instruction-count change (or one labelled placement): the
//! two callgrind function profiles of a scenario, diffed per function, largest self-cost change
//! first, and a note when nearly all of the change is in functions whose work depends on data
//! placement (glibc malloc's internals, the mem*/str* families). Pure: the caller reads the
//! profiles (the runner's `measure::callgrind::profile::load`) and passes them in, as the
//! record's plain-data [`Profile`].

use super::types::{Comparison, FunctionChanges, FunctionDelta, Instrument, Verdict};
use costbench_record::fmt::{fmt_count, fmt_ir_grouped, fmt_whole as whole};
use costbench_record::profile::{Profile, ScenarioProfile};
use std::collections::BTreeSet;

/// Functions listed per scenario: enough to find the cause, short enough for a PR comment.
pub const TOP: usize = 10;

/// Share of an id's instruction-count change (sum of absolute self-cost changes per op) inside
/// placement-dependent functions from which the change is attributed to them.
pub const PLACEMENT_SHARE: f64 = 0.9;

/// glibc malloc's functions: their paths depend on the heap's state (bins, tcache, the top
/// chunk), which moves when anything else allocated before.
const ALLOCATOR: &[&str] = &[
    "malloc",
    "free",
    "realloc",
    "calloc",
    "cfree",
    "_int_malloc",
    "_int_free",
    "_int_free_merge_chunk",
    "_int_free_create_chunk",
    "_int_free_maybe_consolidate",
    "_int_realloc",
    "_int_memalign",
    "unlink_chunk",
    "malloc_consolidate",
    "sysmalloc",
    "tcache_get",
    "tcache_put",
    "tcache_init",
    "__libc_malloc",
    "__libc_free",
    "__libc_realloc",
    "__libc_calloc",
    "__libc_memalign",
    "_mid_memalign",
    "posix_memalign",
    "aligned_alloc",
];

/// The placement-dependent family a function belongs to: `allocator` for glibc malloc's
/// internals, `mem*/str*` for the string and memory routines (`__memcmp_avx2_movbe`,
/// `__memmove_avx_unaligned_erms`, ...), whose paths depend on their operands' alignment.
pub fn is_placement_dependent(name: &str) -> Option<&'static str> {
    // Callgrind marks recursion levels with 'N; ifunc variants carry prefixes and suffixes.
    let name = name.split('\'').next().unwrap_or(name);
    if ALLOCATOR.contains(&name) {
        return Some("allocator");
    }
    let bare = name.trim_start_matches('_');
    let string_family = ["mem", "str", "wmem", "wcs", "bcmp", "bzero", "stp"]
        .iter()
        .any(|p| bare.starts_with(p));
    // Only C library routines: a Rust path (`core::str::...`) has `::` in it.
    (string_family && !name.contains("::")).then_some("mem*/str*")
}

/// glibc malloc's internal functions, which the public ones reach or not depending on the heap's
/// state (a tcache hit returns before `_int_malloc`).
fn is_internal(name: &str) -> bool {
    let name = name.split('\'').next().unwrap_or(name);
    name.starts_with("_int_")
        || name.starts_with("tcache_")
        || matches!(
            name,
            "unlink_chunk" | "malloc_consolidate" | "sysmalloc" | "_mid_memalign"
        )
        || name.starts_with("unlink_chunk.")
        || name.starts_with("malloc_consolidate.")
}

/// Relative tolerance on a placement-dependent routine's calls per op under which the two sides
/// count as entering it as often: 0.1 % of its calls (29 of memcmp's 29,007 calls per run in
/// issue 32's `alloc/word_count`).
///
/// Exact equality was too brittle to carry a verdict: a measured region also enters these
/// routines for reasons that do not scale with its work (below), and one such call made a
/// placement effect a gated regression. The tolerance is small because it only decides whether
/// the two sides' costs per call may be compared at all: the cost of the extra calls is never
/// credited to placement (see [`placement_note`]), so a looser one could not hide work, but it
/// would let a routine whose use really changed take part. Twice the calls is far outside it.
pub const CALLS_TOLERANCE: f64 = 0.001;

/// Calls per run by which a placement-dependent routine's two sides may differ however rarely it
/// is entered: 0.1 % of a few hundred calls is less than one, which would be exact equality
/// again. A couple of calls per run are one-off entries that do not scale with the region's
/// work: a buffer or table growing once more or once less as its capacity rounding meets the
/// heap, a lazily initialised structure. Issue 32 saw malloc entered 4,350 times per run in the
/// candidate against 4,348 in the baseline, with all of the change in memcmp.
pub const CALLS_SLACK_PER_RUN: f64 = 2.0;

/// Whether a routine entered `base` times in a run of `base_ops` ops and `cand` times in one of
/// `cand_ops` was entered as often on both sides: entered on both, with calls per op within
/// [`CALLS_TOLERANCE`] of each other, or within [`CALLS_SLACK_PER_RUN`] calls of the shorter
/// run. Computed on the cross products (calls per op times both runs' ops), whole numbers that
/// a double holds exactly, so a difference of exactly two calls is exactly the slack.
pub fn entered_as_often(base: u64, base_ops: u64, cand: u64, cand_ops: u64) -> bool {
    if base == 0 || cand == 0 {
        return false;
    }
    let (bo, co) = (base_ops.max(1) as f64, cand_ops.max(1) as f64);
    let (b, c) = (base as f64 * co, cand as f64 * bo);
    let allowed = (CALLS_TOLERANCE * b.max(c)).max(CALLS_SLACK_PER_RUN * bo.max(co));
    (c - b).abs() <= allowed
}

/// One placement-dependent routine whose self cost changed, and the part of that change
/// credited to data placement.
#[derive(Debug, Clone)]
struct Routine<'a> {
    name: &'a str,
    family: &'static str,
    /// Self cost, as profiled (per run).
    base_self: u64,
    cand_self: u64,
    /// Calls into it, as profiled (per run).
    base_calls: u64,
    cand_calls: u64,
    /// glibc malloc's internals: judged by malloc's entries, not their own.
    internal: bool,
    /// Candidate minus baseline self cost per op.
    change: f64,
    /// How much of `|change|` is credited to placement (0 to `|change|`).
    placed: f64,
}

impl Routine<'_> {
    /// The routine, its change and its calls: "__memcmp_avx2_movbe +19,306 Ir per run (+3.2 %
    /// per call, 29,007 calls on both sides)". Per run when both runs counted the same ops,
    /// else per op.
    fn describe(&self, base_ops: u64, cand_ops: u64) -> String {
        let per_run = base_ops == cand_ops;
        let (change, unit) = if per_run {
            (self.cand_self as f64 - self.base_self as f64, "Ir per run")
        } else {
            (self.change, "Ir per op")
        };
        let calls = |n: u64, ops: u64| {
            if per_run {
                whole(n as f64)
            } else {
                fmt_count(n as f64 / ops.max(1) as f64)
            }
        };
        let (b, c) = (
            calls(self.base_calls, base_ops),
            calls(self.cand_calls, cand_ops),
        );
        let per = if per_run { "" } else { " per op" };
        let calls = if b == c {
            format!("{b} calls{per} on both sides")
        } else {
            format!("{b} → {c} calls{per}")
        };
        let how = if self.internal {
            if self.base_calls == 0 && self.cand_calls == 0 {
                "glibc malloc internal".to_string()
            } else {
                format!("glibc malloc internal, {calls}")
            }
        } else {
            let per_call = |s: u64, n: u64| s as f64 / n as f64;
            let moved = per_call(self.cand_self, self.cand_calls)
                / per_call(self.base_self, self.base_calls)
                - 1.0;
            format!("{:+.1} % per call, {calls}", 100.0 * moved)
        };
        let size = if per_run {
            whole(change.abs())
        } else {
            fmt_ir_grouped(change.abs())
        };
        format!("{} {}{size} {unit} ({how})", self.name, sign(change))
    }
}

fn sign(v: f64) -> &'static str {
    if v < 0.0 {
        "-"
    } else {
        "+"
    }
}

/// The note of [`FunctionChanges::placement_note`]: set when at least [`PLACEMENT_SHARE`] of the
/// change between the two profiles (the sum of every function's absolute self-cost change per
/// op) is credited to data placement, naming the (at most three) routines most of it is in.
///
/// Only placement-dependent routines ([`is_placement_dependent`]) are credited, and only for work
/// per call that moved while they were entered as often:
///
/// - A routine counts as entered as often when its calls per op on the two sides are within
///   [`CALLS_TOLERANCE`] or [`CALLS_SLACK_PER_RUN`] of each other ([`entered_as_often`]),
///   judged routine by routine: one routine's extra calls say nothing about another's cost
///   per call (issue 32: malloc's two extra calls vetoed a change that was all in memcmp).
///   A routine entered on one side only is new (or gone) work, never placement, and so is one
///   whose entries callgrind did not record: its work per call cannot be told.
/// - Of such a routine's change, only what the extra calls do not explain is credited. The
///   change splits exactly into `(cand_calls - base_calls) * base_cost_per_call` (the extra
///   calls at the baseline's cost per call: more or less of the same work) and
///   `cand_calls * (cand_cost_per_call - base_cost_per_call)` (the work per call that moved:
///   the alignment paths of memcmp, the bins malloc finds its chunk in). The second part is
///   credited, as far as it goes the change's way. So twice the memcmp calls at the same cost
///   per call is credited nothing, and counts against the share as real work does.
/// - glibc malloc's internals (`_int_malloc`, `tcache_get`, ...) are reached or not as the
///   heap's state decides (a tcache hit returns before `_int_malloc`), so their own calls are
///   no evidence either way: their change is credited whole when every public allocator entry
///   (`malloc`, `free`, ...) was entered as often, and not at all otherwise.
///
/// Everything not credited (the scenario's own code, extra calls, routines that failed the
/// test) counts against the share. A change confined this way is still only as large as
/// placement makes it in these routines: wall time follows it only up to
/// [`PLACEMENT_WALLTIME_BOUND_PCT`](super::placement::PLACEMENT_WALLTIME_BOUND_PCT).
pub fn placement_note(
    base: &Profile,
    cand: &Profile,
    base_ops: u64,
    cand_ops: u64,
) -> Option<String> {
    let (bo, co) = (base_ops.max(1) as f64, cand_ops.max(1) as f64);
    let calls = |p: &Profile, n: &str| p.calls.get(n).copied().unwrap_or(0);
    // glibc malloc entered as often through every public entry: the condition under which its
    // internals' changes are the heap's state, not more or fewer allocations.
    let allocator_steady = base
        .calls
        .keys()
        .chain(cand.calls.keys())
        .filter(|n| is_placement_dependent(n) == Some("allocator") && !is_internal(n))
        .all(|n| {
            let (b, c) = (calls(base, n), calls(cand, n));
            b + c == 0 || entered_as_often(b, base_ops, c, cand_ops)
        });
    let names: BTreeSet<&String> = base.functions.keys().chain(cand.functions.keys()).collect();
    let mut total = 0.0;
    let mut inside: Vec<Routine> = Vec::new();
    for name in names {
        let bs = base.functions.get(name).map_or(0, |f| f.self_cost);
        let cs = cand.functions.get(name).map_or(0, |f| f.self_cost);
        let change = cs as f64 / co - bs as f64 / bo;
        total += change.abs();
        let Some(family) = is_placement_dependent(name).filter(|_| change != 0.0) else {
            continue;
        };
        let (bn, cn) = (calls(base, name), calls(cand, name));
        let internal = family == "allocator" && is_internal(name);
        let placed = if internal {
            if allocator_steady {
                change.abs()
            } else {
                0.0
            }
        } else if entered_as_often(bn, base_ops, cn, cand_ops) {
            let extra_calls = (cn as f64 / co - bn as f64 / bo) * (bs as f64 / bn as f64);
            // The work per call that moved, as far as it goes the change's way.
            ((change - extra_calls) * change.signum()).clamp(0.0, change.abs())
        } else {
            0.0
        };
        if placed > 0.0 {
            inside.push(Routine {
                name,
                family,
                base_self: bs,
                cand_self: cs,
                base_calls: bn,
                cand_calls: cn,
                internal,
                change,
                placed,
            });
        }
    }
    if total == 0.0 {
        return None;
    }
    let share = inside.iter().map(|r| r.placed).sum::<f64>() / total;
    if share < PLACEMENT_SHARE {
        return None;
    }
    inside.sort_by(|a, b| {
        b.placed
            .total_cmp(&a.placed)
            .then_with(|| a.name.cmp(b.name))
    });
    let mut families: Vec<&str> = inside.iter().map(|r| r.family).collect();
    families.sort_unstable();
    families.dedup();
    let routines: Vec<String> = inside
        .iter()
        .take(3)
        .map(|r| r.describe(base_ops, cand_ops))
        .collect();
    // Floored: "99 %" is never rounded up to a share that reads like all of it.
    let how_much = if share >= 0.9995 {
        "all of the change is".to_string()
    } else {
        format!("{:.0} % of the change is", (100.0 * share).floor())
    };
    Some(format!(
        "{how_much} in {} paths entered as often on both sides, whose work per call depends on \
         data placement: {}{}",
        families.join(" and "),
        routines.join("; "),
        if inside.len() > routines.len() {
            "; ..."
        } else {
            ""
        }
    ))
}

/// The `n` functions whose self cost changed most (ties: larger inclusive change first, then
/// name), per op. Functions whose costs did not change at all are left out.
pub fn top_changes(
    base: &Profile,
    cand: &Profile,
    base_ops: u64,
    cand_ops: u64,
    n: usize,
) -> Vec<FunctionDelta> {
    let names: BTreeSet<&String> = base.functions.keys().chain(cand.functions.keys()).collect();
    let (bo, co) = (base_ops.max(1) as f64, cand_ops.max(1) as f64);
    let mut all: Vec<FunctionDelta> = names
        .into_iter()
        .filter_map(|name| {
            let b = base.functions.get(name).copied().unwrap_or_default();
            let c = cand.functions.get(name).copied().unwrap_or_default();
            (b != c).then(|| FunctionDelta {
                name: name.clone(),
                base_self: b.self_cost as f64 / bo,
                cand_self: c.self_cost as f64 / co,
                base_inclusive: b.inclusive as f64 / bo,
                cand_inclusive: c.inclusive as f64 / co,
            })
        })
        .filter(|d| d.self_change() != 0.0 || d.inclusive_change() != 0.0)
        .collect();
    all.sort_by(|a, b| {
        b.self_change()
            .abs()
            .total_cmp(&a.self_change().abs())
            .then_with(|| {
                b.inclusive_change()
                    .abs()
                    .total_cmp(&a.inclusive_change().abs())
            })
            .then_with(|| a.name.cmp(&b.name))
    });
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
    FunctionChanges {
        id,
        top: top_changes(base, cand, base_ops, cand_ops, TOP),
        unavailable: None,
        // Code that became a call or stopped being one is a change of the code, never placement.
        placement_note: placement_note(base, cand, base_ops, cand_ops)
            .filter(|_| inlining_note.is_none()),
        inlining_note,
        codegen_note: None,
    }
}

/// Smallest self cost per op, as a share of the change, of a function found in one profile only
/// for [`inlining_note`] to name it: smaller ones are noise of the listing, not the change.
const ONE_SIDED_SHARE: f64 = 0.05;

/// The note of [`FunctionChanges::inlining_note`]: the (at most three) functions with a self cost
/// of their own in one profile only, largest first, each at least [`ONE_SIDED_SHARE`] of the
/// change. A function the compiler inlined on one side and called on the other shows so; so does
/// code the pull request added or removed, which the note cannot tell apart from inlining.
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

/// Fills `cmp.functions` for every significant instruction-count change (or one labelled
/// placement), from the two profiles `profiles(id)` gives for it: (base profile and ops,
/// candidate profile and ops), or why they cannot be had (a run loaded from history keeps no
/// callgrind output). A change found to lie in placement-dependent functions becomes a placement
/// verdict ([`placement_note`]), and so does the wall-time change of its id while the instruction
/// change is at most
/// [`PLACEMENT_WALLTIME_BOUND_PCT`](super::placement::PLACEMENT_WALLTIME_BOUND_PCT). With `unchanged` (the caller knows both
/// revisions), a change of inlining in code the pull request did not touch ([`codegen_note`])
/// becomes a placement verdict the same way. The loading is the caller's, so this stays pure.
pub fn attach(
    cmp: &mut Comparison,
    mut profiles: impl FnMut(&str) -> Result<(ScenarioProfile, ScenarioProfile), String>,
    unchanged: Option<Unchanged>,
) {
    let ids: Vec<String> = cmp
        .rows
        .iter()
        .filter(|r| {
            r.instrument == Instrument::Icount
                && (r.verdict.is_significant() || r.verdict == Verdict::Placement)
        })
        .map(|r| r.id.clone())
        .collect();
    // Ids whose instruction-count change the profiles turned into placement.
    let mut by_profile = Vec::new();
    for id in ids {
        let entry = match profiles(&id) {
            Ok(((b, bo), (c, co))) => {
                let mut entry = diff(id, &b, bo, &c, co);
                if let (Some(inlining), Some(unchanged)) = (&entry.inlining_note, unchanged) {
                    entry.codegen_note = codegen_note(&b, &c, bo, co, inlining, unchanged);
                }
                entry
            }
            Err(e) => FunctionChanges {
                id,
                top: Vec::new(),
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
                r.id == entry.id && r.instrument == Instrument::Icount && r.verdict.is_significant()
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

#[cfg(test)]
mod tests {
    use super::*;

    // The tests of the diff over profiles parsed from callgrind text are in the runner, beside
    // the parser (`measure::callgrind::profile`): this crate reads no callgrind files.

    #[test]
    fn placement_dependent_functions_are_recognised() {
        for (name, family) in [
            ("_int_malloc", Some("allocator")),
            ("unlink_chunk'2", Some("allocator")),
            ("free", Some("allocator")),
            ("__memcmp_avx2_movbe", Some("mem*/str*")),
            ("__memmove_avx_unaligned_erms", Some("mem*/str*")),
            ("__strlen_avx2", Some("mem*/str*")),
            ("memcpy", Some("mem*/str*")),
            ("core::str::<impl str>::trim", None),
            ("alloc::raw_vec::finish_grow", None),
            ("__rust_alloc", None),
            ("main", None),
        ] {
            assert_eq!(is_placement_dependent(name), family, "{name}");
        }
    }

    // No crate builds `Profile`s in code (the runner's tests parse callgrind text, which this
    // crate cannot read), so these tests write them as tables: (function, self cost, calls into
    // it), per run; inclusive cost is the self cost, as for the leaf routines that matter here.
    type Fns<'a> = &'a [(&'a str, u64, u64)];

    /// Issue 32: a generic frame reader that stopped being inlined into its caller (the
    /// candidate calls it) is named, and the change is not placement even though memcmp moved too.
    /// Issue 32: a change of inlining in files the pull request did not touch is code
    /// generation, labelled and not gated; an edit of any file of a function that moved keeps it
    /// gated.
    #[test]
    fn an_inlining_change_in_untouched_files_is_code_generation() {
        let files = [
            ("client_requests", "/repo/src/proto.rs"),
            ("costbench_suite::proto::recv_frame", "/repo/src/proto.rs"),
            ("__memcmp_avx2_movbe", "./string/memcmp.S"),
        ];
        let base = with_sources(
            profile(&[
                ("client_requests", 10_890, 1),
                ("__memcmp_avx2_movbe", 1_000, 100),
            ]),
            &files,
        );
        let cand = with_sources(
            profile(&[
                ("client_requests", 2_950, 1),
                ("costbench_suite::proto::recv_frame", 7_300, 100),
                ("__memcmp_avx2_movbe", 1_010, 100),
            ]),
            &files,
        );
        let inlining = inlining_note(&base, &cand, 100, 100).unwrap();
        let untouched = |_: &str| true;
        let note = codegen_note(&base, &cand, 100, 100, &inlining, &untouched).unwrap();
        assert!(
            note.starts_with("code generation moved, its source did not: inlining or code changed")
                && note.ends_with("none of the 2 source files of the functions that moved changed between the two revisions"),
            "{note}"
        );
        let proto_edited = |f: &str| !f.ends_with("proto.rs");
        assert_eq!(
            codegen_note(&base, &cand, 100, 100, &inlining, &proto_edited),
            None
        );
        // A function that moved with no known source is not vouched for.
        let bare = profile(&[
            ("client_requests", 2_950, 1),
            ("costbench_suite::proto::recv_frame", 7_300, 100),
        ]);
        assert_eq!(
            codegen_note(&base, &bare, 100, 100, &inlining, &untouched),
            None
        );
    }

    #[test]
    fn a_function_of_its_own_on_one_side_only_is_named_as_inlining() {
        let base = profile(&[
            ("client_requests", 10_890, 1),
            ("__memcmp_avx2_movbe", 1_000, 100),
        ]);
        let cand = profile(&[
            ("client_requests", 2_950, 1),
            ("costbench_suite::proto::recv_frame", 7_300, 100),
            ("__memcmp_avx2_movbe", 1_010, 100),
        ]);
        let c = diff("pipe".into(), &base, 100, &cand, 100);
        assert_eq!(
            c.inlining_note.as_deref(),
            Some(
                "inlining or code changed: costbench_suite::proto::recv_frame is a function of its \
                 own in the candidate only (73.00 Ir/op self, 1.000 calls per op); in the \
                 baseline it was inlined into its callers or not run"
            )
        );
        assert_eq!(c.placement_note, None);
        // The same function in both profiles: nothing to say.
        let same = diff("x".into(), &cand, 100, &cand, 100);
        assert_eq!(same.inlining_note, None);
        // A one-sided function too small to matter is left out.
        let tiny = profile(&[
            ("client_requests", 2_950, 1),
            ("__memcmp_avx2_movbe", 1_000, 100),
            ("lazy_init", 1, 1),
        ]);
        let c = diff("x".into(), &base, 100, &tiny, 100);
        assert_eq!(c.inlining_note, None);
    }

    fn profile(fns: Fns) -> Profile {
        use costbench_record::profile::FunctionCost;
        Profile {
            functions: fns
                .iter()
                .map(|&(name, cost, _)| {
                    let c = FunctionCost {
                        self_cost: cost,
                        inclusive: cost,
                    };
                    (name.to_string(), c)
                })
                .collect(),
            calls: fns
                .iter()
                .filter(|f| f.2 > 0)
                .map(|&(name, _, calls)| (name.to_string(), calls))
                .collect(),
            total: fns.iter().map(|f| f.1).sum(),
            sources: Default::default(),
        }
    }

    /// `p` with each of its functions' own code from the files given.
    fn with_sources(mut p: Profile, files: &[(&str, &str)]) -> Profile {
        for (f, file) in files.iter().filter(|(f, _)| p.functions.contains_key(*f)) {
            p.sources
                .entry(f.to_string())
                .or_default()
                .insert(file.to_string());
        }
        p
    }

    /// Issue 32's `alloc/word_count` baseline, per run of 1,000 ops: 29,007 memcmp calls
    /// (609,084 Ir) and 4,348 mallocs (23 Ir each) beside the scenario's own code.
    const WORD_COUNT: Fns = &[
        ("word_count::count", 1_704_000, 0),
        ("__memcmp_avx2_movbe", 609_084, 29_007),
        ("malloc", 100_004, 4_348),
    ];

    /// Issue 32's note: all of the change is memcmp's work per call.
    const MEMCMP_NOTE: &str = "all of the change is in mem*/str* paths entered as often on both \
        sides, whose work per call depends on data placement: __memcmp_avx2_movbe +19,306 Ir \
        per run (+3.2 % per call, 29,007 calls on both sides)";

    #[test]
    fn calls_within_a_tenth_of_a_percent_or_two_per_run_are_entered_as_often() {
        // (baseline calls, ops; candidate calls, ops; entered as often)
        let cases: &[(u64, u64, u64, u64, bool)] = &[
            (29_007, 1000, 29_007, 1000, true),
            // 0.1 % of 29,036 is 29.036 calls.
            (29_007, 1000, 29_036, 1000, true),
            (29_007, 1000, 29_037, 1000, false),
            // Issue 32: malloc 4,348 against 4,350.
            (4_348, 1000, 4_350, 1000, true),
            // Rarely entered: two calls per run of slack, not three.
            (300, 1000, 302, 1000, true),
            (300, 1000, 298, 1000, true),
            (300, 1000, 303, 1000, false),
            // Twice the calls.
            (29_007, 1000, 58_014, 1000, false),
            // Entered on one side only, or on neither: nothing to compare.
            (0, 1000, 2, 1000, false),
            (2, 1000, 0, 1000, false),
            (0, 1000, 0, 1000, false),
            // Per op: twice the ops, twice the calls is as often.
            (1_000, 100, 2_000, 200, true),
            // Two calls over the shorter run's ops: four in the longer run.
            (1_000, 100, 2_004, 200, true),
            (1_000, 100, 2_005, 200, false),
        ];
        for &(b, bo, c, co, want) in cases {
            assert_eq!(entered_as_often(b, bo, c, co), want, "{b}/{bo} vs {c}/{co}");
        }
    }

    #[test]
    fn work_per_call_that_moved_in_routines_entered_as_often_is_placement() {
        struct Case<'a> {
            what: &'a str,
            base: Fns<'a>,
            cand: Fns<'a>,
            cand_ops: u64,
            want: Option<&'a str>,
        }
        let cases = [
            Case {
                what:
                    "(a) issue 32: memcmp +3.2 % per call, malloc 4,348 -> 4,350 at the same cost",
                base: WORD_COUNT,
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 628_390, 29_007),
                    ("malloc", 100_004, 4_350),
                ],
                cand_ops: 1000,
                want: Some(MEMCMP_NOTE),
            },
            Case {
                what: "(a) malloc's two extra calls cost their 23 Ir each: real work, not credited",
                base: WORD_COUNT,
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 628_390, 29_007),
                    ("malloc", 100_050, 4_350),
                ],
                cand_ops: 1000,
                want: Some(
                    "99 % of the change is in mem*/str* paths entered as often on both sides, \
                     whose work per call depends on data placement: __memcmp_avx2_movbe +19,306 \
                     Ir per run (+3.2 % per call, 29,007 calls on both sides)",
                ),
            },
            Case {
                what: "(b) twice the memcmp calls at the same cost per call",
                base: WORD_COUNT,
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 1_218_168, 58_014),
                    ("malloc", 100_004, 4_348),
                ],
                cand_ops: 1000,
                want: None,
            },
            Case {
                what: "(b) 0.5 % more memcmp calls, and more work in each: beyond the tolerance",
                base: WORD_COUNT,
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 631_532, 29_152),
                    ("malloc", 100_004, 4_348),
                ],
                cand_ops: 1000,
                want: None,
            },
            Case {
                what: "(b) two more memcmp calls (within the slack) that cost more than all of it",
                base: &[("main", 10, 0), ("__memcmp_avx2_movbe", 100, 4)],
                cand: &[("main", 10, 0), ("__memcmp_avx2_movbe", 120, 6)],
                cand_ops: 1000,
                want: None,
            },
            Case {
                what: "(c) most of the change in the scenario's own code",
                base: WORD_COUNT,
                cand: &[
                    ("word_count::count", 1_754_000, 0),
                    ("__memcmp_avx2_movbe", 628_390, 29_007),
                    ("malloc", 100_004, 4_348),
                ],
                cand_ops: 1000,
                want: None,
            },
            Case {
                what: "(d) a routine entered in the candidate only",
                base: WORD_COUNT,
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 609_084, 29_007),
                    ("malloc", 100_004, 4_348),
                    ("__strlen_avx2", 19_306, 500),
                ],
                cand_ops: 1000,
                want: None,
            },
            Case {
                what: "(d) a routine entered in the baseline only",
                base: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 609_084, 29_007),
                    ("__strlen_avx2", 19_306, 1),
                ],
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 609_084, 29_007),
                ],
                cand_ops: 1000,
                want: None,
            },
            Case {
                what: "calls callgrind did not record: the work per call cannot be told",
                base: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 609_084, 0),
                ],
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("__memcmp_avx2_movbe", 628_390, 0),
                ],
                cand_ops: 1000,
                want: None,
            },
            Case {
                what: "malloc's internals, malloc entered as often: credited whole",
                base: &[
                    ("word_count::count", 1_704_000, 0),
                    ("malloc", 100_004, 4_348),
                    ("_int_malloc", 31_000, 310),
                ],
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("malloc", 100_004, 4_350),
                    ("_int_malloc", 36_000, 325),
                ],
                cand_ops: 1000,
                want: Some(
                    "all of the change is in allocator paths entered as often on both sides, \
                     whose work per call depends on data placement: _int_malloc +5,000 Ir per \
                     run (glibc malloc internal, 310 → 325 calls)",
                ),
            },
            Case {
                what: "malloc's internals, twice the mallocs: not credited",
                base: &[
                    ("word_count::count", 1_704_000, 0),
                    ("malloc", 100_004, 4_348),
                    ("_int_malloc", 31_000, 310),
                ],
                cand: &[
                    ("word_count::count", 1_704_000, 0),
                    ("malloc", 200_008, 8_696),
                    ("_int_malloc", 62_000, 620),
                ],
                cand_ops: 1000,
                want: None,
            },
            Case {
                what: "the three routines most of it is in, largest first, then an ellipsis",
                base: &[
                    ("main", 1_000, 0),
                    ("__memcmp_avx2_movbe", 10_000, 100),
                    ("__memmove_avx_unaligned_erms", 20_000, 100),
                    ("free", 4_000, 100),
                    ("_int_free", 1_000, 0),
                ],
                cand: &[
                    ("main", 1_000, 0),
                    ("__memcmp_avx2_movbe", 10_500, 100),
                    ("__memmove_avx_unaligned_erms", 19_000, 100),
                    ("free", 4_200, 101),
                    ("_int_free", 1_100, 0),
                ],
                cand_ops: 1000,
                // free's extra call (40 Ir) is not credited: 1,760 of 1,800 Ir.
                want: Some(
                    "97 % of the change is in allocator and mem*/str* paths entered as often on \
                     both sides, whose work per call depends on data placement: \
                     __memmove_avx_unaligned_erms -1,000 Ir per run (-5.0 % per call, 100 calls \
                     on both sides); __memcmp_avx2_movbe +500 Ir per run (+5.0 % per call, 100 \
                     calls on both sides); free +200 Ir per run (+4.0 % per call, 100 → 101 \
                     calls); ...",
                ),
            },
            Case {
                what: "runs of different ops: figures per op",
                base: WORD_COUNT,
                cand: &[
                    ("word_count::count", 3_408_000, 0),
                    ("__memcmp_avx2_movbe", 1_256_780, 58_014),
                    ("malloc", 200_008, 8_696),
                ],
                cand_ops: 2000,
                want: Some(
                    "all of the change is in mem*/str* paths entered as often on both sides, \
                     whose work per call depends on data placement: __memcmp_avx2_movbe +19.31 \
                     Ir per op (+3.2 % per call, 29.01 calls per op on both sides)",
                ),
            },
        ];
        for case in cases {
            let got = placement_note(
                &profile(case.base),
                &profile(case.cand),
                1000,
                case.cand_ops,
            );
            assert_eq!(got.as_deref(), case.want, "{}", case.what);
        }
    }

    /// Item (e): wall time of `alloc/word_count` follows its instruction count into placement
    /// when the profiles confine a small change to placement-dependent routines.
    #[test]
    fn wall_time_follows_a_small_change_the_profiles_confine_to_placement_paths() {
        use super::super::{compare, CompareOptions, Row};
        use costbench_record::testing::{record, rounds_pair, scenario, with_icount, with_rounds};
        // Paired rounds 7.1 % slower: a wall-time regression on its own.
        let tight: Vec<f64> = (0..12).map(|k| 0.0005 * (k % 5) as f64).collect();
        let (base_rounds, cand_rounds) = rounds_pair(1.071, &tight);
        let word_count = |rounds: &[f64], ir_per_op: f64| {
            with_rounds(
                with_icount(scenario("alloc/word_count"), ir_per_op),
                rounds,
                true,
                1,
            )
        };
        let row = |c: &Comparison, inst: Instrument| -> Row {
            c.rows
                .iter()
                .find(|r| r.instrument == inst)
                .unwrap()
                .clone()
        };
        // (candidate memcmp Ir and calls per run, verdicts of icount and wall time, wall-time
        // reason's part)
        let cases: &[(u64, u64, Verdict, Verdict, &str)] = &[
            // Issue 32: +0.80 %, all memcmp's work per call: placement, not gated.
            (
                628_390,
                29_007,
                Verdict::Placement,
                Verdict::Placement,
                "instructions moved only in placement-dependent routines entered as often \
                 (+0.80 %, at most 2 %); time +7.",
            ),
            // +7.57 %, all memcmp's work per call: the count is placement, but a change that
            // large is work the time may be paying for: the time regression stands.
            (
                791_809,
                29_007,
                Verdict::Placement,
                Verdict::Regression,
                "; instructions +7.57 %, in placement-dependent routines but beyond the 2 % \
                 under which time follows them",
            ),
            // Twice the memcmp calls: real work, both gated.
            (
                1_218_168,
                58_014,
                Verdict::Regression,
                Verdict::Regression,
                "beyond 3 % threshold",
            ),
        ];
        let base_profile = profile(WORD_COUNT);
        for &(memcmp, calls, icount, walltime, part) in cases {
            let cand_profile = profile(&[
                ("word_count::count", 1_704_000, 0),
                ("__memcmp_avx2_movbe", memcmp, calls),
                ("malloc", 100_004, 4_350),
            ]);
            // Figures per op, as the record has them: the profile's total over its 1,000 ops.
            let per_op = |p: &Profile| p.total as f64 / 1000.0;
            let base = record("b", vec![word_count(&base_rounds, per_op(&base_profile))]);
            let cand = record("c", vec![word_count(&cand_rounds, per_op(&cand_profile))]);
            let mut cmp = compare(&base, &cand, &CompareOptions::default());
            // Before the profiles, both are regressions.
            assert_eq!(row(&cmp, Instrument::Icount).verdict, Verdict::Regression);
            assert_eq!(row(&cmp, Instrument::Walltime).verdict, Verdict::Regression);
            attach(
                &mut cmp,
                |_| Ok(((base_profile.clone(), 1000), (cand_profile.clone(), 1000))),
                None,
            );
            let (ic, wall) = (
                row(&cmp, Instrument::Icount),
                row(&cmp, Instrument::Walltime),
            );
            assert_eq!(ic.verdict, icount, "{memcmp}: {ic:#?}");
            assert_eq!(wall.verdict, walltime, "{memcmp}: {wall:#?}");
            assert!(wall.reason.contains(part), "{memcmp}: {}", wall.reason);
            if icount == Verdict::Placement {
                assert_eq!(Some(&ic.reason), cmp.functions[0].placement_note.as_ref());
                assert!(ic
                    .evidence
                    .ends_with("; callgrind function profiles of both sides"));
            }
            if walltime == Verdict::Placement {
                assert!(
                    wall.reason
                        .ends_with(" %: placement or memory effect, not gated"),
                    "{}",
                    wall.reason
                );
                assert!(
                    wall.evidence.ends_with(
                        "; instruction change confined to placement-dependent routines by \
                         callgrind function profiles"
                    ),
                    "{}",
                    wall.evidence
                );
            }
        }
        // Issue 32's note, word for word, on the first case.
        let cand_profile = profile(&[
            ("word_count::count", 1_704_000, 0),
            ("__memcmp_avx2_movbe", 628_390, 29_007),
            ("malloc", 100_004, 4_350),
        ]);
        let note = placement_note(&base_profile, &cand_profile, 1000, 1000);
        assert_eq!(note.as_deref(), Some(MEMCMP_NOTE));
    }
}
