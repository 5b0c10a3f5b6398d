//! The census instrument: bounds and overflow checks executed per op. It rides on the icount
//! run, which with [`TOOL_ARGS`] also writes each instruction's execution count (the `Ir` total
//! is unchanged); [`parse`] joins those counts with the guards the static census
//! (`crate::census`) found in the binary beforehand.
//!
//! It starts no process of its own: the icount phase (`icount::phase`) hands it the kept
//! callgrind file of every measured id.

pub mod parse;
pub mod sites;

use super::shape::{Phase, Stored};
use costbench_record::census::StaticCensus;
use costbench_record::model::{self, ScenarioResult};
use std::path::{Path, PathBuf};

/// How the scheduler runs it: on the icount run, in its phase.
pub(crate) const PHASE: Phase = Phase::Riding;

/// Callgrind option that writes a cost line per instruction address (`positions: instr line`):
/// the census reads guard execution counts from it. It does not change the Ir total.
pub const TOOL_ARGS: &[&str] = &["--dump-instr=yes"];

/// The static census of a scenario binary and how to recognise it in callgrind's output.
pub(crate) struct CensusJoin {
    guards: StaticCensus,
    /// The binary's path as given to valgrind, and canonical: callgrind names objects by the
    /// path they were mapped from.
    exe: PathBuf,
    canonical: Option<PathBuf>,
}

impl CensusJoin {
    /// Callgrind's arguments for the run the census rides on ([`TOOL_ARGS`]).
    pub(crate) fn tool_args(&self) -> &'static [&'static str] {
        TOOL_ARGS
    }

    pub(crate) fn new(guards: StaticCensus, exe: &Path) -> CensusJoin {
        CensusJoin {
            guards,
            exe: exe.to_path_buf(),
            canonical: exe.canonicalize().ok(),
        }
    }

    fn guards(&self) -> &StaticCensus {
        &self.guards
    }

    fn is_binary(&self, ob: &str) -> bool {
        let ob = Path::new(ob);
        ob == self.exe || self.canonical.as_deref() == Some(ob)
    }
}

impl Stored for model::Census {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.census = Some(*self);
    }
}
