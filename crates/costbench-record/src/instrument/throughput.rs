//! Throughput's slice of the run record: a result has its figure when it has throughput
//! figures (the rows `SCENARIO@Nc`).

use super::slice::Slice;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.throughput.is_some()),
    memory_csv: &[],
};
