//! The advice of `costbench advise` as text: a table for people (a summary line per candidate,
//! best first, then each candidate's effect on every scenario, its prices and its diff) and
//! markdown for a pull-request comment (the summary as a table, each candidate in a
//! `<details>` block). The JSON is the judge's [`Advice`] serialised.

use crate::escape::{clean, escape_cell};
use costbench_judge::advice::{Advice, Candidate, Change, Effect, Price, Verdict};
use costbench_record::fmt::{fmt_change, fmt_ci, fmt_ns, fmt_whole};
use costbench_record::instrument::Figure;

/// A per-op figure with its unit.
fn value(figure: Figure, v: f64) -> String {
    match figure.spec().unit {
        Some(unit) => format!("{} {unit}", fmt_whole(v)),
        None => fmt_ns(v),
    }
}

/// The order candidates are summarised in: what pays first, what was not measured last.
fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::WorthIt => 0,
        Verdict::Mixed => 1,
        Verdict::CostsMore => 2,
        Verdict::NoMeasurableEffect => 3,
        Verdict::NoRewrite => 4,
        Verdict::BuildFailed => 5,
        Verdict::TestsFailed => 6,
        Verdict::NotMeasured => 7,
    }
}

fn ranked(a: &Advice) -> Vec<&Candidate> {
    let mut c: Vec<&Candidate> = a.candidates.iter().collect();
    c.sort_by_key(|c| rank(c.verdict));
    c
}

/// What a candidate changes, in a few words.
fn what(c: &Candidate) -> String {
    match &c.change {
        Change::Build {
            settings,
            safety_check,
            ..
        } => {
            if *safety_check {
                format!("build: {settings} (the price of the check)")
            } else {
                format!("build: {settings}")
            }
        }
        Change::Source {
            rule, file, line, ..
        } => format!("{rule} at {file}:{line}"),
    }
}

