//! The functions behind a scenario's instruction-count change ("movers"), as the terminal and
//! markdown reports show them: each function whose own cost per op changed, its self cost on both
//! sides, the change, the share of the scenario's change it explains, calls per op, and whether
//! it exists on one side only. The HTML page draws the same columns with the cell helpers here.
//! Pure: text from a [`FunctionChanges`].

use crate::escape::clean;
use crate::escape::{escape_cell, truncate};
use costbench_judge::compare::{FunctionChanges, FunctionDelta};
use costbench_record::fmt::{fmt_count, fmt_delta, fmt_ir};
use std::fmt::Write as _;

/// "99.8 %" of the scenario's change, or "–" when the changes cancel out to none.
pub fn share(d: &FunctionDelta) -> String {
    match d.share {
        Some(s) if s.abs() >= 0.0995 || s == 0.0 => format!("{:.0} %", 100.0 * s),
        // The change column carries the sign of what is too small to show.
        Some(s) if s.abs() < 0.0005 => "<0.1 %".into(),
        Some(s) => format!("{:.1} %", 100.0 * s),
        None => "–".into(),
    }
}

/// Calls per op: "2.000" when both sides agree, "2.000 → 0" when they do not.
pub fn calls(d: &FunctionDelta) -> String {
    let (b, c) = (fmt_count(d.base_calls), fmt_count(d.cand_calls));
    if b == c {
        b
    } else {
        format!("{b} → {c}")
    }
}

/// The function's name, with " (candidate only)" or " (baseline only)" when it has a cost of
/// its own on one side only.
pub fn name(d: &FunctionDelta, max: usize) -> String {
    let name = truncate(&d.name, max);
    match d.presence.label() {
        Some(side) => format!("{name} ({side})"),
        None => name,
    }
}

/// "the scenario's change: +1,234 Ir/op" heading text for one scenario.
fn change_phrase(f: &FunctionChanges) -> String {
    format!("{} Ir/op", fmt_delta(f.change))
}

/// "and 3 more functions, +0.500 Ir/op together", when `top` leaves functions out.
fn omitted_line(f: &FunctionChanges) -> Option<String> {
    f.omitted.map(|o| {
        format!(
            "and {} more function{} whose own cost changed, {} Ir/op together",
            o.functions,
            if o.functions == 1 { "" } else { "s" },
            fmt_delta(o.change)
        )
    })
}

/// The terminal's section for one scenario.
pub fn terminal(out: &mut String, f: &FunctionChanges) {
    let _ = writeln!(
        out,
        "\nfunctions whose own cost changed in {} (instructions per op; the scenario {}):",
        clean(&f.id),
        change_phrase(f)
    );
    if let Some(why) = &f.unavailable {
        let _ = writeln!(out, "  not available: {why}");
        return;
    }
    for note in [&f.placement_note, &f.codegen_note, &f.inlining_note]
        .into_iter()
        .flatten()
    {
        let _ = writeln!(out, "  note: {note}");
    }
    if f.top.is_empty() {
        let _ = writeln!(out, "  no function's own cost changed");
    }
    for d in &f.top {
        let _ = writeln!(
            out,
            "  {:>12} {:>7}  self {} → {}  calls {}  {}",
            fmt_delta(d.self_change()),
            share(d),
            fmt_ir(d.base_self),
            fmt_ir(d.cand_self),
            calls(d),
            clean(&name(d, 160))
        );
    }
    if let Some(line) = omitted_line(f) {
        let _ = writeln!(out, "  {line}");
    }
}

/// The markdown report's section: one folded table per scenario.
pub fn markdown(out: &mut String, all: &[FunctionChanges]) {
    if all.is_empty() {
        return;
    }
    out.push_str("\n### Functions whose own cost changed (instructions per op)\n");
    for f in all {
        let _ = writeln!(
            out,
            "\n<details><summary>{}: {}</summary>\n",
            escape_cell(&f.id),
            change_phrase(f)
        );
        match &f.unavailable {
            Some(why) => {
                let _ = writeln!(out, "Not available: {}", escape_cell(&truncate(why, 200)));
            }
            None => {
                for note in [&f.placement_note, &f.codegen_note, &f.inlining_note]
                    .into_iter()
                    .flatten()
                {
                    let _ = writeln!(out, "Note: {}\n", escape_cell(note));
                }
                if f.top.is_empty() {
                    out.push_str("No function's own cost changed.\n");
                } else {
                    out.push_str(
                        "| function | self | change | share | calls per op |\n\
                         |:--|--:|--:|--:|--:|\n",
                    );
                }
                for d in &f.top {
                    let _ = writeln!(
                        out,
                        "| {} | {} → {} | {} | {} | {} |",
                        escape_cell(&name(d, 120)),
                        fmt_ir(d.base_self),
                        fmt_ir(d.cand_self),
                        fmt_delta(d.self_change()),
                        share(d),
                        calls(d)
                    );
                }
                if let Some(line) = omitted_line(f) {
                    let _ = writeln!(out, "\n{}", escape_cell(&line));
                }
            }
        }
        out.push_str("\n</details>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::compare::Presence;

    fn delta(share: Option<f64>, calls: (f64, f64), presence: Presence) -> FunctionDelta {
        FunctionDelta {
            name: "f".into(),
            base_self: 1.0,
            cand_self: 2.0,
            base_inclusive: 1.0,
            cand_inclusive: 2.0,
            base_calls: calls.0,
            cand_calls: calls.1,
            share,
            presence,
        }
    }

    #[test]
    fn shares_calls_and_sides_read_plainly() {
        let both = Presence::Both;
        assert_eq!(share(&delta(Some(0.998), (1.0, 1.0), both)), "100 %");
        assert_eq!(share(&delta(Some(0.25), (1.0, 1.0), both)), "25 %");
        assert_eq!(share(&delta(Some(0.004), (1.0, 1.0), both)), "0.4 %");
        assert_eq!(share(&delta(Some(-0.5), (1.0, 1.0), both)), "-50 %");
        assert_eq!(share(&delta(Some(-0.000_01), (1.0, 1.0), both)), "<0.1 %");
        assert_eq!(share(&delta(None, (1.0, 1.0), both)), "–");
        assert_eq!(calls(&delta(None, (2.0, 2.0), both)), "2.000");
        assert_eq!(calls(&delta(None, (2.0, 0.0), both)), "2.000 → 0");
        assert_eq!(name(&delta(None, (0.0, 1.0), both), 10), "f");
        assert_eq!(
            name(&delta(None, (0.0, 1.0), Presence::CandidateOnly), 10),
            "f (candidate only)"
        );
    }
}
