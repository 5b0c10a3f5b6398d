//! `--shard K/N`'s costs: what history says each scenario (each `VARIANT/SCENARIO` cell) costs
//! to measure, and each build variant's cold build (`VARIANT/`), read here, in the command core,
//! because the commands own the store (`Session::open` fills them in). The partition itself is
//! pure (`costbench_record::shard`) and applied while measuring (`run::sharding`); this module
//! only reads history and must not measure or print.

use anyhow::{Context, Result};
use costbench_measure::run::RunOptions;
use costbench_store::{Location, RunQuery};
use std::collections::BTreeMap;

/// Runs of history (newest first, all variants) whose costs are read.
const HISTORY_RUNS: usize = 50;
/// Runs per cell whose median is its cost.
const RUNS_PER_CELL: usize = 10;
/// What starting a scenario's processes costs beside its instructions, in instructions: about
/// half a second of a child under callgrind (~18× slower than native) plus its wall-time
/// process, so that cheap scenarios still count for something.
const START_COST: f64 = 1e8;
/// What a second of a variant's cold build costs, on `START_COST`'s scale (half a second, 1e8).
/// Builds are the dearest part of a cold variants session (30 to 45 s each for the built-in
/// suite here, against 30 to 40 s of measuring under callgrind), so that whole variants are
/// balanced by what their jobs spend.
const COST_PER_BUILD_SECOND: f64 = 2.0 * START_COST;

/// Fills `opts.shard`'s costs from the history database `db` (when it exists; otherwise the
/// partition is by count). Reading history never changes it.
pub(super) fn load_costs(opts: &mut RunOptions, db: &Location) -> Result<()> {
    let Some(plan) = opts.shard.as_mut() else {
        return Ok(());
    };
    if !db.exists() {
        return Ok(());
    }
    let store = db
        .open()
        .with_context(|| format!("--shard: reading costs from the history at {db}"))?;
    let runs = store.runs(&RunQuery {
        limit: Some(HISTORY_RUNS),
        ..RunQuery::default()
    })?;
    let mut per_cell: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut builds: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for summary in runs {
        let run = store.load(&summary.run_id)?;
        // Cold builds only (nothing found up to date), as every CI job builds.
        if let Some(b) = run
            .build
            .as_ref()
            .filter(|b| b.fresh == 0 && b.compiled > 0)
        {
            let v = builds.entry(run.variant.clone()).or_default();
            if v.len() < RUNS_PER_CELL {
                v.push(b.seconds * COST_PER_BUILD_SECOND);
            }
        }
        let mut this_run: BTreeMap<String, f64> = BTreeMap::new();
        for r in &run.results {
            if let Some(ic) = &r.icount {
                *this_run
                    .entry(format!("{}/{}", run.variant, r.scenario))
                    .or_insert(START_COST) += ic.ir as f64;
            }
        }
        for (cell, cost) in this_run {
            let v = per_cell.entry(cell).or_default();
            if v.len() < RUNS_PER_CELL {
                v.push(cost);
            }
        }
    }
    // A variant's cold build is a cell without a scenario (`VARIANT/`): whole variants add it
    // to their cost, and no scenario's cell is ever named so.
    let built: Vec<(String, Vec<f64>)> = builds
        .into_iter()
        .map(|(v, b)| (format!("{v}/"), b))
        .collect();
    plan.costs = per_cell
        .into_iter()
        .chain(built)
        .filter_map(|(k, v)| costbench_record::shard::median(&v).map(|m| (k, m)))
        .collect();
    plan.source = format!(
        "instructions of one run of the body plus {START_COST:e} per scenario, and for build variants {COST_PER_BUILD_SECOND:e} per second of a cold build, medians of the last {RUNS_PER_CELL} runs in history"
    );
    Ok(())
}
