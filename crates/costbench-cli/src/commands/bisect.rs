//! `costbench bisect GOOD BAD --filter SCENARIO`: the first commit of GOOD..BAD whose instruction
//! count for one scenario left GOOD's value. Each commit is checked out in bisect's one worktree,
//! moved from commit to commit as `git bisect` moves a checkout, and built in its one build
//! directory (`run::baseline::checkout_for_bisect`: only what changed is rebuilt), measured
//! once (counts are exact), and chosen by the judge's search (`costbench_judge::bisect`). The
//! answer is explained against the last commit still at GOOD's value, as `check` explains a
//! change: functions whose own cost changed, the checks that moved, their machine code.
//!
//! What is not built (`costbench_measure::run::bisect`): a cold build directory starts with what
//! `run`'s build compiled (the crates whose sources are the user's stay fresh), and a commit that changed none of the files a measured
//! commit's build read, since that commit, builds the same binary: it takes that commit's count
//! without a build or a measurement, as `git bisect start -- PATHS` leaves such commits out.

use crate::args::{BisectCmd, OnBuildFailure};
use crate::core::session::Session;
use anyhow::{anyhow, bail, Context, Result};
use costbench_judge::bisect::{Bisection, Outcome, Step};
use costbench_measure::cargo::DEFAULT_BUILD;
use costbench_measure::run::baseline::{self, Commit, BISECT_AHEAD_VARIANT, BISECT_VARIANT};
use costbench_measure::run::bisect::{changed_files, seed_build, BuildInputs};
use costbench_record::fmt::{fmt_change, fmt_ir, fmt_whole};
use costbench_record::instrument::{Instrument, InstrumentSet};
use costbench_record::model::RunRecord;
use std::collections::HashMap;
use std::path::PathBuf;

/// A measured commit: its run, where its results are, its instruction count per run and ops,
/// and which commit was measured (another than the one it stands for when that one's sources
/// could not change the build) with the files its build read.
#[derive(Clone)]
struct Measured {
    run: RunRecord,
    dir: PathBuf,
    ir: u64,
    ops: u64,
    sha: String,
    inputs: BuildInputs,
}

