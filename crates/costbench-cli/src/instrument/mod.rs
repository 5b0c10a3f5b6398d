//! The command line's slices of the instruments: what a command does with one instrument's
//! figure beyond asking the layers below, one folder per instrument that has any
//! (`walltime/`: its pairing in a backfill). The shape the command line loops over is beside
//! this file (`pairing`), and the list of the slices that fill it is here: the commands and the
//! command core ask the list and do not name the instrument. (Features built on one figure still name the figure they are
//! about: bisect and the explanations on instruction counts, advise's checks on the census.)
//! The other layers' slices are in their crates (`costbench_record::instrument`, the registry;
//! the measuring crate's folders, which also read other tools' files of a figure for `costbench
//! import`; the report's). The slices sit below the command core: they import the crates below
//! and this folder, never `core` or a command, so that both may ask them.

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
