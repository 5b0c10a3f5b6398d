//! Instruction counts' slice of the run record: a result has its figure when it has a count;
//! its compared figure and its history series are its instructions per op; its file is
//! `icounts.csv`. Its figure's type is [`figure`]'s ([`Icount`]); where it keeps callgrind's
//! output, `kept`'s (`OutputDir::callgrind_paths`); its figures for tests, `testing`'s.

pub mod figure;
mod kept;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use figure::{Icount, IcountPlacement};

use super::slice::Slice;
use super::{Figure, FigureSpec, Judged, Metric, MetricSpec, Steps};
use crate::csv::{row, text, writer, SliceFile};
use crate::fmt::fmt_ir;
use crate::model::{RunRecord, ScenarioResult};

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.icount.is_some()),
    csv: Some(SliceFile {
        name: "icounts.csv",
        always: true,
        text: icounts_csv,
    }),
    figures: &[FigureSpec {
        figure: Figure::Icount,
        evidence: "exact instruction counts",
        name: "icount",
        title: "Instruction counts",
        short_title: "instructions",
        unit: Some("Ir"),
        judged: Judged::Exact,
        history: Some(Metric::Icount),
        fmt_value: |v| format!("{} Ir", fmt_ir(v)),
        per_op: ir_per_op,
    }],
    metrics: &[MetricSpec {
        metric: Metric::Icount,
        title: "Ir/op",
        chart_title: "instructions per op",
        unit: "Ir/op",
        fmt_value: fmt_ir,
        with_unit: |v| format!("{} Ir", fmt_ir(v)),
        steps: Steps::Exact,
        name: "icount",
        arg: "icount",
        help: "Instructions per op",
        per_op: ir_per_op,
    }],
    #[cfg(any(test, feature = "testing"))]
    sample: Some(sample),
    ..Slice::NONE
};

/// Instructions per op, if counted.
fn ir_per_op(r: &ScenarioResult) -> Option<f64> {
    r.icount.as_ref().map(|i| i.ir_per_op)
}

/// `name,count` per measured id, as rustls's ci-bench writes it (names hold no commas: the
/// library refuses them; a name with a quote in it is quoted, as CSV says).
fn icounts_csv(run: &RunRecord) -> String {
    let mut w = writer();
    for r in &run.results {
        if let Some(ic) = &r.icount {
            row(&mut w, [r.id.clone(), ic.ir.to_string()]);
        }
    }
    text(w)
}

/// Its figures in the fixtures' run of every figure: a count on every row, from large to
/// fractional.
#[cfg(any(test, feature = "testing"))]
fn sample(run: &mut crate::model::RunRecord) {
    for (r, ir_per_op) in run.results.iter_mut().zip([2003.5, 1500.25, 5.25, 12.0]) {
        *r = testing::with_icount(r.clone(), ir_per_op);
    }
}
