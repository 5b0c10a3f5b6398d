//! `costbench check`, the CI gate, in three steps:
//! 1. the sides: [`measure_with_baseline_rev`] builds `--baseline-rev` from a worktree and
//!    measures it together with the working tree; otherwise [`baseline_run`] resolves
//!    `--baseline` (a directory, a run id, or `branch:NAME` with its history's thresholds) and
//!    [`candidate_run`] loads `--candidate` or measures the working tree;
//! 2. judging: `compare::compare_with` and the function movers;
//! 3. [`gate_and_emit`]: the gate of `[check]` in costbench.toml, the report sent to the sink
//!    (the `--markdown` and `--junit` files, stdout), GitHub Actions' job summary and annotations
//!    (`crate::github`), and the exit code (3 on a regression or a broken hard limit).

use super::compare::learn_thresholds;
use super::load_side;
use super::run::measure_and_record;
use crate::args::CheckCmd;
use crate::output::Sink;
use anyhow::{bail, Context, Result};
use costbench_judge::compare::noise::HistoricThresholds;
use costbench_judge::compare::{CompareOptions, Comparison};
use costbench_measure::cargo::BenchTarget;
use costbench_measure::run::baseline::SourceDiff;
use costbench_measure::run::RunOptions;
use costbench_record::instrument::Instrument;
use costbench_record::model::RunRecord;
use costbench_record::render::{Format, Render as _};
use costbench_report::render::ComparisonView;
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
    // Reports go to stdout; the runs' own tables would only be in the way. Builds and status
    // lines on stderr follow the user's --quiet.
    let quiet = run_opts.quiet;
    run_opts.quiet = true;
    let target = costbench_measure::cargo::resolve(
        run_opts.manifest_path.as_deref(),
        run_opts.package.as_deref(),
        run_opts.bench.as_deref(),
    )?;
    let config = costbench_measure::config::Config::load(&target.workspace_root)?;
    let shard_db = super::database(db_arg.clone(), manifest.as_deref())?;
    super::shard::load_costs(&mut run_opts, &shard_db)?;
    let (base, cand, historic, sources) = if let Some(rev) = &c.baseline_rev {
        let (base, cand, sources) = measure_with_baseline_rev(&run_opts, &target, rev, quiet)?;
        (base, cand, HistoricThresholds::default(), sources)
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
            None => candidate_run(&run_opts, &target, quiet)?,
        };
        (base, cand, historic, None)
    };
    let outputs = Outputs {
        sink: Sink::new(Some(c.format))
            .flag_file("--markdown", c.markdown.as_ref(), Format::Markdown)
            .flag_file("--junit", c.junit.as_ref(), Format::Junit),
        github: crate::github::Github::from_env(c.github),
        config_file: crate::github::config_file(&target.workspace_root),
    };
    gate_and_emit(
        &outputs,
        &opts,
        &historic,
        &config.check,
        base,
        cand,
        sources.as_ref(),
    )
}

/// Where and how `check` reports, besides its exit code.
struct Outputs {
    /// The report on stdout as `--format`, and the `--markdown` and `--junit` files.
    sink: Sink,
    /// Annotations and the job summary (`--github`, GitHub Actions' environment).
    github: crate::github::Github,
    /// costbench.toml as annotations name it, if there is one.
    config_file: Option<String>,
}

