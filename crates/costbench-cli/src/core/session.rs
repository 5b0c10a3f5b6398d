//! A measuring command's session: the validated command ([`RunCommand`]: the measuring options
//! plus what only the command reads), the bench target resolved through cargo, its default
//! paths, the history database, and `--shard`'s costs read from that history. Measuring goes
//! through [`Session::measure_and_record`], so that every measured run (of `run`, `check` and
//! `variants`) lands in history the same way.
//!
//! Printing a run and choosing the exit code are the commands'; this module prints only the
//! lines that say which bench targets were chosen when there was a choice, and which were left
//! out for their required features (before the build).

use super::history;
use super::paths::Paths;
use anyhow::{Context, Result};
use costbench_measure::cargo::{self, BenchTarget};
use costbench_measure::run::{RunOptions, SideSpec};
use costbench_record::model::RunRecord;
use costbench_store::Location;
use std::path::{Path, PathBuf};

/// A measuring command, validated: what the measuring crate takes, and what the command keeps
/// for itself (how to print, and where to record).
#[derive(Debug)]
pub(crate) struct RunCommand {
    /// What measuring takes.
    pub measure: RunOptions,
    /// `--manifest-path`, `--package` and `--bench`: which bench target.
    pub manifest_path: Option<PathBuf>,
    pub package: Option<String>,
    pub bench: Vec<String>,
    /// `--output-dir` (absolute), else each command's default under the target directory.
    pub output_dir: Option<PathBuf>,
    /// `--quiet`: only errors.
    pub quiet: bool,
    /// `--db` (or `COSTBENCH_DB`); `None` is the default under the target directory.
    pub db: Option<PathBuf>,
    /// Record each measured run in the history (`--no-history` turns it off).
    pub record_history: bool,
}

/// The bench target of a measuring command, with its paths and history.
#[derive(Debug)]
pub(crate) struct Session {
    pub cmd: RunCommand,
    pub target: BenchTarget,
    pub paths: Paths,
    /// Where runs are recorded, and `--shard`'s costs read from.
    pub history: Location,
}

impl Session {
    /// Resolves the bench target of `cmd` and, with `--shard`, fills the shard's costs from
    /// the history (when it exists; otherwise the partition is by count).
    pub(crate) fn open(mut cmd: RunCommand) -> Result<Session> {
        let (target, left_out) = cargo::resolve_buildable(
            cmd.manifest_path.as_deref(),
            cmd.package.as_deref(),
            &cmd.bench,
            &cmd.measure.cargo,
        )?;
        // As `cargo bench` leaves them out (issue 41), said before the build.
        for (bench, lacks) in left_out.iter().filter(|_| !cmd.quiet) {
            costbench_measure::terminal::status(
                "Skipped",
                format!(
                    "bench target {bench}: it needs features {} (cargo bench leaves it out too; \
                     --features {} builds it)",
                    lacks.join(", "),
                    lacks.join(",")
                ),
            );
        }
        // costbench.toml's budgets, checked after measuring with the suite's own, and its
        // entries accepting the instruments' findings; a bad entry is said here, before any
        // build.
        let config = costbench_measure::config::Config::load(&target.workspace_root)?;
        cmd.measure.allowances = config.allowances();
        cmd.measure.budgets = config.budget;
        let paths = Paths::under(&target.target_directory);
        let history = history::location(cmd.db.as_deref(), &paths);
        // A `--db` that cannot be used (a file that is not a database, a server that does not
        // answer) is said before the build, not after the measuring (issue 29). A file not there
        // yet is left alone: recording creates it, and `check --baseline branch:NAME` says
        // that it has no history.
        if cmd.db.is_some() && cmd.record_history && !cmd.measure.list_only && history.exists() {
            history.open().map(drop).with_context(|| {
                format!(
                    "cannot use --db {history} as the history database (name an SQLite file or \
                     a reachable PostgreSQL URL, or pass --no-history)"
                )
            })?;
        }
        super::shard::load_costs(&mut cmd.measure, &history)?;
        Ok(Session {
            cmd,
            target,
            paths,
            history,
        })
    }

    /// `--output-dir`, else `default` (one of [`Session::paths`]).
    pub(crate) fn output_dir(&self, default: impl FnOnce(&Paths) -> PathBuf) -> PathBuf {
        self.cmd
            .output_dir
            .clone()
            .unwrap_or_else(|| default(&self.paths))
    }

