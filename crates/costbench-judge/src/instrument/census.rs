//! The census's slice of the judge: the census diff of one scenario, the bounds and overflow
//! checks (guards) executed in its measured body on one side and not the other, and those whose
//! executions per op changed, each with its source line. Pure: the caller joins each side's
//! callgrind per-instruction counts with its binary's guards (the measuring crate's
//! `instrument::census::sites`) and passes the executed sites in;
//! `compare::explain::attach_census` fills a comparison's census diffs.
//!
//! A check is the same on both sides when its kind, function and source frames (file and line,
//! innermost first) agree (files relative to each side's checkout; see `same_file`). Addresses never take part: the two binaries place code differently.
//! An edit above a check shifts its line, so sites left over after that exact match are paired
//! again, in line order, within the same kind, function and files when they execute exactly as
//! often per op: counts are exact, so a check that moved down two lines and still runs 1,000
//! times per op is the same check, while the one the pull request added has no partner.
//!
//! Also its figure a budget limits (`checks`, `budget_value`).

use costbench_record::model::{CensusSite, ScenarioResult};
use serde::Serialize;

/// Its budget figure (`checks`): checks executed per op.
pub(super) fn budget_value(r: &ScenarioResult) -> Option<f64> {
    r.census.as_ref().map(|c| c.checks_per_op)
}

/// A check listed in a census diff.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckDelta {
    /// `slice-index`, `overflow`, ... (the census's kinds).
    pub kind: String,
    /// The function whose machine code holds the guard.
    pub function: String,
    /// The check's own source file and line (innermost frame), on the side that has it (the
    /// candidate's when both do).
    pub file: Option<String>,
    /// See `file`.
    pub line: Option<u32>,
    /// The outermost frame's file and line when the check was inlined ("via"), else absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// Executions per op in the baseline (0 when it has no such check, or never ran it).
    pub base_per_op: f64,
    /// Executions per op in the candidate.
    pub cand_per_op: f64,
}

impl CheckDelta {
    /// "src/lib.rs:42", or the function when the line is unknown.
    pub fn location(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            (Some(f), None) => f.clone(),
            _ => self.function.clone(),
        }
    }
}

/// The checks that moved in one scenario, or why they cannot be told.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CensusDiff {
    /// The measured id.
    pub id: String,
    /// Checks executed in the candidate only, most executed first.
    pub appeared: Vec<CheckDelta>,
    /// Checks executed in the baseline only, most executed first.
    pub disappeared: Vec<CheckDelta>,
    /// Checks executed on both sides, a different number of times per op, largest change first.
    pub changed: Vec<CheckDelta>,
    /// Why the sides' checks could not be had (no census on a side, a binary gone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

impl CensusDiff {
    /// Executed checks per op, candidate minus baseline, over everything listed.
    pub fn change_per_op(&self) -> f64 {
        self.appeared
            .iter()
            .chain(&self.disappeared)
            .chain(&self.changed)
            .map(|c| c.cand_per_op - c.base_per_op)
            .sum()
    }

    /// Whether nothing appeared, disappeared or changed.
    pub fn is_empty(&self) -> bool {
        self.appeared.is_empty() && self.disappeared.is_empty() && self.changed.is_empty()
    }
}

/// The frames of a site as (file, line) pairs, innermost first.
fn frames(s: &CensusSite) -> Vec<(Option<&str>, Option<u32>)> {
    let mut v: Vec<_> = s
        .inline_chain
        .iter()
        .map(|f| (f.file.as_deref(), f.line))
        .collect();
    if v.is_empty() {
        v.push((s.file.as_deref(), s.line));
    }
    v
}

/// Whether two sides name the same source file: equal, or one path ends with the other's
/// components. Without the checkouts' roots (two output directories compared), the baseline's
/// worktree and the candidate's checkout name one file by two absolute paths; what follows a
/// `costbench/worktrees/COMMIT/` prefix is relative to the repository.
fn same_file(a: Option<&str>, b: Option<&str>) -> bool {
    fn in_repo(f: &str) -> &str {
        match f.find("/costbench/worktrees/") {
            Some(k) => {
                let rest = &f[k + "/costbench/worktrees/".len()..];
                rest.split_once('/').map_or(rest, |(_, r)| r)
            }
            None => f,
        }
    }
    match (a, b) {
        (Some(a), Some(b)) => {
            let (a, b) = (
                std::path::Path::new(in_repo(a)),
                std::path::Path::new(in_repo(b)),
            );
            a == b || (a.is_absolute() != b.is_absolute() && (a.ends_with(b) || b.ends_with(a)))
        }
        (a, b) => a == b,
    }
}

