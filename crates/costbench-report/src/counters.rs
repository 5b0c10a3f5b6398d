//! The counters tables: the figures of the instruments that count events, calls or bytes, in
//! the style of the per-packet tables of systems papers (rows are counters, columns are the
//! ways of doing one piece of work). This file lays the tables out (groups, columns, which
//! sections show); each section's title and rows are its instrument's slice's
//! (`crate::instrument`, hook `counters`). Their CSV forms belong to the output directory
//! (`crate::output`).
//!
//! Scenarios are grouped by their name up to the last `/` (`index/sum_indirect/checked` and
//! `index/sum_indirect/unchecked` share a table), so that the ways of one piece of work stand
//! side by side.

use crate::instrument;
use crate::table::{Align, TextTable};
use costbench_record::model::{RunRecord, ScenarioResult};
use std::fmt::Write as _;

/// (group, column) of a measured id: `a/b/c` → (`a/b`, `c`); an id without `/` is its own group.
fn split(id: &str) -> (&str, &str) {
    id.rsplit_once('/').unwrap_or((id, id))
}

/// The sections of one group's table, in the slices' order: each one whose cells are not all
/// `-`.
fn sections(cols: &[&ScenarioResult]) -> Vec<instrument::Section> {
    instrument::counters_sections(cols)
        .into_iter()
        .filter(|(_, rows)| rows.iter().any(|(_, cells)| cells.iter().any(|c| c != "-")))
        .collect()
}

/// One table per group of scenarios that has figures some slice's section shows; empty when
/// none has.
pub fn tables(run: &RunRecord) -> String {
    let mut groups: Vec<(&str, Vec<&ScenarioResult>)> = Vec::new();
    for r in run.results.iter().filter(|r| instrument::has_counters(r)) {
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

    #[test]
    fn ways_of_one_work_share_a_table() {
        let run = costbench_record::instrument::memory::testing::groups();
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
