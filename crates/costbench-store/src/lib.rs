//! The history of costbench runs behind one small interface, the [`Store`] trait, so that the
//! embedded SQLite default ([`sqlite`]) and a shared server database can stand in for each
//! other.
//!
//! A store keeps whole run records (self-describing, keyed by their run id, so that records
//! from many machines merge without conflicts) plus an index of per-op figures for series
//! queries. It owns the history database file and nothing else: it never computes statistics
//! (`costbench-judge` does that), spawns no processes and prints nothing; the run record it
//! keeps is `costbench-record`'s.

#![warn(missing_docs)]

pub mod sqlite;

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
    /// Records a run. Recording the same run id again replaces it (a rerun of `import`).
    fn record(&self, run: &RunRecord) -> Result<()>;
    /// Runs matching `q`, newest first.
    fn runs(&self, q: &RunQuery) -> Result<Vec<RunSummary>>;
    /// The whole record of one run; an error naming the id when there is none.
    fn load(&self, run_id: &str) -> Result<RunRecord>;
    /// The per-op values of `id`'s `metric` over the runs matching `q`, oldest first.
    fn series(&self, id: &str, metric: Metric, q: &RunQuery) -> Result<Vec<SeriesPoint>>;
}
