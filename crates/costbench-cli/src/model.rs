//! The run record: everything one run measured, self-describing and mergeable. It is written as
//! `run.json` and is the input of every later report.
//!
//! Runs never depend on global counters: the run id is a timestamp plus random bits, and each
//! result is keyed by its stable scenario id, so records from several machines can be merged.

use serde::{Deserialize, Serialize};

/// `schema` field of every run record.
pub const SCHEMA: &str = "costbench-run";
/// Bump on any incompatible change; readers refuse versions they do not know.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    pub schema: String,
    pub schema_version: u32,
    pub run_id: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub finished_at: Option<String>,
    pub tool: Tool,
    pub suite: SuiteInfo,
    pub variant: String,
    pub environment: Environment,
    pub settings: Settings,
    /// Instruments that were asked for but could not run here, and why.
    pub skipped: Vec<Skipped>,
    /// Instructions counted for the library's empty scenario: the harness's own share of every
    /// count. Reported, never subtracted.
    pub harness_residual_ir: Option<u64>,
    pub results: Vec<ScenarioResult>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Tool {
    pub name: String,
    pub version: String,
    pub protocol: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SuiteInfo {
    pub package: String,
    pub bench: String,
    /// Version of the costbench library the scenarios were built with.
    pub library_version: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Environment {
    pub rustc: Option<String>,
    pub valgrind: Option<String>,
    pub host: Host,
    pub git: Option<Git>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Host {
    pub cpu: Option<String>,
    pub cores: usize,
    pub os: Option<String>,
    pub kernel: Option<String>,
    pub arch: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Git {
    pub commit: String,
    pub branch: Option<String>,
    /// Uncommitted changes were present when the run started.
    pub dirty: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    pub instruments: Vec<String>,
    pub filter: Option<String>,
    pub jobs: usize,
    pub timeout_secs: u64,
    /// Wall-time samples asked for; `None` is the default (100, fewer past 5 s per scenario).
    pub samples: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Skipped {
    pub instrument: String,
    pub reason: String,
}

/// Figures for one measured id: a single-process scenario, or one party of a multi-party one.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScenarioResult {
    /// Stable id: the scenario name, or `NAME_PARTY`.
    pub id: String,
    pub scenario: String,
    pub party: Option<String>,
    pub ops: u64,
    pub unit: String,
    pub icount: Option<Icount>,
    pub walltime: Option<Walltime>,
    /// Empty when every instrument succeeded.
    pub failures: Vec<Failure>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Icount {
    /// Instructions executed by one run of the measured body (callgrind's Ir).
    pub ir: u64,
    pub ir_per_op: f64,
    /// Callgrind's output for this id, relative to the output directory.
    pub callgrind_out: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Walltime {
    /// `monotonic` (elapsed time of a batch) or `thread-cpu` (a party's own CPU time).
    pub clock: String,
    pub samples: usize,
    pub iterations_per_sample: u64,
    pub warmup_iterations: u64,
    pub clock_overhead_ns: f64,
    /// Statistics of the per-op time of each sample, in nanoseconds.
    pub ns_per_op: Summary,
    /// Per-iteration nanoseconds of each sample (one iteration = one run of the body).
    pub iteration_ns: Vec<f64>,
    /// Present when this side was measured in interleaved rounds with other sides (a paired A/B
    /// comparison or build variants): the pairing and each round's median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
}

/// Wall time measured in rounds interleaved with other builds of the same suite. Round `k` of
/// every side ran back to back, so their ratio is free of the drift between rounds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Paired {
    /// Shared by every side of one interleaved session; sides with the same id pair round by round.
    pub session: String,
    /// Median nanoseconds per op of each round, in round order.
    pub round_medians_ns_per_op: Vec<f64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub mean: f64,
    pub q3: f64,
    pub p95: f64,
    pub max: f64,
    pub iqr: f64,
    pub stddev: f64,
    pub outliers: Outliers,
}

/// Tukey's fences: mild beyond 1.5 IQR from the quartiles, severe beyond 3 IQR.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Outliers {
    pub low_severe: usize,
    pub low_mild: usize,
    pub high_mild: usize,
    pub high_severe: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Failure {
    pub instrument: String,
    /// `panicked`, `crashed`, `timed-out`, `misuse`, `protocol`, `no-measurement`.
    pub kind: String,
    pub message: String,
    /// The last lines the child wrote to stderr.
    pub stderr_tail: String,
}

impl RunRecord {
    pub fn failed(&self) -> impl Iterator<Item = &ScenarioResult> {
        self.results.iter().filter(|r| !r.failures.is_empty())
    }
}
