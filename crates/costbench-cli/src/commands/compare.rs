//! `costbench compare`: load two runs (directories or run ids), judge them per op
//! (`compare::compare_with`, thresholds learnt from history with `--history-branch`), attach
//! the function movers, and send the comparison to the sink (stdout as `--format`, `--junit`).
//! [`learn_thresholds`] is shared with `check`.

use super::{database, load_side};
use crate::args::CompareCmd;
use crate::output::Sink;
use anyhow::{bail, Result};
use costbench_record::model::RunRecord;
use costbench_record::render::Format;
use costbench_report::render::ComparisonView;

pub(super) fn compare(c: CompareCmd) -> Result<i32> {
    let (base, base_dir) = load_side(
        "baseline",
        &c.base,
        c.db.as_ref(),
        c.manifest_path.as_deref(),
    )?;
    let (cand, cand_dir) = load_side(
        "candidate",
        &c.cand,
        c.db.as_ref(),
        c.manifest_path.as_deref(),
    )?;
    let opts = c.significance.options()?;
    let historic = match &c.history_branch {
        Some(branch) => {
            let path = database(c.db.clone(), c.manifest_path.as_deref())?;
            learn_thresholds(&path, branch, c.history_window, &base)?
        }
        None => costbench_judge::compare::noise::HistoricThresholds::default(),
    };
    let cmp = super::judge(
        (&base, base_dir.as_deref()),
        (&cand, cand_dir.as_deref()),
        &opts,
        &historic,
        None,
    );
    let view = ComparisonView {
        comparison: &cmp,
        gate: None,
        styling: crate::terminal::stdout_styling(),
    };
    Sink::new(Some(c.format))
        .flag_file("--junit", c.junit.as_ref(), Format::Junit)
        .emit(&view)?;
    Ok(crate::exit::OK)
}

/// Per-id thresholds from the history of `branch` (runs of `base`'s variant) in the database at
/// `path`.
pub(super) fn learn_thresholds(
    path: &costbench_store::Location,
    branch: &str,
    window: usize,
    base: &RunRecord,
) -> Result<costbench_judge::compare::noise::HistoricThresholds> {
    use costbench_judge::compare::Instrument;
    use costbench_store::RunQuery;
    if !path.exists() {
        bail!("no history database at {path} to learn thresholds from");
    }
    let store = path.open()?;
    let q = RunQuery {
        branch: Some(branch.to_string()),
        variant: Some(base.variant.clone()),
        limit: Some(window),
    };
    let mut historic = costbench_judge::compare::noise::HistoricThresholds::default();
    for r in &base.results {
        for (inst, metric) in Instrument::ALL
            .into_iter()
            .filter_map(|i| Some((i, i.history()?)))
        {
            let series: Vec<f64> = store
                .series(&r.id, metric, &q)?
                .iter()
                .map(|p| p.per_op)
                .collect();
            historic.learn(&r.id, inst, &series);
        }
    }
    if historic.is_empty() {
        eprintln!(
            "note: no scenario has {} consecutive runs on branch {branch:?} yet; default thresholds apply",
            costbench_judge::compare::noise::MIN_CHANGES + 1
        );
    }
    Ok(historic)
}
