//! `costbench run`: build the bench target, measure it (`run::measure_sides`), record the run in
//! history, print it as `--format` and `--quiet` ask, write `report.html` with `--html`, and
//! choose the exit code. Also [`measure_and_record`], the measure-then-record step that `check`
//! and `variants` share, so that every measured run lands in history the same way.

use crate::args::RunArgs;
use crate::exit;
use anyhow::{Context, Result};
use costbench_measure::cargo::{self, BenchTarget};
use costbench_measure::run::{Binary, RunOptions, SideSpec};
use costbench_protocol::ScenarioInfo;
use costbench_record::model::RunRecord;
use costbench_record::output::OutputDir;
use costbench_record::selection::select;
use costbench_report as report;

/// `costbench run` without variants.
pub(super) fn run(args: RunArgs) -> Result<i32> {
    let html = args.html;
    measure_and_print(args.run_options()?, html)
}

/// Build → measure → record → print → `report.html` (with `html`) → exit code.
fn measure_and_print(opts: RunOptions, html: bool) -> Result<i32> {
    let target = cargo::resolve(
        opts.manifest_path.as_deref(),
        opts.package.as_deref(),
        opts.bench.as_deref(),
    )?;
    let out_root = opts
        .output_dir
        .clone()
        .unwrap_or_else(|| target.target_directory.join("costbench").join("results"));
    if opts.list_only {
        let exe = cargo::build(&target, "default", opts.quiet, opts.code_align)?;
        let bin = Binary {
            exe,
            cwd: target.package_dir.clone(),
        };
        let listing = bin.list(opts.timeout)?;
        print_list(&select(&listing, opts.filter.as_ref())?);
        return Ok(exit::OK);
    }
    // Checked before building: a wrong output directory should not cost a build.
    OutputDir::prepare(&out_root)?;
    let exe = cargo::build(&target, "default", opts.quiet, opts.code_align)?;
    let side = SideSpec {
        label: "default".into(),
        exe,
        output_dir: out_root.clone(),
        target: None,
    };
    let record = measure_and_record(&opts, &target, vec![side])?.remove(0);
    print_record(&opts, &record);
    if html {
        let db = opts.record_history.then(|| {
            opts.db
                .clone()
                .unwrap_or_else(|| costbench_store::default_path(&target.target_directory))
        });
        let path = crate::html_report::write_for_run(&record, &out_root, db.as_deref())
            .context("writing the HTML report (the run's results are written)")?;
        if !opts.quiet && !opts.json {
            println!("report: {}", path.display());
        }
    }
    if !opts.quiet && !opts.json {
        println!("results: {}", out_root.display());
    }
    Ok(exit_code(&[&record]))
}

/// Exit code for finished runs: [`exit::FAILURE`] when any scenario failed in any of them.
fn exit_code(records: &[&RunRecord]) -> i32 {
    if records.iter().any(|r| r.failed().next().is_some()) {
        exit::FAILURE
    } else {
        exit::OK
    }
}

/// Prints a finished run as `--format` and `--quiet` ask.
fn print_record(opts: &RunOptions, record: &RunRecord) {
    if opts.json {
        println!(
            "{}",
            serde_json::to_string_pretty(record).expect("a run record always serialises")
        );
    } else if !opts.quiet {
        print!("{}", report::terminal::table(record));
        let cwd = std::env::current_dir().ok();
        print!(
            "{}",
            costbench_report::census::dynamic_summary(record, cwd.as_deref())
        );
    } else {
        for r in record.failed() {
            for f in &r.failures {
                eprintln!(
                    "FAILED {} ({}, {}): {}",
                    r.id, f.instrument, f.kind, f.message
                );
            }
        }
    }
}

/// Measures `sides` (`run::measure_sides`) and records every side's run in the history unless
/// `opts.record_history` is off. The results are already on disk when a side is recorded, so a
/// history failure is reported with where they are.
pub(super) fn measure_and_record(
    opts: &RunOptions,
    target: &BenchTarget,
    sides: Vec<SideSpec>,
) -> Result<Vec<RunRecord>> {
    let dirs: Vec<std::path::PathBuf> = sides.iter().map(|s| s.output_dir.clone()).collect();
    let records = costbench_measure::run::measure_sides(opts, target, sides)?;
    if opts.record_history {
        let db = opts
            .db
            .clone()
            .unwrap_or_else(|| costbench_store::default_path(&target.target_directory));
        for (record, dir) in records.iter().zip(&dirs) {
            // The results are already on disk: a history failure is reported, not fatal to them.
            costbench_store::sqlite::SqliteStore::open(&db)
                .and_then(|s| costbench_store::Store::record(&s, record))
                .with_context(|| {
                    format!(
                        "the run's results are in {}, but recording it in the history failed",
                        dir.display()
                    )
                })?;
        }
    }
    Ok(records)
}

/// `--list`: one line per selected scenario (name, ops, unit, parties).
fn print_list(selected: &[&ScenarioInfo]) {
    for s in selected {
        let parties = if s.parties.is_empty() {
            String::new()
        } else {
            format!("  parties: {}", s.parties.join(", "))
        };
        println!("{}  ({} {}){parties}", s.name, s.ops, s.unit);
    }
}
