//! The counters tables: simulated counters, hardware counters and memory figures per op, in
//! the style of the per-packet tables of systems papers (rows are counters, columns are the
//! ways of doing one piece of work), and their CSV forms `counters.csv` and `memory.csv`.
//!
//! Scenarios are grouped by their name up to the last `/` (`index/sum_indirect/checked` and
//! `index/sum_indirect/unchecked` share a table), so that the ways of one piece of work stand
//! side by side.

use crate::fmt::fmt_count;
use crate::measure::cache;
use crate::model::{RunRecord, ScenarioResult};
use crate::report::table::{Align, TextTable};
use std::fmt::Write as _;

/// (group, column) of a measured id: `a/b/c` → (`a/b`, `c`); an id without `/` is its own group.
fn split(id: &str) -> (&str, &str) {
    id.rsplit_once('/').unwrap_or((id, id))
}

fn has_counters(r: &ScenarioResult) -> bool {
    let c = &r.counters;
    c.cache.is_some() || c.perf.is_some() || c.memory.is_some() || c.dhat.is_some()
}

/// One table row: label, then one cell per column.
type Row = (String, Vec<String>);

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
    let rows = cache::ROWS
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

    let alloc = |f: fn(&crate::model::Allocations) -> String| -> Vec<String> {
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

    let dhat = |f: fn(&crate::model::Dhat) -> u64| -> Vec<String> {
        cols.iter()
            .map(|r| {
                r.counters
                    .dhat
                    .as_ref()
                    .map_or("-".into(), |d| f(d).to_string())
            })
            .collect()
    };
    let rows = vec![
        ("total bytes".into(), dhat(|d| d.total_bytes)),
        ("total blocks".into(), dhat(|d| d.total_blocks)),
        ("peak bytes".into(), dhat(|d| d.peak_bytes)),
        ("peak blocks".into(), dhat(|d| d.peak_blocks)),
    ];
    section(
        "DHAT (whole process, setup included), per run".into(),
        rows,
        &mut out,
    );
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

/// `counters.csv`: `name,source,counter,total,per_op`, where source is `simulated` (callgrind's
/// model) or `hardware` (perf_event_open; total scaled for multiplexing).
pub fn counters_csv(run: &RunRecord) -> String {
    let mut s = String::from("name,source,counter,total,per_op\n");
    for r in &run.results {
        if let Some(c) = &r.counters.cache {
            for (k, v) in &c.totals {
                let _ = writeln!(s, "{},simulated,{k},{v},{}", r.id, c.per_op[k]);
            }
        }
        if let Some(p) = &r.counters.perf {
            for c in &p.counters {
                let _ = writeln!(s, "{},hardware,{},{},{}", r.id, c.name, c.scaled, c.per_op);
            }
            if let Some(ipc) = p.ipc {
                let _ = writeln!(s, "{},hardware,ipc,{ipc},{ipc}", r.id);
            }
        }
    }
    s
}

/// `memory.csv`: one line per measured id with allocation counts per op, the body's peak live
/// bytes, the process's max RSS and DHAT's whole-process totals (empty cells when not measured).
pub fn memory_csv(run: &RunRecord) -> String {
    let mut s = String::from(
        "name,allocator,allocs_per_op,deallocs_per_op,reallocs_per_op,bytes_allocated_per_op,\
         peak_live_bytes,max_rss_kib,dhat_total_bytes,dhat_total_blocks,dhat_peak_bytes,\
         dhat_peak_blocks\n",
    );
    for r in &run.results {
        let (m, d) = (&r.counters.memory, &r.counters.dhat);
        if m.is_none() && d.is_none() {
            continue;
        }
        let a = m.as_ref().and_then(|m| m.allocations.as_ref());
        let opt = |v: Option<String>| v.unwrap_or_default();
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            r.id,
            opt(m.as_ref().map(|m| m.allocator.clone())),
            opt(a.map(|a| a.allocs_per_op.to_string())),
            opt(a.map(|a| a.deallocs_per_op.to_string())),
            opt(a.map(|a| a.reallocs_per_op.to_string())),
            opt(a.map(|a| a.bytes_allocated_per_op.to_string())),
            opt(a.map(|a| a.peak_live_bytes.to_string())),
            opt(m.as_ref().map(|m| m.max_rss_kib.to_string())),
            opt(d.as_ref().map(|d| d.total_bytes.to_string())),
            opt(d.as_ref().map(|d| d.total_blocks.to_string())),
            opt(d.as_ref().map(|d| d.peak_bytes.to_string())),
            opt(d.as_ref().map(|d| d.peak_blocks.to_string())),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::testing;
    use crate::model::{Allocations, Memory};

    fn with_memory(id: &str, allocs: u64) -> ScenarioResult {
        let mut r = testing::with_ops(testing::scenario(id), 10, "words");
        r.counters.memory = Some(Memory {
            allocator: "system".into(),
            allocations: Some(Allocations {
                allocs,
                deallocs: 0,
                reallocs: 0,
                bytes_allocated: allocs * 8,
                peak_live_bytes: allocs * 8,
                allocs_per_op: allocs as f64 / 10.0,
                deallocs_per_op: 0.0,
                reallocs_per_op: 0.0,
                bytes_allocated_per_op: allocs as f64 * 0.8,
            }),
            not_counted: None,
            max_rss_kib: 2000,
        });
        r
    }

    #[test]
    fn ways_of_one_work_share_a_table() {
        let mut run = testing::record(
            "r",
            vec![
                with_memory("alloc/wc/owned", 20),
                with_memory("alloc/wc/borrowed", 0),
                testing::scenario("other/plain"),
            ],
        );
        run.results[1].counters.memory.as_mut().unwrap().allocations = None;
        let t = tables(&run);
        crate::compare::testing::assert_snapshot("counters_groups", &t);
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
        let csv = memory_csv(&run);
        assert_eq!(csv.lines().count(), 3, "{csv}");
        assert!(
            csv.contains("\nalloc/wc/owned,system,2,0,0,16,160,2000,,,,\n"),
            "{csv}"
        );
        assert!(
            csv.contains("\nalloc/wc/borrowed,system,,,,,,2000,,,,\n"),
            "{csv}"
        );
    }
}