/// `--baseline-rev`: builds the revision from a worktree and the working tree, and measures
/// both together (instruction counts, wall time in interleaved rounds).
fn measure_with_baseline_rev(
    run_opts: &RunOptions,
    target: &BenchTarget,
    rev: &str,
    quiet: bool,
) -> Result<(Side, Side, Option<SourceDiff>)> {
    let status = |verb: &str, what: String| {
        if !quiet {
            costbench_measure::terminal::status(verb, what);
        }
    };
    let rounds = &run_opts.rounds;
    let root = run_opts
        .output_dir
        .clone()
        .unwrap_or_else(|| target.target_directory.join("costbench").join("check"));
    let base_target = costbench_measure::run::baseline::checkout(target, rev)?;
    // Which files the pull request changed, so that a change of inlining in code it did not
    // touch is labelled, not gated. Without it (git cannot tell) every such change is gated.
    let sources = match SourceDiff::between(&base_target, target) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!(
                "warning: cannot list the files changed since {rev}: {e:#}; changes of inlining \
                 are gated"
            );
            None
        }
    };
    status(
        "Checking",
        format!("the baseline ({rev}) against the candidate (working tree)"),
    );
    // Its own build directory: cargo names a workspace member's artifacts without its path,
    // so two checkouts built in one directory overwrite each other's binaries.
    // Both sides with the user's cargo flags: the same features and profile, so that only the
    // source differs.
    let base_exe = costbench_measure::cargo::build(
        &base_target,
        costbench_measure::run::baseline::BUILD_VARIANT,
        &run_opts.cargo,
        quiet,
        run_opts.code_align,
    )?;
    let cand_exe = costbench_measure::cargo::build(
        target,
        "default",
        &run_opts.cargo,
        quiet,
        run_opts.code_align,
    )?;
    let sides = vec![
        costbench_measure::run::SideSpec {
            label: "default".into(),
            exe: base_exe,
            output_dir: root.join("baseline"),
            target: Some(base_target),
            build: None,
        },
        costbench_measure::run::SideSpec {
            label: "default".into(),
            exe: cand_exe,
            output_dir: root.join("candidate"),
            target: None,
            build: None,
        },
    ];
    let mut together = Vec::new();
    if run_opts.instruments.asked(Instrument::Walltime) {
        together.push(format!(
            "wall time in {} to {} interleaved rounds",
            rounds.rounds, rounds.max_rounds
        ));
    }
    if run_opts.instruments.asked(Instrument::Throughput) {
        together.push(format!(
            "throughput in {} rounds of slices taken in turn",
            run_opts.load.rounds
        ));
    }
    status(
        "Measuring",
        if together.is_empty() {
            "both".to_string()
        } else {
            format!("both, {}", together.join(", "))
        },
    );
    let mut records = measure_and_record(run_opts, target, sides)?;
    let cand = records.pop().expect("two sides");
    let base = records.pop().expect("two sides");
    status(
        "Finished",
        format!("measuring; results in {}", root.display()),
    );
    Ok((
        (base, Some(root.join("baseline"))),
        (cand, Some(root.join("candidate"))),
        sources,
    ))
}

