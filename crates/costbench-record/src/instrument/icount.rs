//! Instruction counts' slice of the run record: a result has its figure when it has a count.

use super::slice::Slice;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.icount.is_some()),
    memory_csv: &[],
};