pub(super) fn bisect(c: BisectCmd) -> Result<i32> {
    let on_failure = c.on_build_failure;
    let build_every_commit = c.build_every_commit;
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
    let mut session = Session::open(cmd)?;
    // Several bench targets (issue 41): the one that offers the scenario --filter selects.
    session.narrow_to_filtered_target("bisect")?;
    let session = session;
    let root = session.output_dir(|p| p.bisect());
    let (good, commits) = baseline::range(&session.target, &c.good, &c.bad)?;
    let n = commits.len();
    let bound = (n as f64).log2().ceil() as usize + 1;
    // The first midpoint does not depend on GOOD's count: with a second core it is built beside
    // GOOD, in a worktree and build directory of its own (the builds are mostly one rustc at a
    // time: the bench target is one codegen unit).
    let ahead = match Bisection::new(n).next() {
        Step::Measure(k) if std::thread::available_parallelism().map_or(1, |p| p.get()) > 1 => {
            Some(k)
        }
        _ => None,
    };
    let mut take = [false, false];
    for (slot, variant) in [BISECT_VARIANT, BISECT_AHEAD_VARIANT]
        .into_iter()
        .enumerate()
    {
        if slot == 1 && ahead.is_none() {
            continue;
        }
        let seeded = seed_build(&session.target, DEFAULT_BUILD, variant)?;
        if seeded > 0 {
            session.status(
                "Seeded",
                format!("build directory {variant} with the {seeded} units of run's build"),
            );
        }
        // Only the worktree made right after seeding may take the user's files' times.
        take[slot] = seeded > 0;
    }
    let take_mtimes = [
        std::sync::atomic::AtomicBool::new(take[0]),
        std::sync::atomic::AtomicBool::new(take[1]),
    ];
    session.status(
        "Bisecting",
        format!(
            "{n} commits of {}..{}, one measurement each (at most {bound} with GOOD's)",
            c.good, c.bad
        ),
    );
    // Checks out and builds `commit` in slot 0 (bisect's worktree) or 1 (the one beside GOOD).
    let build = |commit: &Commit,
                 slot: usize|
     -> Result<std::result::Result<Built, anyhow::Error>> {
        let variant = [BISECT_VARIANT, BISECT_AHEAD_VARIANT][slot];
        session.status(
            "Building",
            format!("{} {}", short(&commit.sha), commit.subject),
        );
        let take = take_mtimes[slot].swap(false, std::sync::atomic::Ordering::Relaxed);
        let target = baseline::checkout_for_bisect(&session.target, &commit.sha, variant, take)?;
        session.say_switched(&target, short(&commit.sha));
        let exe = match session.build(&target, variant) {
            Ok(exe) => exe,
            Err(e) => return Ok(Err(e)),
        };
        let top = worktree_top(&target);
        let inputs = BuildInputs::read(&target, &top, variant)?;
        // The build directory is shared and the next commit overwrites the binary: the
        // explanation reads this one's machine code later, so it is kept with its results.
        let dir = root.join(short(&commit.sha));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let kept = dir.join(exe.file_name().unwrap_or_default());
        std::fs::copy(&exe, &kept)
            .with_context(|| format!("cannot copy {} to {}", exe.display(), kept.display()))?;
        Ok(Ok(Built {
            target,
            kept,
            dir,
            inputs,
        }))
    };
    let measure_built = |commit: &Commit, b: Built| -> Result<Measured> {
        session.status(
            "Measuring",
            format!("{} {}", short(&commit.sha), commit.subject),
        );
        let Built {
            target,
            kept,
            dir,
            inputs,
        } = b;
        let out = dir.join("run");
        let side = costbench_measure::run::SideSpec {
            label: "default".into(),
            exe: kept,
            output_dir: out.clone(),
            target: Some(target),
            build: None,
            others: Vec::new(),
        };
        let run = session
            .measure_and_record(vec![side])?
            .pop()
            .expect("one side measured");
        let (ir, ops) = count(&run, &commit.sha)?;
        Ok(Measured {
            run,
            dir: out,
            ir,
            ops,
            sha: commit.sha.clone(),
            inputs,
        })
    };
    let measure = |commit: &Commit| -> Result<std::result::Result<Measured, anyhow::Error>> {
        match build(commit, 0)? {
            Ok(b) => Ok(Ok(measure_built(commit, b)?)),
            Err(e) => Ok(Err(e)),
        }
    };
    // GOOD, and beside it the first midpoint.
    let (good_built, mut ahead_built) = std::thread::scope(|s| {
        let (build, commits) = (&build, &commits);
        let other = ahead.map(|k| (k, s.spawn(move || build(&commits[k], 1))));
        let g = build(&good, 0);
        let a = other.map(|(k, h)| (k, h.join().expect("the build beside GOOD did not panic")));
        (g, a)
    });
    let good_run = good_built?
        .and_then(|b| measure_built(&good, b))
        .map_err(|e| {
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
    let mut decided = 0;
    let root_dir = session.target.workspace_root.clone();
    loop {
        match search.next() {
            Step::Measure(k) => {
                let commit = &commits[k];
                let same = if build_every_commit {
                    None
                } else {
                    same_build(&root_dir, &good_run, &measured, commit)?
                };
                let m = if let Some(m) = same {
                    decided += 1;
                    session.status(
                        "Decided",
                        format!(
                            "{} {}: none of its build's files changed since {}, whose count it takes",
                            short(&commit.sha),
                            commit.subject,
                            short(&m.sha)
                        ),
                    );
                    m
                } else {
                    measurements += 1;
                    let result = match ahead_built.take() {
                        Some((a, built)) if a == k => match built? {
                            Ok(b) => Ok(measure_built(commit, b)?),
                            Err(e) => Err(e),
                        },
                        _ => measure(commit)?,
                    };
                    match result {
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
                                continue;
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
                            m
                        }
                    }
                };
                // Measured or decided, the commit's count is judged against GOOD's.
                let same = m.ir == good_run.ir && m.ops == good_run.ops;
                search.record(k, if same { Outcome::Good } else { Outcome::Bad });
                measured.insert(k, m);
                if search.no_change() {
                    println!(
                        "no commit of {}..{} changed the instruction count of {id}: {} Ir per run at both ends ({measurements} measurements{})",
                        c.good,
                        c.bad,
                        fmt_whole(good_run.ir as f64),
                        decided_note(decided)
                    );
                    return Ok(crate::exit::FAILURE);
                }
            }
            Step::Range { first, last } => {
                println!(
                    "the first commit that changed the instruction count of {id} is one of {} to {} (commits between could not be built); {measurements} measurements{}",
                    short(&commits[first].sha),
                    short(&commits[last].sha),
                    decided_note(decided)
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
                    "first commit that changed {id}: {} {}\n  instructions per op {} → {} ({}), {} → {} Ir per run\n  {measurements} measurements for {n} commits (GOOD's included; at most {bound}{}){}",
                    commit.sha,
                    commit.subject,
                    fmt_ir(per_op(before)),
                    fmt_ir(per_op(after)),
                    fmt_change(100.0 * (per_op(after) / per_op(before) - 1.0)),
                    fmt_whole(before.ir as f64),
                    fmt_whole(after.ir as f64),
                    if k == n - 1 { ", and one more to confirm BAD" } else { "" },
                    decided_note(decided)
                );
                explain(before, after);
                return Ok(crate::exit::OK);
            }
        }
    }
}

/// A built commit, not measured yet: its bench target, the kept binary, its results' folder
/// and the files its build read.
struct Built {
    target: costbench_measure::cargo::BenchTarget,
    kept: PathBuf,
    dir: PathBuf,
    inputs: BuildInputs,
}

/// A measured commit (GOOD's or one of the range's) whose build read none of the files that
/// differ between it and `commit`: `commit` builds the same binary, so it has the same count.
fn same_build(
    root: &std::path::Path,
    good: &Measured,
    measured: &HashMap<usize, Measured>,
    commit: &Commit,
) -> Result<Option<Measured>> {
    let mut seen = std::collections::HashSet::new();
    for m in std::iter::once(good).chain(measured.values()) {
        // Decided commits stand in with the measured one's record: ask each measured commit once.
        if !seen.insert(&m.sha) {
            continue;
        }
        let changed = changed_files(root, &m.sha, &commit.sha)?;
        if m.inputs.first_touched(&changed).is_none() {
            return Ok(Some(m.clone()));
        }
    }
    Ok(None)
}

/// What the answer line adds when commits were decided without a build.
fn decided_note(decided: usize) -> String {
    match decided {
        0 => String::new(),
        1 => {
            "; 1 commit decided without a build: its build's files were a measured commit's".into()
        }
        d => format!(
            "; {d} commits decided without a build: their build's files were a measured commit's"
        ),
    }
}

/// The top of the git checkout `target` is in (bisect's worktree).
fn worktree_top(target: &costbench_measure::cargo::BenchTarget) -> PathBuf {
    let mut dir = target.workspace_root.as_path();
    loop {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
        match dir.parent() {
            Some(p) => dir = p,
            None => return target.workspace_root.clone(),
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
    let by_id =
        crate::core::sides::explain_change((&before.run, &before.dir), (&after.run, &after.dir));
    // One scenario is followed: one text.
    for text in by_id.values() {
        print!("{text}");
    }
}

fn short(sha: &str) -> &str {
    &sha[..12.min(sha.len())]
}
