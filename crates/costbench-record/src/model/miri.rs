//! Miri's verdicts as data: the JSON report of `costbench miri` (its schema and version), one
//! result per scenario, and what Miri found. Plain serde types and what can be read off them
//! (a verdict's name, whether it fails the command); running Miri and reading its output belong
//! to `miri`, the tables to `report::miri`. Nothing here spawns, prints or reads files.

#![warn(missing_docs)]

use serde::{Deserialize, Serialize};

/// `schema` of the JSON report.
pub const SCHEMA: &str = "costbench-miri";
/// Bump on any incompatible change of the JSON report.
pub const SCHEMA_VERSION: u32 = 1;

/// The JSON report (`--format json`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MiriReport {
    /// [`SCHEMA`].
    pub schema: String,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// The costbench that ran Miri.
    pub tool: super::Tool,
    /// The suite and bench target run.
    pub suite: super::SuiteInfo,
    /// Rustup toolchain that ran Miri.
    pub toolchain: String,
    /// `cargo miri --version`.
    pub miri_version: String,
    /// `MIRIFLAGS` the scenarios ran with (the caller's own; costbench adds none).
    pub miriflags: String,
    /// Cargo features the bench target was built with (`--features`), if any.
    #[serde(default)]
    pub features: Option<String>,
    /// Seconds spent in each phase.
    pub timing: Timing,
    /// One per scenario run, in the listing's order.
    pub results: Vec<MiriResult>,
}

/// Seconds spent in each phase.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Timing {
    /// `cargo miri setup`: building Miri's sysroot (a minute or two the first time, then a check).
    pub sysroot_s: f64,
    /// Building the bench target for Miri (cached by cargo from run to run).
    pub build_s: f64,
    /// Listing the scenarios (one short Miri run).
    pub list_s: f64,
    /// All scenario runs.
    pub scenarios_s: f64,
    /// Everything, from start to report.
    pub total_s: f64,
}

/// One scenario's Miri run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MiriResult {
    /// The scenario's id.
    pub scenario: String,
    /// Parties of a multi-party scenario, run as threads of one Miri process.
    pub parties: Vec<String>,
    /// Wall time of the scenario's Miri process, cargo's freshness check included.
    pub seconds: f64,
    /// What Miri found.
    #[serde(flatten)]
    pub finding: Finding,
}

impl MiriReport {
    /// Whether any scenario had undefined behaviour or failed.
    pub fn has_problems(&self) -> bool {
        self.results.iter().any(|r| r.finding.is_problem())
    }
}

/// Why Miri could not run a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unsupported {
    /// A call into a C function Miri has no shim for.
    ForeignFunction,
    /// Starting a process (`std::process::Command`): Miri cannot run other programs.
    ProcessSpawning,
    /// File system, clock or environment access that Miri's isolation blocks.
    Isolation,
    /// `asm!`: Miri interprets MIR and cannot run machine code.
    InlineAssembly,
    /// Any other operation Miri reports as unsupported.
    Other,
}

impl Unsupported {
    /// What a reader should know about this kind of limit.
    pub fn explanation(self) -> &'static str {
        match self {
            Unsupported::ForeignFunction => {
                "Miri cannot call foreign (C) functions it has no shim for"
            }
            Unsupported::ProcessSpawning => "Miri cannot start processes",
            Unsupported::Isolation => {
                "Miri's isolation blocks file system, clock and environment access \
                 (MIRIFLAGS=-Zmiri-disable-isolation would lift it)"
            }
            Unsupported::InlineAssembly => "Miri cannot run inline assembly",
            Unsupported::Other => "Miri does not support an operation the scenario performs",
        }
    }
}

/// What one Miri run of a scenario found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Finding {
    /// Setup and one run of the body finished without Miri finding anything.
    Clean,
    /// Miri found undefined behaviour.
    UndefinedBehavior {
        /// Miri's message, without the `Undefined Behavior: ` prefix.
        message: String,
        /// `file:line:col` Miri points at.
        location: Option<String>,
        /// Miri's `help:` and `note:` lines (with their own locations).
        notes: Vec<String>,
        /// First frames of the backtrace, innermost first: `function at file:line:col`.
        backtrace: Vec<String>,
        /// The innermost frame in the workspace's own code (a path relative to it), when the
        /// fault itself is in std or a dependency.
        workspace_frame: Option<String>,
    },
    /// Miri cannot run the scenario: it performs an operation Miri does not support.
    NotRunnable {
        /// Which unsupported operation.
        kind: Unsupported,
        /// Miri's message, without the `unsupported operation: ` prefix.
        message: String,
        /// `file:line:col` Miri points at.
        location: Option<String>,
        /// Miri's `help:` and `note:` lines (with their own locations).
        notes: Vec<String>,
        /// First frames of the backtrace, innermost first: `function at file:line:col`.
        backtrace: Vec<String>,
        /// The innermost frame in the workspace's own code, when the operation is in std or a
        /// dependency.
        workspace_frame: Option<String>,
    },
    /// The scenario failed for another reason: it panicked, deadlocked, leaked, exhausted a
    /// resource, broke a costbench rule, or timed out.
    Failed {
        /// `panicked`, `deadlock`, `memory-leak`, `resource-exhaustion`, `abnormal-termination`,
        /// `misuse`, `timed-out`, `error` (Miri's words after `error:`) or `crashed`.
        kind: String,
        /// The failure's message.
        message: String,
        /// `file:line:col` of the failure, when it names one.
        location: Option<String>,
        /// The last lines of stderr, for failures whose message is not enough.
        stderr_tail: String,
    },
}

impl Finding {
    /// The verdict's name, as in the JSON output.
    pub fn verdict(&self) -> &'static str {
        match self {
            Finding::Clean => "clean",
            Finding::UndefinedBehavior { .. } => "undefined-behavior",
            Finding::NotRunnable { .. } => "not-runnable",
            Finding::Failed { .. } => "failed",
        }
    }

    /// Whether `costbench miri` should exit non-zero for it.
    pub fn is_problem(&self) -> bool {
        matches!(
            self,
            Finding::UndefinedBehavior { .. } | Finding::Failed { .. }
        )
    }
}
