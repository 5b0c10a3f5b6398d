//! Throughput's slice of the run record: a result has its figure when it has throughput
//! figures (the rows `SCENARIO@Nc`);
//! its compared figures are the time per op at the measured throughput and the p99 latency.

use super::slice::Slice;
use super::{Figure, FigureSpec, Judged};
use crate::fmt::{fmt_ns, fmt_ops_per_sec};

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.throughput.is_some()),
    memory_csv: &[],
    figures: &[
        FigureSpec {
            figure: Figure::Throughput,
            evidence: "one figure per run",
            name: "throughput",
            title: "Throughput under load (time per op)",
            short_title: "time per op under load",
            unit: None,
            judged: Judged::UnderLoad,
            history: None,
            fmt_value: |v| format!("{} ({})", fmt_ns(v), fmt_ops_per_sec(1e9 / v)),
            per_op: |r| {
                r.throughput
                    .as_ref()
                    .filter(|t| t.ops_per_sec > 0.0)
                    .map(|t| 1e9 / t.ops_per_sec)
            },
        },
        FigureSpec {
            figure: Figure::P99,
            evidence: "one figure per run",
            name: "p99",
            title: "p99 latency under load",
            short_title: "p99 under load",
            unit: None,
            judged: Judged::UnderLoad,
            history: None,
            fmt_value: fmt_ns,
            per_op: |r| r.throughput.as_ref().map(|t| t.latency.p99_ns),
        },
    ],
    metrics: &[],
    #[cfg(any(test, feature = "testing"))]
    sample: None,
};