/// Whether two sites are the same check, lines included (`exact`) or not: the same kind,
/// function, and files (and lines) of every frame.
fn same(a: &CensusSite, b: &CensusSite, exact: bool) -> bool {
    let (fa, fb) = (frames(a), frames(b));
    a.kind == b.kind
        && a.function == b.function
        && fa.len() == fb.len()
        && fa
            .iter()
            .zip(&fb)
            .all(|(x, y)| same_file(x.0, y.0) && (!exact || x.1 == y.1))
}

fn delta(s: &CensusSite, base: f64, cand: f64) -> CheckDelta {
    let via = (s.inline_chain.len() > 1)
        .then(|| s.inline_chain.last())
        .flatten()
        .map(|f| match (&f.file, f.line) {
            (Some(file), Some(l)) => format!("{file}:{l}"),
            (Some(file), None) => file.clone(),
            _ => f.function.clone().unwrap_or_default(),
        });
    CheckDelta {
        kind: s.kind.clone(),
        function: s.function.clone(),
        file: s.file.clone(),
        line: s.line,
        via,
        base_per_op: base,
        cand_per_op: cand,
    }
}

/// The census diff of scenario `id` between every check each side executed (all executed
/// sites, not a run record's top few), each side with the ops its run counted.
pub fn diff(
    id: String,
    base: &[CensusSite],
    base_ops: u64,
    cand: &[CensusSite],
    cand_ops: u64,
) -> CensusDiff {
    let (bo, co) = (base_ops.max(1) as f64, cand_ops.max(1) as f64);
    let mut base_left: Vec<Option<&CensusSite>> = base.iter().map(Some).collect();
    let mut cand_left: Vec<Option<&CensusSite>> = cand.iter().map(Some).collect();
    let mut pairs: Vec<(&CensusSite, &CensusSite)> = Vec::new();
    // Exactly the same frames, kind and function.
    for b in base_left.iter_mut() {
        let bs = b.expect("all present before matching");
        let found = cand_left.iter_mut().find(|c| {
            c.is_some_and(|c| {
                c.kind == bs.kind && c.function == bs.function && frames(c) == frames(bs)
            })
        });
        if let Some(c) = found {
            pairs.push((bs, c.take().expect("found present")));
            *b = None;
        }
    }
    // Lines moved: the same kind, function and files, executed exactly as often per op, paired
    // in line order.
    let by_line = |s: &&CensusSite| (s.line, s.address.clone());
    let mut rest_base: Vec<&CensusSite> = base_left.iter().flatten().copied().collect();
    let mut rest_cand: Vec<&CensusSite> = cand_left.iter().flatten().copied().collect();
    rest_base.sort_by_key(by_line);
    rest_cand.sort_by_key(by_line);
    let mut unmatched_base = Vec::new();
    let mut next = 0;
    for b in rest_base {
        let found = rest_cand[next..].iter().position(|c| {
            same(c, b, false) && c.executions as f64 * bo == b.executions as f64 * co
        });
        match found {
            Some(k) => {
                let c = rest_cand.remove(next + k);
                next += k;
                pairs.push((b, c));
            }
            None => unmatched_base.push(b),
        }
    }
    let per_op_cmp = |a: &CheckDelta, b: &CheckDelta| {
        let size = |d: &CheckDelta| (d.cand_per_op - d.base_per_op).abs();
        size(b)
            .total_cmp(&size(a))
            .then_with(|| a.location().cmp(&b.location()))
    };
    let mut appeared: Vec<CheckDelta> = rest_cand
        .iter()
        .map(|c| delta(c, 0.0, c.executions as f64 / co))
        .collect();
    let mut disappeared: Vec<CheckDelta> = unmatched_base
        .iter()
        .map(|b| delta(b, b.executions as f64 / bo, 0.0))
        .collect();
    let mut changed: Vec<CheckDelta> = pairs
        .iter()
        .filter(|(b, c)| b.executions as f64 * co != c.executions as f64 * bo)
        .map(|(b, c)| delta(c, b.executions as f64 / bo, c.executions as f64 / co))
        .collect();
    appeared.sort_by(per_op_cmp);
    disappeared.sort_by(per_op_cmp);
    changed.sort_by(per_op_cmp);
    CensusDiff {
        id,
        appeared,
        disappeared,
        changed,
        unavailable: None,
    }
}

