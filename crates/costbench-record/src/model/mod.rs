//! The run record: everything one run measured, self-describing and mergeable. It is written as
//! `run.json` and is the input of every later report.
//!
//! Runs never depend on global counters: the run id is a timestamp plus random bits, and each
//! result is keyed by its stable scenario id, so records from several machines can be merged.

// Many fields of the run record carry no doc comment yet; the book lists what `run.json`
// holds (docs/reference/output.md). Until they are documented, missing_docs is allowed here
// (and only here: `miri` and the rest of the crate warn).
#![allow(missing_docs)]

pub mod budget;
mod completion;
pub mod complexity;
pub mod miri;

pub use crate::instrument::census::figure::{Census, CensusFrame, CensusKind, CensusSite};
pub use crate::instrument::counters::{Counters, FigureValue};
pub use crate::instrument::icount::figure::{Icount, IcountPlacement};
pub use crate::instrument::throughput::figure::{
    load_id, Interval, Latency, LoadPairing, LoadSlice, Throughput,
};
pub use crate::instrument::walltime::figure::{Paired, Step, Walltime};
pub use crate::stats::{Outliers, Summary};
pub use completion::{Completion, RowState, StopReason, Unfinished};

use serde::{Deserialize, Serialize};

/// `schema` field of every run record.
pub const SCHEMA: &str = "costbench-run";
/// Bump on any incompatible change; readers refuse versions they do not know.
///
/// Version 2 (issue 33): the record says whether the run finished (`completion`) and each row
/// what happened to it (`state`, `state_reason`). Version 1 records still read: they finished
/// when `finished_at` is set and they were not interrupted.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    pub schema: String,
    pub schema_version: u32,
    pub run_id: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub finished_at: Option<String>,
    /// Set when the run was stopped (Ctrl-C, SIGTERM) before it measured everything: the figures
    /// it holds are the ones that finished. Absent in a complete run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interruption>,
    /// Whether the run finished, and why not ([`RunRecord::completion`] derives it for records
    /// without it: schema version 1, or one being measured). Written by every costbench that
    /// writes schema version 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion: Option<Completion>,
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
    /// How costbench's build of this run's binary went: a build variant's (`variants`), a
    /// plain `run`'s and each side's of `check` (absent in records of older costbench and of
    /// commands that measure a binary they did not build). `--shard` balances whole variants
    /// by their cold build times in history; the history charts it (`build-seconds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildInfo>,
    /// Present when this run measured one shard of the suite (`--shard K/N`): which shard, and
    /// how the scenarios were assigned. Absent from unsharded runs and older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
    /// Present when this run was put together by `costbench merge` from shards: each shard's
    /// run, machine and ids, so every row keeps who measured it. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<Merged>,
    /// The size of the bench binary measured, when it could be read (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<budget::BinarySize>,
    /// Every declared budget checked against what this run measured: one entry per id and
    /// limited figure. Empty (and absent) when no budget applies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub budgets: Vec<budget::BudgetCheck>,
    /// The fit of every family of sized ids (`NAME/N`, three sizes or more) by instruction
    /// counts: best class, constant, error, power-law exponent. Absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub complexity: Vec<complexity::Fit>,
    /// Declared classes (a budget's `complexity`) checked against those fits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub complexity_checks: Vec<complexity::ComplexityCheck>,
    /// Present when `costbench history backfill` recorded this run for a commit of the
    /// branch's past: whether its figures were carried over from another commit's measurement
    /// (none of the files that commit's build read had changed) or its build failed. Absent
    /// from every other run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backfill: Option<Backfill>,
}

/// How `costbench history backfill` came by a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Backfill {
    /// The commit whose measurement stands for this one: none of the files its build read
    /// differ between the two, so both build the same binary. `None`: measured itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried_from: Option<String>,
    /// Why the commit could not be measured (its build failed): the run holds no results and
    /// is passed over by change detection, and a later backfill does not try it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// How a variant's build went.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BuildInfo {
    /// How long the build took.
    pub seconds: f64,
    /// Units cargo compiled (0: nothing was rebuilt).
    pub compiled: usize,
    /// Units cargo found up to date (0: a cold build, as on a fresh CI runner).
    pub fresh: usize,
}

/// One shard of a sharded run (`--shard K/N`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ShardInfo {
    /// 1-based: `K` of `K/N`.
    pub index: u32,
    /// `N` of `K/N`.
    pub count: u32,
    /// How the scenarios were assigned (by history cost or by count, and a fingerprint of the
    /// whole partition): every shard of one sharded run has the same text, or the jobs did not
    /// agree on the partition.
    pub assignment: String,
    /// Every selected unit of the whole suite (scenario names, or `VARIANT/SCENARIO` cells),
    /// in listing order, before sharding: `merge` restores this order and checks that every
    /// unit was measured by exactly one shard.
    #[serde(default)]
    pub selected: Vec<String>,
}

