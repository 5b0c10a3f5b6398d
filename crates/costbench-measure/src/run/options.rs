//! What measuring takes ([`RunOptions`], with the options of the instruments that have their
//! own: [`Rounds`] and [`LoadOptions`], in their folders): plain validated values, in a file of
//! their own so that the instruments' shape, which hands them to an instrument's `finish`,
//! depends on them and not on the scheduler that uses them.

use super::sharding;
use super::{LoadOptions, Rounds};
use crate::cargo;
use costbench_record::instrument::InstrumentSet;
use std::time::Duration;

/// What measuring takes: validated options of `costbench run`, `check` and `variants`. Which
/// bench target, where results go by default, how they are printed and where they are recorded
/// are the commands' (they resolve the target and pass each side's output directory).
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The user's cargo flags (features, profile, lock file), for every build of the run.
    pub cargo: cargo::CargoFlags,
    /// Measure only the scenarios whose id matches (`--filter`); `None` measures all.
    pub filter: Option<regex::Regex>,
    /// List the scenarios instead of measuring them (`--list`).
    pub list_only: bool,
    /// The instruments to measure with.
    pub instruments: InstrumentSet,
    /// Scenarios measured at once (`--measure-jobs`).
    pub jobs: usize,
    /// Wall-time samples per scenario (`--samples`); `None` chooses them adaptively.
    pub samples: Option<u32>,
    /// Longest one child may run before it is killed.
    pub timeout: Duration,
    /// The CPU every wall-time child is pinned to (`--walltime-cpu`); `None` lets it move.
    pub walltime_cpu: Option<usize>,
    /// Function alignment of the builds (`--code-align`).
    pub code_align: cargo::CodeAlign,
    /// Show progress on stderr while measuring: the progress bar, the status lines of variant
    /// builds with cargo's own output, and warnings about an instrument the machine cannot run
    /// (one whose probe fails, `Phase::Probed`). Off where stdout and stderr must stay clean of it: `--quiet`, `--format json`,
    /// and `check`, whose report goes to stdout. How a command prints its results is the
    /// command's, so this is the only printing choice the measuring crate takes.
    pub progress: bool,
    /// Leave getrandom alone under callgrind.
    pub real_random: bool,
    /// Wall-time rounds when several sides are measured together.
    pub rounds: Rounds,
    /// With several sides: an id whose instructions per op differ between the first side and
    /// another by more than this (percent) gets data-placement runs.
    pub icount_threshold_pct: f64,
    /// Perturbed callgrind runs per side for such ids (`--placement-runs`; 0 = none).
    pub placement_runs: u32,
    /// `--shard K/N`: measure only this job's share of the scenarios (or variant cells).
    pub shard: Option<sharding::ShardPlan>,
    /// How service scenarios are put under load (their instrument's options).
    pub load: LoadOptions,
    /// `[[budget]]` of costbench.toml: checked after measuring, after the suite's own budgets
    /// (which they override where both limit the same figure of an id).
    pub budgets: Vec<costbench_record::model::budget::Budget>,
    /// costbench.toml's entries that accept the instruments' findings: the findings they match
    /// are recorded as accepted (reported, not failing).
    pub allowances: costbench_judge::instrument::Allowances,
}
