//! Plain-text rendering of a [`Comparison`] for terminals (`costbench compare`, `check`). Pure.
//!
//! Scenario names, units and failure messages come from run records and are untrusted: every
//! one goes through `escape::clean`, so a name cannot move the cursor, recolour the terminal or
//! reorder the line.

use crate::escape::clean;
use crate::style::Styling;
use crate::table::{Align, TextTable};
use costbench_judge::compare::{Comparison, NotCompared, Row, Side, Verdict};
use costbench_record::fmt::fmt_change;
use costbench_record::instrument::Figure;
use std::fmt::Write as _;

/// What the instruments' slices explain of a comparison's changes as the terminal shows it
/// (the checks that moved, say), one section per explained
/// scenario: (id, text), in the registry's order, then the comparison's.
pub fn explained(c: &Comparison) -> Vec<(String, String)> {
    crate::instrument::explains()
        .flat_map(|e| (e.terminal)(c))
        .collect()
}

/// Significant rows as a table (per instrument, largest change first; reason and evidence), then
/// a count of the unchanged rows, then the unresolved and placement rows with their reasons
/// (never gated), then missing, new, failed and changed scenarios.
pub fn terminal(c: &Comparison) -> String {
    terminal_styled(c, Styling::Plain)
}

/// [`terminal`], with the verdicts coloured as `styling` says (regression red, improvement
/// green, unresolved yellow, placement cyan).
pub fn terminal_styled(c: &Comparison, styling: Styling) -> String {
    let mut out = String::new();
    for u in &c.unfinished {
        let _ = writeln!(
            out,
            "{}: {}",
            styling.paint(crate::style::BAD, "UNFINISHED"),
            clean(&u.note)
        );
    }
    let _ = writeln!(out, "baseline:  {}", clean(&c.base.describe()));
    let _ = writeln!(out, "candidate: {}", clean(&c.cand.describe()));
    if let Some(line) = costbench_judge::compare::RunLabel::binaries(&c.base, &c.cand) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{}", c.summary());
    for n in &c.not_measured {
        let _ = writeln!(out, "{}", clean(&n.sentence()));
    }

    let header = [
        "scenario",
        "instrument",
        "baseline/op",
        "candidate/op",
        "change",
        "verdict",
        "reason",
    ];
    let mut rows: Vec<[String; 7]> = Vec::new();
    for inst in Figure::ALL {
        for r in c.sorted_rows(inst) {
            if !r.verdict.is_significant() {
                continue;
            }
            let mut reason = format!("{} [{}]", r.reason, r.evidence);
            if let Some(note) = &r.note {
                reason.push_str(&format!(" (note: {})", clean(note)));
            }
            rows.push([
                clean(&r.id),
                inst.name().into(),
                inst.fmt_value(r.base),
                inst.fmt_value(r.cand),
                fmt_change(r.change_pct),
                styling.verdict(r.verdict, r.verdict.name()),
                reason,
            ]);
        }
    }
    out.push('\n');
    if rows.is_empty() {
        out.push_str("no significant change\n");
    } else {
        // Names and words left-aligned, figures right-aligned; the last column unpadded.
        use Align::{Left, Right};
        let mut t = TextTable::new(header, &[Left, Left, Right, Right, Right, Left, Left]);
        for row in rows {
            t.row(row);
        }
        out.push_str(&t.render());
    }
    let unchanged = c.count(Verdict::Unchanged);
    if unchanged > 0 {
        // Only the instruments that were compared: a run without valgrind has no instruction
        // counts to be "within" anything (issue 29).
        let within = crate::instrument::unchanged_within(c);
        if within.is_empty() {
            let _ = writeln!(out, "{unchanged} unchanged");
        } else {
            let _ = writeln!(out, "{unchanged} unchanged ({})", within.join("; "));
        }
    }
    let open = open_groups(c);
    if !open.is_empty() {
        let _ = writeln!(
            out,
            "\nnot gated ({} unresolved, {} placement):",
            c.count(Verdict::Unresolved),
            c.count(Verdict::Placement)
        );
        for (verdict, reason, rows) in open {
            if let [r] = rows[..] {
                let _ = writeln!(
                    out,
                    "  {} ({}) {} {}: {reason}",
                    clean(&r.id),
                    r.instrument,
                    fmt_change(r.change_pct),
                    styling.verdict(verdict, &verdict.to_string())
                );
            } else {
                let ids: Vec<String> = rows
                    .iter()
                    .map(|r| format!("{} {}", clean(&r.id), fmt_change(r.change_pct)))
                    .collect();
                let _ = writeln!(
                    out,
                    "  {} {} rows {}: {reason}\n    {}",
                    rows.len(),
                    rows[0].instrument,
                    styling.verdict(verdict, &verdict.to_string()),
                    ids.join(", ")
                );
            }
        }
    }
    for f in &c.functions {
        crate::movers::terminal(&mut out, f);
    }
    for (_, text) in explained(c) {
        out += &text;
    }
    crate::asm::terminal(&mut out, &c.asm);

    let list = |out: &mut String, what: &str, ids: &[String]| {
        if !ids.is_empty() {
            let names: Vec<String> = ids.iter().map(|s| clean(s)).collect();
            let _ = writeln!(out, "{what} ({}): {}", ids.len(), names.join(", "));
        }
    };
    list(&mut out, "\nmissing in candidate", &c.missing_in_cand);
    list(&mut out, "\nnew in candidate", &c.new_in_cand);
    if !c.failed.is_empty() {
        let _ = writeln!(out, "\nfailed ({}):", c.failed.len());
        for f in &c.failed {
            let side = match f.side {
                Side::Both => "both runs".to_string(),
                s => s.name().to_string(),
            };
            let _ = writeln!(
                out,
                "  {} ({side}, {} {}): {}",
                clean(&f.id),
                clean(&f.instrument),
                clean(&f.kind),
                clean(&f.message)
            );
        }
    }
    if !c.setup_changes.is_empty() {
        let _ = writeln!(
            out,
            "\nsetup changed ({}), per-op figures compared anyway:",
            c.setup_changes.len()
        );
        for s in &c.setup_changes {
            let _ = writeln!(out, "  {}: {}", clean(&s.id), clean(&s.changes.join(", ")));
        }
    }
    if !c.not_compared.is_empty() {
        let _ = writeln!(
            out,
            "\nmeasured in one run only ({}):",
            c.not_compared.len()
        );
        for (inst, side, ids) in group_not_compared(&c.not_compared) {
            let names: Vec<String> = ids.iter().map(|s| clean(s)).collect();
            let _ = writeln!(out, "  {inst}, {side} only: {}", names.join(", "));
        }
    }
    out
}

