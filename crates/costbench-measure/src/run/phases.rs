//! The phases of a session: instruction counts (with the census riding on them) and wall time,
//! which have phases of their own, and the one phase of every instrument whose children are one
//! process per party writing one file (under valgrind or in process), run in parallel or, after a probe, one scenario at a time, as the registry
//! (`crate::instrument::phase`) says. Each spawns its children through [`Session`], hands what
//! they wrote to the instrument's parser and stores the figure; none parses a child's output
//! itself.

use super::child::{self, Running};
use super::session::Session;
use crate::ending::Outcome;
use crate::instrument::callgrind;
use crate::instrument::shape::{
    failure, walltime_failure, ChildSamples, Measured, Output, Parser, Party, Stored,
};
use crate::instrument::{census, icount, walltime, Phase};
use anyhow::{bail, Context, Result};
use costbench_protocol::{Listing, ScenarioInfo, RESIDUAL_SCENARIO};
use costbench_record::model::{self, Failure};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

impl Session<'_> {
    pub(super) fn icount_phase(
        &self,
        vg: &callgrind::Valgrind,
        listing: &Listing,
        selected: &[&ScenarioInfo],
    ) -> Result<()> {
        let residual = listing
            .scenarios
            .iter()
            .find(|s| s.name == RESIDUAL_SCENARIO);
        let jobs: Vec<&ScenarioInfo> = residual
            .into_iter()
            .chain(selected.iter().copied())
            .collect();
        self.parallel_phase(&jobs, |s, k| self.icount_scenario(vg, s, k))
    }

    /// Callgrind's arguments for instruction counts. The census reads per-instruction counts
    /// from the same run (the Ir total is unchanged).
    pub(super) fn icount_tool_args(&self) -> &'static [&'static str] {
        if self.census.is_some() {
            census::TOOL_ARGS
        } else {
            &[]
        }
    }

    /// Runs every party of `s` under callgrind at once, wired together by pipes.
    fn icount_scenario(
        &self,
        vg: &callgrind::Valgrind,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<()> {
        self.progress.set_message(format!("icount {}", s.name));
        let tool_args = self.icount_tool_args();
        let outcomes = self.spawn_parties(s, "icount", &|i, _id, args| {
            let tmp = self.tmp_path("icount", job, i);
            self.measured_command(
                callgrind::command(vg, tool_args, &tmp, self.bin.exe_for(&s.name), &args),
                &s.name,
                true,
            )
        })?;
        for (i, (id, outcome)) in outcomes.into_iter().enumerate() {
            let tmp = self.tmp_path("icount", job, i);
            let (final_path, rel) = self.out.callgrind_paths(&id);
            let result = icount::Ir
                .parse(Output {
                    outcome: &outcome,
                    timeout: self.opts.timeout,
                    ops: s.ops,
                    path: &tmp,
                    bytes: std::fs::read(&tmp),
                    kept_as: rel,
                })
                .and_then(|i| keep(&tmp, &final_path, "callgrind", "icount", &outcome).map(|()| i));
            let result = self.unless_full(result)?;
            let _ = std::fs::remove_file(&tmp);
            let census = match (&result, &self.census) {
                (Ok(_), Some(c)) if s.name != RESIDUAL_SCENARIO => Some(
                    c.parse(Output {
                        outcome: &outcome,
                        timeout: self.opts.timeout,
                        ops: s.ops,
                        path: &final_path,
                        bytes: std::fs::read(&final_path),
                        kept_as: String::new(),
                    })
                    .map(|c| Box::new(c) as Box<dyn Stored>),
                ),
                _ => None,
            };
            if s.name == RESIDUAL_SCENARIO {
                match result {
                    Ok(i) => {
                        self.record.lock().expect("no worker panicked").harness_residual_ir = Some(i.ir)
                    }
                    Err(f) => bail!(
                        "the harness residual could not be measured ({}: {}); is valgrind working?\n{}",
                        f.kind,
                        f.message,
                        f.stderr_tail
                    ),
                }
            } else {
                self.store(&id, result.map(|i| Box::new(i) as Box<dyn Stored>))?;
                if let Some(c) = census {
                    self.store(&id, c)?;
                }
            }
        }
        if s.name != RESIDUAL_SCENARIO {
            self.progress.done(&format!("icount {}", s.name));
        }
        Ok(())
    }

    /// Runs an instrument that has no phase of its own in the registry's way: `--measure-jobs`
    /// scenarios at once, or one at a time after a probe. `valgrind` is there when it runs.
    pub(super) fn registry_phase(
        &self,
        phase: Phase,
        valgrind: Option<&callgrind::Valgrind>,
        listing: &Listing,
        selected: &[&ScenarioInfo],
    ) -> Result<()> {
        match phase {
            Phase::Own { .. } | Phase::Riding => Ok(()),
            Phase::Parallel(inst) => self.parallel_phase(selected, |sc, job| {
                self.per_party_scenario(inst, valgrind, sc, job)
            }),
            Phase::Probed(inst) => self.probed_phase(inst, valgrind, listing, selected),
        }
    }

    /// One scenario of `inst`: every party at once, each writing one file, read by the
    /// instrument's parser and kept in the results directory if the instrument keeps it.
    fn per_party_scenario(
        &self,
        inst: &dyn Party,
        valgrind: Option<&callgrind::Valgrind>,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<()> {
        let name = inst.instrument().name();
        self.progress.set_message(format!("{name} {}", s.name));
        for (id, r) in self.per_party_results(inst, valgrind, s, job)? {
            self.store(&id, r)?;
        }
        self.progress.done(&format!("{name} {}", s.name));
        Ok(())
    }

    /// Runs `s` under `inst`; per measured id, the figure or the failure.
    fn per_party_results(
        &self,
        inst: &dyn Party,
        valgrind: Option<&callgrind::Valgrind>,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<Vec<(String, Measured)>> {
        let name = inst.instrument().name();
        let outcomes = self.spawn_parties(s, inst.mode(), &|i, _id, args| {
            let tmp = self.tmp_path(name, job, i);
            let cmd = inst.command(valgrind, self.bin.exe_for(&s.name), args, &tmp);
            self.measured_command(cmd, &s.name, inst.pin_random())
        })?;
        let mut results = Vec::new();
        for (i, (id, outcome)) in outcomes.into_iter().enumerate() {
            let tmp = self.tmp_path(name, job, i);
            let kept = inst.instrument().descriptor().kept.is_some();
            let (final_path, rel) = if kept {
                self.out.instrument_paths(inst.instrument(), &id)?
            } else {
                (tmp.clone(), String::new())
            };
            let read = inst.read(Output {
                outcome: &outcome,
                timeout: self.opts.timeout,
                ops: s.ops,
                path: &tmp,
                bytes: std::fs::read(&tmp),
                kept_as: rel,
            });
            let result = match read {
                Ok(m) if kept => keep(&tmp, &final_path, name, name, &outcome).map(|()| m),
                r => r,
            };
            let result = self.unless_full(result)?;
            let _ = std::fs::remove_file(&tmp);
            results.push((id, result));
        }
        Ok(results)
    }

    /// First the library's empty scenario, to learn whether `inst` can run here at all (if
    /// not, the instrument is skipped with the reason its parser gave), then every scenario,
    /// one at a time, since what it measures depends on what else runs (hardware counters).
    fn probed_phase(
        &self,
        inst: &dyn Party,
        valgrind: Option<&callgrind::Valgrind>,
        listing: &Listing,
        selected: &[&ScenarioInfo],
    ) -> Result<()> {
        let name = inst.instrument().name();
        if let Some(residual) = listing
            .scenarios
            .iter()
            .find(|s| s.name == RESIDUAL_SCENARIO)
        {
            let probe = self.per_party_results(inst, valgrind, residual, 0)?;
            if let Some((_, Err(f))) = probe.first() {
                let reason = if f.kind == "no-measurement" {
                    f.message.clone()
                } else {
                    format!("the probe run failed ({}: {})", f.kind, f.message)
                };
                if self.opts.progress {
                    eprintln!("warning: {name} skipped: {reason}");
                }
                let mut record = self.record.lock().expect("no worker panicked");
                record.skipped.push(model::Skipped {
                    instrument: name.into(),
                    reason,
                });
                record.settings.instruments.retain(|i| i != name);
                drop(record);
                self.progress.inc(selected.len() as u64);
                return self.save();
            }
        }
        for (k, s) in selected.iter().enumerate() {
            self.per_party_scenario(inst, valgrind, s, k)?;
        }
        Ok(())
    }

    pub(super) fn walltime_phase(&self, selected: &[&ScenarioInfo]) -> Result<()> {
        let args = walltime::sampling_args(self.opts.samples);
        for s in selected {
            self.progress.set_message(format!("walltime {}", s.name));
            for (id, r) in self.walltime_child(s, self.bin.exe_for(&s.name), &args)? {
                let figure = r.and_then(|m| {
                    walltime::parse::figures(&m, s.ops)
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
    pub(super) fn walltime_child(
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
    pub(super) fn spawn_walltime(
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
    pub(super) fn collect_walltime(
        &self,
        s: &ScenarioInfo,
        outcome: &Outcome,
        result_file: &tempfile::NamedTempFile,
    ) -> ChildSamples {
        let bytes = std::fs::read(result_file.path());
        walltime::parse::samples(s, outcome, self.opts.timeout, bytes)
    }
}

/// Moves a child's output from `tmp` to where the record points (`final_path`). An output that
/// cannot be kept is a failure of `instrument` (the message calls the output `what`'s).
fn keep(
    tmp: &Path,
    final_path: &Path,
    what: &str,
    instrument: &str,
    outcome: &Outcome,
) -> std::result::Result<(), Failure> {
    costbench_record::output::publish(tmp, final_path).map_err(|e| {
        failure(
            instrument,
            outcome,
            "no-measurement",
            format!("cannot keep {what} output as {}: {e}", final_path.display()),
        )
    })
}
