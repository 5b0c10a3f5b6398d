//! The memory instrument's slice of the reports: its section of the counters table (the
//! counting allocator's calls and bytes per op, the body's peak live bytes and the process's
//! max RSS), its columns of the HTML overview, its facts in its scenario's section of the page,
//! its name in the page's provenance line, and the note under a run's terminal table saying
//! once why allocations were not counted (issue 29).

use super::{OverviewColumn, Section, Slice};
use costbench_record::fmt::{fmt_count, fmt_ir};
use costbench_record::instrument::memory::{allocations, figure, Allocations};
use costbench_record::model::{RunRecord, ScenarioResult};
use std::fmt::Write as _;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    counters: Some(counters),
    rank: 30,
    overview: &[
        OverviewColumn {
            header: "bytes alloc/op",
            value: |r| Some(allocations(r)?.bytes_allocated_per_op),
            fmt: fmt_ir,
            always: false,
            change: None,
        },
        OverviewColumn {
            header: "allocs/op",
            value: |r| Some(allocations(r)?.allocs_per_op),
            fmt: fmt_ir,
            always: false,
            change: None,
        },
        OverviewColumn {
            header: "max RSS KiB",
            value: |r| Some(figure(r)?.max_rss_kib as f64),
            fmt: |v| format!("{v:.0}"),
            always: false,
            change: None,
        },
    ],
    facts,
    measured_by: Some("counting allocator"),
    run_notes: Some(run_notes),
    ..Slice::NONE
};

/// Its section of a group's counters table: "not counted" where the binary did not count
/// allocations, the max RSS all the same.
fn counters(cols: &[&ScenarioResult]) -> Section {
    let alloc = |f: fn(&Allocations) -> String| -> Vec<String> {
        cols.iter()
            .map(|r| match figure(r) {
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
                .map(|r| figure(r).map_or("-".into(), |m| m.max_rss_kib.to_string()))
                .collect(),
        ),
    ];
    ("memory (counting allocator), per op".into(), rows)
}

/// Its facts on the HTML page: the allocator, the allocation counts or why there are none, and
/// the max RSS.
fn facts(r: &ScenarioResult) -> Vec<(&'static str, String)> {
    let Some(m) = figure(r) else {
        return Vec::new();
    };
    let mut facts = vec![("allocator", m.allocator.clone())];
    match &m.allocations {
        Some(a) => {
            facts.push(("allocs/op", fmt_ir(a.allocs_per_op)));
            facts.push(("bytes allocated/op", fmt_ir(a.bytes_allocated_per_op)));
            facts.push(("peak live bytes", a.peak_live_bytes.to_string()));
        }
        None => facts.push((
            "allocations",
            m.not_counted.as_deref().unwrap_or("not counted").into(),
        )),
    }
    facts.push(("max RSS", format!("{} KiB", m.max_rss_kib)));
    facts
}

/// Why allocations were not counted, and what to do, once for the run (issue 29): the
/// counters table's cells only say "not counted".
fn run_notes(run: &RunRecord) -> String {
    let mut hints: Vec<&str> = Vec::new();
    for m in run.results.iter().filter_map(figure) {
        if let Some(why) = m.not_counted.as_deref() {
            if !hints.contains(&why) {
                hints.push(why);
            }
        }
    }
    let mut out = String::new();
    for why in hints {
        let _ = writeln!(
            out,
            "\nallocations not counted: {}",
            crate::escape::clean(why)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use costbench_record::instrument::memory::{Allocations, Memory};
    use costbench_record::testing::{record, scenario, with_icount};

    #[test]
    fn its_columns_and_facts_appear_where_measured() {
        let mut with = with_icount(scenario("counted"), 10.0);
        with.counters.memory = Some(Memory {
            allocator: "system".into(),
            allocations: Some(Allocations {
                allocs: 3,
                deallocs: 3,
                reallocs: 0,
                bytes_allocated: 96,
                peak_live_bytes: 64,
                allocs_per_op: 3.0,
                deallocs_per_op: 3.0,
                reallocs_per_op: 0.0,
                bytes_allocated_per_op: 96.0,
            }),
            not_counted: None,
            max_rss_kib: 2048,
        });
        let without = with_icount(scenario("plain"), 5.0);
        let runs = [record("r", vec![with, without])];
        let html = crate::html::test_page(&runs, None, &[], &[]);
        for head in [
            "<th>bytes alloc/op</th>",
            "<th>allocs/op</th>",
            "<th>max RSS KiB</th>",
        ] {
            assert!(html.contains(head), "{head}");
        }
        assert!(html.contains(r#"<td data-v="2048">2048</td>"#));
        // Empty cells, which sort last: time and IQR of both, the three figures of "plain".
        assert_eq!(
            html.matches(r#"<td data-v="">–</td>"#).count(),
            2 * 2 + 3,
            "{html}"
        );
        assert!(html.contains("<div><span>max RSS</span><span>2048 KiB</span></div>"));
        // Neither has wall time: no distribution chart, and no change columns without a baseline.
        assert!(!html.contains(r#"data-chart="distribution""#));
        assert!(!html.contains("<th>Δ Ir</th>"));
    }

    /// Issue 29: `run --instrument memory` without the library's `count-alloc` feature printed
    /// "not counted" in every row; what to do was only in run.json.
    #[test]
    fn issue_29_why_allocations_were_not_counted_is_printed_once() {
        let mut run = costbench_record::testing::every_figure();
        let hint = "enable the costbench library's `count-alloc` feature";
        let mut with_memory = 0;
        for r in &mut run.results {
            if let Some(m) = r.counters.memory.as_mut() {
                m.allocations = None;
                m.not_counted = Some(hint.into());
                with_memory += 1;
            }
        }
        assert!(with_memory > 0);
        let t = crate::terminal::table(&run);
        assert_eq!(
            t.matches(&format!("allocations not counted: {hint}"))
                .count(),
            1,
            "{t}"
        );
    }
}
