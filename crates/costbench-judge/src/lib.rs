//! Statistics and verdicts of costbench: comparing two run records ([`compare`]: matching ids,
//! thresholds, history noise), each kind of compared figure judged by its instrument's slice
//! ([`instrument`], one module per instrument that has something to judge of its own: exact
//! counts, their placement effects and function movers; timings' bootstrap, paired signed-rank
//! intervals and family-wise error control; figures under load; what costbench.toml accepts of
//! an instrument's findings; the diff of the checks two runs executed), the CI gate of
//! `costbench check` over a comparison ([`check`]), the search
//! of `costbench bisect` over exact counts ([`bisect`]) and the matrix of build variants, each
//! judged against a baseline variant ([`variants`]), and the advice of `costbench advise` over
//! both ([`advice`]).
//!
//! Pure functions over `costbench-record`'s model: no files, no processes, no clocks, no cargo,
//! no terminal, no unseeded randomness. The same two records always give the same verdicts,
//! confidence intervals included. Reading records (output directories, history) is the caller's
//! job, and so is rendering: reports turn a [`compare::Comparison`] or a [`check::Gate`] into
//! text.
//!
//! With the `testing` feature, `testing` builds comparisons and matrices in code, for the tests
//! of the crates above this one.

#![warn(missing_docs)]

pub mod advice;
pub mod bisect;
pub mod budget;
pub mod changes;
pub mod check;
pub mod compare;
pub mod complexity;
pub mod glob;
pub mod instrument;
pub mod variants;

#[cfg(any(test, feature = "testing"))]
pub mod testing;
