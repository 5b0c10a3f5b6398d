//! Exit codes, documented in `costbench --help` and the README: the one place that numbers
//! them. Which one a command returns is the command's to choose.

/// Everything asked for ran and was written.
pub const OK: i32 = 0;
/// A scenario failed, or an error stopped the run (the message says which).
pub const FAILURE: i32 = 1;
/// The command line was wrong.
pub const USAGE: i32 = 2;
/// `costbench check` found a significant regression or a broken hard limit.
pub const REGRESSION: i32 = 3;
