//! The icount instrument's slice of the reports: its `Ir/op` column of a run's terminal table
//! and the harness residual under it, its column of the HTML page's overview (with its change),
//! its facts, first on a scenario's section of the HTML page, its name on the page's provenance
//! line, its Bencher measure (`instructions`) and the threshold `compare`'s table says its
//! unchanged rows were within. The functions behind a change of its figure, read from
//! callgrind's profiles, are the comparison's (`crate::movers`), which every view of it shows.

use super::{Column, OverviewColumn, Place, Slice};
use costbench_record::fmt::{fmt_ir, fmt_threshold};
use costbench_record::instrument::Figure;
use costbench_record::model::{RunRecord, ScenarioResult};
use serde_json::json;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    rank: 1,
    place: Place::First,
    run_column: Some(Column {
        header: "Ir/op",
        cell: |r| ir_per_op(r).map(fmt_ir),
        always: true,
    }),
    overview: &[OverviewColumn {
        header: "Ir/op",
        value: ir_per_op,
        fmt: fmt_ir,
        always: true,
        change: Some(("Δ Ir", Figure::Icount)),
    }],
    facts,
    run_facts: Some(residual),
    measured_by: Some("callgrind"),
    bmf: Some(|r| Some(("instructions", json!({ "value": ir_per_op(r)? })))),
    within: Some(|c| fmt_threshold(c.options.icount_threshold_pct)),
    ..Slice::NONE
};

/// Instructions per op, if counted.
fn ir_per_op(r: &ScenarioResult) -> Option<f64> {
    r.icount.as_ref().map(|i| i.ir_per_op)
}

/// The harness residual of the run (what every count includes), under a run's terminal table.
fn residual(run: &RunRecord) -> String {
    run.harness_residual_ir.map_or_else(String::new, |r| {
        format!(
            "\nharness residual: {r} instructions per measured run (included in every count, not subtracted)\n"
        )
    })
}

/// Its facts on the HTML page: instructions per op and per run.
fn facts(r: &ScenarioResult) -> Vec<(&'static str, String)> {
    let Some(i) = &r.icount else {
        return Vec::new();
    };
    vec![
        ("instructions/op", fmt_ir(i.ir_per_op)),
        ("instructions/run", i.ir.to_string()),
    ]
}
