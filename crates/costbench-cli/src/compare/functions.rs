//! The functions behind a significant instruction-count change: the two callgrind outputs of a
//! scenario, diffed per function, largest self-cost change first. Reads the two files; otherwise
//! pure.

use super::{Comparison, Instrument};
use crate::measure::callgrind::profile::{self, Profile};
use crate::model::RunRecord;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;

/// Functions listed per scenario: enough to find the cause, short enough for a PR comment.
pub const TOP: usize = 10;

/// One function's instructions per op in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionDelta {
    pub name: String,
    pub base_self: f64,
    pub cand_self: f64,
    pub base_inclusive: f64,
    pub cand_inclusive: f64,
}

impl FunctionDelta {
    pub fn self_change(&self) -> f64 {
        self.cand_self - self.base_self
    }

    pub fn inclusive_change(&self) -> f64 {
        self.cand_inclusive - self.base_inclusive
    }
}

/// The functions that moved most in one scenario, or why they are not known.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionChanges {
    pub id: String,
    pub top: Vec<FunctionDelta>,
    /// Set when the callgrind outputs could not be read (a run loaded from history keeps none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
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

/// Fills `cmp.functions` for every significant instruction-count change, from the callgrind
/// outputs of the two runs; `base_dir`/`cand_dir` are their output directories (`None` for a run
/// loaded from history, which keeps no callgrind output).
pub fn attach(
    cmp: &mut Comparison,
    base: &RunRecord,
    base_dir: Option<&Path>,
    cand: &RunRecord,
    cand_dir: Option<&Path>,
) {
    let ids: Vec<String> = cmp
        .rows
        .iter()
        .filter(|r| r.instrument == Instrument::Icount && r.verdict.is_significant())
        .map(|r| r.id.clone())
        .collect();
    for id in ids {
        let load = |run: &RunRecord, dir: Option<&Path>| -> Result<(Profile, u64), String> {
            let r = run.results.iter().find(|r| r.id == id).ok_or("no result")?;
            let ic = r.icount.as_ref().ok_or("no instruction count")?;
            let dir =
                dir.ok_or("the run was loaded from history, which keeps no callgrind output")?;
            profile::read(&dir.join(&ic.callgrind_out))
                .map(|p| (p, r.ops))
                .map_err(|e| format!("{e:#}"))
        };
        let entry = match (load(base, base_dir), load(cand, cand_dir)) {
            (Ok((b, bo)), Ok((c, co))) => FunctionChanges {
                id,
                top: top_changes(&b, &c, bo, co, TOP),
                unavailable: None,
            },
            (Err(e), _) | (_, Err(e)) => FunctionChanges {
                id,
                top: Vec::new(),
                unavailable: Some(e),
            },
        };
        cmp.functions.push(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::callgrind::profile::parse;

    #[test]
    fn largest_self_change_first_per_op() {
        let base = parse("events: Ir\nfn=(1) main\ncfn=(2) a\ncalls=1 1\n1 30\n1 10\nfn=(2)\n1 30\nfn=(3) same\n1 5\n").unwrap();
        let cand = parse("events: Ir\nfn=(1) main\ncfn=(2) a\ncalls=1 1\n1 50\n1 10\nfn=(2)\n1 40\ncfn=(4) new\ncalls=1 1\n1 10\nfn=(4)\n1 10\nfn=(3) same\n1 5\n").unwrap();
        let top = top_changes(&base, &cand, 10, 10, 10);
        let names: Vec<&str> = top.iter().map(|d| d.name.as_str()).collect();
        // a: self 30 -> 40; new: 0 -> 10 (ties on self change: larger inclusive change first,
        // a's inclusive moved by 20); main: self unchanged, inclusive 40 -> 60; same: unchanged.
        assert_eq!(names, ["a", "new", "main"]);
        assert_eq!(top[0].base_self, 3.0);
        assert_eq!(top[0].cand_inclusive, 5.0);
        assert_eq!(top_changes(&base, &cand, 10, 10, 1).len(), 1);
    }
}
