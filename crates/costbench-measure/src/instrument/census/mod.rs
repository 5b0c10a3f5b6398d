//! The census instrument: bounds and overflow checks executed per op. It rides on the icount
//! run, which with [`TOOL_ARGS`] also writes each instruction's execution count (the `Ir` total
//! is unchanged); [`parse`] joins those counts with the guards the static census
//! (`crate::census`) found in the binary beforehand.
//!
//! It starts no process of its own: the icount phase (`icount::phase`) hands it the kept
//! callgrind file of every measured id.

pub(crate) mod join;
pub mod parse;
pub mod sites;

pub(crate) use join::CensusJoin;
pub use join::TOOL_ARGS;

use super::phase::Phase;
use super::shape::Stored;
use costbench_record::model::{self, ScenarioResult};

/// How the scheduler runs it: on the icount run, in its phase.
pub(crate) const PHASE: Phase = Phase::Riding;


impl Stored for model::Census {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.census = Some(*self);
    }
}
