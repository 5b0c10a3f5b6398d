//! How the scheduler (`run`) runs an instrument: each instrument's folder says it in its `PHASE`
//! ([`Phase`]): riding on another's run, one process per party (a [`Party`], in parallel or
//! probed), or by a phase of its own ([`OwnPhase`], whose hooks the scheduler calls without
//! naming the instrument). Apart from `shape` because an own phase is handed every side's
//! session (`run::session::Sides`), which itself stores the figures `shape` describes: kept
//! together, the two files would import each other.

use super::shape::{Party, Rider};
use crate::cargo::BenchTarget;
use crate::run::binary::Binary;
use crate::run::options::RunOptions;
use crate::run::session::Sides;
use costbench_protocol::ScenarioInfo;
use costbench_record::model::ScenarioResult;

/// How the scheduler runs an instrument: each instrument's folder says it in its `PHASE`.
#[derive(Clone, Copy)]
pub(crate) enum Phase {
    /// Rides on another instrument's run (the census reads the icount run's callgrind output):
    /// no phase and no rows of progress of its own; what it needs of each binary beforehand is
    /// its [`Ride`]'s.
    Riding(&'static dyn Ride),
    /// By a phase of its own, in its folder ([`OwnPhase`]): an instrument that is not one
    /// process per party writing one file (a run another instrument rides on, rounds
    /// interleaved with other builds, servers under load).
    Own(&'static dyn OwnPhase),
    /// One process per party of each scenario, `--measure-jobs` scenarios at once.
    Parallel(&'static dyn Party),
    /// One process per party, one scenario at a time (its figures depend on what else runs),
    /// after a probe on the library's empty scenario says whether it can run here at all.
    Probed(&'static dyn Party),
}

impl Phase {
    /// Whether the progress bar counts one row per measured id for it up front.
    pub(crate) fn counted(&self) -> bool {
        match self {
            Phase::Riding(_) => false,
            Phase::Own(p) => p.counted(),
            Phase::Parallel(_) | Phase::Probed(_) => true,
        }
    }
}

/// An instrument with a phase of its own, as the scheduler (`run`) runs it: the scheduler
/// calls these hooks in the instrument's place in the run order (its `run_rank`), among the
/// instruments under valgrind or the native ones as its `needs` say, and names no instrument.
/// Every hook has a default that does nothing.
pub(crate) trait OwnPhase: Sync {
    /// Whether the progress bar counts one row per measured id for it up front; a phase whose
    /// rows are known only when it starts (servers times client counts) says `false` and adds
    /// them then.
    fn counted(&self) -> bool {
        true
    }
    /// Measures side `k` of `sides`, in the loop over each side.
    fn per_side(&self, _sides: &Sides<'_, '_>, _k: usize) -> anyhow::Result<()> {
        Ok(())
    }
    /// Measures every side at once, after the loop over each side of its group.
    fn all_sides(&self, _sides: &Sides<'_, '_>) -> anyhow::Result<()> {
        Ok(())
    }
    /// Whether it times on `--walltime-cpu`: the run holds that CPU's lock.
    fn holds_cpu(&self) -> bool {
        false
    }
    /// Whether the run record's settings keep `--walltime-cpu` for it.
    fn records_cpu(&self) -> bool {
        false
    }
    /// Refuses the run (a usage error) when it was asked for and the selected scenarios of
    /// every side (before sharding) give it nothing to measure.
    fn refuse(
        &self,
        _target: &BenchTarget,
        _selections: &[Vec<&ScenarioInfo>],
    ) -> anyhow::Result<()> {
        Ok(())
    }
    /// The empty rows it adds to a new record for scenario `s`, beside the scenario's own.
    fn extra_rows(&self, _opts: &RunOptions, _s: &ScenarioInfo) -> Vec<ScenarioResult> {
        Vec::new()
    }
    /// How it measures several sides together, as a status line says it before they are
    /// measured (`run::together`); `None` when it says nothing.
    fn together(&self, _opts: &RunOptions) -> Option<String> {
        None
    }
}

/// An instrument riding on another's run, as the run's setup prepares it for each binary
/// before any phase: what joins the run it rides on (a [`Rider`]), or why it is skipped for
/// that binary (said as a warning and kept in the record's `skipped`).
pub(crate) trait Ride: Sync {
    /// Its rider for `bin`'s runs, or why it cannot ride on them.
    fn prepare(&self, bin: &Binary) -> Result<Box<dyn Rider>, String>;
    /// What still runs when it is skipped, for the warning: "instruction counts still run".
    fn still_runs(&self) -> &'static str;
}
