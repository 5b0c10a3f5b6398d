//! `costbench report`: gather runs (named ones, a variants folder's, or the newest in history
//! and the run before it) and the history charts (`core::page`), and send the page to the
//! sink for `--output` (by default `TARGET_DIR/costbench/report.html`).

use crate::args::ReportCmd;
use crate::core::history::database;
use crate::core::paths::Paths;
use crate::core::sides::load_side;
use crate::output::Sink;
use anyhow::{bail, Context, Result};
use costbench_report::render::Format;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The matrix a `costbench variants` session writes at the root of its folder.
const MATRIX: &str = "matrix.json";

/// The variants folder `dir` (it holds matrix.json and no run.json): its matrix and each
/// measured variant's run directory, the baseline's first, then the others in the matrix's
/// order. `None` when `dir` is not one.
fn variants_folder(dir: &Path) -> Result<Option<(Value, Vec<PathBuf>)>> {
    let matrix = dir.join(MATRIX);
    if !dir.is_dir() || !matrix.is_file() || dir.join("run.json").exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&matrix)
        .with_context(|| format!("cannot read {}", matrix.display()))?;
    let m: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a variants matrix", matrix.display()))?;
    let baseline = m["baseline"].as_str().unwrap_or_default().to_string();
    let mut names: Vec<String> = m["columns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect();
    names.sort_by_key(|n| *n != baseline);
    let dirs: Vec<PathBuf> = names
        .iter()
        .map(|n| dir.join(n))
        .filter(|d| d.join("run.json").is_file())
        .collect();
    if dirs.is_empty() {
        bail!(
            "{}: no variant of this variants folder has a run.json (did every build fail?)",
            dir.display()
        );
    }
    Ok(Some((m, dirs)))
}

/// The run ids a variants matrix measured.
fn matrix_run_ids(m: &Value) -> Vec<&str> {
    m["columns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["run_id"].as_str())
        .collect()
}

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
    // The default place, under the target directory; outside a crate (runs named, --db given)
    // there is none.
    let paths = Paths::of_manifest(r.database.manifest_path.as_deref()).ok();
    let mut specs: Vec<String> = Vec::new();
    for spec in &r.runs {
        match variants_folder(Path::new(spec))? {
            Some((_, dirs)) => specs.extend(dirs.iter().map(|d| d.display().to_string())),
            None => specs.push(spec.clone()),
        }
    }
    let (runs, dirs) = if specs.is_empty() {
        let store = store.as_deref().expect("checked above");
        let runs = crate::core::page::latest_runs(store)?;
        // The newest run is one of the last variants session's: show that session's matrix.
        let session = paths
            .as_ref()
            .map(|p| variants_folder(&p.variants()))
            .transpose()?
            .flatten()
            .filter(|(m, _)| {
                runs.last()
                    .is_some_and(|newest| matrix_run_ids(m).contains(&newest.run_id.as_str()))
            });
        match session {
            Some((_, dirs)) => {
                let mut runs = Vec::new();
                for d in &dirs {
                    runs.push(
                        costbench_record::output::load_run(d)
                            .with_context(|| format!("run {}", d.display()))?,
                    );
                }
                (runs, dirs.into_iter().map(Some).collect())
            }
            None => {
                let dirs = vec![None; runs.len()];
                (runs, dirs)
            }
        }
    } else {
        let mut runs = Vec::new();
        let mut dirs = Vec::new();
        for spec in &specs {
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
    let gathered = crate::core::page::gather(runs, &dirs, charts, r.history_limit)?;
    let output = match (r.output, &paths) {
        (Some(o), _) => o,
        (None, Some(p)) => p.report(),
        (None, None) => PathBuf::from("report.html"),
    };
    if let Some(parent) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let sizes = Sink::new(None)
        .flag_file("--output", Some(&output), Format::Html)
        .emit(&gathered.page())?;
    let runs = gathered.runs.len();
    println!(
        "wrote {} ({} KiB, {} run{})",
        output.display(),
        sizes[0].div_ceil(1024),
        runs,
        if runs == 1 { "" } else { "s" }
    );
    Ok(crate::exit::OK)
}
