//! The interface every history backend implements ([`Store`], queried by [`RunQuery`]) and what
//! the two backends share so that they select, read and index runs identically: the `WHERE`
//! clause of a query, a kept record decoded and checked, a summary's counts, the rows of the
//! per-op index. It opens no database and knows no backend's syntax beyond a placeholder.

use anyhow::{bail, Context, Result};
use costbench_record::history::{Metric, RunSummary, SeriesPoint, Timeline, TimelineRun};
use costbench_record::instrument::Instrument;
use costbench_record::model::{self, RunRecord};

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
    /// Every run matching `q` (`limit` ignored) that measured something, in branch order, with
    /// every series they hold ([`Timeline::assemble`]): what change detection and the
    /// dashboard read. Runs of commits a backfill could not build are left out.
    fn timeline(&self, q: &RunQuery) -> Result<Timeline>;
    /// The records of every run of `commit` (full id), failed backfill builds included: a
    /// backfill asks before measuring a commit whether it has been measured already.
    fn commit_runs(&self, commit: &str) -> Result<Vec<RunRecord>>;
}

/// The columns of `runs` that place a run on its branch and machine (migration 3), as both
/// backends write them.
pub(crate) struct Placement<'a> {
    pub position: Option<i64>,
    pub parent: Option<&'a str>,
    pub author_date: Option<&'a str>,
    pub subject: Option<&'a str>,
    pub machine: String,
    pub carried_from: Option<&'a str>,
    pub build_failed: Option<&'a str>,
}

impl<'a> Placement<'a> {
    pub(crate) fn of(run: &'a RunRecord) -> Placement<'a> {
        let git = run.environment.git.as_ref();
        let backfill = run.backfill.as_ref();
        Placement {
            position: git
                .and_then(|g| g.position)
                .map(|p| i64::try_from(p).unwrap_or(i64::MAX)),
            parent: git.and_then(|g| g.parent.as_deref()),
            author_date: git.and_then(|g| g.author_date.as_deref()),
            subject: git.and_then(|g| g.subject.as_deref()),
            machine: run.environment.host.machine(),
            carried_from: backfill.and_then(|b| b.carried_from.as_deref()),
            build_failed: backfill.and_then(|b| b.failed.as_deref()),
        }
    }
}

/// The columns a timeline's runs are read from, in [`timeline_run`]'s order; runs recorded
/// before migration 3 have no machine column and are placed by their CPU.
pub(crate) const TIMELINE_COLUMNS: &str = "run_id, started_at, commit_sha, parent, position, \
     author_date, subject, COALESCE(machine, host_cpu, 'unknown machine'), variant, carried_from";

/// A timeline's run from the values of [`TIMELINE_COLUMNS`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn timeline_run(
    run_id: String,
    started_at: String,
    commit: Option<String>,
    parent: Option<String>,
    position: Option<i64>,
    author_date: Option<String>,
    subject: Option<String>,
    machine: String,
    variant: String,
    carried_from: Option<String>,
) -> TimelineRun {
    TimelineRun {
        run_id,
        started_at,
        commit,
        parent,
        position: position.and_then(|p| u64::try_from(p).ok()),
        author_date,
        subject,
        machine,
        variant,
        carried_from,
    }
}

/// The metric named `name` in the database (`None`: one this costbench does not know, left out).
pub(crate) fn metric_named(name: &str) -> Option<Metric> {
    Metric::ALL.into_iter().find(|m| m.as_str() == name)
}

/// The `WHERE` clause of `q`, and of a series of scenario `id`'s `metric` when `series` is given,
/// with its arguments; `placeholder(n)` writes the n-th (1-based) argument's placeholder in the
/// backend's syntax (`$n` for PostgreSQL, `?n` for SQLite).
pub(crate) fn where_clause(
    q: &RunQuery,
    series: Option<(&str, Metric)>,
    placeholder: fn(usize) -> String,
) -> (String, Vec<String>) {
    let mut conds = Vec::new();
    let mut args = Vec::new();
    let mut cond = |column: &str, value: &str| {
        args.push(value.to_string());
        conds.push(format!("{column} = {}", placeholder(args.len())));
    };
    if let Some(b) = &q.branch {
        cond("runs.branch", b);
    }
    if let Some(v) = &q.variant {
        cond("runs.variant", v);
    }
    if let Some((id, metric)) = series {
        cond("results.scenario_id", id);
        cond("results.metric", metric.as_str());
    }
    let w = if conds.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conds.join(" AND "))
    };
    (w, args)
}

/// The run record kept under `run_id` (`record`, as the store read it; `None` when there is no
/// such run), read and checked the same way by both backends; `shown` names the database.
pub(crate) fn decode_run(
    run_id: &str,
    record: Option<String>,
    shown: &dyn std::fmt::Display,
) -> Result<RunRecord> {
    let Some(record) = record else {
        // A name that does not exist: the caller's mistake, not the store's failure.
        costbench_record::bad_input!(
            "no run with id {run_id:?} in {shown} (list them with `costbench history`)"
        );
    };
    let run: RunRecord = serde_json::from_str(&record)
        .with_context(|| format!("run {run_id} in {shown} is unreadable"))?;
    if run.schema_version > model::SCHEMA_VERSION {
        bail!(
            "run {run_id} was written by a newer costbench (schema version {})",
            run.schema_version
        );
    }
    Ok(run)
}

/// The scenario and failure counts of a run summary, read from the kept record (an unreadable
/// record, say one of a newer costbench, counts nothing rather than failing the listing).
pub(crate) fn summary_counts(summary: &mut RunSummary, record: &str) {
    if let Ok(rec) = serde_json::from_str::<RunRecord>(record) {
        summary.scenarios = rec.results.len();
        summary.failures = rec.failed().count();
        let c = rec.completion();
        summary.unfinished =
            (!c.finished).then(|| c.why.map_or("unfinished", |w| w.name()).to_string());
    }
}

/// The rows of the `results` index for one run: (scenario id, metric, per-op value, ops, unit),
/// every series the instruments list (`Metric::of_result`), and the samples an instrument's
/// slice keeps (`Slice::samples`) as (scenario id, JSON array); the run's own metrics (its bench
/// binary's size and build time) under the id `bench:NAME`. Shared so that both backends index
/// exactly the same figures.
#[allow(clippy::type_complexity)]
pub(crate) fn index_rows(
    run: &RunRecord,
) -> (
    Vec<(std::borrow::Cow<'_, str>, &'static str, f64, i64, &str)>,
    Vec<(&str, String)>,
) {
    let mut rows = Vec::new();
    let mut samples = Vec::new();
    for metric in Metric::RUN {
        if let Some(v) = metric.of_run(run) {
            let unit = match metric {
                Metric::BuildSeconds => "seconds",
                _ => "bytes",
            };
            rows.push((Metric::run_id(run).into(), metric.as_str(), v, 1, unit));
        }
    }
    for r in &run.results {
        let ops = i64::try_from(r.ops).unwrap_or(i64::MAX);
        for (metric, value) in Metric::of_result(r) {
            rows.push((
                r.id.as_str().into(),
                metric.as_str(),
                value,
                ops,
                r.unit.as_str(),
            ));
        }
        let kept = Instrument::ALL
            .into_iter()
            .filter_map(|i| i.slice().samples)
            .find_map(|f| f(r));
        if let Some(ns) = kept {
            samples.push((
                r.id.as_str(),
                serde_json::to_string(ns).expect("numbers serialise"),
            ));
        }
    }
    (rows, samples)
}
