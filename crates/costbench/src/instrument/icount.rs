//! Instruction counts' piece of the library: the `icount` mode of the child protocol, one run of
//! the body inside the measured region ([`crate::region`], which callgrind is told to count).
//! The child writes nothing: the count is in callgrind's output file, and the command line and
//! environment stay free of run-specific paths so that the measured process is the same from run
//! to run.
//!
//! The measured region stays `crate::region` (its symbols, `costbench_measured_region` and
//! `costbench::region::shim`, are what the runner looks for in callgrind's and memcheck's
//! output), and the data-placement shifts of `--perturb` stay `crate::placement`, which the
//! counting modes and `once` all take.

use super::mode::ChildMode;
use crate::bench::Mode;
use crate::body::process_body;
use crate::child_args::{ChildArgs, ChildError};
use crate::suite::Scenario;

/// The `icount` mode of the child protocol.
pub(super) const MODE: ChildMode = ChildMode {
    name: "icount",
    run: icount_mode,
};

fn icount_mode(s: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    process_body(s, a, Mode::Icount)?;
    Ok(0)
}
