//! The cache simulation's slice of the run record: a result has its figure when it has
//! simulated counters.

use super::slice::Slice;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.cache.is_some()),
    memory_csv: &[],
};
