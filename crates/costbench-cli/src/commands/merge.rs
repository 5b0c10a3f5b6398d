//! `costbench merge DIR...`: the shards' output directories become one run
//! (`costbench_record::merge::merge_dirs`, which checks that they belong together), recorded in
//! history like any measured run, and printed as `run` prints one. The roots of a sharded
//! `variants` session become one root instead (`costbench_record::merge::variants`), whose
//! matrix is computed again over every shard's runs and presented as `variants` presents it.

use crate::args::MergeCmd;
use crate::core::history::database;
use crate::core::paths::Paths;
use crate::core::present::present;
use anyhow::{bail, Context, Result};
use costbench_judge::compare::CompareOptions;
use costbench_judge::variants::{matrix, Column, MatrixHead, SCHEMA};
use costbench_record::merge::variants as vmerge;
use costbench_record::model::RunRecord;
use costbench_report::render::Format;
use costbench_report::render::{Doc, RunView};
use std::path::{Path, PathBuf};

pub(super) fn merge(m: MergeCmd) -> Result<i32> {
    let roots: Vec<&PathBuf> = m
        .dirs
        .iter()
        .filter(|d| vmerge::is_variants_root(d))
        .collect();
    let variants = roots.len() == m.dirs.len();
    if let Some(root) = roots.first().filter(|_| !variants) {
        bail!(
            "cannot merge: {} is the root of a variants session (it holds {}) but other \
             directories are runs; give the roots of one sharded variants session, or the \
             directories of one sharded run",
            root.display(),
            vmerge::MATRIX_FILE
        );
    }
    if !variants {
        // Refused before the shards are read: a merged run has no markdown.
        crate::output::accept(
            "a merged run",
            m.format,
            Doc::Run,
            "; markdown is for merged variants",
        )?;
    }
    let out = match &m.output_dir {
        Some(o) => o.clone(),
        None => Paths::of_manifest(m.manifest_path.as_deref())
            .context("--output-dir not given, so the merged run goes under the target directory")?
            .merged(),
    };
    if variants {
        return merge_variants(&m, &out);
    }
    // A family of sized ids may span shards: fitted again over the merged rows (issue 28).
    let record = costbench_record::merge::merge_dirs(
        &m.dirs,
        &out,
        &costbench_measure::environment::new_run_id(),
        m.allow_unfinished,
        costbench_judge::complexity::refit,
    )?;
    match record.unfinished_note() {
        // History keeps finished runs only (a baseline or the noise model would take what it
        // lacks for scenarios that are gone).
        Some(note) => eprintln!("warning: {note}; not recorded in history"),
        None => record_history(&m, std::slice::from_ref(&record), &out)?,
    }
    let shards = record.merged.as_ref().map_or(0, |x| x.shards.len());
    let view = RunView {
        record: &record,
        summaries: false,
        base: None,
        footer: format!(
            "merged {shards} shards ({} results): {}\n",
            record.results.len(),
            out.display()
        ),
        page: None,
    };
    crate::output::Sink::new(crate::output::stdout(m.format, m.quiet)).emit(&view)?;
    Ok(if record.failed().next().is_some() {
        crate::exit::FAILURE
    } else {
        crate::exit::OK
    })
}

/// Records `records` (written under `out`) in history unless `--no-history`.
fn record_history(m: &MergeCmd, records: &[RunRecord], out: &Path) -> Result<()> {
    if m.history.no_history {
        return Ok(());
    }
    let db = database(m.history.db.as_deref(), m.manifest_path.as_deref())?;
    let store = db.open()?;
    for r in records {
        store.record(r).with_context(|| {
            format!(
                "the merged results are in {}, but recording run {} ({}) in the history failed",
                out.display(),
                r.run_id,
                r.variant
            )
        })?;
    }
    Ok(())
}

/// The roots of a sharded variants session become one root under `out`, with the matrix over
/// every shard's runs.
fn merge_variants(m: &MergeCmd, out: &Path) -> Result<i32> {
    let mut parts = Vec::new();
    let mut heads: Vec<MatrixHead> = Vec::new();
    for d in &m.dirs {
        let path = d.join(vmerge::MATRIX_FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let head: MatrixHead = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a variants matrix that costbench can read",
                path.display()
            )
        })?;
        if head.schema != SCHEMA {
            bail!(
                "{} is not a variants matrix (its schema is {:?})",
                path.display(),
                head.schema
            );
        }
        let columns: Vec<(String, Option<String>)> = head
            .columns
            .iter()
            .map(|c| (c.name.clone(), c.run_id.clone()))
            .collect();
        parts.push(vmerge::load_part(d, head.shard.clone(), &columns)?);
        heads.push(head);
    }
    let merged = vmerge::merge_variants(&parts, costbench_measure::environment::new_run_id)?;
    vmerge::write(&merged, &m.dirs, out)?;
    let columns: Vec<Column> = merged
        .columns
        .iter()
        .map(|(name, k)| {
            let mut c = heads[*k]
                .columns
                .iter()
                .find(|c| c.name == *name)
                .cloned()
                .expect("merge_variants took the column from a shard that has it");
            let run = merged.runs.iter().find(|r| r.dir == *name);
            c.run_id = run.map(|r| r.record.run_id.clone());
            c.output_dir = run.map(|r| out.join(&r.dir).display().to_string());
            c
        })
        .collect();
    let records: Vec<RunRecord> = merged.runs.iter().map(|r| r.record.clone()).collect();
    let matrix = matrix(
        &merged.baseline,
        columns,
        &records,
        &CompareOptions::default(),
    );
    record_history(m, &records, out)?;
    if !m.quiet && m.format == Format::Table {
        eprintln!(
            "merged {} shards of a variants session: {} runs of {} variants",
            parts.len(),
            records.len(),
            merged.columns.len()
        );
    }
    present(&matrix, &records, out, m.format, m.quiet)
}
