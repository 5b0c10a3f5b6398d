//! The shape every instrument has, the iai-callgrind way: a [`Parser`] that turns how a child
//! ended and the bytes it wrote ([`Output`]) into one measured id's figure or the [`Failure`]
//! to record, a figure that knows where the run record keeps it ([`Stored`]), and, for the
//! instruments whose children are one process per party writing one file, how such a child is
//! started ([`PerParty`], which the scheduler runs as a [`Party`]). It also holds the failure vocabulary the parsers share.
//! How the scheduler runs each instrument (`Phase`, `OwnPhase`) is `super::phase`'s.
//!
//! Parsing is pure: a parser spawns nothing and opens no file. The phases (`run::phases`, and the own phases in the folders) read
//! the file and pass its contents (or the I/O error) here, then keep or remove it; that way
//! every way a child can fail is unit-tested on recorded outputs. This file names no instrument.

use super::callgrind::Valgrind;
use crate::ending::Outcome;
use crate::run::options::RunOptions;
use anyhow::Context;
use costbench_protocol::{self as proto, CountersResult, WalltimeSamples};
use costbench_record::instrument::{Instrument, Need};
use costbench_record::model::{Failure, RunRecord, ScenarioResult};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// What one child of an instrument left behind, as its parser reads it.
pub(crate) struct Output<'a> {
    /// How the child ended.
    pub outcome: &'a Outcome,
    /// The `--timeout` it ran under (a killed child's message names it).
    pub timeout: Duration,
    /// Operations per run of the measured body.
    pub ops: u64,
    /// Where the bytes were read from, for messages.
    pub path: &'a Path,
    /// The file's contents, or why it could not be read.
    pub bytes: std::io::Result<Vec<u8>>,
    /// Where the results directory keeps the file, relative to it (empty when it is not kept).
    pub kept_as: String,
}

impl<'a> Output<'a> {
    /// What the child that ended as `outcome` left in the file at `path`, read now; `kept_as`:
    /// where the results directory keeps it (empty when it is not kept).
    pub fn read(
        outcome: &'a Outcome,
        timeout: Duration,
        ops: u64,
        path: &'a Path,
        kept_as: String,
    ) -> Output<'a> {
        Output {
            outcome,
            timeout,
            ops,
            path,
            bytes: std::fs::read(path),
            kept_as,
        }
    }

    /// `Err` with the child's own ending when it did not succeed (killed after the timeout,
    /// crashed, panicked): what it wrote then is not read.
    pub fn ended_well(&self, instrument: Instrument) -> Result<(), Failure> {
        ended_well(instrument.name(), self.outcome, self.timeout)
    }

    /// A failure of `instrument` in this child.
    pub fn failure(&self, instrument: Instrument, kind: &str, message: String) -> Failure {
        failure(instrument.name(), self.outcome, kind, message)
    }

    /// The file as text, worded as a reader of `what`'s output file words what it cannot read.
    pub fn text(&self, what: &str) -> anyhow::Result<String> {
        let text = match &self.bytes {
            Ok(b) => String::from_utf8(b.clone()).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "stream did not contain valid UTF-8",
                )
            }),
            Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
        };
        text.with_context(|| format!("cannot read {what} output {}", self.path.display()))
    }

    /// The [`CountersResult`] an in-process child wrote, or the protocol failure of
    /// `instrument` that says why there is none.
    pub fn counters(&self, instrument: Instrument) -> Result<CountersResult, Failure> {
        let inst = instrument.name();
        let decoded = match &self.bytes {
            Ok(b) => proto::decode_result::<CountersResult>(b),
            Err(e) => Err(proto::DecodeError::Io(std::io::Error::new(
                e.kind(),
                e.to_string(),
            ))),
        };
        decoded.map_err(|e| match e {
            e @ proto::DecodeError::Version { .. } => {
                self.failure(instrument, "protocol", e.to_string())
            }
            e => self.failure(
                instrument,
                "protocol",
                format!("unreadable {inst} result: {e}"),
            ),
        })
    }
}

/// One instrument's reading of what its child wrote: pure, and unit-tested on recorded
/// outputs in the instrument's `testdata/`.
pub(crate) trait Parser {
    /// The instrument, as the record crate's registry names it.
    const INSTRUMENT: Instrument;
    /// What it yields for one measured id (or one round, for throughput).
    type Figure;
    /// The figure, or the failure to record, from how the child ended and what it wrote.
    fn parse(&self, out: Output<'_>) -> Result<Self::Figure, Failure>;
}

/// A figure that knows its place in the run record.
pub(crate) trait Stored: Send {
    /// Puts it into `r`.
    fn store(self: Box<Self>, r: &mut ScenarioResult);
}

/// What the phases hand to the record for one measured id: a figure, or why there is none.
pub(crate) type Measured = Result<Box<dyn Stored>, Failure>;

/// What rides on one binary's runs of the instrument it rides on: the arguments it adds to
/// that instrument's tool, and its figure read from the file each run kept.
pub(crate) trait Rider: Send + Sync {
    /// Arguments it adds to the tool of the run it rides on (which must not change that
    /// run's own figure).
    fn tool_args(&self) -> &'static [&'static str];
    /// Its figure of one measured id, from the file the run it rides on kept (`out.path`).
    fn read(&self, out: Output<'_>) -> Measured;
}

/// An instrument whose children are one process per party of a scenario, each writing one
/// file: what it says of itself beyond its [`Parser`]. Every method has a default from the
/// instrument's descriptor: under valgrind (`Need::Valgrind`), the scenario binary runs its plain
/// measured mode (`icount`); otherwise it runs in its instrument's own mode and measures itself
/// ([`in_process`]). Whether its file stays in the results directory or is read and removed is
/// the descriptor's `kept`. An instrument under valgrind says how valgrind is started ([`PerParty::command`]).
pub(crate) trait PerParty: Parser + Sync {
    /// The mode the scenario binary runs in.
    fn mode(&self) -> &'static str {
        if Self::INSTRUMENT.needs(Need::Valgrind) {
            "icount"
        } else {
            Self::INSTRUMENT.name()
        }
    }
    /// Whether getrandom is pinned in its children (as in every counted run).
    fn pin_random(&self) -> bool {
        true
    }
    /// The command of one party: scenario binary `exe` with `args`, under `valgrind` when the
    /// instrument needs it, writing its output to `out_file` (no `%` in it). By default the
    /// binary measures itself.
    fn command(
        &self,
        _valgrind: Option<&Valgrind>,
        exe: &Path,
        args: Vec<String>,
        out_file: &Path,
    ) -> Command {
        in_process(exe, args, out_file)
    }
    /// What it does to a side's record once every phase has ended, before the record is
    /// finished and written: by default nothing. `root` is the workspace the side was built
    /// from, `opts` what the run was asked.
    fn finish(&self, _record: &mut RunRecord, _root: &Path, _opts: &RunOptions) {}
}

