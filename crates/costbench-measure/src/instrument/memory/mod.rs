//! Allocation counts and max RSS, measured by the scenario binary on itself: one process per
//! party in `memory` mode, with the library's counting allocator (`count-alloc` feature) read
//! around the measured body and `getrusage` at its end, writing a result file that [`parse`]
//! turns into per-op figures.

pub mod parse;

use super::callgrind::Valgrind;
use super::shape::{in_process, Measured, Output, Parser, PerParty, Stored};
use costbench_record::instrument::Instrument;
use costbench_record::model::{self, ScenarioResult};
use std::path::Path;
use std::process::Command;

/// The memory instrument, as the registry runs it.
pub(crate) struct Memory;

impl PerParty for Memory {
    fn instrument(&self) -> Instrument {
        Instrument::Memory
    }

    fn command(
        &self,
        _: Option<&Valgrind>,
        exe: &Path,
        args: Vec<String>,
        out_file: &Path,
    ) -> Command {
        in_process(exe, args, out_file)
    }

    fn read(&self, out: Output<'_>) -> Measured {
        self.parse(out).map(|m| Box::new(m) as Box<dyn Stored>)
    }
}

impl Stored for model::Memory {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.counters.memory = Some(*self);
    }
}
