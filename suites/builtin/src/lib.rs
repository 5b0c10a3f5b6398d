//! Kernels of costbench's built-in suite: the same work done in the ways Rust programmers argue
//! about (checked or unchecked indexing, aligned or unaligned reads, regex or plain string
//! methods, buffered or unbuffered I/O, owned or borrowed data). The scenarios in
//! `benches/builtin.rs` measure them.
//!
//! Every kernel is `#[inline(never)]` so that it stays a function of its own in profiles and in
//! the census of bounds checks, and every input is made by a fixed-seed generator, so that
//! instruction counts are identical from run to run.

pub mod cache;
pub mod data;
pub mod files;
pub mod index;
pub mod packet;
pub mod proto;
pub mod strings;
pub mod text;
pub mod words;

/// Extra work, in thousandths, that four ordinary scenarios do beyond their declared ops:
/// `index/sum_indirect/checked` (lookups), `index/binary_search/std` (searches),
/// `regex/filter/regex_only` (lines) and `alloc/pipeline/collect` (elements). Always 0 here:
/// `scripts/accuracy.sh` raises it in a scratch candidate to measure whether `costbench check`
/// finds a change of that size in scenarios of different body sizes (docs/accuracy.md).
pub const EXTRA_WORK_PERMILLE: usize = 0;

/// `n` plus [`EXTRA_WORK_PERMILLE`] thousandths of it: the input size of a scenario that takes
/// part in the accuracy measurements (the generators are sequential, so the first `n` items are
/// the same and the extra ones come after them).
pub const fn with_extra(n: usize) -> usize {
    n + n * EXTRA_WORK_PERMILLE / 1000
}

/// Extra service time, in thousandths, that the cache server of `benches/cache.rs` spends on
/// every query: after writing a reply it spins for this share of the time from reading the
/// query to having written the reply. Always 0 here: `scripts/throughput.sh` raises it in a
/// scratch candidate to measure whether the throughput instrument finds a change of that size
/// (docs/throughput.md).
pub const SERVICE_EXTRA_PERMILLE: u32 = 0;
