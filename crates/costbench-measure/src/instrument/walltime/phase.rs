//! How the scheduler runs wall time (this folder's [`OwnPhase`]): with one side, one process
//! per scenario, all its samples in it; with several, interleaved rounds ([`super::interleaved`]).

use super::interleaved;
use crate::ending::Outcome;
use crate::instrument::phase::OwnPhase;
use crate::instrument::shape::{walltime_failure, ChildSamples, Stored};
use crate::run::child::{self, Running};
use crate::run::session::{Session, Sides};
use anyhow::{Context, Result};
use costbench_protocol::{self as proto, ScenarioInfo};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Wall time's own phase.
pub(crate) struct Timing;

impl OwnPhase for Timing {
    fn together(&self, opts: &crate::run::RunOptions) -> Option<String> {
        Some(format!(
            "wall time in {} to {} interleaved rounds",
            opts.rounds.rounds, opts.rounds.max_rounds
        ))
    }
    fn all_sides(&self, sides: &Sides<'_, '_>) -> Result<()> {
        if let [one] = sides.sessions {
            one.walltime_phase(&sides.selections[0])
        } else {
            // A token ring needs every side's library to know `--lockstep` (a baseline revision
            // may predate it); without it, sides take turns round by round.
            let lockstep = sides.listings.iter().all(|l| {
                l.capabilities
                    .iter()
                    .any(|c| c == proto::CAPABILITY_LOCKSTEP)
            });
            interleaved::walltime_interleaved(sides.sessions, sides.selections, sides.rounds, lockstep)
        }
    }
    fn holds_cpu(&self) -> bool {
        true
    }
    fn records_cpu(&self) -> bool {
        true
    }
}

impl Session<'_> {
    pub(crate) fn walltime_phase(&self, selected: &[&ScenarioInfo]) -> Result<()> {
        let args = super::sampling_args(self.opts.samples);
        for s in selected {
            self.progress.set_message(format!("walltime {}", s.name));
            for (id, r) in self.walltime_child(s, self.bin.exe_for(&s.name), &args)? {
                let figure = r.and_then(|m| {
                    super::parse::figures(&m, s.ops)
                        .map(|w| Box::new(w) as Box<dyn Stored>)
                        .ok_or_else(|| walltime_failure("the child reported no samples", ""))
                });
                self.store(&id, figure)?;
            }
            self.progress.done(&format!("walltime {}", s.name));
        }
        Ok(())
    }

    /// Runs one wall-time child of `s` (binary `exe`: the build, or one of its code layouts) with
    /// `extra` sampling arguments and returns, per measured id, its samples or why there are none.
    pub(crate) fn walltime_child(
        &self,
        s: &ScenarioInfo,
        exe: &Path,
        extra: &[String],
    ) -> Result<ChildSamples> {
        let (running, file) = self.spawn_walltime(s, exe, extra, &[])?;
        let outcome = child::wait_all(vec![running], Instant::now(), self.opts.timeout).remove(0);
        Ok(self.collect_walltime(s, &outcome, &file))
    }

    /// Starts a wall-time child of `s` from `exe`, with `fds` inherited; its result goes to the
    /// returned temporary file.
    pub(crate) fn spawn_walltime(
        &self,
        s: &ScenarioInfo,
        exe: &Path,
        extra: &[String],
        fds: &[(&std::os::fd::OwnedFd, std::os::fd::RawFd)],
    ) -> Result<(Running, tempfile::NamedTempFile)> {
        let result_file = tempfile::Builder::new()
            .prefix(".walltime-")
            .suffix(".json")
            .tempfile_in(self.out.tmp_dir_path())
            .context("cannot create a temporary result file")?;
        let mut args = self.bin.child_args("walltime");
        args.push(self.bin.child_name(&s.name));
        args.push("--result".into());
        args.push(result_file.path().display().to_string());
        args.extend(extra.iter().cloned());
        let mut cmd = Command::new(exe);
        cmd.args(&args);
        let mut cmd = child::scenario_command(cmd, self.bin.cwd_for(&s.name), false);
        if let Some(cpu) = self.opts.walltime_cpu {
            child::pin_to_cpu(&mut cmd, cpu);
        }
        child::inherit_fds(&mut cmd, fds);
        let r = Running::spawn(&mut cmd)
            .with_context(|| format!("cannot run scenario binary {}", exe.display()))?;
        Ok((r, result_file))
    }

    /// Per measured id of `s`: the samples a finished wall-time child wrote, or why there are none.
    pub(crate) fn collect_walltime(
        &self,
        s: &ScenarioInfo,
        outcome: &Outcome,
        result_file: &tempfile::NamedTempFile,
    ) -> ChildSamples {
        let bytes = std::fs::read(result_file.path());
        super::parse::samples(s, outcome, self.opts.timeout, bytes)
    }
}
