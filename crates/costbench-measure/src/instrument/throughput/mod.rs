//! Throughput of service scenarios under load: per round, a fresh server process and a load
//! process driving it over loopback TCP with `--clients` connections (closed loop, or open at
//! `--rate`), measuring time slices. The rounds are its `phase`'s; [`parse`] reads a
//! round and turns the rounds of one build into figures; [`options`] says how it loads them.

pub mod options;
pub mod parse;
mod phase;

use super::phase::Phase;
use super::shape::Stored;
use costbench_record::model::{self, ScenarioResult};

/// How the scheduler runs it: by a phase of its own: a server and load processes per round.
pub(crate) const PHASE: Phase = Phase::Own(&phase::Load);

impl Stored for model::Throughput {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.throughput = Some(*self);
    }
}
