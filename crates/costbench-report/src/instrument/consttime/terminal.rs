//! The constant-time instrument's findings as text: the section a run's table ends with (each
//! measured id's verdict, and each finding with its source line and the frames that led
//! there; an accepted finding says so, with its reason and entry). A pure function of the
//! record; `check`'s gate lists the failing and accepted findings itself (`check.rs`,
//! `markdown.rs`).

use costbench_record::instrument::consttime::{CtFinding, CtVerdict};
use costbench_record::model::RunRecord;
use std::fmt::Write as _;

/// How many frames of a finding's chain the table shows under it.
const FRAMES_SHOWN: usize = 4;

/// The constant-time section of a run's table: nothing when the instrument did not run.
pub(super) fn terminal(record: &RunRecord) -> String {
    let mut out = String::new();
    let rows: Vec<_> = record
        .results
        .iter()
        .filter_map(|r| Some((r.id.as_str(), r.counters.constant_time.as_ref()?)))
        .collect();
    if rows.is_empty() {
        return out;
    }
    let count = |f: fn(CtVerdict) -> bool| rows.iter().filter(|(_, c)| f(c.verdict())).count();
    let leaking = count(|v| matches!(v, CtVerdict::Leaks(_)));
    let accepted = count(|v| matches!(v, CtVerdict::Accepted(_)));
    let summary = match (leaking, accepted) {
        (0, 0) => "no finding".to_string(),
        (n, 0) => format!("{n} of {} ids BROKEN", rows.len()),
        (0, a) => format!("{a} of {} ids with accepted findings only", rows.len()),
        (n, a) => format!(
            "{n} of {} ids BROKEN, {a} with accepted findings only",
            rows.len()
        ),
    };
    let _ = writeln!(
        out,
        "\nconstant time (memcheck on the bytes each scenario marked secret): {summary}"
    );
    for (id, c) in rows {
        let verdict = match c.verdict() {
            CtVerdict::Leaks(n) => format!("BROKEN, {}", CtVerdict::Leaks(n).label()),
            v => v.label(),
        };
        let secrets = if c.secret_marks > 0 {
            format!(
                "; {} secret byte{} marked at {}",
                c.secret_bytes,
                if c.secret_bytes == 1 { "" } else { "s" },
                c.marked_at.join(", ")
            )
        } else {
            String::new()
        };
        let _ = writeln!(out, "  {}: {verdict}{secrets}", crate::escape::clean(id));
        for f in &c.findings {
            finding(&mut out, f);
        }
    }
    out
}

fn finding(out: &mut String, f: &CtFinding) {
    let gate = if f.gates() || f.accepted.is_some() {
        ""
    } else {
        " [not gating]"
    };
    let _ = writeln!(out, "    {}{gate}", crate::escape::clean(&f.line()));
    let shown: Vec<String> = f
        .frames
        .iter()
        .filter(|fr| fr.file.is_some())
        .take(FRAMES_SHOWN)
        .map(|fr| {
            format!(
                "{} ({})",
                fr.function.as_deref().unwrap_or("??"),
                fr.location()
            )
        })
        .collect();
    if !shown.is_empty() {
        let _ = writeln!(
            out,
            "      via {}",
            crate::escape::clean(&shown.join(" < "))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::instrument::consttime::{ConstantTime, CtKind};
    use costbench_record::instrument::consttime::testing::{finding as ct_finding, frame as ct_frame};
    use costbench_record::testing::{record, scenario};

    #[test]
    fn a_run_shows_each_verdict_and_each_finding_with_its_line() {
        let frame = |f: &str, l| ct_frame(f, "benches/ct.rs", l);
        let mut leak = scenario("leak/branch");
        leak.counters.constant_time = Some(ConstantTime {
            secret_marks: 1,
            secret_bytes: 16,
            marked_at: vec!["benches/ct.rs:56".into()],
            findings: vec![CtFinding {
                frames: vec![frame("ct::branch", 27), frame("ct::main", 60)],
                what: "Conditional jump or move depends on uninitialised value(s)".into(),
                ..ct_finding(CtKind::Branch, frame("ct::branch", 27))
            }],
            memcheck_out: "memcheck/leak_branch.xml".into(),
        });
        let mut clean = scenario("clean");
        clean.counters.constant_time = Some(ConstantTime {
            secret_marks: 1,
            secret_bytes: 16,
            marked_at: vec!["benches/ct.rs:70".into()],
            ..ConstantTime::default()
        });
        let mut plain = scenario("plain");
        plain.counters.constant_time = Some(ConstantTime::default());
        let text = terminal(&record("r", vec![leak, clean, plain, scenario("other")]));
        assert_eq!(
            text,
            "
constant time (memcheck on the bytes each scenario marked secret): 1 of 3 ids BROKEN
  leak/branch: BROKEN, 1 finding; 16 secret bytes marked at benches/ct.rs:56
    secret-dependent branch at benches/ct.rs:27 in ct::branch (body, 16×)
      via ct::branch (benches/ct.rs:27) < ct::main (benches/ct.rs:60)
  clean: constant time (branches and addresses); 16 secret bytes marked at benches/ct.rs:70
  plain: not checked (no secret marked)
"
        );
        assert_eq!(terminal(&record("r", vec![scenario("x")])), "");
    }

    #[test]
    fn accepted_findings_say_so_and_their_id_is_not_constant_time() {
        use costbench_record::instrument::consttime::CtAccepted;
        let mut leak = scenario("leak/table");
        leak.counters.constant_time = Some(ConstantTime {
            secret_marks: 1,
            secret_bytes: 16,
            marked_at: vec!["benches/ct.rs:56".into()],
            findings: vec![CtFinding {
                in_body: false,
                accepted: Some(CtAccepted {
                    entry: "costbench.toml:2".into(),
                    at: "ct::sbox".into(),
                    why: "public key schedule".into(),
                }),
                ..ct_finding(CtKind::Address, ct_frame("ct::sbox", "benches/ct.rs", 34))
            }],
            memcheck_out: String::new(),
        });
        assert_eq!(
            terminal(&record("r", vec![leak])),
            "
constant time (memcheck on the bytes each scenario marked secret): 1 of 1 ids with accepted findings only
  leak/table: 1 accepted finding, not constant time; 16 secret bytes marked at benches/ct.rs:56
    secret-dependent address at benches/ct.rs:34 in ct::sbox (setup, 16×), accepted: public key schedule (costbench.toml:2)
"
        );
    }
}
