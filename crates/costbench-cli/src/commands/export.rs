//! `costbench export`: print a run (directory or run id) as its run record or in Bencher Metric
//! Format.

use super::load_side;
use crate::args::{ExportCmd, ExportFormat};
use anyhow::Result;

pub(super) fn export(e: ExportCmd) -> Result<i32> {
    let (run, _) = load_side("run", &e.run, e.db.as_ref(), e.manifest_path.as_deref())?;
    let value = match e.format {
        ExportFormat::Json => serde_json::to_value(&run).expect("a run record always serialises"),
        ExportFormat::Bmf => costbench_report::bmf::bmf(&run),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&value).expect("JSON values serialise")
    );
    Ok(crate::exit::OK)
}
