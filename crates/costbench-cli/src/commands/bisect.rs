//! `costbench bisect GOOD BAD --filter SCENARIO`: the first commit of GOOD..BAD whose instruction
//! count for one scenario left GOOD's value. Each commit is checked out in bisect's one worktree,
//! moved from commit to commit as `git bisect` moves a checkout, and built in its one build
//! directory (`run::baseline::checkout_for_bisect`: only what changed is rebuilt), measured
//! once (counts are exact), and chosen by the judge's search (`costbench_judge::bisect`). The
//! answer is explained against the last commit still at GOOD's value, as `check` explains a
//! change: functions whose own cost changed, the checks that moved, their machine code.

use crate::args::{BisectCmd, OnBuildFailure};
use crate::core::session::Session;
use anyhow::{anyhow, bail, Context, Result};
use costbench_judge::bisect::{Bisection, Outcome, Step};
use costbench_judge::compare::noise::HistoricThresholds;
use costbench_judge::compare::CompareOptions;
use costbench_measure::run::baseline::{self, Commit, BISECT_VARIANT};
use costbench_record::fmt::{fmt_change, fmt_ir, fmt_whole};
use costbench_record::instrument::{Instrument, InstrumentSet};
use costbench_record::model::RunRecord;
use std::collections::HashMap;
use std::path::PathBuf;

/// A measured commit: its run, where its results are, its instruction count per run and ops.
struct Measured {
    run: RunRecord,
    dir: PathBuf,
    ir: u64,
    ops: u64,
}

pub(super) fn bisect(c: BisectCmd) -> Result<i32> {
    let on_failure = c.on_build_failure;
    let mut cmd = c.measure.into_command(false, false)?;
    if cmd.measure.filter.is_none() {
        bail!("bisect follows one scenario: name it with --filter REGEX");
    }
    // Instruction counts only (with the census when asked): wall time is not used.
    let mut instruments = InstrumentSet::of(Instrument::Icount);
    if cmd.measure.instruments.asked(Instrument::Census) {
        instruments = instruments.with(Instrument::Census);
    }
    cmd.measure.instruments = instruments;
    cmd.measure.progress = false;
    cmd.record_history = false;
    let session = Session::open(cmd)?;
    let root = session.output_dir(|p| p.bisect());
    let (good, commits) = baseline::range(&session.target, &c.good, &c.bad)?;
    let n = commits.len();
    let bound = (n as f64).log2().ceil() as usize + 1;
    session.status(
        "Bisecting",
        format!(
            "{n} commits of {}..{}, one measurement each (at most {bound} with GOOD's)",
            c.good, c.bad
        ),
    );
    let measure = |commit: &Commit| -> Result<std::result::Result<Measured, anyhow::Error>> {
        session.status(
            "Measuring",
            format!("{} {}", short(&commit.sha), commit.subject),
        );
        let target = baseline::checkout_for_bisect(&session.target, &commit.sha)?;
        let exe = match session.build(&target, BISECT_VARIANT) {
            Ok(exe) => exe,
            Err(e) => return Ok(Err(e)),
        };
        // The build directory is shared and the next commit overwrites the binary: the
        // explanation reads this one's machine code later, so it is kept with its results.
        let dir = root.join(short(&commit.sha));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let kept = dir.join(exe.file_name().unwrap_or_default());
        std::fs::copy(&exe, &kept)
            .with_context(|| format!("cannot copy {} to {}", exe.display(), kept.display()))?;
        let out = dir.join("run");
        let side = costbench_measure::run::SideSpec {
            label: "default".into(),
            exe: kept,
            output_dir: out.clone(),
            target: Some(target),
            build: None,
        };
        let run = session
            .measure_and_record(vec![side])?
            .pop()
            .expect("one side measured");
        let (ir, ops) = count(&run, &commit.sha)?;
        Ok(Ok(Measured {
            run,
            dir: out,
            ir,
            ops,
        }))
    };
    let good_run = measure(&good)?.map_err(|e| {
        anyhow!(
            "GOOD ({} {}) does not build: {e:#}",
            short(&good.sha),
            good.subject
        )
    })?;
    let id = good_run.run.results[0].id.clone();
    let mut search = Bisection::new(n);
    let mut measured: HashMap<usize, Measured> = HashMap::new();
    let mut measurements = 1;
    loop {
        match search.next() {
            Step::Measure(k) => {
                measurements += 1;
                let commit = &commits[k];
                match measure(commit)? {
                    Err(e) => match on_failure {
                        OnBuildFailure::Stop => bail!(
                            "commit {} ({}) does not build: {e:#}\nre-run with \
                             --on-build-failure skip to leave such commits out",
                            short(&commit.sha),
                            commit.subject
                        ),
                        OnBuildFailure::Skip => {
                            eprintln!(
                                "warning: commit {} ({}) does not build; skipped",
                                short(&commit.sha),
                                commit.subject
                            );
                            search.record(k, Outcome::Skip);
                        }
                    },
                    Ok(m) => {
                        if m.run.results[0].id != id {
                            bail!(
                                "--filter selects {} at {} but {id} at GOOD: give a filter that selects one scenario on every commit",
                                m.run.results[0].id,
                                short(&commit.sha)
                            );
                        }
                        let same = m.ir == good_run.ir && m.ops == good_run.ops;
                        search.record(k, if same { Outcome::Good } else { Outcome::Bad });
                        measured.insert(k, m);
                        if search.no_change() {
                            println!(
                                "no commit of {}..{} changed the instruction count of {id}: {} Ir per run at both ends ({measurements} measurements)",
                                c.good,
                                c.bad,
                                fmt_whole(good_run.ir as f64)
                            );
                            return Ok(crate::exit::FAILURE);
                        }
                    }
                }
            }
            Step::Range { first, last } => {
                println!(
                    "the first commit that changed the instruction count of {id} is one of {} to {} (commits between could not be built); {measurements} measurements",
                    short(&commits[first].sha),
                    short(&commits[last].sha)
                );
                return Ok(crate::exit::OK);
            }
            Step::Found(k) => {
                let before = search
                    .last_good()
                    .and_then(|g| measured.get(&g))
                    .unwrap_or(&good_run);
                let after = &measured[&k];
                let commit = &commits[k];
                let per_op = |m: &Measured| m.ir as f64 / m.ops.max(1) as f64;
                println!(
                    "first commit that changed {id}: {} {}\n  instructions per op {} → {} ({}), {} → {} Ir per run\n  {measurements} measurements for {n} commits (GOOD's included; at most {bound}{})",
                    commit.sha,
                    commit.subject,
                    fmt_ir(per_op(before)),
                    fmt_ir(per_op(after)),
                    fmt_change(100.0 * (per_op(after) / per_op(before) - 1.0)),
                    fmt_whole(before.ir as f64),
                    fmt_whole(after.ir as f64),
                    if k == n - 1 { ", and one more to confirm BAD" } else { "" }
                );
                explain(before, after);
                return Ok(crate::exit::OK);
            }
        }
    }
}

