//! The constant-time check's slice of the reports: the section a run's terminal table ends
//! with ([`terminal`]) and the HTML page's section, with its link in the page's navigation
//! ([`html`]): each measured id's verdict and its findings with their source lines. Its
//! findings in `check`'s gate (terminal, markdown, JUnit) are written by those reports, with
//! the words its slice of the record gives them (`FindingSpec`).

mod html;
mod terminal;

use super::{RunSection, Slice};

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    run_terminal: Some(terminal::terminal),
    run_html: Some(RunSection {
        anchor: "constant-time",
        title: "Constant time",
        section: html::section,
    }),
    ..Slice::NONE
};

#[cfg(test)]
mod tests {
    use crate::check::terminal;
    use costbench_judge::check::{evaluate, CheckConfig};
    use costbench_judge::compare::{compare, CompareOptions};
    use costbench_record::testing::{record, scenario};

    /// Issue 28: a finding `[[constant-time.allow]]` accepted is listed with its reason in the
    /// terminal, markdown and JUnit, and does not fail the gate; the other one does.
    #[test]
    fn issue_28_accepted_constant_time_findings_are_listed_not_failed() {
        use costbench_judge::instrument::consttime::{accept, Allow};
        use costbench_record::instrument::consttime::{ConstantTime, CtKind};
        use costbench_record::instrument::consttime::testing::{finding as ct_finding, frame as ct_frame};
        let finding = |line| ct_finding(CtKind::Branch, ct_frame("ct::f", "benches/ct.rs", line));
        let mut leak = scenario("leak/branch");
        leak.counters.constant_time = Some(ConstantTime {
            secret_marks: 1,
            secret_bytes: 16,
            findings: vec![finding(27), finding(34)],
            ..ConstantTime::default()
        });
        let mut cand = record("c", vec![leak]);
        let allow = |at: &str| Allow {
            kind: None,
            scenario: "leak/*".into(),
            at: at.into(),
            why: "key schedule on public data".into(),
            entry: "costbench.toml:3".into(),
        };
        accept(&mut cand, &[allow("benches/ct.rs:27")]);
        let cmp = compare(&cand, &cand, &CompareOptions::default());
        let g = evaluate(&cmp, &cand, &CheckConfig::default());
        assert!(!g.passed());
        assert_eq!(g.findings.len(), 1);
        let accepted = "leak/branch: secret-dependent branch at benches/ct.rs:27 in ct::f (body, \
                        16×), accepted: key schedule on public data (costbench.toml:3)";
        let text = terminal(&g);
        assert!(text.contains("check: FAILED, 1 violation(s):"), "{text}");
        assert!(
            text.contains(&format!("\naccepted (constant-time): {accepted}\n")),
            "{text}"
        );
        let md = crate::markdown::check(&cmp, &g);
        assert!(
            md.contains("| leak/branch | accepted | secret-dependent branch at benches/ct.rs:27"),
            "{md}"
        );
        let xml = crate::junit::junit(&cmp, Some(&g));
        assert!(
            xml.contains("<skipped message=\"secret-dependent branch at benches/ct.rs:27"),
            "{xml}"
        );
        // Both accepted: the gate passes, still listing them.
        accept(&mut cand, &[allow("benches/ct.rs:27"), allow("ct::f")]);
        let g = evaluate(&cmp, &cand, &CheckConfig::default());
        assert!(g.passed(), "{g:#?}");
        assert_eq!(g.findings_accepted.len(), 2);
        assert!(terminal(&g).starts_with("\ncheck: passed\naccepted (constant-time): "));
    }
}
