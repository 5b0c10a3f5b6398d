//! DHAT's slice of the reports: its section of the counters table (the whole process's heap
//! totals, per run: DHAT cannot be limited to the body), its two facts on the HTML page and its
//! name in the page's provenance line. It has no compared figure, so no comparison row.

use super::{Section, Slice};
use costbench_record::instrument::dhat::{figure, Dhat};
use costbench_record::model::ScenarioResult;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    counters: Some(counters),
    rank: 40,
    facts,
    measured_by: Some("DHAT"),
    ..Slice::NONE
};

/// Its section of a group's counters table.
fn counters(cols: &[&ScenarioResult]) -> Section {
    let cells = |f: fn(&Dhat) -> u64| -> Vec<String> {
        cols.iter()
            .map(|r| figure(r).map_or("-".into(), |d| f(d).to_string()))
            .collect()
    };
    let rows: Vec<super::Row> = vec![
        ("total bytes".into(), cells(|d| d.total_bytes)),
        ("total blocks".into(), cells(|d| d.total_blocks)),
        ("peak bytes".into(), cells(|d| d.peak_bytes)),
        ("peak blocks".into(), cells(|d| d.peak_blocks)),
    ];
    ("DHAT (whole process, setup included), per run".into(), rows)
}

/// Its facts on the HTML page.
fn facts(r: &ScenarioResult) -> Vec<(&'static str, String)> {
    let Some(d) = figure(r) else {
        return Vec::new();
    };
    vec![
        (
            "DHAT total bytes · blocks",
            format!("{} · {}", d.total_bytes, d.total_blocks),
        ),
        (
            "DHAT peak bytes · blocks",
            format!("{} · {}", d.peak_bytes, d.peak_blocks),
        ),
    ]
}