/// Each side's executed checks of one id: every executed site and the ops its run counted.
pub type SideSites = (Vec<CensusSite>, u64);

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::model::CensusFrame;

    fn site(addr: u64, function: &str, line: u32, executions: u64) -> CensusSite {
        CensusSite {
            address: format!("{addr:#x}"),
            kind: "slice-index".into(),
            function: function.into(),
            file: Some("src/lib.rs".into()),
            line: Some(line),
            inline_chain: vec![CensusFrame {
                function: Some(function.into()),
                file: Some("src/lib.rs".into()),
                line: Some(line),
            }],
            executions,
            per_op: 0.0,
        }
    }

    /// Issue 27: a check added two lines above two others shifts their lines; only the new one
    /// is listed, with its executions per op.
    #[test]
    fn an_added_check_is_the_only_one_listed_though_lines_moved() {
        let base = [
            site(0x10, "f", 10, 1_000),
            site(0x20, "f", 20, 500),
            site(0x30, "g", 5, 7),
        ];
        let cand = [
            site(0x110, "f", 10, 1_000),
            site(0x118, "f", 11, 1_000),
            site(0x120, "f", 21, 500),
            site(0x130, "g", 5, 7),
        ];
        let d = diff("x".into(), &base, 100, &cand, 100);
        assert_eq!(d.appeared.len(), 1, "{d:?}");
        let a = &d.appeared[0];
        assert_eq!(
            (a.location().as_str(), a.base_per_op, a.cand_per_op),
            ("src/lib.rs:11", 0.0, 10.0)
        );
        assert!(d.disappeared.is_empty() && d.changed.is_empty(), "{d:?}");
        assert_eq!(d.change_per_op(), 10.0);
        // The same sites on both sides: nothing.
        assert!(diff("x".into(), &base, 100, &base, 100).is_empty());
    }

    #[test]
    fn one_file_in_two_checkouts_is_the_same_file() {
        for (a, b, same) in [
            ("/repo/src/lib.rs", "/repo/src/lib.rs", true),
            (
                "/repo/target/costbench/worktrees/0a1b/src/lib.rs",
                "/repo/src/lib.rs",
                true,
            ),
            ("src/lib.rs", "/tmp/x/src/lib.rs", true),
            ("/repo/src/lib.rs", "/repo/src/main.rs", false),
            ("/a/src/lib.rs", "/b/src/lib.rs", false),
        ] {
            assert_eq!(same_file(Some(a), Some(b)), same, "{a} {b}");
        }
        assert!(same_file(None, None) && !same_file(Some("a"), None));
    }

    #[test]
    fn removed_and_changed_checks_are_listed_apart() {
        let base = [site(0x10, "f", 10, 1_000), site(0x20, "f", 20, 500)];
        let cand = [site(0x10, "f", 10, 2_000)];
        let d = diff("x".into(), &base, 100, &cand, 100);
        assert_eq!(d.disappeared.len(), 1);
        assert_eq!(d.disappeared[0].line, Some(20));
        assert_eq!(d.disappeared[0].base_per_op, 5.0);
        assert_eq!(d.changed.len(), 1);
        assert_eq!(
            (d.changed[0].base_per_op, d.changed[0].cand_per_op),
            (10.0, 20.0)
        );
        assert!(d.appeared.is_empty());
        // Twice the ops and twice the executions: the same per op, nothing changed.
        let twice = [site(0x10, "f", 10, 2_000), site(0x20, "f", 20, 1_000)];
        assert!(diff("x".into(), &base, 100, &twice, 200).is_empty());
    }
}
