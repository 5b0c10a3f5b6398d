//! `costbench export`: print a run (directory or run id) as its run record or in Bencher Metric
//! Format. A run that did not finish is said on stderr, and refused as Bencher Metric Format
//! (which cannot say it) unless `--allow-unfinished`.

use crate::args::ExportCmd;
use crate::core::sides::load_side;
use crate::output::Sink;
use anyhow::Result;
use costbench_record::model::Unfinished;
use costbench_report::render::Format;
use costbench_report::render::RunExport;

pub(super) fn export(e: ExportCmd) -> Result<i32> {
    let (run, _) = load_side(
        "run",
        &e.run,
        e.database.db.as_deref(),
        e.database.manifest_path.as_deref(),
    )?;
    if let Some(note) = run.unfinished_note() {
        // Bencher Metric Format carries figures only: a partial run would land in Bencher as a
        // whole one.
        if e.format == Format::Bmf && !e.allow_unfinished {
            return Err(Unfinished(format!(
                "not exported: {note}. Bencher Metric Format cannot say so; measure the run \
                 again, or export what it holds with --allow-unfinished"
            ))
            .into());
        }
        eprintln!("warning: {note}");
    }
    Sink::new(Some(e.format)).emit(&RunExport(&run))?;
    Ok(crate::exit::OK)
}
