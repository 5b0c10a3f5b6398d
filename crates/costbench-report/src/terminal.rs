//! The terminal table printed after a run: one row per measured id, per-op figures; the rows an
//! instrument's slice shows itself follow in its section (`crate::instrument`, `own_rows`).

use crate::table::{Align, TextTable};
use costbench_record::model::RunRecord;
use std::fmt::Write as _;

/// The results table, followed by the slices' sections of their own rows (which have no per-op
/// figures: service scenarios under load), the counters tables, what the slices say of the
/// whole run (`run_facts`), the skipped instruments, the slices' notes (`run_notes`) and
/// failures with their stderr tails. The instruments' slices add their columns after the
/// unit (a column appears when it always does or any result has a cell in it), and the last
/// one, where a failed result shows `FAILED`.
pub fn table(run: &RunRecord) -> String {
    let columns = crate::instrument::run_columns(run);
    let last = crate::instrument::run_last();
    let rows: Vec<Vec<String>> = run
        .results
        .iter()
        .filter(|r| !crate::instrument::own_row(r))
        .map(|r| {
            let mut row = vec![r.id.clone(), r.ops.to_string(), r.unit.clone()];
            for c in &columns {
                row.push((c.cell)(r).unwrap_or_else(|| "-".into()));
            }
            if let Some(c) = last {
                row.push(if r.failures.is_empty() {
                    (c.cell)(r).unwrap_or_else(|| "-".into())
                } else {
                    "FAILED".into()
                });
            }
            row
        })
        .collect();
    let mut header = vec!["scenario", "ops", "unit"];
    header.extend(columns.iter().map(|c| c.header));
    header.extend(last.map(|c| c.header));
    // Names and units read left-aligned; numbers right-aligned; the last column ragged.
    let mut align = vec![Align::Left, Align::Right, Align::Left];
    align.extend(columns.iter().map(|_| Align::Right));
    align.extend(last.map(|_| Align::Left));
    let mut t = TextTable::new(header, &align);
    for row in rows {
        t.row(row);
    }
    let mut out = t.render();
    out.push_str(&crate::instrument::own_rows_terminal(run));
    out.push_str(&crate::counters::tables(run));
    // What the slices say of the whole run (what its figures include).
    out.push_str(&crate::instrument::run_facts(run));
    for s in &run.skipped {
        let _ = writeln!(out, "\n{} skipped: {}", s.instrument, s.reason);
    }
    // The notes of the slices (why a figure is missing, and what to do), once for the run.
    out.push_str(&crate::instrument::run_notes(run));
    for r in run.failed() {
        for f in &r.failures {
            let _ = writeln!(
                out,
                "\nFAILED {} ({}, {}): {}",
                r.id, f.instrument, f.kind, f.message
            );
            for l in f.stderr_tail.lines() {
                let _ = writeln!(out, "  | {l}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_table_snapshot() {
        use costbench_record::testing::{
            assert_snapshot, every_figure, record, scenario, with_icount,
        };
        assert_snapshot!("run_table", &table(&every_figure()));
        // Without the slices' columns, counters, residual or failures.
        let plain = record("plain", vec![with_icount(scenario("a/b"), 42.0)]);
        assert_snapshot!("run_table_plain", &table(&plain));
    }
}
