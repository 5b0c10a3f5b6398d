//! Hardware counters' slice of the run record: a result has its figure when it has counters.

use super::slice::Slice;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.perf.is_some()),
    memory_csv: &[],
    figures: &[],
    metrics: &[],
    findings: None,
};
