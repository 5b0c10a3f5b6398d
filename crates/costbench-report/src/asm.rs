//! Machine-code diffs as text: the changed stretches of a function's two listings with a few
//! lines of context (the terminal, and a collapsed block of the PR comment), or the whole of it
//! (the HTML page, drawn by `html::explain`), each instruction with its offset, its executions per op on both sides and
//! its source line. Also the listing of one build (`costbench asm`). Pure: text from
//! [`AsmDiff`] and [`Listing`].

use crate::escape::clean;
use crate::escape::escape_cell;
use costbench_judge::compare::asm::{AsmDiff, AsmLine, Edit};
use costbench_record::asm::Listing;
use costbench_record::fmt::fmt_count;
use std::fmt::Write as _;

/// Lines of context around each changed stretch.
const CONTEXT: usize = 3;

/// The last two components of a source path and the line: `src/lib.rs:42`.
fn source(file: Option<&str>, line: Option<u32>) -> String {
    let Some(file) = file else {
        return String::new();
    };
    let parts: Vec<&str> = file.rsplit('/').take(2).collect();
    let short: Vec<&str> = parts.into_iter().rev().collect();
    match line {
        Some(l) => format!("{}:{l}", short.join("/")),
        None => short.join("/"),
    }
}

/// Executions per op: "1000" when the sides agree (or one side has the line), "10 → 1000"
/// when they do not, empty when unknown.
fn counts(l: &AsmLine) -> String {
    match (l.base_per_op, l.cand_per_op) {
        (Some(b), Some(c)) if b != c => format!("{} → {}", fmt_count(b), fmt_count(c)),
        (_, Some(c)) => fmt_count(c),
        (Some(b), None) => fmt_count(b),
        (None, None) => String::new(),
    }
}

/// One line as a unified diff shows it: sign, offset, text, executions per op, source.
pub(crate) fn line_text(l: &AsmLine) -> String {
    let sign = match l.edit {
        Edit::Same => ' ',
        Edit::Added => '+',
        Edit::Removed => '-',
    };
    let offset = l.cand_offset.or(l.base_offset).unwrap_or(0);
    format!(
        "{sign} {:>6}  {:<48} {:>16}  {}",
        format!("+{offset:#x}"),
        l.text,
        counts(l),
        source(l.file.as_deref(), l.line)
    )
    .trim_end()
    .to_string()
}

/// The changed stretches: lines added or removed, or run a different number of times, with
/// `CONTEXT` lines around them; `...` between stretches.
pub fn hunks(d: &AsmDiff) -> Vec<String> {
    let changed: Vec<bool> = d
        .lines
        .iter()
        .map(|l| l.edit != Edit::Same || l.ran_differently())
        .collect();
    let mut keep = vec![false; d.lines.len()];
    for (k, _) in changed.iter().enumerate().filter(|(_, c)| **c) {
        let (lo, hi) = (k.saturating_sub(CONTEXT), (k + CONTEXT + 1).min(keep.len()));
        keep[lo..hi].iter_mut().for_each(|x| *x = true);
    }
    let mut out = Vec::new();
    let mut last = None;
    for (k, l) in d.lines.iter().enumerate().filter(|(k, _)| keep[*k]) {
        if last.is_some_and(|p: usize| p + 1 != k) {
            out.push("...".to_string());
        }
        out.push(line_text(l));
        last = Some(k);
    }
    out
}

/// Every line of both sides, aligned.
pub fn all(d: &AsmDiff) -> Vec<String> {
    d.lines.iter().map(line_text).collect()
}

/// "+3 −0 instructions", "in the candidate only (41 instructions)", or why it is unknown.
pub fn summary(d: &AsmDiff) -> String {
    if let Some(why) = &d.unavailable {
        return format!("not available: {why}");
    }
    let (added, removed) = d.added_removed();
    match d.presence.label() {
        Some(side) => format!("{side} ({} instructions)", added + removed),
        None if added + removed == 0 => "same instructions, run a different number of times".into(),
        None => format!("+{added} −{removed} instructions"),
    }
}

