//! `costbench history backfill REV_RANGE`: measures the commits of a range of the branch and
//! records each run in the history with its commit, parent, position and author date, so that a
//! crate that adopts costbench today has a history of its past, and change points can be placed
//! at their exact commit.
//!
//! bisect's machinery, commit after commit: one worktree moved from commit to commit
//! (`checkout_for_bisect` under the `backfill` build directory, seeded from `run`'s build), and a
//! commit that changed none of the files a measured commit's build read takes that commit's
//! figures without a build, recorded as carried over. Each measured commit's results stay under
//! `TARGET/costbench/backfill/SHA/run` (its callgrind profiles explain its change points), with
//! the binary beside them (its machine code). A commit already recorded for the same settings is
//! passed over (an interrupted backfill resumes), a commit that does not build is recorded as
//! such, with the reason, and passed over. `--narrow` then measures between the runs of each
//! change of an exact figure whose commits are not parent and child, halving the gap until
//! they are.

use crate::args::BackfillCmd;
use crate::core::changes::{kept_dir, short};
mod merged;

use crate::core::session::Session;
use crate::instrument::pairing::{Commit, Pairing, Previous};
use crate::output::Sink;
use anyhow::{Context, Result};
use costbench_judge::changes::{self, Method};
use costbench_measure::cargo::{BuiltBench, DEFAULT_BUILD};
use costbench_measure::run::backfill::{self as git, BranchCommit, BACKFILL_VARIANT};
use costbench_measure::run::baseline;
use costbench_measure::run::bisect::{changed_files, seed_build, BuildInputs};
use costbench_record::history::Timeline;
use costbench_record::history::{BackfillSummary, BackfilledCommit, BACKFILL_SCHEMA_VERSION};
use costbench_record::model::{Backfill, RunRecord};
use costbench_report::render::BackfillView;
use costbench_store::{RunQuery, Store};
use std::path::PathBuf;
use std::time::Instant;

/// A commit measured in this backfill: its record, the files its build read and its kept
/// binary.
struct Measured {
    sha: String,
    position: u64,
    run: RunRecord,
    inputs: BuildInputs,
    exe: PathBuf,
    /// The other bench targets' kept binaries (issue 41: every target at every commit).
    others: Vec<BuiltBench>,
}

/// A commit checked out and built: its worktree's bench target, its kept binary, the files its
/// build read and where its results are kept.
struct Built {
    target: costbench_measure::cargo::BenchTarget,
    kept: PathBuf,
    /// The other bench targets' kept binaries.
    others: Vec<BuiltBench>,
    inputs: BuildInputs,
    dir: PathBuf,
}

/// A change of an exact figure: its series (an index into the timeline's), the commits of the
/// runs before and at it, and whether those are parent and child (narrowed to its commit).
struct ExactChange {
    series: usize,
    before: String,
    after: String,
    adjacent: bool,
}

/// What became of one commit.
enum Outcome {
    /// Measured; its paired figure (`instrument::PAIRINGS`) paired with this commit's binary,
    /// if it was.
    Measured(Option<String>),
    /// Recorded with the figures of this measured commit.
    Carried(String),
    /// Does not build, for this reason.
    Failed(String),
    Recorded,
}

