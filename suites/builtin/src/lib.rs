//! Kernels of costbench's built-in suite: the same work done in the ways Rust programmers argue
//! about (checked or unchecked indexing, aligned or unaligned reads, regex or plain string
//! methods, buffered or unbuffered I/O, owned or borrowed data). The scenarios in
//! `benches/builtin.rs` measure them.
//!
//! Every kernel is `#[inline(never)]` so that it stays a function of its own in profiles and in
//! the census of bounds checks, and every input is made by a fixed-seed generator, so that
//! instruction counts are identical from run to run.

pub mod data;
pub mod files;
pub mod index;
pub mod packet;
pub mod proto;
pub mod strings;
pub mod text;
pub mod words;
