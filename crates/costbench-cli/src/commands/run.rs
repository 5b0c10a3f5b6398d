//! `costbench run`: build the bench target, measure it (`run::measure_sides`), record the run in
//! history, send it to the sink (stdout as `--format` and `--quiet` ask, `report.html` with
//! `--html`), and choose the exit code. Also [`measure_and_record`], the measure-then-record step
//! that `check` and `variants` share, so that every measured run lands in history the same way.

use crate::args::RunArgs;
use crate::exit;
use anyhow::{Context, Result};
use costbench_measure::cargo::{self, BenchTarget};
use costbench_measure::run::{Binary, RunOptions, SideSpec};
use costbench_protocol::ScenarioInfo;
use costbench_record::model::RunRecord;
use costbench_record::output::OutputDir;
use costbench_record::render::Format;
use costbench_record::selection::select;
use costbench_report::render::RunView;

/// `costbench run` without variants.
pub(super) fn run(args: RunArgs) -> Result<i32> {
    let (html, format) = (args.html, args.format);
    measure_and_print(args.run_options()?, format, html)
}

/// Build → measure → record → `report.html` (with `html`) → print as `format` → exit code.
fn measure_and_print(mut opts: RunOptions, format: Format, html: bool) -> Result<i32> {
    let target = cargo::resolve(
        opts.manifest_path.as_deref(),
        opts.package.as_deref(),
        opts.bench.as_deref(),
    )?;
    let db = history_location(&opts, &target);
    super::shard::load_costs(&mut opts, &db)?;
    let out_root = opts
        .output_dir
        .clone()
        .unwrap_or_else(|| target.target_directory.join("costbench").join("results"));
    if opts.list_only {
        let exe = cargo::build(&target, "default", &opts.cargo, opts.quiet, opts.code_align)?;
        let bin = Binary {
            exe,
            cwd: target.package_dir.clone(),
        };
        let listing = bin.list(opts.timeout)?;
        // With --shard: this job's scenarios, so that a CI matrix can show its split.
        let mut selected = vec![select(&listing, opts.filter.as_ref())?];
        if let Some(plan) = &opts.shard {
            costbench_measure::run::sharding::apply(plan, &["default".into()], &mut selected);
        }
        print_list(&selected[0]);
        return Ok(exit::OK);
    }
    // Checked before building: a wrong output directory should not cost a build.
    OutputDir::prepare(&out_root)?;
    let exe = cargo::build(&target, "default", &opts.cargo, opts.quiet, opts.code_align)?;
    let side = SideSpec {
        label: "default".into(),
        exe,
        output_dir: out_root.clone(),
        target: None,
        build: None,
    };
    let start = std::time::Instant::now();
    if !opts.quiet {
        costbench_measure::terminal::status(
            "Measuring",
            format!(
                "bench target {}: {}",
                target.bench,
                opts.instruments.names().join(", ")
            ),
        );
    }
    let record = measure_and_record(&opts, &target, vec![side])?.remove(0);
    if !opts.quiet {
        costbench_measure::terminal::status(
            "Finished",
            format!(
                "{} measured ids in {:.1} s; results in {}",
                record.results.len(),
                start.elapsed().as_secs_f64(),
                out_root.display()
            ),
        );
    }
    const HTML_FAILED: &str = "writing the HTML report (the run's results are written)";
    let stdout = crate::output::stdout(format, opts.quiet);
    let mut sink = crate::output::Sink::new(stdout);
    let mut footer = String::new();
    let gathered = if html {
        let db = opts
            .record_history
            .then(|| history_location(&opts, &target));
        let gathered = crate::output::html::gather_for_run(&record, &out_root, db.as_ref())
            .context(HTML_FAILED)?;
        let path = out_root.join("report.html");
        footer = format!("report: {}\n", path.display());
        sink = sink.file(path, Format::Html, Some(HTML_FAILED.into()));
        Some(gathered)
    } else {
        None
    };
    footer += &format!("results: {}\n", out_root.display());
    let cwd = std::env::current_dir().ok();
    let view = RunView {
        record: &record,
        census_summary: true,
        base: cwd.as_deref(),
        footer,
        page: gathered.as_ref().map(|g| g.page()),
    };
    sink.emit(&view)?;
    if stdout.is_none() {
        print_failures(&record);
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

/// `--quiet`: the failed scenarios on stderr, which is all a quiet run says.
fn print_failures(record: &RunRecord) {
    for r in record.failed() {
        for f in &r.failures {
            eprintln!(
                "FAILED {} ({}, {}): {}",
                r.id, f.instrument, f.kind, f.message
            );
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
        let db = history_location(opts, target);
        for (record, dir) in records.iter().zip(&dirs) {
            // The results are already on disk: a history failure is reported, not fatal to them.
            db.open().and_then(|s| s.record(record)).with_context(|| {
                format!(
                    "the run's results are in {}, but recording it in the history failed",
                    dir.display()
                )
            })?;
        }
    }
    Ok(records)
}

/// Where `run` records: `--db` (or `COSTBENCH_DB`), else the default file in the target directory.
fn history_location(opts: &RunOptions, target: &BenchTarget) -> costbench_store::Location {
    match &opts.db {
        Some(db) => costbench_store::Location::parse(db),
        None => costbench_store::Location::Sqlite(costbench_store::default_path(
            &target.target_directory,
        )),
    }
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
