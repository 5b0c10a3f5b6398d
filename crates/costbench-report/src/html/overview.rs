//! The overview: one table row per measured id of the shown run, its per-op figures and, with a
//! baseline, the changes (coloured when significant), then what the comparison could not match
//! and the instruments skipped. Renders only: the comparison comes in judged.

use super::escape::escape;
use super::{cell, change_cell};
use costbench_judge::compare::{self, Comparison};
use costbench_record::instrument::Figure;
use costbench_record::model::RunRecord;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The overview section of `run`, with the changes of `cmp` (`rows`: its rows by id and
/// instrument).
pub(super) fn overview(
    page: &mut String,
    run: &RunRecord,
    cmp: Option<&Comparison>,
    rows: &HashMap<(&str, Figure), &compare::Row>,
) {
    page.push_str("<h2 id=\"overview\">Overview</h2>");
    match cmp {
        Some(c) => {
            let _ = write!(
                page,
                "<p>Per-op figures of {}, changes against {}: {}. Significant changes are \
                 coloured (red: costs more, green: costs less); changes the comparison could not \
                 resolve are marked ?, placement effects (same instructions, time moved) ≈, \
                 neither is gated; hover a change for the reason and its evidence.</p>",
                escape(&c.cand.describe()),
                escape(&c.base.describe()),
                escape(&c.summary())
            );
        }
        None => page.push_str(
            "<p class=\"note\">Per-op figures of the run. Give two runs of the same variant \
             (<code>costbench report BASE CAND</code>) to see the changes.</p>",
        ),
    }
    let columns = crate::instrument::overview_columns(run);
    let changes = cmp.is_some();
    page.push_str("<table class=\"sortable\" id=\"overview-table\"><thead><tr><th>scenario</th><th>ops</th><th class=\"text\">op</th>");
    for c in &columns {
        let _ = write!(page, "<th>{}</th>", escape(c.header));
        if let (true, Some((header, _))) = (changes, c.change) {
            let _ = write!(page, "<th>{}</th>", escape(header));
        }
    }
    page.push_str("<th class=\"text\">status</th></tr></thead><tbody>");
    // Rows of a slice's own have no per-op figures: they are in its sections, which the notes
    // under the table point to.
    for (k, r) in run.results.iter().enumerate() {
        if crate::instrument::own_row(r) {
            continue;
        }
        let _ = write!(
            page,
            "<tr><td><a href=\"#s-{k}\">{}</a></td><td data-v=\"{}\">{}</td><td class=\"text\">{}</td>",
            escape(&r.id),
            r.ops,
            r.ops,
            escape(&r.unit),
        );
        for c in &columns {
            page.push_str(&cell((c.value)(r), c.fmt));
            if let (true, Some((_, figure))) = (changes, c.change) {
                page.push_str(&change_cell(rows.get(&(r.id.as_str(), figure))));
            }
        }
        if r.failures.is_empty() {
            page.push_str("<td class=\"text\">ok</td></tr>");
        } else {
            let what: Vec<String> = r
                .failures
                .iter()
                .map(|f| format!("{} {}", f.instrument, f.kind))
                .collect();
            let _ = write!(
                page,
                "<td class=\"text failed\">failed: {}</td></tr>",
                escape(&what.join(", "))
            );
        }
    }
    page.push_str("</tbody></table>");
    page.push_str(&crate::instrument::own_rows_notes(run));
    if let Some(c) = cmp {
        let mut extra = Vec::new();
        if !c.missing_in_cand.is_empty() {
            extra.push(format!(
                "missing in the candidate: {}",
                c.missing_in_cand.join(", ")
            ));
        }
        if !c.new_in_cand.is_empty() {
            extra.push(format!(
                "new in the candidate: {}",
                c.new_in_cand.join(", ")
            ));
        }
        for s in &c.setup_changes {
            extra.push(format!("{} changed setup: {}", s.id, s.changes.join(", ")));
        }
        for e in extra {
            let _ = write!(page, "<p class=\"note\">{}</p>", escape(&e));
        }
    }
    for s in &run.skipped {
        let _ = write!(
            page,
            "<p class=\"note\">skipped instrument {}: {}</p>",
            escape(&s.instrument),
            escape(&s.reason)
        );
    }
}
