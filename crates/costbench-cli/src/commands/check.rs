//! `costbench check`, the CI gate, in three steps:
//! 1. the sides: [`measure_with_baseline_rev`] builds `--baseline-rev` from a worktree and
//!    measures it together with the working tree; otherwise [`baseline_run`] resolves
//!    `--baseline` (a directory, a run id, or `branch:NAME` with its history's thresholds) and
//!    [`candidate_run`] loads `--candidate` or measures the working tree;
//! 2. judging: `compare::compare_with` and the function movers;
//! 3. [`gate_and_emit`]: the gate of `[check]` in costbench.toml, the `--markdown` file, the
//!    report on stdout and the exit code (3 on a regression or a broken hard limit).

use super::compare::{learn_thresholds, print_comparison};
use super::load_side;
use super::run::measure_and_record;
use crate::args::{CheckCmd, CompareFormat};
use anyhow::{bail, Context, Result};
use costbench_judge::compare::noise::HistoricThresholds;
use costbench_judge::compare::{CompareOptions, Comparison};
use costbench_measure::cargo::BenchTarget;
use costbench_measure::run::RunOptions;
use costbench_record::model::RunRecord;
use std::path::PathBuf;

/// A side of the comparison: its run and, for a directory, where its callgrind outputs are.
type Side = (RunRecord, Option<PathBuf>);

pub(super) fn check(c: CheckCmd) -> Result<i32> {
    let opts = c.significance.options()?;
    // The looks of adaptive rounds judge at the same threshold and family error rate as the
    // comparison that follows.
    let rounds = c
        .rounds
        .rounds(opts.paired_walltime_threshold_pct, opts.family_alpha)?;
    let manifest = c.measure.target.manifest_path.clone();
    let db_arg = c.measure.history.db.clone();
    let mut run_opts = c.measure.into_options(false, false)?;
    run_opts.rounds = rounds;
    run_opts.icount_threshold_pct = opts.icount_threshold_pct;
    run_opts.placement_runs = c.placement_runs;
    // Reports go to stdout; the runs' own tables would only be in the way.
    run_opts.quiet = true;
    let target = costbench_measure::cargo::resolve(
        run_opts.manifest_path.as_deref(),
        run_opts.package.as_deref(),
        run_opts.bench.as_deref(),
    )?;
    let config = costbench_measure::config::Config::load(&target.workspace_root)?;
    let (base, cand, historic) = if let Some(rev) = &c.baseline_rev {
        let (base, cand) = measure_with_baseline_rev(&run_opts, &target, rev)?;
        (base, cand, HistoricThresholds::default())
    } else {
        let spec = c
            .baseline
            .as_deref()
            .expect("clap requires --baseline without --baseline-rev");
        let db = super::database(db_arg.clone(), manifest.as_deref())?;
        let (base, historic) = baseline_run(
            spec,
            &db,
            db_arg.as_ref(),
            manifest.as_deref(),
            c.history_window,
        )?;
        let cand = match &c.candidate {
            Some(spec) => load_side("candidate", spec, db_arg.as_ref(), manifest.as_deref())?,
            None => candidate_run(&run_opts, &target)?,
        };
        (base, cand, historic)
    };
    let markdown = c.markdown.as_deref();
    gate_and_emit(
        c.format,
        markdown,
        &opts,
        &historic,
        &config.check,
        base,
        cand,
    )
}

/// `--baseline-rev`: builds the revision from a worktree and the working tree, and measures
/// both together (instruction counts, wall time in interleaved rounds).
fn measure_with_baseline_rev(
    run_opts: &RunOptions,
    target: &BenchTarget,
    rev: &str,
) -> Result<(Side, Side)> {
    let rounds = &run_opts.rounds;
    let root = run_opts
        .output_dir
        .clone()
        .unwrap_or_else(|| target.target_directory.join("costbench").join("check"));
    let base_target = costbench_measure::run::baseline::checkout(target, rev)?;
    eprintln!("check: building the baseline ({rev}) and the candidate (working tree)");
    // Its own build directory: cargo names a workspace member's artifacts without its path,
    // so two checkouts built in one directory overwrite each other's binaries.
    let base_exe = costbench_measure::cargo::build(
        &base_target,
        costbench_measure::run::baseline::BUILD_VARIANT,
        true,
        run_opts.code_align,
    )?;
    let cand_exe = costbench_measure::cargo::build(target, "default", true, run_opts.code_align)?;
    let sides = vec![
        costbench_measure::run::SideSpec {
            label: "default".into(),
            exe: base_exe,
            output_dir: root.join("baseline"),
            target: Some(base_target),
        },
        costbench_measure::run::SideSpec {
            label: "default".into(),
            exe: cand_exe,
            output_dir: root.join("candidate"),
            target: None,
        },
    ];
    eprintln!(
        "check: measuring both, wall time in {} to {} interleaved rounds",
        rounds.rounds, rounds.max_rounds
    );
    let mut records = measure_and_record(run_opts, target, sides)?;
    let cand = records.pop().expect("two sides");
    let base = records.pop().expect("two sides");
    eprintln!("check: results in {}", root.display());
    Ok((
        (base, Some(root.join("baseline"))),
        (cand, Some(root.join("candidate"))),
    ))
}