/// Unresolved and placement rows (per instrument, largest change first), grouped by instrument,
/// verdict and reason: two separate runs without history give every row of a timed figure the
/// same reason, which is said once.
pub(crate) fn open_groups(c: &Comparison) -> Vec<(Verdict, &str, Vec<&Row>)> {
    let mut groups: Vec<(Verdict, &str, Vec<&Row>)> = Vec::new();
    for inst in Figure::ALL {
        for r in c.sorted_rows(inst) {
            if !matches!(r.verdict, Verdict::Unresolved | Verdict::Placement) {
                continue;
            }
            match groups.iter_mut().find(|(v, why, rows)| {
                *v == r.verdict && *why == r.reason && rows[0].instrument == inst
            }) {
                Some(g) => g.2.push(r),
                None => groups.push((r.verdict, &r.reason, vec![r])),
            }
        }
    }
    groups
}

/// Not-compared entries grouped by instrument and side, in first-seen order.
fn group_not_compared(v: &[NotCompared]) -> Vec<(Figure, Side, Vec<&str>)> {
    let mut groups: Vec<(Figure, Side, Vec<&str>)> = Vec::new();
    for n in v {
        match groups
            .iter_mut()
            .find(|(i, s, _)| *i == n.instrument && *s == n.measured_in)
        {
            Some(g) => g.2.push(&n.id),
            None => groups.push((n.instrument, n.measured_in, vec![&n.id])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::compare::{compare, CompareOptions};
    use costbench_judge::testing::*;
    use costbench_record::testing::*;

    #[test]
    fn significant_rows_then_counts_and_lists() {
        let base = record(
            "b",
            vec![
                with_icount(scenario("fast"), 1000.0),
                with_icount(scenario("slow"), 1000.0),
                with_icount(scenario("same"), 1000.0),
                with_icount(scenario("gone"), 10.0),
            ],
        );
        let cand = record(
            "c",
            vec![
                with_icount(scenario("fast"), 900.0),
                with_icount(scenario("slow"), 1200.0),
                with_icount(scenario("same"), 1000.0),
                with_icount(scenario("new\u{1b}"), 10.0),
                with_failure(scenario("broken"), "icount", "panicked"),
            ],
        );
        let cmp = compare(&base, &cand, &CompareOptions::default());
        let t = terminal(&cmp);
        // Coloured: regression red, improvement green, and once the colours are taken out, the
        // same text, columns aligned as in the plain table.
        let styled = terminal_styled(&cmp, Styling::Ansi);
        assert!(
            styled.contains("\x1b[1m\x1b[31mregression\x1b[0m"),
            "{styled}"
        );
        assert!(
            styled.contains("\x1b[1m\x1b[32mimprovement\x1b[0m"),
            "{styled}"
        );
        let mut stripped = String::new();
        let mut in_escape = false;
        for ch in styled.chars() {
            match (in_escape, ch) {
                (false, '\x1b') => in_escape = true,
                (true, 'm') => in_escape = false,
                (false, _) => stripped.push(ch),
                (true, _) => {}
            }
        }
        assert_eq!(stripped, t);
        assert!(!t.contains('\x1b'), "plain has no colour: {t}");
        let slow = t.find("slow ").expect("slow row");
        let fast = t.find("fast ").expect("fast row");
        assert!(slow < fast, "largest change first:\n{t}");
        assert!(t.contains("+20.00 %"), "{t}");
        assert!(t.contains("regression"), "{t}");
        // What backs the verdict, after its reason.
        assert!(
            t.contains("beyond 0.2 % threshold [exact instruction counts]"),
            "{t}"
        );
        assert!(
            !t.contains("same "),
            "unchanged rows are only counted:\n{t}"
        );
        assert!(t.contains("1 unchanged (icount within 0.2 %"), "{t}");
        assert!(t.contains("missing in candidate (1): gone"), "{t}");
        assert!(
            t.contains("new in candidate (2): new\\u{1b}, broken"),
            "{t}"
        );
        assert!(
            t.contains("broken (candidate, icount panicked): icount panicked"),
            "{t}"
        );
        assert!(!t.contains('\u{1b}'), "{t}");
    }

    #[test]
    fn separate_runs_without_history_say_once_what_to_run() {
        let run = |id: &str, f: f64| {
            record(
                id,
                ["a", "b", "c"]
                    .iter()
                    .enumerate()
                    .map(|(i, s)| with_walltime(scenario(s), &noisy(100.0 * f, 0.01, 20, i as u64)))
                    .collect(),
            )
        };
        let t = terminal(&compare(
            &run("b", 1.0),
            &run("c", 1.5),
            &CompareOptions::default(),
        ));
        assert!(
            t.contains("0 regressions, 0 improvements, 0 unchanged, 3 unresolved\n"),
            "{t}"
        );
        assert!(t.contains("no significant change\n"), "{t}");
        let line = t
            .lines()
            .find(|l| l.starts_with("  3 walltime rows unresolved: separate runs"))
            .expect("one line for the three");
        assert!(line.contains("check --baseline-rev REV"), "{line}");
        assert_eq!(t.matches("check --baseline-rev").count(), 1, "{t}");
    }

    #[test]
    fn nothing_significant() {
        let base = record("b", vec![with_icount(scenario("x"), 1000.0)]);
        let t = terminal(&compare(&base, &base, &CompareOptions::default()));
        assert!(t.contains("no significant change\n1 unchanged"), "{t}");
    }

    #[test]
    fn terminal_snapshot() {
        assert_snapshot!("compare_terminal", &terminal(&every_verdict()));
    }
}
