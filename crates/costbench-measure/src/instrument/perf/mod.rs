//! Hardware counters (`perf_event_open`), read by the scenario binary around the measured body:
//! one process per party in `perf` mode, one scenario at a time (cycles depend on what else
//! runs), after a probe on the library's empty scenario that says whether the kernel grants
//! counters at all. [`parse`] scales multiplexed counters and words the kernel's refusal.

pub mod parse;

use super::callgrind::Valgrind;
use super::shape::{in_process, Measured, Output, Parser, PerParty, Stored};
use costbench_record::instrument::Instrument;
use costbench_record::model::{self, ScenarioResult};
use std::path::Path;
use std::process::Command;

/// The perf instrument, as the registry runs it.
pub(crate) struct Perf;

impl PerParty for Perf {
    fn instrument(&self) -> Instrument {
        Instrument::Perf
    }

    /// Hardware counters count the real process: nothing is preloaded into it.
    fn pin_random(&self) -> bool {
        false
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
        self.parse(out).map(|p| Box::new(p) as Box<dyn Stored>)
    }
}

impl Stored for model::Perf {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.counters.perf = Some(*self);
    }
}
