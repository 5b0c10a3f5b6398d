//! The functions behind a significant instruction-count change (or one labelled placement): the
//! two callgrind function profiles of a scenario, diffed per function, largest self-cost change
//! first, and a note when nearly all of the change is in functions whose work depends on data
//! placement (glibc malloc's internals, the mem*/str* families). Pure: the caller reads the
//! profiles (the runner's `measure::callgrind::profile::load`) and passes them in, as the
//! record's plain-data [`Profile`].

use super::{Comparison, Instrument, Verdict};
use crate::fmt::fmt_percent;
use costbench_record::profile::{Profile, ScenarioProfile};
use std::collections::BTreeSet;

/// Functions listed per scenario: enough to find the cause, short enough for a PR comment.
pub const TOP: usize = 10;

pub use super::types::{FunctionChanges, FunctionDelta};

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

/// The note of [`FunctionChanges::placement_note`], when at least [`PLACEMENT_SHARE`] of the
/// change between the two profiles is in placement-dependent functions.
pub fn placement_note(
    base: &Profile,
    cand: &Profile,
    base_ops: u64,
    cand_ops: u64,
) -> Option<String> {
    let (bo, co) = (base_ops.max(1) as f64, cand_ops.max(1) as f64);
    let names: BTreeSet<&String> = base.functions.keys().chain(cand.functions.keys()).collect();
    let mut total = 0.0;
    let mut inside: Vec<(f64, &str, &'static str)> = Vec::new();
    for name in names {
        let b = base.functions.get(name).map_or(0, |f| f.self_cost) as f64 / bo;
        let c = cand.functions.get(name).map_or(0, |f| f.self_cost) as f64 / co;
        let d = (c - b).abs();
        total += d;
        if d > 0.0 {
            if let Some(family) = is_placement_dependent(name) {
                inside.push((d, name, family));
            }
        }
    }
    if total == 0.0 {
        return None;
    }
    let share: f64 = inside.iter().map(|(d, _, _)| d).sum::<f64>() / total;
    if share < PLACEMENT_SHARE {
        return None;
    }
    // The same work enters those paths as often on both sides: otherwise the change is more or
    // fewer allocations or comparisons (real work), not where their data lay. glibc's internal
    // functions (`_int_malloc`, ...) are left out: whether malloc reaches them at all (a tcache
    // hit or miss) is itself a matter of the heap's state.
    let entered = |p: &Profile, ops: f64| -> f64 {
        p.calls
            .iter()
            .filter(|(n, _)| is_placement_dependent(n).is_some() && !is_internal(n))
            .map(|(_, c)| *c as f64)
            .sum::<f64>()
            / ops
    };
    if entered(base, bo) != entered(cand, co) {
        return None;
    }
    inside.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let mut families: Vec<&str> = inside.iter().map(|(_, _, f)| *f).collect();
    families.sort_unstable();
    families.dedup();
    let names: Vec<&str> = inside.iter().take(3).map(|(_, n, _)| *n).collect();
    let how_much = if share >= 0.9995 {
        "all of the change is".to_string()
    } else {
        format!("{} of the change is", fmt_percent(share))
    };
    Some(format!(
        "{how_much} in {} paths ({}{}), whose work depends on data placement",
        families.join(" and "),
        names.join(", "),
        if inside.len() > names.len() {
            ", ..."
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
    FunctionChanges {
        id,
        top: top_changes(base, cand, base_ops, cand_ops, TOP),
        unavailable: None,
        placement_note: placement_note(base, cand, base_ops, cand_ops),
    }
}

/// Fills `cmp.functions` for every significant instruction-count change (or one labelled
/// placement), from the two profiles `profiles(id)` gives for it: (base profile and ops,
/// candidate profile and ops), or why they cannot be had (a run loaded from history keeps no
/// callgrind output). A change found to lie in placement-dependent functions becomes a placement
/// verdict. The loading is the caller's, so this stays pure.
pub fn attach(
    cmp: &mut Comparison,
    mut profiles: impl FnMut(&str) -> Result<(ScenarioProfile, ScenarioProfile), String>,
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
    for id in ids {
        let entry = match profiles(&id) {
            Ok(((b, bo), (c, co))) => diff(id, &b, bo, &c, co),
            Err(e) => FunctionChanges {
                id,
                top: Vec::new(),
                unavailable: Some(e),
                placement_note: None,
            },
        };
        if let Some(note) = &entry.placement_note {
            for r in cmp.rows.iter_mut().filter(|r| {
                r.id == entry.id && r.instrument == Instrument::Icount && r.verdict.is_significant()
            }) {
                r.verdict = Verdict::Placement;
                r.reason = format!("{note}; calls into them unchanged");
                r.evidence
                    .push_str("; callgrind function profiles of both sides");
            }
        }
        cmp.functions.push(entry);
    }
    // Their wall time, if it moved, moved with placement too.
    super::judge::mark_placement(&mut cmp.rows);
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
}
