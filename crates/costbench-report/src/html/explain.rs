//! The HTML page's sections that explain a flagged scenario's change: the census diff (checks
//! that appeared, disappeared or ran a different number of times) and the machine-code diffs of
//! its top movers, whole functions with changed lines marked. The text of each line is the
//! terminal's and markdown's (`crate::checks`, `crate::asm`).

use super::escape::escape;
use costbench_judge::compare::asm::{AsmDiff, Edit};
use costbench_judge::compare::census::CensusDiff;
use costbench_record::fmt::fmt_count;
use std::fmt::Write as _;

/// The HTML page's section for one scenario.
pub(crate) fn checks(page: &mut String, d: &CensusDiff) {
    let _ = write!(
        page,
        "<p>Checks (census) that moved: {}</p>",
        escape(&d.unavailable.as_deref().map_or_else(
            || crate::checks::summary(d),
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
    for (what, c) in crate::checks::rows(d) {
        let _ = write!(
            page,
            "<tr><td>{what}</td><td>{}</td><td><code>{}</code></td><td data-v=\"{}\">{}</td>\
             <td data-v=\"{}\">{}</td><td><code>{}</code></td></tr>",
            escape(&c.kind),
            escape(&crate::checks::where_(c)),
            c.base_per_op,
            escape(&fmt_count(c.base_per_op)),
            c.cand_per_op,
            escape(&fmt_count(c.cand_per_op)),
            escape(&c.function)
        );
    }
    page.push_str("</tbody></table>");
}

/// The HTML page's section for one diff: the whole function, changed lines marked.
pub(crate) fn asm(page: &mut String, d: &AsmDiff) {
    let _ = write!(
        page,
        "<details class=\"asm\"><summary>machine code of <code>{}</code>: {}</summary><pre class=\"asm\">",
        escape(&d.function),
        escape(&crate::asm::summary(d))
    );
    for l in &d.lines {
        let class = match l.edit {
            Edit::Added => "add",
            Edit::Removed => "del",
            Edit::Same if l.ran_differently() => "ran",
            Edit::Same => "same",
        };
        let _ = writeln!(
            page,
            "<span class=\"{class}\">{}</span>",
            escape(&crate::asm::line_text(l))
        );
    }
    page.push_str("</pre></details>");
}
