//! Hardware counters' slice of the reports: their section of the counters table (every
//! counter per op, with how long a multiplexed one ran, and the IPC), their table in their
//! scenario's section of the HTML page (with the counters the kernel refused) and their name in
//! the page's provenance line.

use super::{Row, Section, Slice};
use crate::html::escape::escape;
use costbench_record::fmt::{fmt_count, fmt_ir, fmt_percent};
use costbench_record::instrument::perf::figure;
use costbench_record::model::ScenarioResult;
use std::fmt::Write as _;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    counters: Some(counters),
    rank: 20,
    tables: Some(tables),
    measured_by: Some("perf_event_open"),
    ..Slice::NONE
};

/// Its section of a group's counters table: one row per counter any column read, in the order
/// they were first read, then the IPC.
fn counters(cols: &[&ScenarioResult]) -> Section {
    let mut names: Vec<&str> = Vec::new();
    for r in cols {
        for c in figure(r).iter().flat_map(|p| &p.counters) {
            if !names.contains(&c.name.as_str()) {
                names.push(&c.name);
            }
        }
    }
    let mut rows: Vec<Row> = names
        .iter()
        .map(|n| {
            let cells = cols
                .iter()
                .map(|r| {
                    let c = figure(r).and_then(|p| p.counters.iter().find(|c| c.name == *n));
                    match c {
                        Some(c) if c.running_fraction < 1.0 => format!(
                            "{} (scaled, ran {:.0}%)",
                            fmt_count(c.per_op),
                            100.0 * c.running_fraction
                        ),
                        Some(c) => fmt_count(c.per_op),
                        None => "-".into(),
                    }
                })
                .collect();
            (n.to_string(), cells)
        })
        .collect();
    rows.push((
        "IPC".into(),
        cols.iter()
            .map(|r| {
                figure(r)
                    .and_then(|p| p.ipc)
                    .map_or("-".into(), |v| format!("{v:.2}"))
            })
            .collect(),
    ));
    ("hardware (perf_event_open, this CPU), per op".into(), rows)
}

/// Its table in a result's section of the HTML page: every counter per op and the share of the
/// run it counted, then the counters the kernel refused.
fn tables(page: &mut String, r: &ScenarioResult) {
    let Some(p) = figure(r) else {
        return;
    };
    page.push_str("<table><thead><tr><th>hardware counter</th><th>per op</th><th>running</th></tr></thead><tbody>");
    for c in &p.counters {
        let _ = write!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&c.name),
            fmt_ir(c.per_op),
            fmt_percent(c.running_fraction)
        );
    }
    page.push_str("</tbody></table>");
    for u in &p.unavailable {
        let _ = write!(page, "<p class=\"note\">{}</p>", escape(u));
    }
}
