//! Instruments: what to run for each, and how to read what it produced.

pub mod callgrind;
pub mod walltime;