/// A [`PerParty`] instrument as the scheduler runs it (`run::phases`, the registry's phase): one phase for all of
/// them, through this object-safe face.
pub(crate) trait Party: Sync {
    /// The instrument.
    fn instrument(&self) -> Instrument;
    /// [`PerParty::mode`].
    fn mode(&self) -> &'static str;
    /// [`PerParty::pin_random`].
    fn pin_random(&self) -> bool;
    /// [`PerParty::command`].
    fn command(
        &self,
        valgrind: Option<&Valgrind>,
        exe: &Path,
        args: Vec<String>,
        out_file: &Path,
    ) -> Command;
    /// [`Parser::parse`], with the figure on its way to the record.
    fn read(&self, out: Output<'_>) -> Measured;
    /// [`PerParty::finish`].
    fn finish(&self, record: &mut RunRecord, root: &Path, opts: &RunOptions);
}

impl<T> Party for T
where
    T: PerParty,
    T::Figure: Stored + 'static,
{
    fn instrument(&self) -> Instrument {
        T::INSTRUMENT
    }
    fn mode(&self) -> &'static str {
        PerParty::mode(self)
    }
    fn pin_random(&self) -> bool {
        PerParty::pin_random(self)
    }
    fn command(
        &self,
        valgrind: Option<&Valgrind>,
        exe: &Path,
        args: Vec<String>,
        out_file: &Path,
    ) -> Command {
        PerParty::command(self, valgrind, exe, args, out_file)
    }
    fn read(&self, out: Output<'_>) -> Measured {
        self.parse(out).map(|f| Box::new(f) as Box<dyn Stored>)
    }
    fn finish(&self, record: &mut RunRecord, root: &Path, opts: &RunOptions) {
        PerParty::finish(self, record, root, opts)
    }
}

/// The scenario binary `exe` with `args` measuring itself (an in-process instrument),
/// writing its result to `out_file`.
pub(crate) fn in_process(exe: &Path, mut args: Vec<String>, out_file: &Path) -> Command {
    args.push("--result".into());
    args.push(out_file.display().to_string());
    let mut cmd = Command::new(exe);
    cmd.args(args);
    cmd
}

/// Per measured id of a scenario: the samples one wall-time child took, or why it has none.
pub(crate) type ChildSamples = Vec<(String, Result<WalltimeSamples, Failure>)>;

/// A failure of `instrument` in a child that ended as `outcome` (its stderr tail kept).
pub(crate) fn failure(instrument: &str, outcome: &Outcome, kind: &str, message: String) -> Failure {
    Failure {
        instrument: instrument.into(),
        kind: kind.into(),
        message,
        stderr_tail: outcome.stderr_tail.clone(),
    }
}

/// A wall-time child that ran but measured nothing.
pub(crate) fn walltime_failure(message: &str, stderr_tail: &str) -> Failure {
    Failure {
        instrument: "walltime".into(),
        kind: "no-measurement".into(),
        message: message.into(),
        stderr_tail: stderr_tail.into(),
    }
}

/// `Err` with the child's own ending when it did not succeed (killed after `timeout`, crashed,
/// panicked): what it wrote then is not read.
pub(crate) fn ended_well(
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

#[cfg(test)]
pub(crate) mod testing {
    //! Child endings and file contents the instruments' tests share.
    use crate::ending::{Ending, Outcome};
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

    pub fn missing<T>() -> std::io::Result<T> {
        Err(std::io::Error::new(std::io::ErrorKind::NotFound, "gone"))
    }

    pub fn path() -> &'static Path {
        Path::new("out/.tmp")
    }

    /// What a child that ended as `outcome` wrote (`bytes`), read from [`path`].
    pub fn output(
        outcome: &Outcome,
        ops: u64,
        bytes: std::io::Result<Vec<u8>>,
    ) -> super::Output<'_> {
        super::Output {
            outcome,
            timeout: TIMEOUT,
            ops,
            path: path(),
            bytes,
            kept_as: String::new(),
        }
    }

    /// [`output`] of a text file.
    pub fn file<'a>(outcome: &'a Outcome, ops: u64, text: &str) -> super::Output<'a> {
        output(outcome, ops, Ok(text.as_bytes().to_vec()))
    }
}
