//! Instruction counts: one callgrind run per party of a scenario, counting only inside the
//! measured region (see [`super::callgrind`]), its `Ir` total divided by the body's ops. The
//! file is kept in the results directory, where [`profile`] reads each function's costs back.
//! With the census asked for, the same run also writes per-instruction counts (the census's
//! `TOOL_ARGS`), which leave the total unchanged.
//!
//! The phase that runs it is its own (`phase`: it also measures the harness residual and
//! hands the file to the census, and once every side has its counts, runs the scenarios whose
//! count moved again with shifted data, [`placement`]); callgrind's command line is
//! [`super::callgrind::command`]; this module says where the count goes. [`ci_bench`] reads
//! the counts another harness wrote (rustls ci-bench's `icounts.csv`, for `costbench import`).

pub mod ci_bench;
pub mod parse;
mod phase;
pub mod placement;
pub mod profile;

pub(crate) use parse::Ir;

use super::phase::Phase;
use super::shape::Stored;
use costbench_record::model::{self, ScenarioResult};

/// How the scheduler runs it: by a phase of its own (`phase`), with the harness residual and
/// the census riding on it.
pub(crate) const PHASE: Phase = Phase::Own(&phase::Counts);

impl Stored for model::Icount {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.icount = Some(*self);
    }
}
