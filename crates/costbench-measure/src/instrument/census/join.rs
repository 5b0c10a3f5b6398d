//! The static census of one scenario binary as the census joins it with callgrind's output
//! ([`CensusJoin`], the census's rider on the icount runs) and the callgrind option it needs.

use costbench_record::instrument::census::StaticCensus;
use std::path::{Path, PathBuf};

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
    pub(crate) fn new(guards: StaticCensus, exe: &Path) -> CensusJoin {
        CensusJoin {
            guards,
            exe: exe.to_path_buf(),
            canonical: exe.canonicalize().ok(),
        }
    }

    pub(super) fn guards(&self) -> &StaticCensus {
        &self.guards
    }

    pub(super) fn is_binary(&self, ob: &str) -> bool {
        let ob = Path::new(ob);
        ob == self.exe || self.canonical.as_deref() == Some(ob)
    }
}