pub(super) fn backfill(mut b: BackfillCmd) -> Result<i32> {
    if b.every == 0 {
        crate::exit::usage!("--every must be at least 1");
    }
    if b.measure.history.no_history {
        crate::exit::usage!(
            "--no-history: a backfill records every commit in the history, that is what it is for"
        );
    }
    let shard = b
        .measure
        .shard
        .take()
        .map(|s| costbench_record::shard::Shard::parse(&s))
        .transpose()?;
    let mut cmd = b.measure.into_command(false, false)?;
    // Recorded here, with the branch and backfill blocks set, not by the session.
    cmd.record_history = false;
    cmd.measure.progress = false;
    // Old commits meet today's compiler: a `#![deny(warnings)]` would fail them on lints that
    // did not exist then. Lints change no code.
    cmd.measure.cargo.cap_lints = true;
    let session = Session::open(cmd)?;
    let root = session.target.workspace_root.clone();
    if git::dirty(&root)? {
        crate::exit::usage!(
            "the work tree at {} has uncommitted changes: commit or stash them first (a backfill measures commits; \
             costbench.toml and a switched bench dependency must be committed to be in them)",
            root.display()
        );
    }
    let all = git::commits(&root, &b.range, b.all_commits)?;
    let branch = b.branch.clone().or_else(|| git::current_branch(&root));
    // Sampled from the newest down, so that the newest is always measured, and the oldest too:
    // a change among the first commits then lies between two measured ones, where --narrow
    // finds it.
    let n = all.len();
    let mut selected: Vec<&BranchCommit> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| (n - 1 - i) % b.every == 0 || *i == 0)
        .map(|(_, c)| c)
        .collect();
    if let Some(s) = &shard {
        // Contiguous blocks: neighbours share builds and carry each other's figures.
        let (k, count) = (s.index as usize - 1, s.count as usize);
        let len = selected.len();
        let (from, to) = (len * k / count, len * (k + 1) / count);
        selected = selected[from..to].to_vec();
    }
    if b.dry_run {
        for c in &selected {
            println!("{} {:>6} {}", short(&c.sha), c.position, c.subject);
        }
        println!(
            "{} of {n} commits of {} would be measured{}",
            selected.len(),
            b.range,
            shard.map_or(String::new(), |s| format!(
                " (shard {}/{})",
                s.index, s.count
            ))
        );
        return Ok(crate::exit::OK);
    }
    let store = session.history.open()?;
    let seeded = seed_build(&session.target, DEFAULT_BUILD, BACKFILL_VARIANT)?;
    let mut run = Backfiller {
        session: &session,
        store: &*store,
        branch,
        root: root.clone(),
        top: PathBuf::from(
            String::from_utf8_lossy(
                &std::process::Command::new("git")
                    .arg("-C")
                    .arg(&root)
                    .args(["rev-parse", "--show-toplevel"])
                    .output()
                    .context("cannot run git")?
                    .stdout,
            )
            .trim(),
        ),
        take_mtimes: seeded > 0,
        measured: Vec::new(),
        template: git::failed_build_record(
            &session.target,
            &session.cmd.measure,
            selected.first().copied().unwrap_or(&all[0]),
            None,
            String::new(),
        ),
        again: b.again,
        build_every_commit: b.build_every_commit,
        taken: Vec::new(),
    };
    session.status(
        "Backfilling",
        format!(
            "{} of {n} commits of {} on {}",
            selected.len(),
            b.range,
            run.branch.as_deref().unwrap_or("(no branch)")
        ),
    );
    let started = Instant::now();
    let out_of_time = |what: &str| {
        b.max_time
            .is_some_and(|m| started.elapsed().as_secs() >= m)
            .then(|| {
                let why = format!(
                    "--max-time {}s reached; {what} (run the same command again to go on)",
                    b.max_time.unwrap_or(0)
                );
                eprintln!("note: {why}");
                why
            })
    };
    let mut stopped = None;
    for c in &selected {
        if let Some(why) = out_of_time("the commits not reached are not measured") {
            stopped = Some(why);
            break;
        }
        run.commit(c, false)?;
    }
    let mut merged = 0;
    if b.narrow && stopped.is_none() {
        loop {
            if let Some(why) = out_of_time("narrowing stopped") {
                stopped = Some(why);
                break;
            }
            let Some(mid) = run.next_to_narrow()? else {
                break;
            };
            run.commit(&mid, true)?;
        }
        match out_of_time("narrowing into merged branches not started") {
            Some(why) => stopped = stopped.or(Some(why)),
            None => merged = run.narrow_merges()?,
        }
    }
    let summary = BackfillSummary {
        schema: "costbench-backfill".into(),
        schema_version: BACKFILL_SCHEMA_VERSION,
        range: b.range.clone(),
        branch: run.branch.clone(),
        commits_in_range: n,
        commits: std::mem::take(&mut run.taken),
        merged_branch_commits: merged,
        stopped,
        seconds: started.elapsed().as_secs_f64(),
    };
    Sink::new(Some(b.format)).emit(&BackfillView(&summary))?;
    Ok(crate::exit::OK)
}

