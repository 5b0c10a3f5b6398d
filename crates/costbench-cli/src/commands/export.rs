//! `costbench export`: print a run (directory or run id) as its run record or in Bencher Metric
//! Format.

use crate::args::ExportCmd;
use crate::core::sides::load_side;
use crate::output::Sink;
use anyhow::Result;
use costbench_report::render::RunExport;

pub(super) fn export(e: ExportCmd) -> Result<i32> {
    let (run, _) = load_side(
        "run",
        &e.run,
        e.database.db.as_deref(),
        e.database.manifest_path.as_deref(),
    )?;
    Sink::new(Some(e.format)).emit(&RunExport(&run))?;
    Ok(crate::exit::OK)
}
