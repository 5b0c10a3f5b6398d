//! The memory instrument's slice of the run record: a result has its figure when it has memory
//! figures, and `memory.csv`'s first columns are its allocation counts per op, the body's peak
//! live bytes and the process's max RSS (empty cells when not counted); its compared figures are the bytes allocated per op and
//! the max RSS, and its history series those and the allocations and peak bytes.

use super::slice::{Column, Slice};
use super::{Figure, FigureSpec, Judged, Metric, MetricSpec, Steps};
use crate::fmt::fmt_ir;
use crate::model::{Allocations, ScenarioResult};

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.memory.is_some()),
    memory_csv: &[
        Column {
            header: "allocator",
            cell: |r| Some(r.counters.memory.as_ref()?.allocator.clone()),
        },
        Column {
            header: "allocs_per_op",
            cell: |r| Some(allocations(r)?.allocs_per_op.to_string()),
        },
        Column {
            header: "deallocs_per_op",
            cell: |r| Some(allocations(r)?.deallocs_per_op.to_string()),
        },
        Column {
            header: "reallocs_per_op",
            cell: |r| Some(allocations(r)?.reallocs_per_op.to_string()),
        },
        Column {
            header: "bytes_allocated_per_op",
            cell: |r| Some(allocations(r)?.bytes_allocated_per_op.to_string()),
        },
        Column {
            header: "peak_live_bytes",
            cell: |r| Some(allocations(r)?.peak_live_bytes.to_string()),
        },
        Column {
            header: "max_rss_kib",
            cell: |r| Some(r.counters.memory.as_ref()?.max_rss_kib.to_string()),
        },
    ],
    figures: &[
        FigureSpec {
            figure: Figure::Memory,
            evidence: "exact allocation counts",
            name: "memory",
            title: "Bytes allocated",
            short_title: "bytes allocated",
            unit: Some("B"),
            judged: Judged::Exact,
            history: Some(Metric::AllocBytes),
            fmt_value: |v| format!("{} B", fmt_ir(v)),
            per_op: bytes_per_op,
        },
        FigureSpec {
            figure: Figure::Rss,
            evidence: "one figure per run",
            name: "rss",
            title: "Max RSS (process)",
            short_title: "max RSS",
            unit: Some("KiB"),
            judged: Judged::Rss,
            history: Some(Metric::MaxRss),
            fmt_value: |v| format!("{v:.0} KiB"),
            per_op: max_rss,
        },
    ],
    metrics: &[
        MetricSpec {
            metric: Metric::AllocBytes,
            title: "bytes allocated/op",
            chart_title: "bytes allocated per op",
            unit: "B/op",
            fmt_value: fmt_ir,
            with_unit: |v| format!("{} B", fmt_ir(v)),
            steps: Steps::Exact,
            name: "alloc_bytes",
            arg: "alloc-bytes",
            help: "Bytes allocated per op (--instrument memory)",
            per_op: bytes_per_op,
        },
        MetricSpec {
            metric: Metric::Allocs,
            title: "allocations/op",
            chart_title: "allocations per op",
            unit: "allocs/op",
            fmt_value: fmt_ir,
            with_unit: |v| format!("{} allocs", fmt_ir(v)),
            steps: Steps::Exact,
            name: "allocs",
            arg: "allocs",
            help: "Allocations per op (--instrument memory)",
            per_op: |r| Some(allocations(r)?.allocs_per_op),
        },
        MetricSpec {
            metric: Metric::PeakBytes,
            title: "peak live bytes (run)",
            chart_title: "peak live heap bytes (run)",
            unit: "B",
            fmt_value: fmt_ir,
            with_unit: |v| format!("{} B", fmt_ir(v)),
            steps: Steps::Exact,
            name: "peak_bytes",
            arg: "peak-bytes",
            help: "Peak live heap bytes of one run of the body (--instrument memory)",
            per_op: |r| Some(allocations(r)?.peak_live_bytes as f64),
        },
        MetricSpec {
            metric: Metric::MaxRss,
            title: "max RSS KiB (process)",
            chart_title: "max RSS, KiB (process)",
            unit: "KiB",
            fmt_value: fmt_ir,
            with_unit: |v| format!("{} KiB", fmt_ir(v)),
            steps: Steps::Scattered,
            name: "max_rss_kib",
            arg: "max-rss",
            help: "The scenario process's max RSS in KiB (--instrument memory)",
            per_op: max_rss,
        },
    ],
    #[cfg(any(test, feature = "testing"))]
    sample: Some(sample),
    ..Slice::NONE
};

/// Bytes allocated per op, if counted.
fn bytes_per_op(r: &ScenarioResult) -> Option<f64> {
    Some(allocations(r)?.bytes_allocated_per_op)
}

/// The process's max RSS in KiB, if measured.
fn max_rss(r: &ScenarioResult) -> Option<f64> {
    Some(r.counters.memory.as_ref()?.max_rss_kib as f64)
}

/// The allocation counts of a result, where they were counted.
fn allocations(r: &ScenarioResult) -> Option<&Allocations> {
    r.counters.memory.as_ref()?.allocations.as_ref()
}

/// Its figures in the fixtures' run of every figure: memory counted on the first row, not
/// counted (the max RSS alone) on the second.
#[cfg(any(test, feature = "testing"))]
fn sample(run: &mut crate::model::RunRecord) {
    use crate::testing::with_memory;
    run.results[0] = with_memory(run.results[0].clone(), 20);
    let unchecked = &mut run.results[1];
    *unchecked = with_memory(unchecked.clone(), 0);
    unchecked
        .counters
        .memory
        .as_mut()
        .expect("set above")
        .allocations = None;
}
