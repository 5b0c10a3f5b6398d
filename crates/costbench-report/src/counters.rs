//! The counters tables: simulated counters, hardware counters and memory figures per op, in
//! the style of the per-packet tables of systems papers (rows are counters, columns are the
//! ways of doing one piece of work). Their CSV forms `counters.csv` and `memory.csv` belong to
//! the output directory (`crate::output`).
//!
//! Scenarios are grouped by their name up to the last `/` (`index/sum_indirect/checked` and
//! `index/sum_indirect/unchecked` share a table), so that the ways of one piece of work stand
//! side by side.

use crate::instrument::{self, Row};
use crate::table::{Align, TextTable};
use costbench_record::fmt::fmt_count;
use costbench_record::model::CACHE_ROWS;
use costbench_record::model::{RunRecord, ScenarioResult};
use std::fmt::Write as _;

/// (group, column) of a measured id: `a/b/c` → (`a/b`, `c`); an id without `/` is its own group.
fn split(id: &str) -> (&str, &str) {
    id.rsplit_once('/').unwrap_or((id, id))
}

fn has_counters(r: &ScenarioResult) -> bool {
    let c = &r.counters;
    c.cache.is_some() || c.perf.is_some() || c.memory.is_some() || instrument::has_counters(r)
}

fn section(title: String, rows: Vec<Row>, out: &mut Vec<(String, Vec<Row>)>) {
    if rows.iter().any(|(_, cells)| cells.iter().any(|c| c != "-")) {
        out.push((title, rows));
    }
}

fn per_op_cell(v: Option<f64>) -> String {
    v.map_or("-".into(), fmt_count)
}

/// The sections of one group's table.
fn sections(cols: &[&ScenarioResult]) -> Vec<(String, Vec<Row>)> {
    let mut out = Vec::new();
    let rows = CACHE_ROWS
        .iter()
        .map(|(key, label)| {
            let cells = cols
                .iter()
                .map(|r| per_op_cell(r.counters.cache.as_ref().map(|c| c.per_op[*key])))
                .collect();
            (label.to_string(), cells)
        })
        .collect();
    section(
        "simulated (valgrind's cache and branch model, not this CPU's), per op".into(),
        rows,
        &mut out,
    );

    let mut names: Vec<&str> = Vec::new();
    for r in cols {
        for c in r.counters.perf.iter().flat_map(|p| &p.counters) {
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
                    let c = r
                        .counters
                        .perf
                        .as_ref()
                        .and_then(|p| p.counters.iter().find(|c| c.name == *n));
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
                r.counters
                    .perf
                    .as_ref()
                    .and_then(|p| p.ipc)
                    .map_or("-".into(), |v| format!("{v:.2}"))
            })
            .collect(),
    ));
    section(
        "hardware (perf_event_open, this CPU), per op".into(),
        rows,
        &mut out,
    );

    let alloc = |f: fn(&costbench_record::model::Allocations) -> String| -> Vec<String> {
        cols.iter()
            .map(|r| match &r.counters.memory {
                Some(m) => m.allocations.as_ref().map_or("not counted".into(), f),
                None => "-".into(),
            })
            .collect()
    };
    let rows = vec![
        ("allocations".into(), alloc(|a| fmt_count(a.allocs_per_op))),
        (
            "deallocations".into(),
            alloc(|a| fmt_count(a.deallocs_per_op)),
        ),
        (
            "reallocations".into(),
            alloc(|a| fmt_count(a.reallocs_per_op)),
        ),
        (
            "bytes allocated".into(),
            alloc(|a| fmt_count(a.bytes_allocated_per_op)),
        ),
        (
            "peak live bytes (run)".into(),
            alloc(|a| a.peak_live_bytes.to_string()),
        ),
        (
            "max RSS KiB (process)".into(),
            cols.iter()
                .map(|r| {
                    r.counters
                        .memory
                        .as_ref()
                        .map_or("-".into(), |m| m.max_rss_kib.to_string())
                })
                .collect(),
        ),
    ];
    section("memory (counting allocator), per op".into(), rows, &mut out);

    // The sections of the instruments whose slices hold them (`crate::instrument`).
    for (title, rows) in instrument::counters_sections(cols) {
        section(title, rows, &mut out);
    }
    out
}

/// One table per group of scenarios that has counter or memory figures; empty when none has.
pub fn tables(run: &RunRecord) -> String {
    let mut groups: Vec<(&str, Vec<&ScenarioResult>)> = Vec::new();
    for r in run.results.iter().filter(|r| has_counters(r)) {
        let g = split(&r.id).0;
        match groups.iter_mut().find(|(name, _)| *name == g) {
            Some((_, v)) => v.push(r),
            None => groups.push((g, vec![r])),
        }
    }
    let mut out = String::new();
    for (group, cols) in groups {
        let headers: Vec<String> = cols.iter().map(|r| split(&r.id).1.to_string()).collect();
        let units: Vec<String> = cols.iter().map(|r| r.unit.clone()).collect();
        let sections = sections(&cols);
        // Counter names left-aligned, one right-aligned column of figures per way of the work.
        let mut t = TextTable::new(
            std::iter::once(String::new()).chain(headers),
            &[Align::Left],
        )
        .indent("  ");
        t.row(std::iter::once("op =".to_string()).chain(units));
        for (title, rows) in sections {
            t.text(title);
            for (label, cells) in rows {
                t.row(std::iter::once(label).chain(cells));
            }
        }
        let _ = writeln!(out, "\n{group}");
        out.push_str(&t.render());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::testing;

    #[test]
    fn ways_of_one_work_share_a_table() {
        let run = testing::memory_groups();
        let t = tables(&run);
        costbench_record::testing::assert_snapshot!("counters_groups", &t);
        assert!(t.contains("\nalloc/wc\n"), "{t}");
        assert!(!t.contains("other"), "{t}");
        let header = t.lines().nth(2).unwrap();
        assert!(
            header.contains("owned") && header.contains("borrowed"),
            "{t}"
        );
        let allocs = t.lines().find(|l| l.contains("allocations")).unwrap();
        assert!(
            allocs.contains("2.000") && allocs.contains("not counted"),
            "{t}"
        );
        // No simulated or hardware section without those figures.
        assert!(!t.contains("simulated") && !t.contains("hardware"), "{t}");
    }
}
