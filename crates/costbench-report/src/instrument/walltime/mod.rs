//! The walltime instrument's slice of the reports: its `time/op` column, last in a run's
//! terminal table, its median, IQR and change columns of the HTML page's overview, its facts and
//! its distribution chart on a scenario's section of the page ([`html`]), its name on the page's
//! provenance line, its Bencher measure (`latency`), the threshold `compare`'s table says its
//! unchanged rows were within and the confidence interval the markdown report's rows add to
//! their threshold.

mod html;

use super::{Column, OverviewColumn, Place, Slice};
use costbench_judge::compare::Row;
use costbench_record::fmt::{fmt_ci, fmt_ns};
use costbench_record::instrument::Figure;
use costbench_record::model::ScenarioResult;
use serde_json::json;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    rank: 2,
    place: Place::Early,
    run_last: Some(Column {
        header: "time/op (median ± IQR)",
        cell: |r| Some(time_cell(r)),
        always: true,
    }),
    overview: &[
        OverviewColumn {
            header: "time/op (median)",
            value: |r| r.walltime.as_ref().map(|w| w.ns_per_op.median),
            fmt: fmt_ns,
            always: true,
            change: None,
        },
        OverviewColumn {
            header: "IQR",
            value: |r| {
                r.walltime
                    .as_ref()
                    .filter(|w| w.ns_per_op.median > 0.0)
                    .map(|w| 100.0 * w.ns_per_op.iqr / w.ns_per_op.median)
            },
            fmt: |v| format!("{v:.1} %"),
            always: true,
            change: Some(("Δ time", Figure::Walltime)),
        },
    ],
    facts: html::facts,
    chart: Some(html::distribution),
    measured_by: Some("wall clock"),
    bmf: Some(|r| {
        let s = &r.walltime.as_ref()?.ns_per_op;
        let measure = json!({ "value": s.median, "lower_value": s.q1, "upper_value": s.q3 });
        Some(("latency", measure))
    }),
    within: Some(|c| c.walltime_threshold()),
    threshold_note: Some(threshold_note),
    ..Slice::NONE
};

/// Its cell of a run's terminal table: the median per op with the IQR as a share of it, marked
/// `(cpu)` on the thread's CPU clock; `-` without its figure.
fn time_cell(r: &ScenarioResult) -> String {
    match &r.walltime {
        Some(w) => {
            let s = &w.ns_per_op;
            let pct = if s.median > 0.0 {
                100.0 * s.iqr / s.median
            } else {
                0.0
            };
            let clock = if w.clock == "thread-cpu" {
                " (cpu)"
            } else {
                ""
            };
            format!("{} ± {pct:.1}%{clock}", fmt_ns(s.median))
        }
        None => "-".into(),
    }
}

/// What a row adds to its threshold in the markdown report: the confidence interval of the
/// change, or that there were too few samples for one.
fn threshold_note(r: &Row) -> String {
    match &r.ci {
        Some(ci) => format!(", CI {}", fmt_ci(ci.low, ci.high)),
        None => ", too few samples".into(),
    }
}
