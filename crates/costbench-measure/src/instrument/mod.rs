//! The instruments, one folder each of one shape: `mod.rs` says how its process is started
//! (arguments, environment, files) and ties it to the registry, `parse.rs` reads what the child
//! wrote (pure, tested on the recorded outputs in the folder's `testdata/`). What the shape is
//! ([`shape::Parser`], [`shape::Stored`], [`shape::PerParty`], [`shape::Party`]) is
//! [`shape`]'s; [`callgrind`] is not an instrument but what icount, census and cache share:
//! finding valgrind, callgrind's command line and the one reader of its output format.
//!
//! This file is the registry: [`phase`] says, one line per instrument, how the scheduler
//! (`run`) runs it. What an instrument is called, needs and yields is the record crate's
//! (`costbench_record::instrument`). Nothing here schedules, and no instrument imports another
//! (census rides on icount's run, but reads the file through its own parser).

pub mod cache;
pub mod callgrind;
pub mod census;
pub mod dhat;
pub mod icount;
pub mod memory;
pub mod perf;
pub(crate) mod shape;
pub mod throughput;
pub mod walltime;

use costbench_record::instrument::Instrument;
use shape::Party;

/// How the scheduler runs an instrument.
pub(crate) enum Phase {
    /// By a phase of its own in `run`: icount (with the harness residual, and the census riding
    /// on it), wall time (one scenario at a time, or interleaved with other builds) and
    /// throughput (a server and load processes per round).
    Own,
    /// One process per party of each scenario, `--measure-jobs` scenarios at once.
    Parallel(&'static dyn Party),
    /// One process per party, one scenario at a time (its figures depend on what else runs),
    /// after a probe on the library's empty scenario says whether it can run here at all.
    Probed(&'static dyn Party),
}

/// The registry: how each instrument runs.
pub(crate) fn phase(i: Instrument) -> Phase {
    match i {
        Instrument::Icount => Phase::Own,
        Instrument::Walltime => Phase::Own,
        Instrument::Cache => Phase::Parallel(&cache::Cache),
        Instrument::Memory => Phase::Parallel(&memory::Memory),
        Instrument::Perf => Phase::Probed(&perf::Perf),
        Instrument::Dhat => Phase::Parallel(&dhat::Dhat),
        Instrument::Census => Phase::Own,
        Instrument::Throughput => Phase::Own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-party instruments take how they run from their descriptors: under valgrind the
    /// plain measured mode with the file kept, in process their own mode with the file removed.
    #[test]
    fn per_party_instruments_run_as_their_descriptors_say() {
        let party = |i| match phase(i) {
            Phase::Parallel(p) | Phase::Probed(p) => {
                assert_eq!(p.instrument(), i);
                (p.mode(), p.kept(), p.pin_random())
            }
            Phase::Own => panic!("{i:?} has a phase of its own"),
        };
        assert_eq!(party(Instrument::Cache), ("icount", true, true));
        assert_eq!(party(Instrument::Dhat), ("icount", true, true));
        assert_eq!(party(Instrument::Memory), ("memory", false, true));
        assert_eq!(party(Instrument::Perf), ("perf", false, false));
    }
}
