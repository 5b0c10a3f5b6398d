//! One side's measuring session: the record being filled, the results directory it is saved
//! to after every figure, and the plumbing every phase shares (spawning the parties of a
//! scenario wired by pipes, `--measure-jobs` workers, temporary output files).
//!
//! The registry's phase is in [`super::phases`], the instruments' own phases in their folders
//! (`crate::instrument::phase::OwnPhase`, given every side as [`Sides`]); reading what a child wrote is the
//! instruments' (`crate::instrument`). This module owns no instrument and reads no child's output.

use super::binary::Binary;
use super::child::{self, Running};
use super::options::RunOptions;
use super::Rounds;
use crate::ending::Outcome;
use crate::instrument::callgrind::Valgrind;
use crate::instrument::shape::{Measured, Rider};
use anyhow::{Context, Result};
use costbench_protocol::{self as proto, Listing, ScenarioInfo};
use costbench_record::model::{Failure, RunRecord};
use costbench_record::output::OutputDir;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Free bytes under which a file system counts as full when a child's output cannot be read.
const FULL_BELOW: u64 = 1 << 20;

/// Every side of a run as the phases see it: what an instrument's own phase
/// (`crate::instrument::phase::OwnPhase`) is given, side `k` at index `k` of each.
pub(crate) struct Sides<'r, 'a> {
    /// Each side's session.
    pub(crate) sessions: &'r [Session<'a>],
    /// Each side's label, for messages.
    pub(crate) labels: Vec<&'r str>,
    /// Each side's listing.
    pub(crate) listings: &'r [Listing],
    /// Each side's selected scenarios (this shard's).
    pub(crate) selections: &'r [Vec<&'a ScenarioInfo>],
    /// Valgrind, when the run has it.
    pub(crate) valgrind: Option<&'r Valgrind>,
    /// How the interleaved rounds of several sides go.
    pub(crate) rounds: &'r Rounds,
}

/// One side being measured: its options, binary, results directory and record.
pub(crate) struct Session<'a> {
    pub(crate) opts: &'a RunOptions,
    pub(crate) bin: &'a Binary,
    pub(crate) out: &'a OutputDir,
    pub(crate) record: Mutex<RunRecord>,
    /// Preloaded under callgrind so that getrandom is the same in every run.
    pub(crate) fixed_random: Option<PathBuf>,
    /// What rides on this side's runs of another instrument, as the run's setup prepared it
    /// for this side's binary.
    pub(crate) riders: Vec<Box<dyn Rider>>,
    pub(crate) progress: super::progress::Progress,
}