/// `--baseline SPEC`: the newest run of a branch in the history at `db` (whose history then
/// sets the thresholds), or a directory or run id.
fn baseline_run(
    spec: &str,
    db: &std::path::Path,
    db_arg: Option<&PathBuf>,
    manifest: Option<&std::path::Path>,
    history_window: usize,
) -> Result<(Side, HistoricThresholds)> {
    use costbench_store::Store;
    match spec.strip_prefix("branch:") {
        Some(branch) => {
            if !db.exists() {
                bail!("--baseline {spec}: no history database at {}", db.display());
            }
            let store = costbench_store::sqlite::SqliteStore::open(db)?;
            let latest = store
                .runs(&costbench_store::RunQuery {
                    branch: Some(branch.to_string()),
                    variant: Some("default".into()),
                    limit: Some(1),
                })?
                .into_iter()
                .next()
                .with_context(|| {
                    format!(
                        "--baseline {spec}: no run of branch {branch:?} in {}",
                        db.display()
                    )
                })?;
            let base = store.load(&latest.run_id)?;
            let historic = learn_thresholds(db, branch, history_window, &base)?;
            Ok(((base, None), historic))
        }
        None => Ok((
            load_side("baseline", spec, db_arg, manifest)?,
            HistoricThresholds::default(),
        )),
    }
}

/// The candidate measured now from the working tree.
fn candidate_run(run_opts: &RunOptions, target: &BenchTarget) -> Result<Side> {
    let out = run_opts
        .output_dir
        .clone()
        .unwrap_or_else(|| target.target_directory.join("costbench").join("results"));
    let exe = costbench_measure::cargo::build(target, "default", true, run_opts.code_align)?;
    let side = costbench_measure::run::SideSpec {
        label: "default".into(),
        exe,
        output_dir: out.clone(),
        target: None,
    };
    let cand = measure_and_record(run_opts, target, vec![side])?.remove(0);
    eprintln!("check: candidate results in {}", out.display());
    Ok((cand, Some(out)))
}

/// Judges the sides, applies the gate, writes `--markdown`, prints the report as `--format`
/// asks and returns the exit code.
fn gate_and_emit(
    format: CompareFormat,
    markdown: Option<&std::path::Path>,
    opts: &CompareOptions,
    historic: &HistoricThresholds,
    limits: &costbench_measure::config::CheckConfig,
    (base, base_dir): Side,
    (cand, cand_dir): Side,
) -> Result<i32> {
    let cmp: Comparison = super::judge(
        (&base, base_dir.as_deref()),
        (&cand, cand_dir.as_deref()),
        opts,
        historic,
    );
    let gate = costbench_judge::check::evaluate(&cmp, &cand, limits);
    if let Some(path) = markdown {
        let md = costbench_report::markdown::check(&cmp, &gate);
        costbench_record::output::write_atomic(path, md.as_bytes())
            .with_context(|| format!("--markdown {}", path.display()))?;
    }
    match format {
        CompareFormat::Markdown => print!("{}", costbench_report::markdown::check(&cmp, &gate)),
        CompareFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                // 2: the gate's `notes` (unresolved and placement rows, never gated) and the
                // comparison's schema 2 (see compare::COMPARISON_SCHEMA_VERSION).
                "schema": "costbench-check",
                "schema_version": 2,
                "passed": gate.passed(),
                "gate": gate,
                "comparison": cmp,
            }))
            .expect("a check always serialises")
        ),
        CompareFormat::Table => {
            print_comparison(&cmp, CompareFormat::Table);
            print!("{}", costbench_report::check::terminal(&gate));
        }
    }
    Ok(if !gate.passed() {
        crate::exit::REGRESSION
    } else if cand.failed().next().is_some() || base.failed().next().is_some() {
        crate::exit::FAILURE
    } else {
        crate::exit::OK
    })
}