    /// Builds the bench target (`variant` names its build directory), with cargo's output
    /// unless `--quiet`.
    pub(crate) fn build(&self, target: &BenchTarget, variant: &str) -> Result<PathBuf> {
        self.build_timed(target, variant).map(|(exe, _)| exe)
    }

    /// [`Session::build`], and how the build went (its time, units compiled and fresh), which
    /// the run record of what it built keeps.
    pub(crate) fn build_timed(
        &self,
        target: &BenchTarget,
        variant: &str,
    ) -> Result<(PathBuf, costbench_record::model::BuildInfo)> {
        self.say_choice();
        cargo::build_timed(
            target,
            variant,
            &self.cmd.measure.cargo,
            self.cmd.quiet,
            self.cmd.measure.code_align,
        )
    }

    /// [`Session::build_timed`] of every bench target of the session (issue 41: `run` measures
    /// them all in one run): the first's executable, the others' builds, the builds' time.
    pub(crate) fn build_all_timed(
        &self,
    ) -> Result<(
        PathBuf,
        Vec<cargo::BuiltBench>,
        costbench_record::model::BuildInfo,
    )> {
        self.build_all_of(&self.target, cargo::DEFAULT_BUILD)
    }

    /// [`Session::build_all_timed`] of `target` and its others (a baseline's checkout, whose
    /// targets are the session's as that revision has them) into build directory `variant`.
    pub(crate) fn build_all_of(
        &self,
        target: &BenchTarget,
        variant: &str,
    ) -> Result<(
        PathBuf,
        Vec<cargo::BuiltBench>,
        costbench_record::model::BuildInfo,
    )> {
        self.say_choice();
        cargo::build_all_timed(
            target,
            variant,
            &self.cmd.measure.cargo,
            self.cmd.quiet,
            self.cmd.measure.code_align,
        )
    }

    /// Checks that `--filter` selects a scenario of the built bench target `exe` (and the
    /// `others` built with it, as one run lists them), by listing its scenarios: for a command
    /// with more to build, so that a filter that matches nothing is said before those builds
    /// (issue 29), as a usage error.
    pub(crate) fn check_filter(&self, exe: &Path, others: &[cargo::BuiltBench]) -> Result<()> {
        let Some(filter) = &self.cmd.measure.filter else {
            return Ok(());
        };
        let mut bin =
            costbench_measure::run::Binary::new(exe.to_path_buf(), self.target.package_dir.clone())
                .with_others(&self.target.bench, others.to_vec());
        let listing = bin.list(self.cmd.measure.timeout)?;
        costbench_record::selection::select(&listing, Some(filter))?;
        Ok(())
    }

    /// For a command that follows one scenario (`bisect`) when several bench targets qualify
    /// (issue 41): builds them all (run's build), finds the one whose scenarios `--filter`
    /// selects, and narrows the session to it, the filter then naming the ids as that target
    /// knows them (an id two targets share is selected as `TARGET/ID`). A filter that selects
    /// scenarios of several targets is a usage error naming them.
    pub(crate) fn narrow_to_filtered_target(&mut self, command: &str) -> Result<()> {
        let Some(filter) = self.cmd.measure.filter.clone() else {
            return Ok(());
        };
        if self.target.others.is_empty() {
            return Ok(());
        }
        let (exe, others, _) = self.build_all_timed()?;
        let mut bin = costbench_measure::run::Binary::new(exe, self.target.package_dir.clone())
            .with_others(&self.target.bench, others);
        let listing = bin.list(self.cmd.measure.timeout)?;
        let selected = costbench_record::selection::select(&listing, Some(&filter))?;
        let mut benches: Vec<&str> = Vec::new();
        let mut own = Vec::new();
        for s in &selected {
            let (bench, name) = bin.origin(&s.name);
            if !benches.contains(&bench) {
                benches.push(bench);
            }
            own.push(regex::escape(&name));
        }
        if let [one] = benches[..] {
            let mut chosen = self
                .target
                .all()
                .find(|t| t.bench == one)
                .expect("the listing's targets are the session's")
                .clone();
            chosen.others.clear();
            self.status(
                "Selected",
                format!("bench target {one}: it offers the scenario --filter selects"),
            );
            self.target = chosen;
            self.cmd.measure.filter = Some(
                regex::Regex::new(&format!("^(?:{})$", own.join("|")))
                    .expect("escaped ids make a valid pattern"),
            );
            return Ok(());
        }
        costbench_record::bad_input!(
            "`costbench {command}` follows one scenario, and --filter {:?} selects scenarios of \
             {} bench targets ({}): narrow it to one (an id two targets share is `TARGET/ID`), or \
             choose the target with --bench NAME",
            filter.as_str(),
            benches.len(),
            benches.join(", ")
        )
    }

