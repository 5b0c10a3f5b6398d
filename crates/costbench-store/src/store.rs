//! The interface every history backend implements ([`Store`], queried by [`RunQuery`]) and what
//! the two backends share so that they select, read and index runs identically: the `WHERE`
//! clause of a query, a kept record decoded and checked, a summary's counts, the rows of the
//! per-op index. It opens no database and knows no backend's syntax beyond a placeholder.

use anyhow::{bail, Context, Result};
use costbench_record::history::{Metric, RunSummary, SeriesPoint};
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
        bail!("no run with id {run_id:?} in {shown} (list them with `costbench history`)");
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
/// and the walltime samples as (scenario id, JSON array); the run's own metrics (its bench
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
        for (metric, value) in Metric::counters(r) {
            rows.push((
                r.id.as_str().into(),
                metric.as_str(),
                value,
                ops,
                r.unit.as_str(),
            ));
        }
        if let Some(i) = &r.icount {
            rows.push((
                r.id.as_str().into(),
                "icount",
                i.ir_per_op,
                ops,
                r.unit.as_str(),
            ));
        }
        if let Some(w) = &r.walltime {
            rows.push((
                r.id.as_str().into(),
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