/// One shard of a sharded `variants` session (`variants --shard K/N`), in its `matrix.json`:
/// what `costbench merge` needs to join the shards' matrices into one, even a shard whose every
/// build failed (it has no run records).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct VariantsShard {
    /// 1-based: `K` of `K/N`.
    pub index: u32,
    /// `N` of `K/N`.
    pub count: u32,
    /// How the work was assigned, with a fingerprint of the partition: the same text in every
    /// shard of one session.
    pub assignment: String,
    /// Every variant of the whole session, in column order (this shard's columns are some).
    pub variants: Vec<String>,
    /// The variant the others are compared with.
    pub baseline: String,
    pub split: VariantSplit,
}

/// How the shards of a `variants` session divided the work.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum VariantSplit {
    /// Whole variants went to shards (each job built only its own). With `baseline_everywhere`
    /// every shard also measured the baseline, because an instrument judged only on one machine
    /// (wall time, load, hardware counters) ran; otherwise one shard measured it.
    WholeVariants { baseline_everywhere: bool },
    /// Every shard built every variant and measured a share of the scenarios (fewer variants
    /// than shards).
    Scenarios,
}

/// Where the rows of a merged run came from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Merged {
    /// The shards, in shard order.
    pub shards: Vec<MergedShard>,
}

/// One shard of a merged run: its run and the machine that measured it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MergedShard {
    pub index: u32,
    pub count: u32,
    pub run_id: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// The machine that measured this shard's rows.
    pub host: Host,
    /// The result ids this shard measured.
    pub ids: Vec<String>,
}

/// How a run was cut short.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Interruption {
    /// The signal that stopped it: `SIGINT` (Ctrl-C) or `SIGTERM`.
    pub signal: String,
    /// Scenarios every asked instrument finished for (a figure or a failure each).
    pub finished_scenarios: usize,
    /// Scenarios the run was to measure.
    pub scenarios: usize,
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
    /// The machine's host name: which machine measured a run (wall time of two machines is
    /// never compared). Absent from records written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub cpu: Option<String>,
    pub cores: usize,
    pub os: Option<String>,
    pub kernel: Option<String>,
    pub arch: String,
}

