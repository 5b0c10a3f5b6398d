//! The machine-code diff of a function whose own cost changed: the two sides' listings
//! (`costbench_record::asm`, normalised so that only real differences show) aligned by their
//! instruction texts (a longest common subsequence), each line with its executions per op on
//! both sides and its source line. Pure: the caller disassembles the two binaries that were
//! measured (`costbench_measure::asm`) and passes the listings in; `explain::attach_asm`
//! fills a comparison's diffs for the top movers of each explained scenario.

use super::presence::Presence;
use costbench_record::asm::{AsmInsn, Listing};
use serde::Serialize;

/// Functions per scenario whose machine code is diffed: the largest movers.
pub const ASM_TOP: usize = 3;

/// Largest product of the two listings' lengths aligned instruction by instruction; longer
/// functions are shown side by side without alignment (every line added and removed).
const MAX_CELLS: usize = 16_000_000;

/// What happened to one line between the sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Edit {
    /// On both sides.
    Same,
    /// In the candidate only.
    Added,
    /// In the baseline only.
    Removed,
}

/// One line of an [`AsmDiff`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AsmLine {
    /// Same, added or removed.
    pub edit: Edit,
    /// The instruction's normalised text.
    pub text: String,
    /// Offset in the baseline's function (absent for an added line).
    pub base_offset: Option<u64>,
    /// Offset in the candidate's function (absent for a removed line).
    pub cand_offset: Option<u64>,
    /// Executions per op in the baseline (absent for an added line or unknown counts).
    pub base_per_op: Option<f64>,
    /// Executions per op in the candidate.
    pub cand_per_op: Option<f64>,
    /// Source file and line (the candidate's when both sides have the line).
    pub file: Option<String>,
    /// See `file`.
    pub line: Option<u32>,
}

impl AsmLine {
    /// Whether its executions per op differ between the sides (an added or removed line that
    /// ran counts as differing).
    pub fn ran_differently(&self) -> bool {
        self.base_per_op.unwrap_or(0.0) != self.cand_per_op.unwrap_or(0.0)
    }
}

/// The machine-code diff of one function of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AsmDiff {
    /// The measured id.
    pub id: String,
    /// The function's name.
    pub function: String,
    /// On which sides it has code of its own.
    pub presence: Presence,
    /// Every instruction of both sides, aligned.
    pub lines: Vec<AsmLine>,
    /// Why the listings could not be had (the binary gone, the symbol not found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

impl AsmDiff {
    /// Instructions in the candidate only and in the baseline only.
    pub fn added_removed(&self) -> (usize, usize) {
        let n = |e: Edit| self.lines.iter().filter(|l| l.edit == e).count();
        (n(Edit::Added), n(Edit::Removed))
    }
}

/// Pairs of indices (base, candidate) of a longest common subsequence of the texts.
fn lcs(a: &[AsmInsn], b: &[AsmInsn]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > MAX_CELLS {
        return Vec::new();
    }
    // table[i][j]: LCS length of a[i..] and b[j..].
    let w = m + 1;
    let mut table = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i * w + j] = if a[i].text == b[j].text {
                table[(i + 1) * w + j + 1] + 1
            } else {
                table[(i + 1) * w + j].max(table[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i].text == b[j].text {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if table[(i + 1) * w + j] >= table[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The diff of `function` in scenario `id` between the listings of the two sides (`None` where
/// the function has no code of its own), each with the ops its run counted.
pub fn diff(
    id: String,
    function: String,
    base: Option<(&Listing, u64)>,
    cand: Option<(&Listing, u64)>,
) -> AsmDiff {
    let presence = match (base, cand) {
        (Some(_), Some(_)) => Presence::Both,
        (Some(_), None) => Presence::BaselineOnly,
        _ => Presence::CandidateOnly,
    };
    let per_op = |s: Option<(&Listing, u64)>, i: &AsmInsn| {
        s.filter(|(l, _)| l.counted)
            .map(|(_, ops)| i.executions as f64 / ops.max(1) as f64)
    };
    let a: &[AsmInsn] = base.map_or(&[], |(l, _)| &l.insns);
    let b: &[AsmInsn] = cand.map_or(&[], |(l, _)| &l.insns);
    let line = |edit, bi: Option<&AsmInsn>, ci: Option<&AsmInsn>| {
        let src = ci.or(bi).expect("a line has a side");
        AsmLine {
            edit,
            text: src.text.clone(),
            base_offset: bi.map(|i| i.offset),
            cand_offset: ci.map(|i| i.offset),
            base_per_op: bi.and_then(|i| per_op(base, i)),
            cand_per_op: ci.and_then(|i| per_op(cand, i)),
            file: src.file.clone(),
            line: src.line,
        }
    };
    let mut lines = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    for (pi, pj) in lcs(a, b).into_iter().chain([(a.len(), b.len())]) {
        lines.extend(a[i..pi].iter().map(|x| line(Edit::Removed, Some(x), None)));
        lines.extend(b[j..pj].iter().map(|y| line(Edit::Added, None, Some(y))));
        if pi < a.len() && pj < b.len() {
            lines.push(line(Edit::Same, Some(&a[pi]), Some(&b[pj])));
        }
        (i, j) = (pi + 1, pj + 1);
    }
    AsmDiff {
        id,
        function,
        presence,
        lines,
        unavailable: None,
    }
}

/// Each side's listing of a function (`None` where it has no code of its own) with the ops its
/// run counted.
pub type SideListings = (Option<(Listing, u64)>, Option<(Listing, u64)>);

#[cfg(test)]
mod tests {
    use super::*;

    use costbench_record::testing::asm_listing as listing;

    /// Issue 27: an added bounds check shows as its `cmp`/`jae` (and the panic call) added,
    /// with executions per op; the rest aligns.
    #[test]
    fn an_added_check_is_its_added_instructions() {
        let base = listing(&[
            ("xor eax, eax", 10),
            ("add rax, qword ptr [rdi+rcx*8]", 10_000),
            ("inc rcx", 10_000),
            ("cmp rcx, rdx", 10_000),
            ("jne +0x4", 10_000),
            ("ret", 10),
        ]);
        let cand = listing(&[
            ("xor eax, eax", 10),
            ("cmp rcx, rsi", 10_000),
            ("jae +0x1c", 10_000),
            ("add rax, qword ptr [rdi+rcx*8]", 10_000),
            ("inc rcx", 10_000),
            ("cmp rcx, rdx", 10_000),
            ("jne +0x4", 10_000),
            ("ret", 10),
            ("call core::panicking::panic_bounds_check", 0),
        ]);
        let d = diff("x".into(), "f".into(), Some((&base, 10)), Some((&cand, 10)));
        assert_eq!(d.added_removed(), (3, 0));
        let added: Vec<(&str, Option<f64>)> = d
            .lines
            .iter()
            .filter(|l| l.edit == Edit::Added)
            .map(|l| (l.text.as_str(), l.cand_per_op))
            .collect();
        assert_eq!(
            added,
            [
                ("cmp rcx, rsi", Some(1000.0)),
                ("jae +0x1c", Some(1000.0)),
                ("call core::panicking::panic_bounds_check", Some(0.0)),
            ]
        );
        let same = d.lines.iter().filter(|l| l.edit == Edit::Same).count();
        assert_eq!(same, 6);
        assert!(!d
            .lines
            .iter()
            .any(|l| l.edit == Edit::Same && l.ran_differently()));
        // One side only: every line added.
        let new = diff("x".into(), "f".into(), None, Some((&cand, 10)));
        assert_eq!(
            (new.presence, new.added_removed()),
            (Presence::CandidateOnly, (9, 0))
        );
    }
}
