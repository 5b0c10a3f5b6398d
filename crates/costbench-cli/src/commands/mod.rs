//! The commands: one file per `costbench` subcommand, each a short function that takes the
//! validated options (`crate::options`) and wires the layers together: cargo builds, the
//! measuring engines (`run`, `variants`, `miri`, `census`), history (`store`), judging
//! (`compare`, `check`) and the output layer (`crate::output`: its sink prints and writes report
//! files). Choosing the exit code (`crate::exit`) happens here, never in the engines.
//!
//! This module also holds what several commands share: where the history database is
//! ([`database`]), how a run named on the command line is loaded ([`load_side`]) and how two
//! loaded runs are judged with their function movers ([`judge`]).

mod census;
mod check;
mod compare;
mod export;
mod history;
mod import;
mod merge;
mod miri;
mod report;
mod run;
mod shard;
mod variants;

use crate::args::{Cli, Command};
use anyhow::{bail, Context, Result};
use costbench_record::model::RunRecord;
use costbench_store::Location;
use std::path::PathBuf;

/// Runs the parsed command line and returns the process exit code.
pub(crate) fn execute(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Run(args) if args.variants.any() => variants::variants(args),
        Command::Run(args) => run::run(args),
        Command::Variants(args) => variants::variants(args),
        Command::History(h) => history::history(h),
        Command::Compare(c) => compare::compare(c),
        Command::Import(i) => import::import(i),
        Command::Export(e) => export::export(e),
        Command::Census(c) => census::census(c),
        Command::Check(c) => check::check(c),
        Command::Report(r) => report::report(r),
        Command::Miri(m) => miri::miri(m),
        Command::Merge(m) => merge::merge(m),
    }
}

/// The database named by `--db` (or `COSTBENCH_DB`, which clap reads into it): a file or a
/// PostgreSQL URL; else the default SQLite file under the crate's target directory.
fn database(db: Option<PathBuf>, manifest_path: Option<&std::path::Path>) -> Result<Location> {
    if let Some(db) = db {
        return Ok(Location::parse(&db));
    }
    let dir = costbench_measure::cargo::target_directory(manifest_path)?;
    Ok(Location::Sqlite(costbench_store::default_path(&dir)))
}

/// A run named on the command line: a directory or run.json if that path exists, else a run id
/// in the history database.
/// Returns the record and, for a directory, the directory (where its callgrind outputs are).
fn load_side(
    what: &str,
    spec: &str,
    db: Option<&PathBuf>,
    manifest: Option<&std::path::Path>,
) -> Result<(RunRecord, Option<PathBuf>)> {
    let path = std::path::Path::new(spec);
    if path.exists() {
        let dir = if path.is_dir() {
            path.to_path_buf()
        } else {
            path.parent()
                .unwrap_or(std::path::Path::new("."))
                .to_path_buf()
        };
        return costbench_record::output::load_run(path)
            .map(|r| (r, Some(dir)))
            .with_context(|| format!("{what} {spec}"));
    }
    let db = database(db.cloned(), manifest).with_context(|| {
        format!("{what} {spec:?} is not a directory, so it must be a run id from history")
    })?;
    if !db.exists() {
        bail!("{what} {spec:?}: no such directory, and no history database at {db} to look it up as a run id");
    }
    db.open()?
        .load(spec)
        .map(|r| (r, None))
        .with_context(|| format!("{what} {spec:?} is not a directory"))
}

/// Compares `base` with `cand` and attaches, to every significant instruction-count row, the
/// functions that moved most, read from the callgrind outputs kept in the runs' directories;
/// `sources` (`check --baseline-rev`) says which source files the pull request changed.
fn judge(
    (base, base_dir): (&RunRecord, Option<&std::path::Path>),
    (cand, cand_dir): (&RunRecord, Option<&std::path::Path>),
    opts: &costbench_judge::compare::CompareOptions,
    historic: &costbench_judge::compare::noise::HistoricThresholds,
    sources: Option<&costbench_measure::run::baseline::SourceDiff>,
) -> costbench_judge::compare::Comparison {
    let mut cmp = costbench_judge::compare::compare_with(base, cand, opts, historic);
    let unchanged = sources.map(|s| move |file: &str| s.unchanged(file));
    costbench_judge::compare::functions::attach(
        &mut cmp,
        |id| {
            costbench_measure::instrument::icount::profile::load_both(
                id, base, base_dir, cand, cand_dir,
            )
        },
        unchanged
            .as_ref()
            .map(|f| f as costbench_judge::compare::functions::Unchanged),
    );
    cmp
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn bad_values_are_refused() {
        for args in [
            &["costbench", "run", "--jobs", "0"][..],
            &["costbench", "run", "--filter", "("],
            &["costbench", "run", "--timeout", "0"],
            &["costbench", "miri", "--timeout", "0"],
            &["costbench", "miri", "--filter", "("],
        ] {
            let cli = Cli::try_parse_from(args).unwrap();
            assert!(execute(cli).is_err(), "{args:?}");
        }
    }
}