impl Host {
    /// The machine a series belongs to: CPU model, core count, architecture and OS, not the
    /// host name (CI runners get a fresh one per job). Wall time, and counts that depend on the
    /// CPU (the C library picks routines by CPU features), of two machines are never one series.
    pub fn machine(&self) -> String {
        format!(
            "{} ({} cores, {}, {})",
            self.cpu.as_deref().unwrap_or("unknown CPU"),
            self.cores,
            self.arch,
            self.os.as_deref().unwrap_or("unknown OS")
        )
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Git {
    pub commit: String,
    pub branch: Option<String>,
    /// Uncommitted changes were present when the run started.
    pub dirty: bool,
    /// The commit's first parent (absent for a root commit and in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The commit's position on its first-parent line: how many commits that line holds up to
    /// and including it (`git rev-list --count --first-parent`). It orders a branch's runs as
    /// the branch was merged, whenever they were measured (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u64>,
    /// The commit's author date (RFC 3339; absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_date: Option<String>,
    /// The first line of the commit's message (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    pub instruments: Vec<String>,
    pub filter: Option<String>,
    pub jobs: usize,
    pub timeout_secs: u64,
    /// Wall-time samples asked for; `None` is the default (100, fewer past 5 s per scenario).
    pub samples: Option<u32>,
    /// The CPU wall-time children were pinned to (`--walltime-cpu`); absent when they were not
    /// (or in records written before the option existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walltime_cpu: Option<usize>,
    /// Function alignment of the build (`--code-align`: "64" or "off"); absent in records
    /// written before the option existed (built as "off").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_align: Option<String>,
    /// Cargo features activated with `--features` (each item alone; a build variant's own are
    /// in its matrix column); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
    /// `--all-features`; absent when not given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all_features: bool,
    /// `--no-default-features`; absent when not given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_default_features: bool,
    /// The cargo profile of the build (`--profile`); absent for the default, `bench`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
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
    /// The instruments' typed figures, one key each (absent keys when not measured).
    #[serde(flatten)]
    pub counters: Counters,
    /// Checks executed in the measured body (`--instrument census`). Absent from records
    /// written without it, so older run.json files still read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub census: Option<Census>,
    /// Set on the rows of the throughput instrument (id `SCENARIO@Nc`): the service scenario
    /// under load from this many clients. Such a row has only [`ScenarioResult::throughput`];
    /// the scenario's per-request figures are on its `_client` and `_server` rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<u32>,
    /// Operations per second and latency under load (`--instrument throughput`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<Throughput>,
    /// Empty when every instrument succeeded.
    pub failures: Vec<Failure>,
    /// What happened to this row, as the run knew when it wrote the record (absent in schema
    /// version 1; [`RunRecord::row_state`] computes it either way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<RowState>,
    /// Why a row was skipped or not reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_reason: Option<String>,
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
    /// The one constructor of a run record (a measured run's, an import's, a test's): a record
    /// of the current schema, of variant `default`, with `results` and nothing finished,
    /// skipped, sharded, merged, built or checked yet; the caller sets what it knows beyond that.
    pub fn new(
        run_id: String,
        started_at: String,
        tool: Tool,
        suite: SuiteInfo,
        environment: Environment,
        settings: Settings,
        results: Vec<ScenarioResult>,
    ) -> RunRecord {
        RunRecord {
            schema: SCHEMA.into(),
            schema_version: SCHEMA_VERSION,
            run_id,
            started_at,
            finished_at: None,
            interrupted: None,
            completion: None,
            tool,
            suite,
            variant: "default".into(),
            environment,
            settings,
            skipped: Vec::new(),
            harness_residual_ir: None,
            results,
            build: None,
            shard: None,
            merged: None,
            binary: None,
            budgets: Vec::new(),
            complexity: Vec::new(),
            complexity_checks: Vec::new(),
            backfill: None,
        }
    }

    pub fn failed(&self) -> impl Iterator<Item = &ScenarioResult> {
        self.results.iter().filter(|r| !r.failures.is_empty())
    }

    /// The budget checks that fail this run: figures above their limit, or not measured.
    pub fn broken_budgets(&self) -> impl Iterator<Item = &budget::BudgetCheck> {
        self.budgets.iter().filter(|b| b.failed())
    }

    /// The declared classes the fits disagree with.
    pub fn broken_complexity(&self) -> impl Iterator<Item = &complexity::ComplexityCheck> {
        self.complexity_checks.iter().filter(|c| !c.passed)
    }

    /// The machine that measured result `id`: its shard's host in a merged run, else the run's.
    pub fn host_of(&self, id: &str) -> &Host {
        self.merged
            .as_ref()
            .and_then(|m| m.shards.iter().find(|s| s.ids.iter().any(|i| i == id)))
            .map_or(&self.environment.host, |s| &s.host)
    }
}

impl Host {
    /// How a report names the machine: its host name, else its CPU model.
    pub fn label(&self) -> String {
        match (&self.name, &self.cpu) {
            (Some(n), _) => n.clone(),
            (None, Some(c)) => c.clone(),
            (None, None) => "an unnamed machine".into(),
        }
    }

    /// Whether two hosts are known to be different machines: different host names, or (where a
    /// name is missing, as in older records) different CPU models. Unknown is not different.
    pub fn differs_from(&self, other: &Host) -> bool {
        let differ =
            |a: &Option<String>, b: &Option<String>| matches!((a, b), (Some(a), Some(b)) if a != b);
        differ(&self.name, &other.name) || differ(&self.cpu, &other.cpu)
    }
}

impl ScenarioResult {
    /// A result with no figures and no failures yet: what a run starts each measured id with.
    pub fn empty(
        id: impl Into<String>,
        scenario: impl Into<String>,
        party: Option<String>,
        ops: u64,
        unit: impl Into<String>,
    ) -> ScenarioResult {
        ScenarioResult {
            id: id.into(),
            scenario: scenario.into(),
            party,
            ops,
            unit: unit.into(),
            icount: None,
            walltime: None,
            counters: Default::default(),
            census: None,
            clients: None,
            throughput: None,
            failures: Vec::new(),
            state: None,
            state_reason: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_without_census_read_and_write_as_before() {
        // A result as schema version 1 wrote it before the census existed.
        let old = r#"{"id":"a","scenario":"a","party":null,"ops":2,"unit":"op",
            "icount":null,"walltime":null,"failures":[]}"#;
        let r: ScenarioResult = serde_json::from_str(old).unwrap();
        assert_eq!(r.census, None);
        let back = serde_json::to_value(&r).unwrap();
        assert!(back.get("census").is_none(), "{back}");
        let with = ScenarioResult {
            census: Some(Census {
                checks: 4,
                checks_per_op: 2.0,
                sites: 1,
                by_kind: vec![],
                top_sites: vec![],
            }),
            ..r
        };
        let again: ScenarioResult =
            serde_json::from_value(serde_json::to_value(&with).unwrap()).unwrap();
        assert_eq!(again, with);
    }
}
