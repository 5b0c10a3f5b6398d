//! Reading what each instrument's child left behind: from how the child ended and the bytes it
//! wrote, one measured id's figure or the [`Failure`] to record. One function per instrument,
//! all of one shape, the iai-callgrind way: [`valgrind`] (instruction counts, the census riding
//! on them, cache and DHAT), [`in_process`] (memory and perf) and [`walltime`]. This file holds
//! what they share: the figure type, the instruments' identities and the failure vocabulary.
//!
//! These functions are pure: they spawn nothing and open no file. The phases
//! ([`super::phases`]) read the file and pass its contents (or the I/O error) here, then keep or
//! remove it; that way every way a child can fail is unit-tested on recorded outputs.

mod in_process;
mod throughput;
mod valgrind;
mod walltime;

pub(super) use in_process::in_process;
pub(super) use throughput::load_round;
pub(super) use valgrind::{icount, tool, CensusJoin};
pub(super) use walltime::walltime;

use super::child::Outcome;
use anyhow::Context;
use costbench_protocol::WalltimeSamples;
use costbench_record::model::{self, Failure, Icount};
use std::path::Path;
use std::time::Duration;

/// What one instrument produced for one measured id, on its way into the run record.
pub(super) enum Measured {
    Icount(Icount),
    Walltime(Box<model::Walltime>),
    Census(model::Census),
    Cache(model::CacheSim),
    Memory(model::Memory),
    Perf(model::Perf),
    Dhat(model::Dhat),
    Throughput(Box<model::Throughput>),
}

/// The valgrind tools other than the instruction count: one process per party under valgrind,
/// each writing an output file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tool {
    /// Callgrind with cache and branch simulation.
    Cache,
    /// DHAT's heap profile.
    Dhat,
}

impl Tool {
    /// The instrument's name, as in `--instrument` and the record's failures.
    pub(super) fn name(self) -> &'static str {
        match self {
            Tool::Cache => "cache",
            Tool::Dhat => "dhat",
        }
    }
}

/// The instruments the scenario binary runs on itself, one process per party, writing a
/// [`CountersResult`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum InProcess {
    /// Allocation counts and max RSS.
    Memory,
    /// Hardware counters.
    Perf,
}

impl InProcess {
    /// The instrument's name, as in `--instrument`, the child's mode and the record's failures.
    pub(super) fn name(self) -> &'static str {
        match self {
            InProcess::Memory => "memory",
            InProcess::Perf => "perf",
        }
    }
}

/// Per measured id of a scenario: the samples one wall-time child took, or why it has none.
pub(super) type ChildSamples = Vec<(String, Result<WalltimeSamples, Failure>)>;

/// A failure of `instrument` in a child that ended as `outcome` (its stderr tail kept).
pub(super) fn failure(instrument: &str, outcome: &Outcome, kind: &str, message: String) -> Failure {
    Failure {
        instrument: instrument.into(),
        kind: kind.into(),
        message,
        stderr_tail: outcome.stderr_tail.clone(),
    }
}

/// A wall-time child that ran but measured nothing.
pub(super) fn walltime_failure(message: &str, stderr_tail: &str) -> Failure {
    Failure {
        instrument: "walltime".into(),
        kind: "no-measurement".into(),
        message: message.into(),
        stderr_tail: stderr_tail.into(),
    }
}

/// `Err` with the child's own ending when it did not succeed (killed after `timeout`, crashed,
/// panicked): what it wrote then is not read.
pub(super) fn ended_well(
    instrument: &str,
    outcome: &Outcome,
    timeout: Duration,
) -> Result<(), Failure> {
    if outcome.success() {
        return Ok(());
    }
    let (kind, message) = outcome.describe(timeout);
    Err(failure(instrument, outcome, &kind, message))
}

/// The text of a tool's output file at `path` (named `what` in messages), as
/// [`crate::measure::callgrind::read_totals`] and [`crate::measure::dhat::read_totals`] word a
/// file they cannot read.
pub(super) fn tool_text(
    what: &str,
    path: &Path,
    text: std::io::Result<String>,
) -> anyhow::Result<String> {
    text.with_context(|| format!("cannot read {what} output {}", path.display()))
}

#[cfg(test)]
pub(super) mod testing {
    //! Child endings and file contents the instruments' tests share.
    use super::super::child::{Ending, Outcome};
    use std::os::unix::process::ExitStatusExt;
    use std::path::Path;
    use std::time::Duration;

    pub const TIMEOUT: Duration = Duration::from_secs(7);

    pub fn exited(code: i32) -> Outcome {
        Outcome {
            ending: Ending::Exited(std::process::ExitStatus::from_raw(code << 8)),
            stderr_tail: "last lines".into(),
            stderr: None,
        }
    }

    pub fn ok() -> Outcome {
        exited(0)
    }

    pub fn timed_out() -> Outcome {
        Outcome {
            ending: Ending::TimedOut,
            stderr_tail: String::new(),
            stderr: None,
        }
    }

    pub fn text(t: &str) -> std::io::Result<String> {
        Ok(t.to_string())
    }

    pub fn missing<T>() -> std::io::Result<T> {
        Err(std::io::Error::new(std::io::ErrorKind::NotFound, "gone"))
    }

    pub fn path() -> &'static Path {
        Path::new("out/.tmp")
    }
}
