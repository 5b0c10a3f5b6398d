//! The memory instrument's figures, as the `memory` mode writes them into a
//! [`CountersResult`](super::counters::CountersResult): the allocator, the allocation counts
//! of the body and the peak resident set size.

use serde::{Deserialize, Serialize};

/// Memory figures of one run of the measured body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryCounts {
    /// The global allocator the library installed (`system`, `mimalloc`, `jemalloc`), or
    /// `the binary's own` when the library installed none.
    pub allocator: String,
    /// Allocation counts of the body, when the binary's global allocator counts.
    pub counts: Option<AllocCounts>,
    /// Why `counts` is missing, and how to enable it.
    pub not_counted: Option<String>,
    /// The process's peak resident set size after the body ran (`getrusage` `ru_maxrss`), KiB:
    /// setup and start-up included. 0 where the OS has no `getrusage` (Windows).
    pub max_rss_kib: u64,
}

/// What the measured body did to the heap, counted by `costbench::CountingAlloc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocCounts {
    /// Successful allocations (`alloc`, `alloc_zeroed`) during the body.
    pub allocs: u64,
    /// Calls to `dealloc` during the body.
    pub deallocs: u64,
    /// Calls to `realloc` during the body.
    pub reallocs: u64,
    /// Bytes requested by allocations plus growth by reallocations.
    pub bytes_allocated: u64,
    /// Peak of live heap bytes above the level at the start of the body.
    pub peak_live_bytes: u64,
}
