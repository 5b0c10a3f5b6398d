//! The census instrument's slice of the reports: every row the census adds to a view. In a run's
//! views: its `checks/op` column of the terminal table and of the HTML page's overview, the
//! summary after `run`'s terminal table ([`summary`]), its facts on a scenario's section of the
//! HTML page (beside the other figures per op), the section's list of its most executed checks
//! and its name on the provenance line. In a comparison's: the checks that moved in each
//! explained scenario ([`checks`]: terminal, markdown and HTML). And the document of `costbench
//! census`, the static census of a binary as a table or JSON ([`document`]).

mod checks;
pub(crate) mod document;
mod summary;

use super::{Column, Explain, OverviewColumn, Place, Slice};
use crate::html::escape::escape;
use costbench_judge::compare::Comparison;
use costbench_record::fmt::fmt_ir;
use costbench_record::model::ScenarioResult;
use std::fmt::Write as _;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    facts,
    place: Place::Early,
    measured_by: Some("census"),
    // Every result has its figure for the record (a row without checks holds none); the reports
    // show it where it was measured.
    shows: Some(|r| r.census.is_some()),
    run_column: Some(Column {
        header: "checks/op",
        cell: |r| r.census.as_ref().map(|c| fmt_ir(c.checks_per_op)),
        always: false,
    }),
    run_summary: Some(summary::dynamic_summary),
    overview: &[OverviewColumn {
        header: "checks/op",
        value: |r| r.census.as_ref().map(|c| c.checks_per_op),
        fmt: fmt_ir,
        always: false,
        change: None,
    }],
    tables: Some(top_sites),
    explain: Some(Explain {
        terminal: explain_terminal,
        markdown: |out, c| checks::markdown(out, &c.census),
        html: explain_html,
    }),
    ..Slice::NONE
};

/// Its facts on the HTML page: checks per op, and bounds (and the other kinds) apart from
/// overflow, with their sites.
fn facts(r: &ScenarioResult) -> Vec<(&'static str, String)> {
    let Some(c) = &r.census else {
        return Vec::new();
    };
    let (bounds, bs) = c.per_op_where(|k| k != "overflow");
    let (overflow, os) = c.per_op_where(|k| k == "overflow");
    vec![
        ("checks/op", fmt_ir(c.checks_per_op)),
        ("bounds etc./op", format!("{} at {bs} sites", fmt_ir(bounds))),
        ("overflow/op", format!("{} at {os} sites", fmt_ir(overflow))),
    ]
}

/// The most executed checks of a result, in its section of the HTML page.
fn top_sites(page: &mut String, r: &ScenarioResult) {
    let Some(c) = &r.census else {
        return;
    };
    if c.top_sites.is_empty() {
        return;
    }
    page.push_str("<p>Most executed checks:</p><ul class=\"sites\">");
    for s in &c.top_sites {
        let place = match (&s.file, s.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            (Some(f), None) => f.clone(),
            _ => s.address.clone(),
        };
        let _ = write!(
            page,
            "<li>{} per op · {} · <code>{}</code> in <code>{}</code></li>",
            escape(&fmt_ir(s.per_op)),
            escape(&s.kind),
            escape(&place),
            escape(&s.function)
        );
    }
    page.push_str("</ul>");
}

/// The checks that moved in each scenario the comparison explains, as the terminal shows them.
fn explain_terminal(c: &Comparison) -> Vec<(String, String)> {
    c.census
        .iter()
        .map(|d| {
            let mut out = String::new();
            checks::terminal(&mut out, d);
            (d.id.clone(), out)
        })
        .collect()
}

/// The checks that moved in scenario `id`, in its section of the HTML page.
fn explain_html(page: &mut String, c: &Comparison, id: &str) {
    if let Some(d) = c.census.iter().find(|d| d.id == id) {
        checks::html(page, d);
    }
}
