//! What the history of runs hands back, as plain data: a run's summary ([`RunSummary`]), the
//! metrics a series can follow ([`Metric`]: each of a measured id recorded by one instrument of
//! [`crate::instrument`], whose descriptor lists it, and the run's own, the bench binary's size
//! and build time, recorded under the id `bench:NAME`) and one value of a series
//! ([`SeriesPoint`]).
//!
//! Data only: keeping and querying history is `costbench-store`'s job, judging it
//! `costbench-judge`'s and rendering it `costbench-report`'s.

pub use crate::instrument::Metric;

/// One run, as a store lists it (`costbench-store`'s `Store::runs`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// The run's id (a timestamp plus random bits).
    pub run_id: String,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// The commit the suite was built from, if it was in a git repository.
    pub commit: Option<String>,
    /// The branch checked out, if any.
    pub branch: Option<String>,
    /// Whether the work tree had uncommitted changes.
    pub dirty: bool,
    /// The build variant measured (`release` unless `costbench variants` chose one).
    pub variant: String,
    /// The package that holds the bench target.
    pub package: String,
    /// The bench target.
    pub bench: String,
    /// How many scenario results the run holds.
    pub scenarios: usize,
    /// How many of its results failed (under any instrument).
    pub failures: usize,
    /// Why the run did not finish (`killed`, `interrupted`, ...); `None` when it finished. Only
    /// runs recorded before costbench refused unfinished ones can have it.
    pub unfinished: Option<String>,
}

/// Which commits of a merged branch made a change that a series shows at the merge commit:
/// `history backfill --narrow` bisects the branch's commits (from where it forked to its tip)
/// and keeps the answer beside the merge's results, where `history changes` reads it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MergedOrigin {
    /// The measured id.
    pub id: String,
    /// The metric's name in the database ([`Metric::as_str`]).
    pub metric: String,
    /// Where the merged branch forked from main's line (full id).
    pub base: String,
    /// The merged branch's tip (the merge's second parent).
    pub tip: String,
    /// Every commit of the branch whose value differs from its parent's, oldest first; empty
    /// when the tip has the fork point's value (the merge itself made the change, or main's
    /// side and the branch together).
    pub steps: Vec<MergedStep>,
    /// Why it could not all be told (a commit of the branch that does not build), if so.
    pub note: Option<String>,
}

/// One commit of a merged branch that changed a series' value.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MergedStep {
    /// The commit (full id).
    pub commit: String,
    /// Its subject.
    pub subject: String,
    /// The value at its parent on the branch.
    pub before: f64,
    /// The value at the commit.
    pub after: f64,
}

/// What one `history backfill` did, commit by commit: its `--format` document
/// (`"schema": "costbench-backfill"`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BackfillSummary {
    /// `costbench-backfill`.
    pub schema: String,
    /// Bumped when a field changes meaning or goes away.
    pub schema_version: u32,
    /// The range backfilled, as given.
    pub range: String,
    /// The branch the runs were recorded under.
    pub branch: Option<String>,
    /// How many commits the range holds (on the first-parent line unless `--all-commits`).
    pub commits_in_range: usize,
    /// Every commit taken, in the order taken (the range's sample, then those `--narrow` took).
    pub commits: Vec<BackfilledCommit>,
    /// Commits of merged branches measured to find which of them made a change found at a
    /// merge (not recorded in the history).
    pub merged_branch_commits: usize,
    /// Why it stopped before the end (`--max-time`), if it did.
    pub stopped: Option<String>,
    /// Seconds the backfill took.
    pub seconds: f64,
}

/// The schema version of [`BackfillSummary`].
pub const BACKFILL_SCHEMA_VERSION: u32 = 1;

/// One commit a backfill took.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BackfilledCommit {
    /// Full id.
    pub commit: String,
    /// Its position on the first-parent line.
    pub position: u64,
    /// Its subject.
    pub subject: String,
    /// `measured`, `carried` (no build input changed since `carried_from`), `failed` (does
    /// not build: `failure`) or `recorded` (already in the history with these settings).
    pub outcome: String,
    /// Taken by `--narrow`, between two measured commits around a change.
    pub narrowing: bool,
    /// The measured commit whose figures a carried commit took.
    pub carried_from: Option<String>,
    /// The commit whose kept binary its wall time was measured paired with.
    pub paired_with: Option<String>,
    /// Why it does not build.
    pub failure: Option<String>,
}

