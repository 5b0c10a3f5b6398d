//! The command line's slices of the instruments: what a command does with one instrument's
//! figure beyond asking the layers below, one folder per instrument that has any
//! (`walltime/`: its pairing in a backfill, the threshold of its short history series). The
//! shapes the command line loops over are beside this file (`pairing`, `history`), and the
//! lists of the slices that fill them are here: the commands and the command core ask the lists
//! and do not name the instrument. (Features built on one figure still name the figure they are
//! about: bisect and the explanations on instruction counts, advise's checks on the census.)
//! The other layers' slices are in their crates (`costbench_record::instrument`, the registry;
//! the measuring crate's folders, which also read other tools' files of a figure for `costbench
//! import`; the report's). The slices sit below the command core: they import the crates below
//! and this folder, never `core` or a command, so that both may ask them.

pub(crate) mod history;
pub(crate) mod pairing;
pub(crate) mod walltime;

use costbench_record::instrument::{Figure, InstrumentSet};
use history::ShortHistory;
use pairing::Pairing;

/// The figures a backfill measures in pairs, commit against previous commit (wall time's).
pub(crate) const PAIRINGS: &[&Pairing] = &[&walltime::pairing::PAIRING];

/// The pairing of the first instrument `asked` that has one: the commits are measured in pairs
/// when there is one.
pub(crate) fn pairing(asked: InstrumentSet) -> Option<&'static Pairing> {
    PAIRINGS.iter().copied().find(|p| asked.asked(p.instrument))
}

/// The thresholds of short history series that are not the comparison's default (wall time's).
pub(crate) const SHORT_HISTORY: &[&ShortHistory] = &[&walltime::history::SHORT_HISTORY];

/// The threshold (percent) of a history series of `figure` too short to learn one from, and
/// where it came from, when its instrument's slice gives one; `None`: the comparison's default.
pub(crate) fn short_history_threshold(figure: Figure) -> Option<(f64, &'static str)> {
    SHORT_HISTORY
        .iter()
        .find(|s| s.figure == figure)
        .map(|s| (s.threshold_pct, s.from))
}