struct Backfiller<'a> {
    session: &'a Session,
    store: &'a dyn Store,
    branch: Option<String>,
    root: PathBuf,
    top: PathBuf,
    take_mtimes: bool,
    measured: Vec<Measured>,
    /// A record with this backfill's settings (the last measured commit's, else one made before
    /// the first), to tell which recorded runs it would repeat, and on which machine.
    template: RunRecord,
    again: bool,
    build_every_commit: bool,
    /// Every commit taken, and what became of it.
    taken: Vec<BackfilledCommit>,
}

impl Backfiller<'_> {
    /// Takes `c` (`narrowing`: between two measured commits around a change) and notes what
    /// became of it.
    fn commit(&mut self, c: &BranchCommit, narrowing: bool) -> Result<()> {
        let mut taken = BackfilledCommit {
            commit: c.sha.clone(),
            position: c.position,
            subject: c.subject.clone(),
            outcome: String::new(),
            narrowing,
            carried_from: None,
            paired_with: None,
            failure: None,
        };
        taken.outcome = match self.one(c)? {
            Outcome::Measured(paired) => {
                taken.paired_with = paired;
                "measured"
            }
            Outcome::Carried(from) => {
                taken.carried_from = Some(from);
                "carried"
            }
            Outcome::Failed(why) => {
                taken.failure = Some(why);
                "failed"
            }
            Outcome::Recorded => "recorded",
        }
        .into();
        self.taken.push(taken);
        Ok(())
    }

    fn one(&mut self, c: &BranchCommit) -> Result<Outcome> {
        let label = format!("{} {}", short(&c.sha), c.subject);
        if !self.again {
            let done = self
                .store
                .commit_runs(&c.sha)?
                .iter()
                .any(|r| git::same_settings(r, &self.template));
            if done {
                self.session
                    .status("Recorded", format!("{label}: already in the history"));
                return Ok(Outcome::Recorded);
            }
        }
        if !self.build_every_commit {
            for m in &self.measured {
                let changed = changed_files(&self.top, &m.sha, &c.sha)?;
                if m.inputs.first_touched(&changed).is_none() {
                    self.session.status(
                        "Carried",
                        format!(
                            "{label}: none of its build's files changed since {}",
                            short(&m.sha)
                        ),
                    );
                    let mut run = m.run.clone();
                    run.run_id = costbench_measure::environment::new_run_id();
                    run.environment.git = Some(c.git(self.branch.clone()));
                    run.backfill = Some(Backfill {
                        carried_from: Some(m.sha.clone()),
                        failed: None,
                    });
                    for p in crate::instrument::PAIRINGS {
                        (p.carried)(&mut run, &m.sha);
                    }
                    self.store.record(&run)?;
                    return Ok(Outcome::Carried(m.sha.clone()));
                }
            }
        }
        let Built {
            target,
            kept,
            others,
            inputs,
            dir,
        } = match self.build(c, &label)? {
            Ok(built) => built,
            Err(why) => {
                eprintln!(
                    "warning: {label} does not build; recorded as such and passed over: {why}"
                );
                let run = git::failed_build_record(
                    &self.session.target,
                    &self.session.cmd.measure,
                    c,
                    self.branch.clone(),
                    why.clone(),
                );
                self.store.record(&run)?;
                return Ok(Outcome::Failed(why));
            }
        };
        let pairing = crate::instrument::pairing(self.session.cmd.measure.instruments);
        let previous = pairing.and_then(|pairing| {
            self.previous(pairing, c, &kept, &others)
                .map(|p| (pairing, p))
        });
        let paired_with = previous.as_ref().map(|(_, p)| p.sha.clone());
        let mut run = match &previous {
            Some((pairing, p)) => {
                self.session.status(
                    "Measuring",
                    format!("{label} ({} paired with {})", pairing.what, short(&p.sha)),
                );
                let commit = Commit {
                    target: &target,
                    exe: &kept,
                    others: &others,
                    dir: &dir,
                };
                let session = (&self.session.cmd.measure, &self.session.target);
                (pairing.measure)(session, commit, p)?
            }
            None => {
                self.session.status("Measuring", &label);
                let side = costbench_measure::run::SideSpec {
                    label: "default".into(),
                    exe: kept.clone(),
                    output_dir: dir.clone(),
                    target: Some(target),
                    build: None,
                    others: others.clone(),
                };
                self.session
                    .measure_and_record(vec![side])?
                    .pop()
                    .expect("one side measured")
            }
        };
        // The worktree is on a detached HEAD: the commit's place is the range's, under the
        // branch backfilled (dirty when its benches were switched to the compatible crates).
        let dirty = run.environment.git.as_ref().is_some_and(|g| g.dirty);
        run.environment.git = Some(costbench_record::model::Git {
            dirty,
            ..c.git(self.branch.clone())
        });
        let json = serde_json::to_vec_pretty(&run).expect("a run record always serialises");
        costbench_record::output::write_atomic(&dir.join("run.json"), &json)?;
        self.store.record(&run).with_context(|| {
            format!(
                "{label} was measured (results in {}), but recording it failed",
                dir.display()
            )
        })?;
        self.template = run.clone();
        self.measured.push(Measured {
            sha: c.sha.clone(),
            position: c.position,
            run,
            inputs,
            exe: kept,
            others,
        });
        Ok(Outcome::Measured(paired_with))
    }

    /// Checks `c` out in the worktree and builds it; keeps the binary under
    /// `backfill/SHA/bin`. `Err(why)` inside when the commit does not build.
    fn build(
        &mut self,
        c: &BranchCommit,
        label: &str,
    ) -> Result<std::result::Result<Built, String>> {
        self.session.status("Building", label);
        let take = std::mem::take(&mut self.take_mtimes);
        let target =
            baseline::checkout_for_bisect(&self.session.target, &c.sha, BACKFILL_VARIANT, take)?;
        self.session.say_switched(&target, short(&c.sha));
        // Every bench target at every commit (issue 41); one that does not build fails the
        // commit, as `cargo bench` would.
        let (exe, others) = match self.session.build_all_of(&target, BACKFILL_VARIANT) {
            Ok((exe, others, _)) => (exe, others),
            Err(e) => return Ok(Err(format!("{e:#}"))),
        };
        // Relative to the worktree's top, as bisect reads them: the files are the worktree's.
        let worktree = self
            .session
            .target
            .costbench_dir()
            .join("worktrees")
            .join(BACKFILL_VARIANT);
        let inputs = BuildInputs::read(&target, &worktree, BACKFILL_VARIANT)?;
        let dir = kept_dir(&self.session.paths, &c.sha);
        let bin = dir.parent().unwrap_or(&dir).join("bin");
        std::fs::create_dir_all(&bin)
            .with_context(|| format!("cannot create {}", bin.display()))?;
        let keep = |exe: &std::path::Path| -> Result<PathBuf> {
            let kept = bin.join(exe.file_name().unwrap_or_default());
            std::fs::copy(exe, &kept)
                .with_context(|| format!("cannot copy {} to {}", exe.display(), kept.display()))?;
            Ok(kept)
        };
        let kept = keep(&exe)?;
        let others = others
            .into_iter()
            .map(|o| {
                Ok(BuiltBench {
                    exe: keep(&o.exe)?,
                    ..o
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Ok(Built {
            target,
            kept,
            others,
            inputs,
            dir,
        }))
    }

    /// The commit to pair `c`'s figure of `pairing` with: the nearest commit before it measured
    /// in this backfill, else its parent when an earlier backfill kept its results (with that
    /// figure) and its binary (named as `exe` is). `None` for the first commit measured: its
    /// figure is measured alone.
    fn previous(
        &self,
        pairing: &Pairing,
        c: &BranchCommit,
        exe: &std::path::Path,
        others: &[BuiltBench],
    ) -> Option<Previous> {
        let here = self
            .measured
            .iter()
            .filter(|m| m.position < c.position)
            .max_by_key(|m| m.position);
        if let Some(m) = here {
            return Some(Previous {
                sha: m.sha.clone(),
                exe: m.exe.clone(),
                others: m.others.clone(),
                run: m.run.clone(),
            });
        }
        let parent = c.parent.as_ref()?;
        let dir = kept_dir(&self.session.paths, parent);
        let bin = dir.parent()?.join("bin");
        let exe = bin.join(exe.file_name()?);
        // The other targets' binaries, named as this commit's are.
        let others: Vec<BuiltBench> = others
            .iter()
            .map(|o| {
                Some(BuiltBench {
                    exe: bin.join(o.exe.file_name()?),
                    ..o.clone()
                })
            })
            .collect::<Option<_>>()?;
        let run = costbench_record::output::load_run(&dir).ok()?;
        (exe.is_file()
            && others.iter().all(|o| o.exe.is_file())
            && run
                .results
                .iter()
                .any(|r| r.has_figure(pairing.instrument.name())))
        .then(|| Previous {
            sha: parent.clone(),
            exe,
            others,
            run,
        })
    }

    /// Every change of an exact figure on this branch and machine, as `history changes` finds
    /// it, with the timeline it is in.
    fn exact_changes(&self) -> Result<(Timeline, Vec<ExactChange>)> {
        let timeline = self.store.timeline(&RunQuery {
            branch: self.branch.clone(),
            variant: None,
            limit: None,
        })?;
        let machine = self.template.environment.host.machine();
        let found = changes::detect(&timeline, &changes::Options::default())
            .into_iter()
            .filter_map(|c| {
                let series = &timeline.series[c.series];
                if Method::of(series.metric) != Method::Exact || series.machine != machine {
                    return None;
                }
                let (prev, run) = (&timeline.runs[c.previous_run], &timeline.runs[c.run]);
                let (a, b) = (prev.commit.clone()?, run.commit.clone()?);
                Some(ExactChange {
                    series: c.series,
                    adjacent: run.parent.as_deref() == Some(a.as_str()),
                    before: a,
                    after: b,
                })
            })
            .collect();
        Ok((timeline, found))
    }

    /// The commit halfway between the two runs of the first change of an exact figure whose
    /// runs' commits are not parent and child, on this machine and branch; `None` when every
    /// such change is narrowed (or cannot be: the commits between do not build).
    fn next_to_narrow(&self) -> Result<Option<BranchCommit>> {
        let (_, found) = self.exact_changes()?;
        for ExactChange {
            before: a,
            after: b,
            ..
        } in found.into_iter().filter(|c| !c.adjacent)
        {
            let between = match git::commits(&self.root, &format!("{a}..{b}"), false) {
                Ok(list) => list,
                Err(_) => continue,
            };
            // Commits of the gap not yet recorded (a failed build is recorded: passed over).
            let mut open = Vec::new();
            for commit in between.iter().take(between.len().saturating_sub(1)) {
                if self.store.commit_runs(&commit.sha)?.is_empty() {
                    open.push(commit.clone());
                }
            }
            if let Some(mid) = open.get(open.len() / 2) {
                return Ok(Some(mid.clone()));
            }
        }
        Ok(None)
    }
}
