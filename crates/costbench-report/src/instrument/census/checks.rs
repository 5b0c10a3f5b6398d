//! The census diff of a flagged scenario as the terminal, markdown and HTML reports show it:
//! the bounds and overflow checks that appeared or disappeared between the two sides, and those
//! that ran a different number of times per op, each with its source line and executions per
//! op. Pure: text from a [`CensusDiff`].

use crate::escape::clean;
use crate::escape::{escape_cell, truncate};
use crate::html::escape::escape;
use costbench_judge::instrument::census::{CensusDiff, CheckDelta};
use costbench_record::fmt::{fmt_count, fmt_delta};
use std::fmt::Write as _;

/// Rows of one diff: (what happened, the check).
pub(crate) fn rows(d: &CensusDiff) -> impl Iterator<Item = (&'static str, &CheckDelta)> {
    d.appeared
        .iter()
        .map(|c| ("appeared", c))
        .chain(d.disappeared.iter().map(|c| ("disappeared", c)))
        .chain(d.changed.iter().map(|c| ("changed", c)))
}

/// "+1 check, +1,000 checks per op" or "no check appeared, disappeared or changed".
pub(crate) fn summary(d: &CensusDiff) -> String {
    if d.is_empty() {
        return "no check appeared, disappeared or ran a different number of times".into();
    }
    let sites = d.appeared.len() as i64 - d.disappeared.len() as i64;
    let mut parts = Vec::new();
    if sites != 0 {
        parts.push(format!(
            "{sites:+} check{}",
            if sites.abs() == 1 { "" } else { "s" }
        ));
    }
    parts.push(format!(
        "{} executed checks per op",
        fmt_delta(d.change_per_op())
    ));
    parts.join(", ")
}

pub(crate) fn where_(c: &CheckDelta) -> String {
    match &c.via {
        Some(via) => format!("{} via {via}", c.location()),
        None => c.location(),
    }
}

/// The terminal's section for one scenario.
pub(crate) fn terminal(out: &mut String, d: &CensusDiff) {
    let _ = writeln!(
        out,
        "\nchecks (census) that moved in {}: {}",
        clean(&d.id),
        d.unavailable
            .as_deref()
            .map_or_else(|| summary(d), |why| format!("not available: {why}"))
    );
    for (what, c) in rows(d) {
        let _ = writeln!(
            out,
            "  {what:<11} {:<12} {} → {} per op  {}  in {}",
            c.kind,
            fmt_count(c.base_per_op),
            fmt_count(c.cand_per_op),
            clean(&where_(c)),
            clean(&truncate(&c.function, 120))
        );
    }
}

/// The markdown report's section: one folded table per scenario.
pub(crate) fn markdown(out: &mut String, all: &[CensusDiff]) {
    if all.is_empty() {
        return;
    }
    out.push_str("\n### Checks that moved (census, executions per op)\n");
    for d in all {
        let _ = writeln!(
            out,
            "\n<details><summary>{}: {}</summary>\n",
            escape_cell(&d.id),
            escape_cell(&d.unavailable.as_deref().map_or_else(
                || summary(d),
                |why| format!("not available: {}", truncate(why, 200))
            ))
        );
        if !d.is_empty() {
            out.push_str(
                "| check | kind | line | executions per op | function |\n|:--|:--|:--|--:|:--|\n",
            );
        }
        for (what, c) in rows(d) {
            let _ = writeln!(
                out,
                "| {what} | {} | {} | {} → {} | {} |",
                escape_cell(&c.kind),
                escape_cell(&where_(c)),
                fmt_count(c.base_per_op),
                fmt_count(c.cand_per_op),
                escape_cell(&truncate(&c.function, 120))
            );
        }
        out.push_str("\n</details>\n");
    }
}

/// The HTML page's section for one scenario.
pub(crate) fn html(page: &mut String, d: &CensusDiff) {
    let _ = write!(
        page,
        "<p>Checks (census) that moved: {}</p>",
        escape(&d.unavailable.as_deref().map_or_else(
            || summary(d),
            |why| format!("not available: {why}")
        ))
    );
    if d.is_empty() {
        return;
    }
    page.push_str(
        "<table class=\"sortable checks\"><thead><tr><th>check</th><th>kind</th><th>line</th>\
         <th>per op (baseline)</th><th>per op (candidate)</th><th>function</th></tr></thead><tbody>",
    );
    for (what, c) in rows(d) {
        let _ = write!(
            page,
            "<tr><td>{what}</td><td>{}</td><td><code>{}</code></td><td data-v=\"{}\">{}</td>\
             <td data-v=\"{}\">{}</td><td><code>{}</code></td></tr>",
            escape(&c.kind),
            escape(&where_(c)),
            c.base_per_op,
            escape(&fmt_count(c.base_per_op)),
            c.cand_per_op,
            escape(&fmt_count(c.cand_per_op)),
            escape(&c.function)
        );
    }
    page.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: u32, base: f64, cand: f64) -> CheckDelta {
        CheckDelta {
            kind: "slice-index".into(),
            function: "suite::sum<T>".into(),
            file: Some("src/lib.rs".into()),
            line: Some(line),
            via: None,
            base_per_op: base,
            cand_per_op: cand,
        }
    }

    #[test]
    fn an_added_check_reads_with_its_line_and_count() {
        let d = CensusDiff {
            id: "index/sum".into(),
            appeared: vec![check(42, 0.0, 1000.0)],
            disappeared: vec![],
            changed: vec![],
            unavailable: None,
        };
        assert_eq!(summary(&d), "+1 check, +1000 executed checks per op");
        let mut out = String::new();
        terminal(&mut out, &d);
        assert_eq!(
            out,
            "\nchecks (census) that moved in index/sum: +1 check, +1000 executed checks per op\n  \
             appeared    slice-index  0 → 1000 per op  src/lib.rs:42  in suite::sum<T>\n"
        );
        let mut md = String::new();
        markdown(&mut md, std::slice::from_ref(&d));
        assert!(
            md.contains(
                "| appeared | slice-index | src/lib.rs:42 | 0 → 1000 | suite::sum&lt;T&gt; |"
            ),
            "{md}"
        );
        let mut page = String::new();
        html(&mut page, &d);
        assert!(page.contains("<code>suite::sum&lt;T&gt;</code>"), "{page}");
        let none = CensusDiff {
            appeared: vec![],
            ..d
        };
        assert!(summary(&none).starts_with("no check"));
    }
}
