//! The history of costbench runs behind one small interface, the [`Store`] trait, so that the
//! embedded SQLite default ([`sqlite`]) and a shared PostgreSQL server ([`postgres`]) stand in
//! for each other. [`Location`] names one of them (`--db PATH` or `--db postgres://…`) and opens
//! it; [`migrations`] keeps both schemas at the same version.
//!
//! A store keeps whole run records (self-describing, keyed by their run id, so that records
//! from many machines merge without conflicts) plus an index of per-op figures for series
//! queries. It owns the history database (a file, or costbench's schema on a server) and
//! nothing else: it never computes statistics (`costbench-judge` does that), spawns no processes
//! and prints nothing (save the test-only `pg_cluster`, which starts a throwaway server for the
//! tests of this crate and the cli); the run record it keeps is `costbench-record`'s.

#![warn(missing_docs)]

mod location;
pub mod migrations;
#[cfg(any(test, feature = "test-cluster"))]
pub mod pg_cluster;
pub mod postgres;
pub mod sqlite;
#[cfg(test)]
mod tests;
mod url;

pub use location::Location;

// The model under the name the store has always used (`crate::model::X`).
use anyhow::Result;
use costbench_record::model;
use model::RunRecord;
use std::path::{Path, PathBuf};

// What a store hands back is plain data of the record crate, so that reports render history
// without depending on a database; re-exported here under the store's old paths.
pub use costbench_record::history::{Metric, RunSummary, SeriesPoint};

/// The history database used when `--db` is not given.
pub fn default_path(target_directory: &Path) -> PathBuf {
    target_directory.join("costbench").join("history.sqlite")
}

/// Which runs a query covers, newest first.
#[derive(Debug, Clone, Default)]
pub struct RunQuery {
    /// Only runs on this branch.
    pub branch: Option<String>,
    /// Only runs of this build variant.
    pub variant: Option<String>,
    /// At most this many runs (the newest).
    pub limit: Option<usize>,
}

/// Where runs are kept.
pub trait Store {
    /// Records a run, atomically: a reader or a killed writer sees the whole run or none of it.
    /// Recording the same run id again replaces it (a rerun of `import` is idempotent), also when
    /// several writers record it at once.
    fn record(&self, run: &RunRecord) -> Result<()>;
    /// Runs matching `q`, newest first.
    fn runs(&self, q: &RunQuery) -> Result<Vec<RunSummary>>;
    /// The whole record of one run; an error naming the id when there is none.
    fn load(&self, run_id: &str) -> Result<RunRecord>;
    /// The per-op values of `id`'s `metric` over the runs matching `q`, oldest first.
    fn series(&self, id: &str, metric: Metric, q: &RunQuery) -> Result<Vec<SeriesPoint>>;
}

/// The scenario and failure counts of a run summary, read from the kept record (an unreadable
/// record, say one of a newer costbench, counts nothing rather than failing the listing).
fn summary_counts(summary: &mut RunSummary, record: &str) {
    if let Ok(rec) = serde_json::from_str::<RunRecord>(record) {
        summary.scenarios = rec.results.len();
        summary.failures = rec.failed().count();
    }
}

/// The rows of the `results` index for one run: (scenario id, metric, per-op value, ops, unit),
/// and the walltime samples as (scenario id, JSON array). Shared so that both backends index
/// exactly the same figures.
#[allow(clippy::type_complexity)]
fn index_rows(
    run: &RunRecord,
) -> (
    Vec<(&str, &'static str, f64, i64, &str)>,
    Vec<(&str, String)>,
) {
    let mut rows = Vec::new();
    let mut samples = Vec::new();
    for r in &run.results {
        let ops = i64::try_from(r.ops).unwrap_or(i64::MAX);
        for (metric, value) in Metric::counters(r) {
            rows.push((r.id.as_str(), metric.as_str(), value, ops, r.unit.as_str()));
        }
        if let Some(i) = &r.icount {
            rows.push((r.id.as_str(), "icount", i.ir_per_op, ops, r.unit.as_str()));
        }
        if let Some(w) = &r.walltime {
            rows.push((
                r.id.as_str(),
                "walltime",
                w.ns_per_op.median,
                ops,
                r.unit.as_str(),
            ));
            samples.push((
                r.id.as_str(),
                serde_json::to_string(&w.iteration_ns).expect("numbers serialise"),
            ));
        }
    }
    (rows, samples)
}