/// The terminal's section: each diff's changed stretches.
pub fn terminal(out: &mut String, all: &[AsmDiff]) {
    for d in all {
        let _ = writeln!(
            out,
            "\nmachine code of {} in {}: {}",
            clean(&d.function),
            clean(&d.id),
            summary(d)
        );
        for l in hunks(d) {
            let _ = writeln!(out, "  {}", clean(&l));
        }
    }
}

/// The markdown report's section: one collapsed diff block per function.
pub fn markdown(out: &mut String, all: &[AsmDiff]) {
    if all.is_empty() {
        return;
    }
    out.push_str("\n### Machine code of the functions that changed most (executions per op)\n");
    for d in all {
        let _ = writeln!(
            out,
            "\n<details><summary>{} in {}: {}</summary>\n",
            escape_cell(&d.function),
            escape_cell(&d.id),
            escape_cell(&summary(d))
        );
        let body = hunks(d);
        if !body.is_empty() {
            // A fence longer than any run of backticks in the text.
            out.push_str("```diff\n");
            for l in body {
                let _ = writeln!(out, "{}", l.replace("```", "'''"));
            }
            out.push_str("```\n");
        }
        out.push_str("\n</details>\n");
    }
}

/// One build's listing (`costbench asm FUNCTION`): offset, text, executions when known, source.
pub fn listing(l: &Listing) -> String {
    let mut out = format!("{}:\n", l.function);
    for i in &l.insns {
        let ran = if l.counted {
            i.executions.to_string()
        } else {
            String::new()
        };
        let line = format!(
            "  {:>6}  {:<48} {:>12}  {}",
            format!("+{:#x}", i.offset),
            i.text,
            ran,
            source(i.file.as_deref(), i.line)
        );
        let _ = writeln!(out, "{}", clean(line.trim_end()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::compare::asm::diff;
    use costbench_record::asm::AsmInsn;

    fn listing_of(insns: &[(&str, u64)]) -> Listing {
        Listing {
            function: "suite::sum".into(),
            insns: insns
                .iter()
                .enumerate()
                .map(|(k, &(text, executions))| AsmInsn {
                    offset: 4 * k as u64,
                    text: text.into(),
                    executions,
                    file: Some("suites/x/src/lib.rs".into()),
                    line: Some(40 + k as u32),
                })
                .collect(),
            counted: true,
        }
    }

    #[test]
    fn an_added_check_shows_with_its_counts_and_context() {
        let mut base: Vec<(&str, u64)> = vec![("push rbx", 1)];
        base.extend(std::iter::repeat_n(("nop", 1), 8));
        base.extend([("add rax, rcx", 1000), ("ret", 1)]);
        let mut cand = base.clone();
        cand.insert(9, ("cmp rcx, rsi", 1000));
        cand.insert(10, ("jae .L2", 1000));
        let (b, c) = (listing_of(&base), listing_of(&cand));
        let d = diff(
            "x".into(),
            "suite::sum".into(),
            Some((&b, 10)),
            Some((&c, 10)),
        );
        assert_eq!(summary(&d), "+2 −0 instructions");
        let h = hunks(&d);
        // Three lines before, the two added, and the two that follow before the end.
        assert_eq!(h.len(), CONTEXT + 2 + 2, "{h:#?}");
        assert_eq!(
            h[CONTEXT],
            "+  +0x24  cmp rcx, rsi                                               100.00  src/lib.rs:49"
        );
        let mut md = String::new();
        markdown(&mut md, std::slice::from_ref(&d));
        assert!(
            md.contains("<details><summary>suite::sum in x: +2 −0 instructions</summary>"),
            "{md}"
        );
        assert!(md.contains("```diff\n"), "{md}");
        let mut page = String::new();
        crate::html::explain::asm(&mut page, &d);
        assert_eq!(page.matches("<span class=\"add\">").count(), 2, "{page}");
        assert_eq!(page.matches("<span class=\"same\">").count(), 11, "{page}");
        assert!(listing(&c).contains("jae .L2"));
    }
}
