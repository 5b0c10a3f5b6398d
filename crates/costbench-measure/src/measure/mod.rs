//! Instruments: what to run for each, and how to read what it produced.

pub mod cache;
pub mod callgrind;
pub mod dhat;
pub mod memory;
pub mod perf;
pub mod throughput;
pub mod walltime;