/// The scenarios that execute the code a candidate changes, with that code's share of each.
fn executed_by(c: &Candidate) -> String {
    c.executed_by
        .iter()
        .map(|e| format!("{} ({:.1} % of its instructions)", e.id, e.percent))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The effect with the largest significant change, else the largest change: the one number
/// a summary line shows.
fn headline(c: &Candidate) -> Option<&Effect> {
    let size = |e: &&Effect| e.change_pct.abs();
    c.effects
        .iter()
        .filter(|e| e.verdict.is_significant())
        .max_by(|a, b| size(a).total_cmp(&size(b)))
        .or_else(|| c.effects.iter().max_by(|a, b| size(a).total_cmp(&size(b))))
}

fn effect_line(e: &Effect) -> String {
    let mut s = format!(
        "{} {} {} -> {} ({}), {}",
        clean(&e.id),
        e.figure.name(),
        value(e.figure, e.base),
        value(e.figure, e.cand),
        fmt_change(e.change_pct),
        e.verdict.name()
    );
    if let Some(ci) = &e.ci {
        s += &format!(", ratio {}", fmt_ci(ci.low, ci.high));
    }
    if !e.reason.is_empty() {
        s += &format!(": {}", clean(&e.reason));
    }
    s
}

fn prices(c: &Candidate) -> Vec<String> {
    let pct = |p: &Price| fmt_change(100.0 * (p.cand - p.base) / p.base);
    let mut out = Vec::new();
    if let Some(p) = &c.binary_bytes {
        out.push(format!(
            "binary {} -> {} bytes ({})",
            fmt_whole(p.base),
            fmt_whole(p.cand),
            pct(p)
        ));
    }
    if let Some(p) = &c.build_seconds {
        out.push(format!(
            "build {:.1} s (unchanged code: {:.1} s)",
            p.cand, p.base
        ));
    }
    out
}

/// The header both formats start with.
fn scope(a: &Advice) -> String {
    let mut s = format!("package {}", a.package);
    if a.measured && !a.scenarios.is_empty() {
        s += &format!(
            ", {} scenario{}, {}",
            a.scenarios.len(),
            if a.scenarios.len() == 1 { "" } else { "s" },
            a.instruments.join(",")
        );
    }
    s
}

/// The advice as a table for people.
pub fn table(a: &Advice) -> String {
    let mut s = format!("costbench advise: {}\n", scope(a));
    if a.candidates.is_empty() {
        s += "No candidate change found.\n";
    } else if a.measured {
        s += &format!(
            "{} candidate{}, each measured alone against the unchanged code:\n\n",
            a.candidates.len(),
            if a.candidates.len() == 1 { "" } else { "s" }
        );
    } else {
        s += &format!(
            "{} candidate{} found (not measured: --list):\n\n",
            a.candidates.len(),
            if a.candidates.len() == 1 { "" } else { "s" }
        );
    }
    for c in ranked(a) {
        let head = headline(c)
            .map(|e| {
                format!(
                    "  {} {} {}",
                    clean(&e.id),
                    e.figure.name(),
                    fmt_change(e.change_pct)
                )
            })
            .unwrap_or_default();
        s += &format!(
            "{:<4} {:<21} {}{head}\n",
            c.id,
            c.verdict.words(),
            clean(&what(c))
        );
    }
    for c in &a.candidates {
        s += &format!("\n{} {}: {}\n", c.id, c.verdict.words(), clean(&what(c)));
        if let Change::Source { message, .. } = &c.change {
            s += &format!("    {}\n", clean(message));
        }
        if !c.reason.is_empty() {
            s += &format!("    {}\n", clean(&c.reason));
        }
        if !c.executed_by.is_empty() {
            s += &format!("    executed by: {}\n", clean(&executed_by(c)));
        }
        for e in &c.effects {
            s += &format!("    {}\n", effect_line(e));
        }
        for p in prices(c) {
            s += &format!("    {p}\n");
        }
        if let Some(err) = &c.error {
            for l in err.lines().take(20) {
                s += &format!("    | {}\n", clean(l));
            }
        }
        if let Change::Source { diff, .. } = &c.change {
            for l in diff.lines() {
                s += &format!("    {}\n", clean(l));
            }
        }
    }
    for n in &a.notes {
        s += &format!("\nnote: {}\n", clean(n));
    }
    s
}

/// The advice as GitHub-flavoured markdown, for a pull-request comment.
pub fn markdown(a: &Advice) -> String {
    let mut s = format!("## costbench advise: {}\n\n", escape_cell(&scope(a)));
    if a.candidates.is_empty() {
        s += "No candidate change found.\n";
        return s;
    }
    if a.measured {
        s += "Each candidate was measured alone against the unchanged code; a change is \
               counted only where it is significant.\n\n";
    } else {
        s += "Candidates found, not measured (`--list`).\n\n";
    }
    s += "| id | change | verdict | largest effect |\n|---|---|---|---|\n";
    for c in ranked(a) {
        let head = headline(c)
            .map(|e| {
                format!(
                    "{} {} {}",
                    escape_cell(&e.id),
                    e.figure.name(),
                    fmt_change(e.change_pct)
                )
            })
            .unwrap_or_default();
        s += &format!(
            "| {} | {} | **{}** | {head} |\n",
            c.id,
            escape_cell(&what(c)),
            c.verdict.words()
        );
    }
    for c in &a.candidates {
        s += &format!(
            "\n<details><summary>{} {}: {}</summary>\n\n",
            c.id,
            c.verdict.words(),
            escape_cell(&what(c))
        );
        if let Change::Source { message, .. } = &c.change {
            s += &format!("{}\n\n", escape_cell(message));
        }
        if !c.reason.is_empty() {
            s += &format!("{}\n\n", escape_cell(&c.reason));
        }
        if !c.executed_by.is_empty() {
            s += &format!("Executed by: {}\n\n", escape_cell(&executed_by(c)));
        }
        if !c.effects.is_empty() {
            s += "| scenario | figure | unchanged | candidate | change | verdict |\n\
                  |---|---|---:|---:|---:|---|\n";
            for e in &c.effects {
                let ci =
                    e.ci.map(|ci| format!(" {}", fmt_ci(ci.low, ci.high)))
                        .unwrap_or_default();
                s += &format!(
                    "| {} | {} | {} | {} | {}{ci} | {} |\n",
                    escape_cell(&e.id),
                    e.figure.name(),
                    value(e.figure, e.base),
                    value(e.figure, e.cand),
                    fmt_change(e.change_pct),
                    e.verdict.name()
                );
            }
            s.push('\n');
        }
        for p in prices(c) {
            s += &format!("- {p}\n");
        }
        if let Some(err) = &c.error {
            s += &format!("\n```\n{}\n```\n", err.replace("```", "'''"));
        }
        if let Change::Source { diff, .. } = &c.change {
            s += &format!("\n```diff\n{}```\n", diff.replace("```", "'''"));
        }
        s += "\n</details>\n";
    }
    for n in &a.notes {
        s += &format!("\n> {}\n", escape_cell(n));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::compare::Verdict as V;

    fn advice() -> Advice {
        let mut a = Advice::new("demo", true);
        a.instruments = vec!["icount".into()];
        a.scenarios = vec!["token/hot".into()];
        let effect = |cand: f64, verdict| Effect {
            id: "token/hot".into(),
            figure: Figure::Icount,
            unit: "calls".into(),
            base: 4020.0,
            cand,
            change_pct: 100.0 * (cand - 4020.0) / 4020.0,
            ci: None,
            verdict,
            reason: String::new(),
        };
        a.candidates = vec![
            Candidate {
                id: "c2".into(),
                change: Change::Source {
                    rule: "clippy::to_string_in_format_args".into(),
                    message: "`to_string` applied to a type that implements `Display`".into(),
                    file: "src/lib.rs".into(),
                    line: 9,
                    diff: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -9,1 +9,1 @@\n-a\n+b\n".into(),
                },
                verdict: Verdict::NoMeasurableEffect,
                reason: "none of 1 changed significantly".into(),
                effects: vec![effect(4020.0, V::Unchanged)],
                executed_by: Vec::new(),
                binary_bytes: None,
                build_seconds: Some(Price {
                    base: 40.0,
                    cand: 4.5,
                }),
                error: None,
            },
            Candidate {
                id: "c1".into(),
                change: Change::Source {
                    rule: "clippy::redundant_clone".into(),
                    message: "redundant clone".into(),
                    file: "src/lib.rs".into(),
                    line: 4,
                    diff: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -4,1 +4,1 @@\n-x.clone()\n+x\n"
                        .into(),
                },
                verdict: Verdict::WorthIt,
                reason: "1 of 1 significantly better".into(),
                effects: vec![effect(2019.0, V::Improvement)],
                executed_by: Vec::new(),
                binary_bytes: Some(Price {
                    base: 1000.0,
                    cand: 990.0,
                }),
                build_seconds: None,
                error: None,
            },
        ];
        a
    }

    /// What pays comes first in the summary; every candidate shows its figures and its diff.
    #[test]
    fn table_and_markdown_rank_and_show_every_candidate() {
        let t = table(&advice());
        let c1 = t.find("c1   worth it").expect(&t);
        let c2 = t.find("c2   no measurable effect").expect(&t);
        assert!(c1 < c2, "{t}");
        assert!(
            t.contains("token/hot icount 4,020 Ir -> 2,019 Ir (-49.78 %), improvement"),
            "{t}"
        );
        assert!(t.contains("binary 1,000 -> 990 bytes (-1.00 %)"), "{t}");
        assert!(t.contains("    +x\n"), "{t}");
        let m = markdown(&advice());
        assert!(
            m.contains("| c1 | clippy::redundant\\_clone at src/lib.rs:4 | **worth it** |"),
            "{m}"
        );
        assert!(m.contains("```diff\n--- a/src/lib.rs"), "{m}");
        assert!(
            m.contains("| token/hot | icount | 4,020 Ir | 2,019 Ir | -49.78 % | improvement |"),
            "{m}"
        );
    }
}
