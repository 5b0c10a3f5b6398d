//! Wall time's slice of the run record: a result has its figure when it has a wall time;
//! its compared figure and history series are the median per op, and its paired step a series;
//! its file is `walltime.csv`; the history keeps its samples (nanoseconds per iteration). Its
//! figure's type is [`figure`]'s ([`Walltime`]), its samples per op a result's
//! (`ScenarioResult::per_op_samples`); its figures for tests, `testing`'s.

pub mod figure;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use figure::{Paired, Step, Walltime};

use super::slice::Slice;
use super::{Figure, FigureSpec, Judged, Metric, MetricSpec, Steps};
use crate::csv::{row, text, writer, SliceFile};
use crate::fmt::fmt_ns;
use crate::model::{RunRecord, ScenarioResult};

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.walltime.is_some()),
    csv: Some(SliceFile {
        name: "walltime.csv",
        always: true,
        text: walltime_csv,
    }),
    figures: &[FigureSpec {
        figure: Figure::Walltime,
        evidence: "one figure per run",
        name: "walltime",
        title: "Wall time",
        short_title: "time",
        unit: None,
        judged: Judged::Walltime,
        history: Some(Metric::Walltime),
        fmt_value: fmt_ns,
        per_op: median,
    }],
    metrics: &[
        MetricSpec {
            metric: Metric::Walltime,
            title: "time/op (median)",
            chart_title: "median time per op",
            unit: "ns/op",
            fmt_value: fmt_ns,
            with_unit: fmt_ns,
            steps: Steps::Scattered,
            name: "walltime",
            arg: "walltime",
            help: "Median wall time per op",
            per_op: median,
        },
        MetricSpec {
            metric: Metric::WalltimeStep,
            title: "time/op over the previous measured commit's (paired)",
            chart_title: "time per op over the previous measured commit's (paired)",
            unit: "× previous commit",
            fmt_value: |v| format!("×{v:.3}"),
            with_unit: |v| format!("×{v:.3}"),
            steps: Steps::Paired,
            name: "walltime_step",
            arg: "walltime-step",
            help: "Wall time over the previous measured commit's, paired (history backfill): 1 where no change was resolved",
            per_op: |r| {
                let s = r.walltime.as_ref()?.step.as_ref()?;
                Some(if s.resolved() { s.ratio } else { 1.0 })
            },
        },
    ],
    samples: Some(|r| Some(r.walltime.as_ref()?.iteration_ns.as_slice())),
    #[cfg(any(test, feature = "testing"))]
    sample: Some(sample),
    ..Slice::NONE
};

impl ScenarioResult {
    /// Per-op samples of the wall time: each sample's per-iteration time divided by the ops per
    /// iteration (the record keeps per-iteration nanoseconds). Empty without wall time.
    pub fn per_op_samples(&self) -> Vec<f64> {
        let ops = self.ops.max(1) as f64;
        self.walltime.as_ref().map_or_else(Vec::new, |w| {
            w.iteration_ns.iter().map(|ns| ns / ops).collect()
        })
    }
}

/// The median wall time per op, if timed.
fn median(r: &ScenarioResult) -> Option<f64> {
    r.walltime.as_ref().map(|w| w.ns_per_op.median)
}

/// `name,ns_1,...,ns_N`: per-iteration nanoseconds of each sample.
fn walltime_csv(run: &RunRecord) -> String {
    let mut w = writer();
    for r in &run.results {
        if let Some(wt) = &r.walltime {
            let fields = std::iter::once(r.id.clone()).chain(
                wt.iteration_ns
                    .iter()
                    .map(|ns| ((ns * 1000.0).round() / 1000.0).to_string()),
            );
            row(&mut w, fields);
        }
    }
    text(w)
}

/// Its figures in the fixtures' run of every figure: wall time on both clocks, and a failure
/// with its stderr tail on the last row.
#[cfg(any(test, feature = "testing"))]
fn sample(run: &mut crate::model::RunRecord) {
    use crate::testing::with_failure;
    use testing::with_walltime;
    let per_op: [&[f64]; 3] = [
        &[1234.0, 1250.0, 1301.0, 1222.0, 1280.0],
        &[987.6, 990.0, 1010.0],
        &[0.75, 0.8, 0.9],
    ];
    for (r, per_op) in run.results.iter_mut().zip(per_op) {
        *r = with_walltime(r.clone(), per_op);
    }
    run.results[1].walltime.as_mut().expect("set above").clock = "thread-cpu".into();
    let failed = &mut run.results[3];
    *failed = with_failure(failed.clone(), "walltime", "panicked");
    failed.failures[0].stderr_tail =
        "thread 'main' panicked\nnote: run with RUST_BACKTRACE=1".into();
}
