//! The figures a comparison judges and `check` gates: one per-op number of a measured id each,
//! named after the instrument that measured it (memory yields two: bytes allocated and the
//! process's max RSS; throughput two: time per op and p99 latency under load).
//!
//! It owns what a figure is (its name, heading, unit and where it sits in a [`ScenarioResult`])
//! and which history series follows it; which instrument yields it is the descriptors' (the
//! parent module), how a change of it is judged is `costbench-judge`'s.

use crate::fmt::{fmt_ir, fmt_ns, fmt_ops_per_sec};
use crate::history::Metric;
use crate::model::ScenarioResult;
use serde::Serialize;
use std::fmt;

/// A compared figure: what a row of a comparison is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Figure {
    /// Instructions per op (`Icount::ir_per_op`).
    Icount,
    /// Median wall time per op (`Walltime::ns_per_op.median`).
    Walltime,
    /// Simulated estimated cycles per op (`CacheSim::per_op["EstimatedCycles"]`): as exact as
    /// instruction counts, judged with the same threshold.
    Cache,
    /// Bytes allocated per op (`Allocations::bytes_allocated_per_op`): exact with the system
    /// allocator, judged with the instruction-count threshold.
    Memory,
    /// The process's max RSS in KiB (not per op): judged against the judge's RSS threshold.
    Rss,
    /// A service scenario under load: nanoseconds per op at the measured throughput
    /// (`1e9 / Throughput::ops_per_sec`), so that more is worse as for every other figure; shown
    /// with the ops per second it stands for. Judged paired, slice by slice, like wall time.
    Throughput,
    /// A service scenario under load: the 99th percentile of request latency in nanoseconds.
    P99,
}

/// How a change of a figure is judged, which picks its default threshold among the judge's
/// options: a new figure says here which it is, and the judge needs no arm of its own for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// An exact count (instructions, simulated cycles, bytes allocated): the instruction-count
    /// threshold, with the placement and history evidence of exact figures.
    Exact,
    /// The process's max RSS: exact in kind, but it moves by whole pages and with the loader's
    /// and allocator's arenas, so it has a threshold of its own.
    Rss,
    /// Median wall time: the wall-time threshold, paired rounds where both sides have them.
    Walltime,
    /// Under load (time per op, p99 latency): the load threshold, judged slice by slice.
    UnderLoad,
}

impl Judged {
    /// Whether the figure is exact in kind (judged as counts are, not as timings are).
    pub fn is_exact(self) -> bool {
        matches!(self, Judged::Exact | Judged::Rss)
    }
}

impl Figure {
    /// Every figure a comparison can judge, in the order of the rows: the instruments' figures
    /// in the order of [`Instrument::ALL`] (a test holds the two together).
    ///
    /// [`Instrument::ALL`]: crate::instrument::Instrument::ALL
    pub const ALL: [Figure; 7] = [
        Figure::Icount,
        Figure::Walltime,
        Figure::Cache,
        Figure::Memory,
        Figure::Rss,
        Figure::Throughput,
        Figure::P99,
    ];

    /// The name used in comparisons, verdicts and on the command line (`--limit`).
    pub fn name(self) -> &'static str {
        match self {
            Figure::Icount => "icount",
            Figure::Walltime => "walltime",
            Figure::Cache => "cache",
            Figure::Memory => "memory",
            Figure::Rss => "rss",
            Figure::Throughput => "throughput",
            Figure::P99 => "p99",
        }
    }

    /// The history series that follows this figure from run to run, if any: the one its
    /// threshold is learned from and its chart drawn of.
    pub fn history(self) -> Option<Metric> {
        match self {
            Figure::Icount => Some(Metric::Icount),
            Figure::Walltime => Some(Metric::Walltime),
            Figure::Cache => Some(Metric::Cycles),
            Figure::Memory => Some(Metric::AllocBytes),
            Figure::Rss => Some(Metric::MaxRss),
            Figure::Throughput | Figure::P99 => None,
        }
    }

    /// How a change of it is judged.
    pub fn judged(self) -> Judged {
        match self {
            Figure::Icount | Figure::Cache | Figure::Memory => Judged::Exact,
            Figure::Rss => Judged::Rss,
            Figure::Walltime => Judged::Walltime,
            Figure::Throughput | Figure::P99 => Judged::UnderLoad,
        }
    }

    /// A heading for reports.
    pub fn title(self) -> &'static str {
        match self {
            Figure::Icount => "Instruction counts",
            Figure::Walltime => "Wall time",
            Figure::Cache => "Estimated cycles (simulated)",
            Figure::Memory => "Bytes allocated",
            Figure::Rss => "Max RSS (process)",
            Figure::Throughput => "Throughput under load (time per op)",
            Figure::P99 => "p99 latency under load",
        }
    }

    /// A per-op figure with its unit: "2003 Ir", "12.35 ns".
    pub fn fmt_value(self, v: f64) -> String {
        match self {
            Figure::Icount => format!("{} Ir", fmt_ir(v)),
            Figure::Walltime => fmt_ns(v),
            Figure::Cache => format!("{} cyc (sim)", fmt_ir(v)),
            Figure::Memory => format!("{} B", fmt_ir(v)),
            Figure::Rss => format!("{v:.0} KiB"),
            Figure::Throughput => format!("{} ({})", fmt_ns(v), fmt_ops_per_sec(1e9 / v)),
            Figure::P99 => fmt_ns(v),
        }
    }

    /// The per-op figure of `r`, if it was measured.
    pub fn per_op(self, r: &ScenarioResult) -> Option<f64> {
        match self {
            Figure::Icount => r.icount.as_ref().map(|i| i.ir_per_op),
            Figure::Walltime => r.walltime.as_ref().map(|w| w.ns_per_op.median),
            Figure::Cache => r
                .counters
                .cache
                .as_ref()
                .and_then(|c| c.per_op.get("EstimatedCycles").copied()),
            Figure::Memory => r
                .counters
                .memory
                .as_ref()
                .and_then(|m| m.allocations.as_ref())
                .map(|a| a.bytes_allocated_per_op),
            Figure::Rss => r.counters.memory.as_ref().map(|m| m.max_rss_kib as f64),
            Figure::Throughput => r
                .throughput
                .as_ref()
                .filter(|t| t.ops_per_sec > 0.0)
                .map(|t| 1e9 / t.ops_per_sec),
            Figure::P99 => r.throughput.as_ref().map(|t| t.latency.p99_ns),
        }
    }
}

impl fmt::Display for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
