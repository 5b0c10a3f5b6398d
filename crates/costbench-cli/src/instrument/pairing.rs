//! The shape of a figure that `history backfill` measures paired with the previous measured
//! commit rather than alone (`Pairing`: which instrument, how a commit's figures are measured
//! and how a carried-over commit's steps read), and what the pairing is given of that commit
//! (`Previous`). The backfill asks the slices' list (`super::PAIRINGS`) and names no
//! instrument; each pairing is its instrument's, in its folder. It must not walk commits or
//! record runs: that is the backfill's.

use anyhow::Result;
use costbench_measure::cargo::{BenchTarget, BuiltBench};
use costbench_measure::run::RunOptions;
use costbench_record::instrument::Instrument;
use costbench_record::model::RunRecord;
use std::path::{Path, PathBuf};

/// The commit a measured commit's figure is paired with: the nearest measured commit before
/// it, with its kept binary and its record.
#[derive(Clone)]
pub(crate) struct Previous {
    pub sha: String,
    pub exe: PathBuf,
    /// The other bench targets' kept binaries (issue 41).
    pub others: Vec<BuiltBench>,
    pub run: RunRecord,
}

/// The commit a pairing measures: its worktree's bench target, its kept binary and the other
/// targets' kept binaries, and the directory its results go to.
pub(crate) struct Commit<'a> {
    pub target: &'a BenchTarget,
    pub exe: &'a Path,
    pub others: &'a [BuiltBench],
    pub dir: &'a Path,
}

/// Measures a commit as the command's options ask (with the command's bench target, which names
/// the suite): the other instruments alone and the paired one against the previous commit.
/// Returns the commit's record, every figure of the paired instrument with its step.
pub(crate) type Measure =
    fn((&RunOptions, &BenchTarget), Commit<'_>, &Previous) -> Result<RunRecord>;

/// An instrument whose figure a backfill measures in pairs, commit against previous commit.
pub(crate) struct Pairing {
    /// The instrument paired.
    pub instrument: Instrument,
    /// What the status line says a paired commit is measured with: `{what} paired with SHA`.
    pub what: &'static str,
    /// Measures the commit: see [`Measure`].
    pub measure: Measure,
    /// Gives the steps of a commit whose figures are carried over from the commit named (none
    /// of its build's files changed): the same binary, so no change.
    pub carried: fn(&mut RunRecord, &str),
}
