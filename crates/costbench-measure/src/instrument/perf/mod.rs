//! Hardware counters (`perf_event_open`), read by the scenario binary around the measured body:
//! one process per party in `perf` mode, one scenario at a time (cycles depend on what else
//! runs), after a probe on the library's empty scenario that says whether the kernel grants
//! counters at all. [`parse`] scales multiplexed counters and words the kernel's refusal.

pub mod parse;

use super::phase::Phase;
use super::shape::{PerParty, Stored};
use costbench_record::instrument::perf;
use costbench_record::model::ScenarioResult;

/// How the scheduler runs it: one process per party, one scenario at a time, after a probe on the library's empty scenario.
pub(crate) const PHASE: Phase = Phase::Probed(&Perf);

/// The perf instrument, as the registry runs it.
pub(crate) struct Perf;

impl PerParty for Perf {
    /// Hardware counters count the real process: nothing is preloaded into it.
    fn pin_random(&self) -> bool {
        false
    }
}

impl Stored for perf::Perf {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.counters.perf = Some(*self);
    }
}