/// One value of a series, from one run.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesPoint {
    /// The run the value is from.
    pub run_id: String,
    /// When that run started (RFC 3339, UTC).
    pub started_at: String,
    /// The commit it measured, if known.
    pub commit: Option<String>,
    /// The metric's per-op value in that run.
    pub per_op: f64,
}

/// One run of a branch's history as change detection, drift and the dashboard read it: where
/// its commit sits on the branch, which machine measured it, and whether its figures were
/// carried over from another commit's measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRun {
    /// The run's id.
    pub run_id: String,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// The commit it measured (full id), if known.
    pub commit: Option<String>,
    /// The commit's first parent, if known.
    pub parent: Option<String>,
    /// The commit's position on its first-parent line (see `model::Git::position`).
    pub position: Option<u64>,
    /// The commit's author date (RFC 3339).
    pub author_date: Option<String>,
    /// The first line of the commit's message.
    pub subject: Option<String>,
    /// The machine that measured it (`model::Host::machine`).
    pub machine: String,
    /// The build variant measured.
    pub variant: String,
    /// The commit whose measurement stands for this one (`model::Backfill::carried_from`).
    pub carried_from: Option<String>,
}

/// One series of a timeline: one id's metric on one machine and variant, in branch order.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineSeries {
    /// The measured id (a scenario, a party, or `bench:NAME` for the run's own metrics).
    pub id: String,
    /// The metric.
    pub metric: Metric,
    /// The machine (`model::Host::machine`).
    pub machine: String,
    /// The build variant.
    pub variant: String,
    /// (index into [`Timeline::runs`], per-op value), in the runs' order.
    pub points: Vec<(usize, f64)>,
    /// The most ops per run among its points: an exact figure's per-op tolerance is the
    /// harness residual divided by it.
    pub ops: u64,
}

/// Runs of a branch in the order the branch has its commits (first-parent position, then start
/// time), with every series they hold: the input of change detection and of the dashboard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// The runs, oldest commit first.
    pub runs: Vec<TimelineRun>,
    /// Every series, by id, metric, machine and variant.
    pub series: Vec<TimelineSeries>,
}

impl Timeline {
    /// Puts `runs` in branch order and builds the series from `values` (run id, measured id,
    /// metric, per-op value, ops per run, in any order): runs without a position (recorded before positions
    /// were, or outside git) come after the positioned ones, in start order. Values of runs not
    /// in `runs` are dropped.
    pub fn assemble(
        mut runs: Vec<TimelineRun>,
        values: impl IntoIterator<Item = (String, String, Metric, f64, u64)>,
    ) -> Timeline {
        runs.sort_by(|a, b| {
            (a.position.is_none(), a.position, &a.started_at).cmp(&(
                b.position.is_none(),
                b.position,
                &b.started_at,
            ))
        });
        let index: std::collections::HashMap<&str, usize> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| (r.run_id.as_str(), i))
            .collect();
        let mut by_key: std::collections::BTreeMap<
            (String, &'static str, String, String),
            TimelineSeries,
        > = std::collections::BTreeMap::new();
        for (run_id, id, metric, value, ops) in values {
            let Some(&i) = index.get(run_id.as_str()) else {
                continue;
            };
            let r = &runs[i];
            let key = (
                id.clone(),
                metric.as_str(),
                r.machine.clone(),
                r.variant.clone(),
            );
            let s = by_key.entry(key).or_insert_with(|| TimelineSeries {
                id,
                metric,
                machine: r.machine.clone(),
                variant: r.variant.clone(),
                points: Vec::new(),
                ops: 0,
            });
            s.points.push((i, value));
            s.ops = s.ops.max(ops);
        }
        let mut series: Vec<TimelineSeries> = by_key.into_values().collect();
        for s in &mut series {
            s.points.sort_by_key(|p| p.0);
        }
        Timeline { runs, series }
    }
}
