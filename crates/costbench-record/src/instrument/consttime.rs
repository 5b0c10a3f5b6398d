//! The constant-time check's slice of the run record: a result has its figure when memcheck's
//! findings were read for it (none found is a figure too).

use super::slice::Slice;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.constant_time.is_some()),
    memory_csv: &[],
};