    /// When a `harness = false` target was chosen over others, the line that says so (once,
    /// before the first build, unless `--quiet`), so that an error in the command line is
    /// still the first thing said.
    pub(crate) fn say_choice(&self) {
        static SAID: std::sync::Once = std::sync::Once::new();
        if let (Some(note), false) = (self.target.choice_note(), self.cmd.quiet) {
            SAID.call_once(|| costbench_measure::terminal::status("Selected", note));
        }
    }

    /// Says, unless `--quiet`, which criterion and divan dependencies were switched to
    /// costbench's compatible crates in the worktree of `target` (`what` names its commit).
    pub(crate) fn say_switched(&self, target: &BenchTarget, what: &str) {
        for s in &target.switched {
            self.status(
                "Switched",
                format!("{s} to costbench's compatible crate in the worktree of {what}"),
            );
        }
    }

    /// A status line on stderr unless `--quiet`.
    pub(crate) fn status(&self, verb: &str, what: impl std::fmt::Display) {
        if !self.cmd.quiet {
            costbench_measure::terminal::status(verb, what);
        }
    }

    /// Measures `sides` (`run::measure_sides`) and records every side's run in the history
    /// unless `--no-history`. The results are already on disk when a side is recorded, so a
    /// history failure is reported with where they are.
    pub(crate) fn measure_and_record(&self, sides: Vec<SideSpec>) -> Result<Vec<RunRecord>> {
        let dirs: Vec<PathBuf> = sides.iter().map(|s| s.output_dir.clone()).collect();
        let records =
            costbench_measure::run::measure_sides(&self.cmd.measure, &self.target, sides)?;
        if self.cmd.record_history {
            for (record, dir) in records.iter().zip(&dirs) {
                record_one(&self.history, record, dir)?;
            }
        }
        Ok(records)
    }
}

impl Session {
    /// Plans the variants `vopts` chooses, builds them into `root` and measures them in one
    /// session, each run recorded in the history; returns the records and their matrix. With
    /// `--filter`, the baseline variant is built first, alone, and listed, so that a filter that
    /// selects no scenario is said before the builds it would waste (issue 41): a build the
    /// session needs anyway, so the check costs no extra build (only the overlap of that one
    /// build with the others under --parallel-builds). Run's own build cannot stand in for it:
    /// it may be missing or stale (a scenario added since). `variants` and `advise` measure
    /// variants through this.
    pub(crate) fn measure_variants(
        &mut self,
        vopts: &costbench_measure::variants::VariantOptions,
        root: PathBuf,
    ) -> Result<costbench_measure::variants::Measured> {
        let mut plan =
            costbench_measure::variants::plan(&mut self.cmd.measure, vopts, &self.target)?;
        self.say_choice();
        if self.cmd.measure.filter.is_some() {
            // The output directory is checked first, as before any build.
            costbench_record::output::OutputDir::prepare(&root)?;
            if let Some((exe, others)) = plan.build_first(&self.cmd.measure, &self.target) {
                self.check_filter(&exe, &others)?;
            }
        }
        let builds = plan.build(&mut self.cmd.measure, &self.target, root)?;
        let sides = builds.sides();
        let records = if sides.is_empty() {
            Vec::new()
        } else {
            self.measure_and_record(sides)?
        };
        builds.finish(records)
    }
}

/// Records `record`, whose results are in `dir`; a history failure is reported, not fatal to
/// the results.
fn record_one(db: &Location, record: &RunRecord, dir: &Path) -> Result<()> {
    db.open().and_then(|s| s.record(record)).with_context(|| {
        format!(
            "the run's results are in {}, but recording it in the history failed",
            dir.display()
        )
    })
}
