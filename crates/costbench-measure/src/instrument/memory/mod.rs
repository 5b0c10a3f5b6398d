//! Allocation counts and max RSS, measured by the scenario binary on itself: one process per
//! party in `memory` mode, with the library's counting allocator (`count-alloc` feature) read
//! around the measured body and `getrusage` at its end, writing a result file that [`parse`]
//! turns into per-op figures.

pub mod parse;

use super::phase::Phase;
use super::shape::{PerParty, Stored};
use costbench_record::instrument::memory;
use costbench_record::model::ScenarioResult;

/// How the scheduler runs it: one process per party, `--measure-jobs` scenarios at once.
pub(crate) const PHASE: Phase = Phase::Parallel(&Memory);

/// The memory instrument, as the registry runs it.
pub(crate) struct Memory;

impl PerParty for Memory {}

impl Stored for memory::Memory {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.counters.memory = Some(*self);
    }
}
