//! The command line's slices of the instruments: what a command does with one instrument's
//! figure beyond asking the layers below, one folder per instrument that has any
//! (`walltime/`: its pairing in a backfill). The shapes the commands loop over are beside this
//! file (`pairing`), and the lists of the slices that fill them are here; nothing else in the
//! command line names an instrument to do something with its figure. The other layers' slices
//! are in their crates (`costbench_record::instrument`, the registry; the measuring crate's
//! folders, which also read other tools' files of a figure for `costbench import`; the
//! report's). A slice may use the command core (`core`), and must not import a command.

pub(crate) mod pairing;
pub(crate) mod walltime;

use costbench_record::instrument::InstrumentSet;
use pairing::Pairing;

/// The figures a backfill measures in pairs, commit against previous commit (wall time's).
pub(crate) const PAIRINGS: &[&Pairing] = &[&walltime::pairing::PAIRING];

/// The pairing of the first instrument `asked` that has one: the commits are measured in pairs
/// when there is one.
pub(crate) fn pairing(asked: InstrumentSet) -> Option<&'static Pairing> {
    PAIRINGS.iter().copied().find(|p| asked.asked(p.instrument))
}