impl Session<'_> {
    pub(crate) fn save(&self) -> Result<()> {
        let record = self.record.lock().expect("no worker panicked");
        self.out.write_all(&record)
    }

    /// A child's output that could not be read while the results' file system is full (under
    /// [`FULL_BELOW`] left) was cut short for lack of room, not by its scenario: that stops the
    /// run as out of space (an error of kind `StorageFull`, which [`super::stopped`] recognises)
    /// instead of being recorded as the scenario's failure. Call it before the output file is
    /// removed, so that its bytes still count as used.
    pub(crate) fn unless_full<T>(
        &self,
        result: std::result::Result<T, Failure>,
    ) -> Result<std::result::Result<T, Failure>> {
        let Err(f) = &result else {
            return Ok(result);
        };
        match self.out.space_left() {
            Some(free) if f.kind == "no-measurement" && free < FULL_BELOW => {
                Err(anyhow::Error::new(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    format!(
                        "{} output cut short ({}): the file system holding {} has {free} bytes \
                         left; free some space and run again",
                        f.instrument,
                        f.message,
                        self.out.root().display()
                    ),
                )))
            }
            _ => Ok(result),
        }
    }

    /// Stores what an instrument produced for `id` (a figure or a failure) and saves the files.
    /// Once the run was interrupted, stores nothing (the children were killed by us, not by
    /// their scenarios) and fails, so that the phase stops.
    pub(crate) fn store(&self, id: &str, result: Measured) -> Result<()> {
        if let Some(sig) = super::cancel::interrupted() {
            anyhow::bail!("interrupted by {}", super::cancel::signal_name(sig));
        }
        {
            let mut record = self.record.lock().expect("no worker panicked");
            let r = record
                .results
                .iter_mut()
                .find(|r| r.id == id)
                .expect("results are pre-populated for every measured id");
            match result {
                Ok(figure) => figure.store(r),
                Err(f) => r.failures.push(f),
            }
        }
        self.save()
    }

    /// Runs every party of `s` at once, one process each, wired together by pipes (a
    /// single-process scenario is one party). `command(i, id, args)` makes the command for party
    /// `i` (measured id `id`) from the child's argument list.
    pub(crate) fn spawn_parties(
        &self,
        s: &ScenarioInfo,
        mode: &str,
        command: &dyn Fn(usize, &str, Vec<String>) -> Command,
    ) -> Result<Vec<(String, Outcome)>> {
        let parties: Vec<Option<&str>> = if s.parties.is_empty() {
            vec![None]
        } else {
            s.parties.iter().map(|p| Some(p.as_str())).collect()
        };
        // pipes[i][j]: carries bytes from party i to party j.
        let n = parties.len();
        let mut pipes: Vec<Vec<Option<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)>>> =
            (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
        for (i, row) in pipes.iter_mut().enumerate() {
            for (j, slot) in row.iter_mut().enumerate() {
                if i != j {
                    *slot = Some(child::pipe().context("cannot create a pipe")?);
                }
            }
        }
        let start = Instant::now();
        let mut running = Vec::new();
        let mut ids = Vec::new();
        for (i, party) in parties.iter().enumerate() {
            let id = match party {
                Some(p) => proto::party_id(&s.name, p),
                None => s.name.clone(),
            };
            let mut args = self.bin.child_args(mode);
            args.push(self.bin.child_name(&s.name));
            let mut fds = Vec::new();
            if let Some(p) = party {
                args.extend(["--party".to_string(), p.to_string()]);
                let mut next_fd = 3;
                for (j, peer) in parties.iter().enumerate() {
                    if i == j {
                        continue;
                    }
                    let read = &pipes[j][i].as_ref().expect("pipe exists").0;
                    let write = &pipes[i][j].as_ref().expect("pipe exists").1;
                    args.push("--peer".into());
                    args.push(format!(
                        "{}={},{}",
                        peer.unwrap_or_default(),
                        next_fd,
                        next_fd + 1
                    ));
                    fds.push((read, next_fd));
                    fds.push((write, next_fd + 1));
                    next_fd += 2;
                }
            }
            let mut cmd = command(i, &id, args);
            child::inherit_fds(&mut cmd, &fds);
            let program = cmd.get_program().to_string_lossy().into_owned();
            match Running::spawn(&mut cmd) {
                Ok(r) => running.push(r),
                Err(e) => {
                    // Parties already started would wait for this one forever: end them.
                    drop(pipes);
                    child::wait_all(running, start, Duration::ZERO);
                    return Err(e).with_context(|| format!("cannot start {program}"));
                }
            }
            ids.push(id);
        }
        // Our copies of the pipe ends must close, or no party ever sees the end of its input.
        drop(pipes);
        costbench_record::fault::point("child-started");
        let outcomes = child::wait_all(running, start, self.opts.timeout);
        Ok(ids.into_iter().zip(outcomes).collect())
    }

    /// A temporary file for one party's output, in the run's temporary directory (which
    /// [`super::measure_sides`] creates and removes).
    pub(crate) fn tmp_path(&self, what: &str, job: usize, party: usize) -> PathBuf {
        self.out
            .tmp_dir_path()
            .join(format!("{what}-{job}-{party}.out"))
    }

    /// A process of the scenario measured as `name`, prepared like every measured one, with
    /// getrandom pinned when asked.
    pub(crate) fn measured_command(&self, cmd: Command, name: &str, pin_random: bool) -> Command {
        let mut cmd = child::scenario_command(cmd, self.bin.cwd_for(name), true);
        if let (true, Some(lib)) = (pin_random, &self.fixed_random) {
            cmd.env("LD_PRELOAD", lib);
        }
        cmd
    }

    /// Runs `each(scenario, job)` over `selected`, `--measure-jobs` at a time.
    pub(crate) fn parallel_phase(
        &self,
        selected: &[&ScenarioInfo],
        each: impl Fn(&ScenarioInfo, usize) -> Result<()> + Sync,
    ) -> Result<()> {
        let next = AtomicUsize::new(0);
        let error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..self.opts.jobs.min(selected.len()) {
                scope.spawn(|| loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(s) = selected.get(k) else { break };
                    if let Err(e) = each(s, k) {
                        error.lock().expect("no worker panicked").get_or_insert(e);
                        break;
                    }
                });
            }
        });
        match error.into_inner().expect("no worker panicked") {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
