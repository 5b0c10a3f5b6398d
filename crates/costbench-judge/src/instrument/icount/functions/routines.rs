//! Placement-dependent routines: which functions' work depends on where data lies (glibc
//! malloc's internals, the mem*/str* families), when such a routine counts as entered as often
//! on both sides, and the note that credits a change to data placement ([`placement_note`]).
//! Pure arithmetic over two profiles: it decides no verdict (that is `attach`'s).

use costbench_record::fmt::{fmt_count, fmt_ir_grouped, fmt_whole as whole};
use costbench_record::profile::Profile;
use std::collections::BTreeSet;

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
/// [`PLACEMENT_WALLTIME_BOUND_PCT`](super::super::placement::PLACEMENT_WALLTIME_BOUND_PCT).
///
/// [`FunctionChanges::placement_note`]: crate::compare::FunctionChanges::placement_note
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
