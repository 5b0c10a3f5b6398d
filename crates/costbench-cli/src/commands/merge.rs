//! `costbench merge DIR...`: the shards' output directories become one run
//! (`costbench_record::merge::merge_dirs`, which checks that they belong together), recorded in
//! history like any measured run, and printed as `run` prints one.

use crate::args::MergeCmd;
use anyhow::{Context, Result};

pub(super) fn merge(m: MergeCmd) -> Result<i32> {
    let out = match &m.output {
        Some(o) => o.clone(),
        None => costbench_measure::cargo::target_directory(m.manifest_path.as_deref())
            .context("--output not given, so the merged run goes under the target directory")?
            .join("costbench")
            .join("merged"),
    };
    let record = costbench_record::merge::merge_dirs(
        &m.dirs,
        &out,
        &costbench_measure::environment::new_run_id(),
    )?;
    if !m.history.no_history {
        let db = super::database(m.history.db.clone(), m.manifest_path.as_deref())?;
        db.open().and_then(|s| s.record(&record)).with_context(|| {
            format!(
                "the merged run is in {}, but recording it in the history failed",
                out.display()
            )
        })?;
    }
    if !m.quiet {
        print!("{}", costbench_report::terminal::table(&record));
        let shards = record.merged.as_ref().map_or(0, |x| x.shards.len());
        println!(
            "merged {shards} shards ({} results): {}",
            record.results.len(),
            out.display()
        );
    }
    Ok(if record.failed().next().is_some() {
        crate::exit::FAILURE
    } else {
        crate::exit::OK
    })
}
