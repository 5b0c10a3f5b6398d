//! `costbench check`, the CI gate, in three steps:
//! 1. the sides: [`measure_with_baseline_rev`] builds `--baseline-rev` from a worktree and
//!    measures it together with the working tree; otherwise [`baseline_run`] resolves
//!    `--baseline` (a directory, a run id, or `branch:NAME` with its history's thresholds) and
//!    [`candidate_run`] loads `--candidate` or measures the working tree;
//! 2. judging: `compare::compare_with` and the function movers;
//! 3. [`gate_and_emit`]: the gate of `[check]` in costbench.toml, the report sent to the sink
//!    (the `--markdown` and `--junit` files, stdout), GitHub Actions' job summary and annotations
//!    (`crate::github`), and the exit code (3 on a regression, a broken hard limit or a broken
//!    budget).

use crate::args::CheckCmd;
use crate::core::session::Session;
use crate::core::sides::{judge_sides, learn_thresholds, load_side};
use crate::output::Sink;
use anyhow::Result;
use costbench_judge::compare::noise::HistoricThresholds;
use costbench_judge::compare::{CompareOptions, Comparison};
use costbench_measure::run::baseline::SourceDiff;
use costbench_record::model::RunRecord;
use costbench_report::render::ComparisonView;
use costbench_report::render::{Format, Render as _};
use std::path::{Path, PathBuf};

/// A side of the comparison: its run and, for a directory, where its callgrind outputs are.
type Side = (RunRecord, Option<PathBuf>);

pub(super) fn check(c: CheckCmd) -> Result<i32> {
    let opts = c.significance.options()?;
    // The looks of adaptive rounds judge at the same threshold and family error rate as the
    // comparison that follows.
    let rounds = c
        .rounds
        .rounds(opts.paired_walltime_threshold_pct, opts.family_alpha)?;
    let mut cmd = c.measure.into_command(false, false)?;
    cmd.measure.rounds = rounds;
    cmd.measure.icount_threshold_pct = opts.icount_threshold_pct;
    cmd.measure.placement_runs = c.placement_runs;
    // Reports go to stdout; the runs' own tables and progress bar would only be in the way.
    // Builds and status lines on stderr follow the user's --quiet, and so do the lines of a
    // log without a terminal (CI, where check runs): a line per scenario and a heartbeat, so
    // that a hung scenario is not minutes of silence.
    cmd.measure.progress = !cmd.quiet && !std::io::IsTerminal::is_terminal(&std::io::stderr());
    let session = Session::open(cmd)?;
    let config = costbench_measure::config::Config::load(&session.target.workspace_root)?;
    let (base, cand, historic, sources) = if let Some(rev) = &c.baseline_rev {
        let (base, cand, sources) = measure_with_baseline_rev(&session, rev)?;
        (base, cand, HistoricThresholds::default(), sources)
    } else {
        let spec = c
            .baseline
            .as_deref()
            .expect("clap requires --baseline without --baseline-rev");
        let (db, manifest) = (
            session.cmd.db.as_deref(),
            session.cmd.manifest_path.as_deref(),
        );
        let (base, historic) =
            baseline_run(spec, &session.history, db, manifest, c.history_window)?;
        let cand = match &c.candidate {
            Some(spec) => load_side("candidate", spec, db, manifest)?,
            None => candidate_run(&session)?,
        };
        (base, cand, historic, None)
    };
    if !c.allow_unfinished {
        refuse_unfinished(&base.0, "baseline", "--baseline")?;
        refuse_unfinished(&cand.0, "candidate", "--candidate")?;
    }
    let github = crate::github::Github::from_env(c.github);
    let config_file = crate::github::config_file(&session.target.workspace_root);
    let outputs = Outputs {
        allow_missing_instrument: c.allow_missing_instrument,
        sink: Sink::new(Some(c.format))
            .flag_file("--markdown", c.markdown.as_ref(), Format::Markdown)
            .flag_file("--junit", c.junit.as_ref(), Format::Junit)
            // On stderr, which GitHub reads for workflow commands as it reads stdout.
            .stderr(github.annotate.then_some(Format::Github)),
        github,
        config_file,
    };
    gate_and_emit(
        &outputs,
        &opts,
        &historic,
        &config,
        base,
        cand,
        sources.as_ref(),
    )
}

/// Where and how `check` reports, besides its exit code.
struct Outputs {
    /// `--allow-missing-instrument`: an instrument that could not run is said, not failed.
    allow_missing_instrument: bool,
    /// The report on stdout as `--format`, GitHub's annotations on stderr, and the
    /// `--markdown` and `--junit` files.
    sink: Sink,
    /// Annotations and the job summary (`--github`, GitHub Actions' environment).
    github: crate::github::Github,
    /// costbench.toml as annotations name it, if there is one.
    config_file: Option<String>,
}

