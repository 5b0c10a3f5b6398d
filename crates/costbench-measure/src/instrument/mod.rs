//! The instruments, one folder each of one shape: `mod.rs` says how its process is started
//! (arguments, environment, files) and ties it to the registry, `parse.rs` reads what the child
//! wrote (pure, tested on the recorded outputs in the folder's `testdata/`). What the shape is
//! (`shape::Parser`, `shape::Stored`, `shape::PerParty`, `shape::Party`) is
//! `shape`'s; [`callgrind`] is not an instrument but what icount, census and cache share:
//! finding valgrind, callgrind's command line and the one reader of its output format.
//!
//! This file is the registry's other half: the record crate's list of instruments
//! (`costbench_record::for_each_instrument!`, one entry each) expands here into one `mod` line
//! per instrument's folder (named in its entry), and into `phase`, which says how
//! the scheduler (`run`) runs each: what its folder's `PHASE` says. A new instrument's folder is
//! found through its entry, so this file needs no edit. What an instrument is called, needs and yields
//! is the record crate's (`costbench_record::instrument`). Nothing here schedules, and no
//! instrument imports another (census rides on icount's run, but reads the file through its
//! own parser). [`import`] is the shape of another harness's file that holds an instrument's
//! figure, and [`CI_BENCH`] lists the instruments whose folders read one.

pub mod callgrind;
pub mod import;
pub(crate) mod shape;

use costbench_record::instrument::Instrument;
pub(crate) mod phase;
pub(crate) use phase::Phase;

/// One `mod` line per instrument of the registry, and the table of how each runs.
macro_rules! folders {
    ($( $(#[$doc:meta])* $variant:ident($folder:ident) { $($field:tt)* } ),* $(,)?) => {
        $( pub mod $folder; )*

        /// The registry: how each instrument runs (its folder's `PHASE`).
        pub(crate) fn phase(i: Instrument) -> Phase {
            match i {
                $( Instrument::$variant => $folder::PHASE, )*
            }
        }
    };
}

costbench_record::for_each_instrument!(folders);

/// The files of rustls ci-bench's output that `costbench import` reads, each its instrument's
/// (in its folder's `ci_bench`), in the order they are read: a scenario's row in the imported
/// record comes where the first of them names it.
pub const CI_BENCH: &[&import::CiBenchFile] = &[&icount::ci_bench::FILE, &walltime::ci_bench::FILE];

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
                (p.mode(), i.descriptor().kept.is_some(), p.pin_random())
            }
            Phase::Own(_) | Phase::Riding(_) => panic!("{i:?} has a phase of its own"),
        };
        assert_eq!(party(Instrument::Cache), ("icount", true, true));
        assert_eq!(party(Instrument::Dhat), ("icount", true, true));
        assert_eq!(party(Instrument::Memory), ("memory", false, true));
        assert_eq!(party(Instrument::Perf), ("perf", false, false));
        assert_eq!(party(Instrument::ConstantTime), ("icount", true, true));
    }
}
