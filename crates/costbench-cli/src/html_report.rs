//! Gathers what the HTML report shows (the runs, the comparison of the first and last of them,
//! history series from the store), renders it with `report::html` and writes it atomically.
//! Shared by `costbench report` and `costbench run --html`; it reads the store but never
//! measures.

use crate::compare::{self, noise::HistoricThresholds, CompareOptions};
use crate::model::RunRecord;
use crate::report::html::{self, History};
use crate::store::{Metric, RunQuery, Store};
use anyhow::{Context, Result};
use std::path::Path;

/// Runs of history a chart shows by default.
pub const DEFAULT_HISTORY_LIMIT: usize = 30;

/// The page for `runs` (at least one; the last is the one shown), with the history charts of
/// the last run's measured ids from `store` (runs of its variant and branch, at most
/// `history_limit`) when a store is given. `dirs[k]` is the output directory of `runs[k]` when it
/// was read from one: its callgrind outputs name the functions behind instruction-count changes.
pub fn render(
    runs: &[RunRecord],
    dirs: &[Option<&Path>],
    store: Option<&dyn Store>,
    history_limit: usize,
) -> Result<String> {
    let last = runs.last().context("no run to report")?;
    // Default thresholds: the same verdicts `costbench compare BASE CAND` prints.
    let cmp = html::comparison_pair(runs).map(|(b, c)| {
        let mut cmp = compare::compare_with(
            &runs[b],
            &runs[c],
            &CompareOptions::default(),
            &HistoricThresholds::default(),
        );
        let dir = |k: usize| dirs.get(k).copied().flatten();
        compare::functions::attach(&mut cmp, |id| {
            crate::measure::callgrind::profile::load_both(id, &runs[b], dir(b), &runs[c], dir(c))
        });
        cmp
    });
    let history = match store {
        Some(s) => history(s, last, history_limit)?,
        None => Vec::new(),
    };
    let generated_at = crate::environment::now_rfc3339();
    Ok(html::render(&html::Input {
        runs,
        comparison: cmp.as_ref(),
        history: &history,
        generated_at: &generated_at,
    }))
}

/// Every metric the last run measured, per measured id, over the runs of its variant and branch:
/// series of at least two points only (one point is no history).
fn history(store: &dyn Store, run: &RunRecord, limit: usize) -> Result<Vec<History>> {
    let q = RunQuery {
        branch: run.environment.git.as_ref().and_then(|g| g.branch.clone()),
        variant: Some(run.variant.clone()),
        limit: Some(limit),
    };
    let mut out = Vec::new();
    for r in &run.results {
        let mut metrics = Vec::new();
        if r.icount.is_some() {
            metrics.push(Metric::Icount);
        }
        if r.walltime.is_some() {
            metrics.push(Metric::Walltime);
        }
        metrics.extend(Metric::counters(r).into_iter().map(|(m, _)| m));
        for metric in metrics {
            let points = store
                .series(&r.id, metric, &q)
                .with_context(|| format!("reading the history of {}", r.id))?;
            if points.len() >= 2 {
                out.push(History {
                    id: r.id.clone(),
                    metric,
                    points,
                });
            }
        }
    }
    Ok(out)
}

/// The newest recorded run and, before it, the previous run of its variant and branch (the
/// baseline of its changes), oldest first; used when no run is named.
pub fn latest_runs(store: &dyn Store) -> Result<Vec<RunRecord>> {
    let newest = store
        .runs(&RunQuery {
            limit: Some(1),
            ..RunQuery::default()
        })?
        .into_iter()
        .next()
        .context("the history database holds no runs yet: `costbench run` records one")?;
    let newest = store.load(&newest.run_id)?;
    let mut runs: Vec<RunRecord> = previous_run(store, &newest)?.into_iter().collect();
    runs.push(newest);
    Ok(runs)
}

/// The newest recorded run before `run` of the same variant and branch, if any.
pub fn previous_run(store: &dyn Store, run: &RunRecord) -> Result<Option<RunRecord>> {
    let q = RunQuery {
        branch: run.environment.git.as_ref().and_then(|g| g.branch.clone()),
        variant: Some(run.variant.clone()),
        limit: None,
    };
    match store
        .runs(&q)?
        .into_iter()
        .find(|r| r.run_id != run.run_id && r.started_at <= run.started_at)
    {
        Some(prev) => Ok(Some(store.load(&prev.run_id)?)),
        None => Ok(None),
    }
}

/// `costbench run --html`: the report of a finished run, written as `report.html` in its output
/// directory, compared with the previous run of its variant and branch in `db` (when the run was
/// recorded there), with history charts. Returns the file written.
pub fn write_for_run(
    run: &RunRecord,
    out_dir: &Path,
    db: Option<&Path>,
) -> Result<std::path::PathBuf> {
    let store = match db.filter(|p| p.exists()) {
        Some(p) => Some(crate::store::sqlite::SqliteStore::open(p)?),
        None => None,
    };
    let mut runs = Vec::new();
    if let Some(s) = &store {
        runs.extend(previous_run(s, run)?);
    }
    runs.push(run.clone());
    // The previous run comes from history, which keeps no callgrind outputs.
    let mut dirs = vec![None; runs.len() - 1];
    dirs.push(Some(out_dir));
    let page = render(
        &runs,
        &dirs,
        store.as_ref().map(|s| s as &dyn Store),
        DEFAULT_HISTORY_LIMIT,
    )?;
    let path = out_dir.join("report.html");
    crate::output::write_atomic(&path, page.as_bytes())?;
    Ok(path)
}
