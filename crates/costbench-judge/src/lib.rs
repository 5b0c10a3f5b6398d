//! Statistics and verdicts of costbench: comparing two run records ([`compare`]: thresholds,
//! the bootstrap, paired signed-rank intervals, family-wise error control, history noise,
//! placement effects, function movers) and the CI gate of `costbench check` over a comparison
//! ([`check`]).
//!
//! Pure functions over `costbench-record`'s model: no files, no processes, no clocks, no cargo,
//! no terminal, no unseeded randomness. The same two records always give the same verdicts,
//! confidence intervals included. Reading records (output directories, history) is the caller's
//! job, and so is rendering: reports turn a [`compare::Comparison`] or a [`check::Gate`] into
//! text.
//!
//! With the `testing` feature, `compare::testing` builds comparisons in code for the tests of
//! the crates above this one.

#![warn(missing_docs)]

pub mod check;
pub mod compare;

// The model's modules under the names the judging code has always used (`crate::model::X`).
use costbench_record::{fmt, model, stats};
