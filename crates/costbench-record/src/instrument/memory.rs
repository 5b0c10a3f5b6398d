//! The memory instrument's slice of the run record: its figure ([`Memory`], the key `memory`
//! of a result, with the counting allocator's [`Allocations`]), whether a result has it, and
//! `memory.csv`'s first columns: its allocation counts per op, the body's peak live bytes and
//! the process's max RSS (empty cells when not counted); its compared figures are the bytes
//! allocated per op and the max RSS, and its history series those and the allocations and peak
//! bytes.

use super::slice::{Column, Slice};
use super::{Figure, FigureSpec, Judged, Metric, MetricSpec, Steps};
use crate::fmt::fmt_ir;
use crate::model::ScenarioResult;
use serde::{Deserialize, Serialize};

/// Memory figures of one run of the body.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Memory {
    /// Global allocator of the bench binary (`system`, `mimalloc`, `jemalloc`, or `the binary's
    /// own` when the costbench library installed none).
    pub allocator: String,
    /// Allocation counts, when the binary counts allocations.
    pub allocations: Option<Allocations>,
    /// Why `allocations` is missing and how to enable it.
    pub not_counted: Option<String>,
    /// Peak resident set size of the scenario's process (start-up and setup included), KiB.
    pub max_rss_kib: u64,
}

/// The allocator calls of one run of the body, totals and per op.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Allocations {
    /// Successful `alloc` and `alloc_zeroed` calls.
    pub allocs: u64,
    /// `dealloc` calls.
    pub deallocs: u64,
    /// Successful `realloc` calls.
    pub reallocs: u64,
    /// Bytes requested by allocations, plus what reallocations grew by (requested sizes, not
    /// what the allocator rounds them up to).
    pub bytes_allocated: u64,
    /// Peak of live heap bytes above the level at the start of the body (for the whole run,
    /// not per op).
    pub peak_live_bytes: u64,
    /// `allocs` divided by the scenario's ops.
    pub allocs_per_op: f64,
    /// `deallocs` divided by the scenario's ops.
    pub deallocs_per_op: f64,
    /// `reallocs` divided by the scenario's ops.
    pub reallocs_per_op: f64,
    /// `bytes_allocated` divided by the scenario's ops.
    pub bytes_allocated_per_op: f64,
}

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| figure(r).is_some()),
    memory_csv: &[
        Column {
            header: "allocator",
            cell: |r| Some(figure(r)?.allocator.clone()),
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
            cell: |r| Some(figure(r)?.max_rss_kib.to_string()),
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

/// The figure of a result, if it has one.
pub fn figure(r: &ScenarioResult) -> Option<&Memory> {
    r.counters.memory.as_ref()
}

/// The allocation counts of a result, where they were counted.
pub fn allocations(r: &ScenarioResult) -> Option<&Allocations> {
    figure(r)?.allocations.as_ref()
}

/// Bytes allocated per op, if counted.
fn bytes_per_op(r: &ScenarioResult) -> Option<f64> {
    Some(allocations(r)?.bytes_allocated_per_op)
}

/// The process's max RSS in KiB, if measured.
fn max_rss(r: &ScenarioResult) -> Option<f64> {
    Some(figure(r)?.max_rss_kib as f64)
}

/// Its figures in the fixtures' run of every figure: memory counted on the first row, not
/// counted (the max RSS alone) on the second.
#[cfg(any(test, feature = "testing"))]
fn sample(run: &mut crate::model::RunRecord) {
    use testing::with_memory;
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

/// Its figures built in code for the tests of this crate and the layers above (the `testing`
/// feature), as `crate::testing` builds run records.
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use super::{Allocations, Memory};
    use crate::model::{RunRecord, ScenarioResult};
    use crate::testing::{record, scenario, with_ops};

    /// `r` with the memory figures of one run of its ops with `allocs` allocations of 8 bytes
    /// each.
    pub fn with_memory(r: ScenarioResult, allocs: u64) -> ScenarioResult {
        let mut r = r;
        let ops = r.ops;
        r.counters.memory = Some(Memory {
            allocator: "system".into(),
            allocations: Some(Allocations {
                allocs,
                deallocs: 0,
                reallocs: 0,
                bytes_allocated: allocs * 8,
                peak_live_bytes: allocs * 8,
                allocs_per_op: allocs as f64 / ops as f64,
                deallocs_per_op: 0.0,
                reallocs_per_op: 0.0,
                bytes_allocated_per_op: allocs as f64 * 8.0 / ops as f64,
            }),
            not_counted: None,
            max_rss_kib: 2000,
        });
        r
    }

    /// Two ways of one work with memory figures (the second without allocation counts) and a
    /// scenario without any: for the counters tables and `memory.csv`.
    pub fn groups() -> RunRecord {
        let ways = |id: &str, allocs: u64| with_memory(with_ops(scenario(id), 10, "words"), allocs);
        let mut run = record(
            "r",
            vec![
                ways("alloc/wc/owned", 20),
                ways("alloc/wc/borrowed", 0),
                scenario("other/plain"),
            ],
        );
        run.results[1].counters.memory.as_mut().unwrap().allocations = None;
        run
    }
}