/// The one scenario's instruction count and ops in `run`.
fn count(run: &RunRecord, sha: &str) -> Result<(u64, u64)> {
    match &run.results[..] {
        [r] => {
            let ic = r.icount.as_ref().ok_or_else(|| {
                anyhow!(
                    "{} at {}: no instruction count ({})",
                    r.id,
                    short(sha),
                    r.failures
                        .first()
                        .map_or("no failure recorded".to_string(), |f| f.message.clone())
                )
            })?;
            Ok((ic.ir, r.ops))
        }
        [] => bail!("--filter selects no scenario at {}", short(sha)),
        more => bail!(
            "--filter selects {} scenarios at {} ({}...): bisect follows one",
            more.len(),
            short(sha),
            more[0].id
        ),
    }
}

/// What explains the change between the two commits: the functions whose own cost changed, the
/// checks that moved and the machine code of the largest movers, as `check` shows them.
fn explain(before: &Measured, after: &Measured) {
    // Any change of an exact count is the one bisect found, however small.
    let opts = CompareOptions {
        icount_threshold_pct: 0.0,
        ..CompareOptions::default()
    };
    let cmp = crate::core::sides::judge_sides(
        (&before.run, Some(&before.dir)),
        (&after.run, Some(&after.dir)),
        &opts,
        &HistoricThresholds::default(),
        None,
    );
    let mut out = String::new();
    for f in &cmp.functions {
        costbench_report::movers::terminal(&mut out, f);
    }
    for d in &cmp.census {
        costbench_report::checks::terminal(&mut out, d);
    }
    costbench_report::asm::terminal(&mut out, &cmp.asm);
    print!("{out}");
}

fn short(sha: &str) -> &str {
    &sha[..12.min(sha.len())]
}
