//! `costbench report`: gather runs (named ones, or the newest in history and the run before it)
//! and the history charts (`output::html`), and send the page to the sink for `--output`.

use crate::args::ReportCmd;
use crate::core::history::database;
use crate::core::sides::load_side;
use crate::output::Sink;
use anyhow::{bail, Result};
use costbench_report::render::Format;

pub(super) fn report(r: ReportCmd) -> Result<i32> {
    if r.history_limit < 2 {
        crate::exit::usage!("--history-limit must be at least 2: a chart needs two runs");
    }
    let db = if r.no_history && !r.runs.is_empty() {
        None
    } else {
        match database(
            r.database.db.as_deref(),
            r.database.manifest_path.as_deref(),
        ) {
            Ok(p) => Some(p),
            // Without --db the default database is found through cargo; named runs do not need it.
            Err(e) if r.history || r.runs.is_empty() => return Err(e),
            Err(_) => None,
        }
    };
    let store = match &db {
        Some(p) if p.exists() => Some(p.open()?),
        Some(p) if r.history || r.runs.is_empty() => bail!(
            "no history database at {p}: `costbench run` records every run there (or pass --db PATH{})",
            if r.runs.is_empty() { ", or name the runs to report" } else { "" }
        ),
        _ => None,
    };
    let (runs, dirs) = if r.runs.is_empty() {
        let runs = crate::output::html::latest_runs(store.as_deref().expect("checked above"))?;
        let dirs = vec![None; runs.len()];
        (runs, dirs)
    } else {
        let mut runs = Vec::new();
        let mut dirs = Vec::new();
        for spec in &r.runs {
            let (run, dir) = load_side(
                "run",
                spec,
                r.database.db.as_deref(),
                r.database.manifest_path.as_deref(),
            )?;
            runs.push(run);
            dirs.push(dir);
        }
        (runs, dirs)
    };
    let dirs: Vec<Option<&std::path::Path>> = dirs.iter().map(|d| d.as_deref()).collect();
    let charts = store.as_deref().filter(|_| !r.no_history);
    let gathered = crate::output::html::gather(runs, &dirs, charts, r.history_limit)?;
    let sizes = Sink::new(None)
        .flag_file("--output", Some(&r.output), Format::Html)
        .emit(&gathered.page())?;
    let runs = gathered.runs.len();
    println!(
        "wrote {} ({} KiB, {} run{})",
        r.output.display(),
        sizes[0].div_ceil(1024),
        runs,
        if runs == 1 { "" } else { "s" }
    );
    Ok(crate::exit::OK)
}
