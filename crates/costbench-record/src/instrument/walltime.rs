//! Wall time's slice of the run record: a result has its figure when it has a wall time.

use super::slice::Slice;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.walltime.is_some()),
    memory_csv: &[],
};