/// `--baseline SPEC`: the newest run of a branch in the history at `db` (whose history then
/// sets the thresholds), or a directory or run id.
fn baseline_run(
    spec: &str,
    db: &costbench_store::Location,
    db_arg: Option<&PathBuf>,
    manifest: Option<&std::path::Path>,
    history_window: usize,
) -> Result<(Side, HistoricThresholds)> {
    match spec.strip_prefix("branch:") {
        Some(branch) => {
            if !db.exists() {
                bail!("--baseline {spec}: no history database at {db}");
            }
            let store = db.open()?;
            let latest = store
                .runs(&costbench_store::RunQuery {
                    branch: Some(branch.to_string()),
                    variant: Some("default".into()),
                    limit: Some(1),
                })?
                .into_iter()
                .next()
                .with_context(|| {
                    format!("--baseline {spec}: no run of branch {branch:?} in {db}")
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
fn candidate_run(run_opts: &RunOptions, target: &BenchTarget, quiet: bool) -> Result<Side> {
    let out = run_opts
        .output_dir
        .clone()
        .unwrap_or_else(|| target.target_directory.join("costbench").join("results"));
    let exe = costbench_measure::cargo::build(
        target,
        "default",
        &run_opts.cargo,
        quiet,
        run_opts.code_align,
    )?;
    let side = costbench_measure::run::SideSpec {
        label: "default".into(),
        exe,
        output_dir: out.clone(),
        target: None,
        build: None,
    };
    let cand = measure_and_record(run_opts, target, vec![side])?.remove(0);
    if !quiet {
        costbench_measure::terminal::status(
            "Finished",
            format!("measuring the candidate; results in {}", out.display()),
        );
    }
    Ok((cand, Some(out)))
}

/// With `--shard`, the baseline's rows that this shard did not measure: those are other shards'
/// to judge. Rows of scenarios the candidate's suite no longer selects at all are shard 1's, so
/// that exactly one shard reports them as missing.
fn shard_of_baseline(mut base: RunRecord, cand: &RunRecord) -> RunRecord {
    let Some(shard) = &cand.shard else {
        return base;
    };
    let measured: std::collections::HashSet<&str> =
        cand.results.iter().map(|r| r.scenario.as_str()).collect();
    let unit = |scenario: &str| {
        shard
            .selected
            .iter()
            .any(|u| u == scenario || u.strip_suffix(scenario).is_some_and(|v| v.ends_with('/')))
    };
    base.results.retain(|r| {
        measured.contains(r.scenario.as_str()) || (shard.index == 1 && !unit(&r.scenario))
    });
    base
}

/// Judges the sides, applies the gate, writes `--markdown`, `--junit` and the job summary,
/// prints the report as `--format` asks (and GitHub's annotations on stderr) and returns the
/// exit code.
fn gate_and_emit(
    out: &Outputs,
    opts: &CompareOptions,
    historic: &HistoricThresholds,
    limits: &costbench_judge::check::CheckConfig,
    (base, base_dir): Side,
    (cand, cand_dir): Side,
    sources: Option<&SourceDiff>,
) -> Result<i32> {
    let base = shard_of_baseline(base, &cand);
    let cmp: Comparison = super::judge(
        (&base, base_dir.as_deref()),
        (&cand, cand_dir.as_deref()),
        opts,
        historic,
        sources,
    );
    let gate = costbench_judge::check::evaluate(&cmp, &cand, limits);
    let view = ComparisonView {
        comparison: &cmp,
        gate: Some(&gate),
        styling: crate::terminal::stdout_styling(),
    };
    out.sink.write_files(&view)?;
    if let Some(path) = &out.github.step_summary {
        let md = view
            .render(Format::Markdown)
            .expect("a check renders as markdown");
        // The job summary is a courtesy: the check's verdict must not depend on it.
        if let Err(e) = crate::github::append_step_summary(path, &md) {
            let msg = format!(
                "could not append the report to GITHUB_STEP_SUMMARY ({}): {e}; the check goes on",
                path.display()
            );
            eprintln!("warning: {msg}");
            if out.github.annotate {
                eprintln!(
                    "::warning title=costbench job summary::{}",
                    costbench_report::github::escape_data(&msg)
                );
            }
        }
    }
    out.sink.print(&view)?;
    if out.github.annotate {
        use std::io::Write as _;
        // On stderr, which GitHub reads for workflow commands as it reads stdout, so that a JSON
        // report on stdout stays JSON.
        let _ = std::io::stdout().flush();
        eprint!(
            "{}",
            costbench_report::github::annotations(&cmp, &gate, out.config_file.as_deref())
        );
    }
    Ok(if !gate.passed() {
        crate::exit::REGRESSION
    } else if cand.failed().next().is_some() || base.failed().next().is_some() {
        crate::exit::FAILURE
    } else {
        crate::exit::OK
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::model::ShardInfo;
    use costbench_record::testing::{record, scenario};

    /// Issue 15: a sharded check judges only its own scenarios; baseline rows that no shard's
    /// selection has (removed scenarios) are shard 1's to report.
    #[test]
    fn issue_15_a_sharded_check_judges_its_own_rows() {
        let base = record("b", ["a", "b", "c", "gone"].map(scenario).to_vec());
        let cand = |k: u32, ids: &[&str]| {
            let mut c = record("c", ids.iter().map(|i| scenario(i)).collect());
            c.shard = Some(ShardInfo {
                index: k,
                count: 2,
                assignment: String::new(),
                selected: vec!["a".into(), "b".into(), "c".into()],
            });
            c
        };
        let ids = |r: RunRecord| r.results.into_iter().map(|x| x.id).collect::<Vec<_>>();
        assert_eq!(
            ids(shard_of_baseline(base.clone(), &cand(1, &["a", "c"]))),
            ["a", "c", "gone"]
        );
        assert_eq!(
            ids(shard_of_baseline(base.clone(), &cand(2, &["b"]))),
            ["b"]
        );
        // Unsharded: the whole baseline.
        assert_eq!(
            ids(shard_of_baseline(base.clone(), &record("c", vec![]))).len(),
            4
        );
    }
}
