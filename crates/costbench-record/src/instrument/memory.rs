//! The memory instrument's slice of the run record: a result has its figure when it has memory
//! figures, and `memory.csv`'s first columns are its allocation counts per op, the body's peak
//! live bytes and the process's max RSS (empty cells when not counted).

use super::slice::{Column, Slice};
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
};

/// The allocation counts of a result, where they were counted.
fn allocations(r: &ScenarioResult) -> Option<&Allocations> {
    r.counters.memory.as_ref()?.allocations.as_ref()
}
