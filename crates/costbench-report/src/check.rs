//! The verdict of `costbench check`'s gate ([`Gate`], decided by `check::evaluate`) as text for
//! the terminal, printed after the comparison table. A pure function of the gate.

use costbench_judge::check::Gate;
use costbench_judge::compare::Verdict;

/// The gate's verdict for the terminal, after the comparison table.
pub fn terminal(gate: &Gate) -> String {
    terminal_styled(gate, crate::style::Styling::Plain)
}

/// [`terminal`], with "passed" in green and "FAILED" in red as `styling` says.
pub fn terminal_styled(gate: &Gate, styling: crate::style::Styling) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if gate.passed() {
        let _ = writeln!(
            out,
            "\ncheck: {}",
            styling.paint(crate::style::GOOD, "passed")
        );
    } else if gate.broken() == 0 {
        let _ = writeln!(
            out,
            "\ncheck: {}: an instrument asked for could not run",
            styling.paint(crate::style::BAD, "FAILED"),
        );
    } else {
        let _ = writeln!(
            out,
            "\ncheck: {}, {} violation(s){}:",
            styling.paint(crate::style::BAD, "FAILED"),
            gate.broken(),
            if gate.not_reached.is_empty() {
                String::new()
            } else {
                format!(", {} not reached", gate.not_reached.len())
            }
        );
        for v in &gate.violations {
            let _ = writeln!(
                out,
                "  {} ({}): {}",
                crate::escape::clean(&v.id),
                v.instrument.name(),
                v.message
            );
        }
        for b in &gate.budgets {
            let _ = writeln!(out, "  {}", crate::budget::line(b));
        }
        for f in &gate.findings {
            let _ = writeln!(
                out,
                "  {} ({}): {}",
                crate::escape::clean(&f.id),
                f.spec().label,
                crate::escape::clean(&f.line)
            );
        }
        for c in &gate.complexity {
            let _ = writeln!(
                out,
                "  {} (complexity, {}): {}",
                crate::escape::clean(&c.family),
                c.kind,
                c.message
            );
        }
        if !gate.not_reached.is_empty() {
            let ids: Vec<String> = gate
                .not_reached
                .iter()
                .map(|i| crate::escape::clean(i))
                .collect();
            let _ = writeln!(
                out,
                "  {} rows not reached (never measured, so never passed): {}",
                ids.len(),
                ids.join(", ")
            );
        }
    }
    for f in &gate.findings_accepted {
        let _ = writeln!(
            out,
            "accepted ({}): {}: {}",
            f.spec().label,
            crate::escape::clean(&f.id),
            crate::escape::clean(&f.line)
        );
    }
    for n in &gate.missing {
        let _ = writeln!(out, "{}", missing_line(n, gate.missing_allowed));
    }
    if !gate.ignored.is_empty() {
        let ids: Vec<String> = gate
            .ignored
            .iter()
            .map(|i| crate::escape::clean(i))
            .collect();
        let _ = writeln!(out, "ignored by costbench.toml: {}", ids.join(", "));
    }
    if !gate.notes.is_empty() {
        let n = |v: Verdict| gate.notes.iter().filter(|x| x.verdict == v).count();
        let _ = writeln!(
            out,
            "not gated: {} unresolved, {} placement (listed above with their reasons)",
            n(Verdict::Unresolved),
            n(Verdict::Placement)
        );
    }
    out
}

/// One missing instrument, with what to do about it unless it was allowed.
pub(crate) fn missing_line(n: &costbench_judge::compare::NotMeasured, allowed: bool) -> String {
    let sentence = crate::escape::clean(&n.sentence());
    if allowed {
        format!("{sentence}; the check passes without it (--allow-missing-instrument)")
    } else {
        format!(
            "{sentence}; the check fails without it: to pass on the other instruments, leave it \
             out of --instrument or pass --allow-missing-instrument"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::check::evaluate;
    use costbench_judge::check::CheckConfig;
    use costbench_judge::compare::{compare, CompareOptions};
    use costbench_record::testing::{record, scenario, with_icount};

    #[test]
    fn unresolved_and_placement_rows_are_notes_never_violations() {
        use costbench_record::testing::{rounds_pair, with_rounds};
        // "moved": 7 % slower with identical instructions (placement); "wide": rounds spread
        // ±14 % (unresolved); "plain": separate-run wall time is not in this session.
        let tight: Vec<f64> = (0..12).map(|k| 0.0005 * (k % 5) as f64).collect();
        let wide: Vec<f64> = (0..12).map(|k| 0.06 * ((k % 5) as f64 - 2.0)).collect();
        let side = |pick: usize| {
            let v = |ratio: f64, w: &[f64]| {
                let (b, c) = rounds_pair(ratio, w);
                if pick == 0 {
                    b
                } else {
                    c
                }
            };
            record(
                "r",
                vec![
                    with_rounds(
                        with_icount(scenario("moved"), 100.0),
                        &v(1.07, &tight),
                        true,
                        1,
                    ),
                    with_rounds(scenario("wide"), &v(1.02, &wide), true, 1),
                ],
            )
        };
        let (base, cand) = (side(0), side(1));
        let cmp = compare(&base, &cand, &CompareOptions::default());
        let g = evaluate(&cmp, &cand, &CheckConfig::default());
        assert!(g.passed(), "{g:#?}");
        let notes: Vec<(&str, Verdict)> =
            g.notes.iter().map(|n| (n.id.as_str(), n.verdict)).collect();
        assert_eq!(
            notes,
            [("moved", Verdict::Placement), ("wide", Verdict::Unresolved)]
        );
        assert_eq!(
            terminal(&g),
            "\ncheck: passed\nnot gated: 1 unresolved, 1 placement (listed above with their reasons)\n"
        );
        // The comparison's terminal table lists them with their reasons.
        let text = crate::comparison::terminal(&cmp);
        assert!(
            text.contains("\nnot gated (1 unresolved, 1 placement):\n  moved (walltime) +7."),
            "{text}"
        );
        assert!(
            text.contains(" placement: same instructions (+0.00 %); time +7."),
            "{text}"
        );
        assert!(
            text.contains("  wide (walltime) +")
                && text.contains(" unresolved: cannot resolve 3 %: ratio ["),
            "{text}"
        );
        assert!(text.contains("no significant change\n"), "{text}");
    }
}