/// `--baseline-rev`: builds the revision from a worktree and the working tree, and measures
/// both together (each instrument as its phase measures several sides: the timed ones in
/// interleaved rounds).
fn measure_with_baseline_rev(
    session: &Session,
    rev: &str,
) -> Result<(Side, Side, Option<SourceDiff>)> {
    let (opts, target) = (&session.cmd.measure, &session.target);
    let root = session.output_dir(|p| p.check());
    // What can be wrong with the command line is found before the baseline's build (issue 29):
    // the output directories, the revision, and a --filter that selects nothing (the candidate
    // is built first to list its scenarios).
    for side in ["baseline", "candidate"] {
        costbench_record::output::OutputDir::prepare(&root.join(side))?;
    }
    let base_target = costbench_measure::run::baseline::checkout(target, rev)?;
    session.say_switched(&base_target, rev);
    // Every bench target on both sides (issue 41): a target the revision lacks is measured on
    // the candidate's side only, its scenarios new.
    let (cand_exe, cand_others, cand_build) = session.build_all_timed()?;
    session.check_filter(&cand_exe, &cand_others)?;
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
    session.status(
        "Checking",
        format!("the baseline ({rev}) against the candidate (working tree)"),
    );
    // Its own build directory: cargo names a workspace member's artifacts without its path,
    // so two checkouts built in one directory overwrite each other's binaries.
    // Both sides with the user's cargo flags: the same features and profile, so that only the
    // source differs.
    let (base_exe, base_others, base_build) = session.build_all_of(
        &base_target,
        costbench_measure::run::baseline::BUILD_VARIANT,
    )?;
    let sides = vec![
        costbench_measure::run::SideSpec {
            label: "default".into(),
            exe: base_exe,
            output_dir: root.join("baseline"),
            target: Some(base_target),
            build: Some(base_build),
            others: base_others,
        },
        costbench_measure::run::SideSpec {
            label: "default".into(),
            exe: cand_exe,
            output_dir: root.join("candidate"),
            target: None,
            build: Some(cand_build),
            others: cand_others,
        },
    ];
    let together = costbench_measure::run::together(opts);
    session.status(
        "Measuring",
        if together.is_empty() {
            "both".to_string()
        } else {
            format!("both, {}", together.join(", "))
        },
    );
    let mut records = session.measure_and_record(sides)?;
    let cand = records.pop().expect("two sides");
    let base = records.pop().expect("two sides");
    session.status(
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
    db_arg: Option<&Path>,
    manifest: Option<&Path>,
    history_window: usize,
) -> Result<(Side, HistoricThresholds)> {
    match spec.strip_prefix("branch:") {
        Some(branch) => {
            // A branch with no run to compare with is a name that does not exist here: a usage
            // error, as a directory that is not there is (issue 41).
            if !db.exists() {
                costbench_record::bad_input!(
                    "--baseline {spec}: no history database at {db}; record a run of branch \
                     {branch:?} there first (`costbench run` on it), or pass --db, or name a \
                     run's directory"
                );
            }
            let store = db.open()?;
            // The newest run that finished: a killed run recorded by an older costbench is
            // never a baseline.
            let latest = store
                .runs(&costbench_store::RunQuery {
                    branch: Some(branch.to_string()),
                    variant: Some("default".into()),
                    limit: None,
                })?
                .into_iter()
                .find(|r| r.unfinished.is_none())
                .ok_or_else(|| {
                    costbench_record::error::bad_input(format!(
                        "--baseline {spec}: no finished run of branch {branch:?} in {db}; \
                         `costbench history` lists the runs there are"
                    ))
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

/// Refuses `run`, the `side` of the check given by `flag`, when it did not finish: a gate that
/// passes on a partial run passes scenarios it never measured (issue 33).
fn refuse_unfinished(run: &RunRecord, side: &str, flag: &str) -> Result<()> {
    let Some(note) = run.unfinished_note() else {
        return Ok(());
    };
    Err(costbench_record::model::Unfinished(format!(
        "the {side} did not finish: {note}. Give {flag} a run that finished (re-run it, or every \
         shard of it before merge), or judge what it holds with --allow-unfinished (the rows it \
         lacks then fail the gate)"
    ))
    .into())
}

/// The candidate measured now from the working tree.
fn candidate_run(session: &Session) -> Result<Side> {
    let out = session.output_dir(|p| p.results());
    // Checked before building: a wrong output directory should not cost a build.
    costbench_record::output::OutputDir::prepare(&out)?;
    let (exe, others, build) = session.build_all_timed()?;
    let side = costbench_measure::run::SideSpec {
        label: "default".into(),
        exe,
        output_dir: out.clone(),
        target: None,
        build: Some(build),
        others,
    };
    let cand = session.measure_and_record(vec![side])?.remove(0);
    session.status(
        "Finished",
        format!("measuring the candidate; results in {}", out.display()),
    );
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

/// The candidate's budget checks: those of its record (the suite's budgets and costbench.toml's
/// as they were when it was measured), with costbench.toml's as it is now checked again on top,
/// so that a candidate loaded from a directory or the history is held to today's budgets too.
fn candidate_budgets(
    cand: &RunRecord,
    config: &[costbench_record::model::budget::Budget],
) -> Vec<costbench_record::model::budget::BudgetCheck> {
    use costbench_judge::budget::Source;
    let now: Vec<_> = config.iter().map(|b| (b.clone(), Source::Config)).collect();
    let now = costbench_judge::budget::evaluate(cand, &now);
    let mut all: Vec<_> = cand
        .budgets
        .iter()
        .filter(|b| !now.iter().any(|n| n.id == b.id && n.figure == b.figure))
        .cloned()
        .collect();
    all.extend(now);
    all
}

/// The candidate's declared classes checked: those of its record, with costbench.toml's as it
/// is now checked again on top (as [`candidate_budgets`] does).
fn candidate_classes(
    cand: &RunRecord,
    config: &[costbench_record::model::budget::Budget],
) -> Vec<costbench_record::model::complexity::ComplexityCheck> {
    use costbench_judge::budget::Source;
    let now: Vec<_> = config.iter().map(|b| (b.clone(), Source::Config)).collect();
    let now = costbench_judge::complexity::check_declared(
        cand,
        &costbench_judge::complexity::fits(cand),
        &now,
    );
    let mut all: Vec<_> = cand
        .complexity_checks
        .iter()
        .filter(|c| !now.iter().any(|n| n.family == c.family))
        .cloned()
        .collect();
    all.extend(now);
    all
}

/// Judges the sides, applies the gate, writes `--markdown`, `--junit` and the job summary,
/// prints the report as `--format` asks (and GitHub's annotations on stderr) and returns the
/// exit code.
fn gate_and_emit(
    out: &Outputs,
    opts: &CompareOptions,
    historic: &HistoricThresholds,
    config: &costbench_measure::config::Config,
    (base, base_dir): Side,
    (cand, cand_dir): Side,
    sources: Option<&SourceDiff>,
) -> Result<i32> {
    let base = shard_of_baseline(base, &cand);
    // Accepted findings: costbench.toml's entries as they are now decide, so that an entry
    // removed since the run no longer accepts; without the file, what the record accepted
    // stands. The entries that matched nothing are said.
    let mut cand = cand;
    let allowances = config.allowances();
    if config.from_file {
        allowances.decide(&mut cand);
    }
    for w in allowances.stale_warnings(&cand) {
        eprintln!("warning: {w}");
    }
    let cmp: Comparison = judge_sides(
        (&base, base_dir.as_deref()),
        (&cand, cand_dir.as_deref()),
        opts,
        historic,
        sources,
    );
    let budgets = &config.budget;
    // What the two records say of growth first; the limits then judge the comparison's rows.
    let complexity = costbench_judge::check::complexity_findings(
        &costbench_judge::complexity::changes(
            &base,
            &cand,
            costbench_judge::complexity::DEFAULT_EXPONENT_TOLERANCE,
        ),
        &candidate_classes(&cand, budgets),
    );
    let mut gate = costbench_judge::check::evaluate(&cmp, &cand, &config.check)
        .with_budgets(&candidate_budgets(&cand, budgets))
        .with_complexity(complexity);
    if out.allow_missing_instrument {
        gate.allow_missing();
    }
    let view = ComparisonView {
        comparison: &cmp,
        gate: Some(&gate),
        styling: crate::terminal::stdout_styling(),
        config_file: out.config_file.as_deref(),
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
    let broken = gate.broken() > 0;
    Ok(if broken {
        crate::exit::REGRESSION
    } else if gate.missing_fails() || !gate.not_reached.is_empty() {
        // Not a regression: the check could not judge what it was asked to (an instrument that
        // could not run, rows an unfinished side never reached).
        crate::exit::FAILURE
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
