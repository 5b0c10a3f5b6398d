//! `costbench compare`: load two runs (directories or run ids), judge them per op
//! (`compare::compare_with`, thresholds learnt from history with `--history-branch`), attach
//! the function movers, and send the comparison to the sink (stdout as `--format`, `--junit`).

use crate::args::CompareCmd;
use crate::core::history::database;
use crate::core::sides::{judge_sides, learn_thresholds, load_side};
use crate::output::Sink;
use anyhow::Result;
use costbench_report::render::ComparisonView;
use costbench_report::render::Format;

pub(super) fn compare(c: CompareCmd) -> Result<i32> {
    let (base, base_dir) = load_side(
        "baseline",
        &c.base,
        c.database.db.as_deref(),
        c.database.manifest_path.as_deref(),
    )?;
    let (cand, cand_dir) = load_side(
        "candidate",
        &c.cand,
        c.database.db.as_deref(),
        c.database.manifest_path.as_deref(),
    )?;
    let opts = c.significance.options()?;
    let historic = match &c.history_branch {
        Some(branch) => {
            let path = database(
                c.database.db.as_deref(),
                c.database.manifest_path.as_deref(),
            )?;
            learn_thresholds(&path, branch, c.history_window, &base)?
        }
        None => costbench_judge::compare::noise::HistoricThresholds::default(),
    };
    let cmp = judge_sides(
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
        config_file: None,
    };
    Sink::new(Some(c.format))
        .flag_file("--junit", c.junit.as_ref(), Format::Junit)
        .emit(&view)?;
    Ok(crate::exit::OK)
}
