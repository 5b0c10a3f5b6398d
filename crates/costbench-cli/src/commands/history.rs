//! `costbench history`: list the recorded runs, or one scenario's series of per-op figures.

use crate::args::HistoryCmd;
use crate::core::history::database;
use crate::output::Sink;
use anyhow::{bail, Result};
use costbench_report::render::Format;
use costbench_report::render::HistoryView;

pub(super) fn history(h: HistoryCmd) -> Result<i32> {
    use costbench_store::RunQuery;
    let path = database(
        h.database.db.as_deref(),
        h.database.manifest_path.as_deref(),
    )?;
    if !path.exists() {
        bail!(
            "no history database at {path}: `costbench run` records every run there (or pass --db PATH)"
        );
    }
    let store = path.open()?;
    let q = RunQuery {
        branch: h.branch,
        variant: h.variant,
        limit: Some(h.limit),
    };
    let table = Sink::new(Some(Format::Table));
    match h.scenario {
        None => {
            table.emit(&HistoryView::Runs(&store.runs(&q)?))?;
        }
        Some(id) => {
            let metric = h.metric;
            let points = store.series(&id, metric, &q)?;
            if points.is_empty() {
                bail!("no {} figures for {id:?} in {path}", metric.as_str());
            }
            table.emit(&HistoryView::Series {
                id: &id,
                metric,
                points: &points,
            })?;
        }
    }
    Ok(crate::exit::OK)
}
