//! The messages of one instrument each: the modes of the child command line that measure in
//! process write their result files with these types, one module per instrument (and
//! `counters`, the result file the `memory` and `perf` modes share). The crate root re-exports
//! every item, so their paths are `costbench_protocol::NAME` as they always were.
//!
//! Wire format only: each module holds serde types and the capability strings of its modes,
//! and no behaviour beyond its messages' [`Versioned`](crate::Versioned) impls.

mod counters;
mod memory;
mod perf;
mod throughput;
mod walltime;

pub use counters::*;
pub use memory::*;
pub use perf::*;
pub use throughput::*;
pub use walltime::*;
