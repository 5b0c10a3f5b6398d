//! `costbench import`: read an existing output directory (costbench's run.json, or rustls
//! ci-bench's CSVs) and record it in the history.

use crate::args::ImportCmd;
use crate::core::history::database;
use anyhow::{bail, Context, Result};

pub(super) fn import(i: ImportCmd) -> Result<i32> {
    let dir = &i.dir;
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    let run = if dir.join("run.json").exists() {
        costbench_record::output::load_run(dir)?
    } else {
        let read = |name: &str| -> Result<Option<(String, String)>> {
            let p = dir.join(name);
            match std::fs::read_to_string(&p) {
                Ok(t) => Ok(Some((t, p.display().to_string()))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e).with_context(|| format!("cannot read {}", p.display())),
            }
        };
        // Each instrument's file of ci-bench's output, by the first of its names that exists.
        let mut files = Vec::new();
        for f in crate::import::CI_BENCH {
            for name in f.names {
                if let Some((text, path)) = read(name)? {
                    files.push((*f, text, path));
                    break;
                }
            }
        }
        let meta = crate::import::ImportMeta {
            commit: i.commit,
            branch: i.branch,
            variant: i.variant,
            started_at: None,
        };
        let files: Vec<_> = files
            .iter()
            .map(|(f, text, path)| (*f, text.as_str(), path.as_str()))
            .collect();
        crate::import::from_files(&files, &meta, dir)?
    };
    if let Some(note) = run.unfinished_note() {
        // History keeps finished runs only: a baseline or the noise model would take the rows
        // it lacks for scenarios that are gone.
        return Err(costbench_record::model::Unfinished(format!(
            "not recorded: {note} ({}). History keeps finished runs only; measure it again \
             (a shard with its own --shard K/N, then merge). compare and report still read the \
             directory",
            dir.display()
        ))
        .into());
    }
    let db = database(
        i.database.db.as_deref(),
        i.database.manifest_path.as_deref(),
    )?;
    db.open()?.record(&run)?;
    println!(
        "recorded run {} ({} results) in {db}",
        run.run_id,
        run.results.len(),
    );
    Ok(crate::exit::OK)
}
