//! The phases of a session, one instrument each: instruction counts (with the census riding on
//! them), cache and DHAT under valgrind, memory and perf in process, and wall time one scenario
//! at a time. Each spawns its children through [`Session`], hands what they wrote to
//! [`super::instrument`] and stores the figure; none parses a child's output itself.

use super::child::{self, Outcome, Running};
use super::instrument::{self, walltime_failure, ChildSamples, InProcess, Measured, Tool};
use super::session::Session;
use crate::measure::{cache, callgrind, dhat, walltime};
use anyhow::{bail, Context, Result};
use costbench_protocol::{self as proto, Listing, ScenarioInfo, RESIDUAL_SCENARIO};
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
            &[callgrind::DUMP_INSTR]
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
                callgrind::command(vg, tool_args, &tmp, &self.bin.exe, &args),
                true,
            )
        })?;
        for (i, (id, outcome)) in outcomes.into_iter().enumerate() {
            let tmp = self.tmp_path("icount", job, i);
            let (final_path, rel) = self.out.callgrind_paths(&id);
            let text = std::fs::read_to_string(&tmp);
            let result = instrument::icount(&outcome, self.opts.timeout, s.ops, &tmp, text, rel)
                .and_then(|i| {
                    keep(&tmp, &final_path, "callgrind", "icount", &outcome)
                        .map(|()| Measured::Icount(i))
                });
            let _ = std::fs::remove_file(&tmp);
            let census = match (&result, &self.census) {
                (Ok(_), Some(c)) if s.name != RESIDUAL_SCENARIO => Some(
                    c.measure(&final_path, std::fs::read_to_string(&final_path), s.ops)
                        .map(Measured::Census)
                        .map_err(|e| Failure {
                            instrument: "census".into(),
                            kind: "no-measurement".into(),
                            message: format!("{e:#}"),
                            stderr_tail: String::new(),
                        }),
                ),
                _ => None,
            };
            if s.name == RESIDUAL_SCENARIO {
                match result {
                    Ok(Measured::Icount(i)) => {
                        self.record.lock().expect("no worker panicked").harness_residual_ir = Some(i.ir)
                    }
                    Ok(_) => unreachable!("icount yields icount figures"),
                    Err(f) => bail!(
                        "the harness residual could not be measured ({}: {}); is valgrind working?\n{}",
                        f.kind,
                        f.message,
                        f.stderr_tail
                    ),
                }
            } else {
                self.store(&id, result)?;
                if let Some(c) = census {
                    self.store(&id, c)?;
                }
            }
        }
        if s.name != RESIDUAL_SCENARIO {
            self.progress.inc(1);
        }
        Ok(())
    }

    /// `cache` (callgrind with cache and branch simulation) or `dhat`, every party at once.
    pub(super) fn callgrind_scenario(
        &self,
        vg: &callgrind::Valgrind,
        tool: Tool,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<()> {
        self.progress
            .set_message(format!("{} {}", tool.name(), s.name));
        let outcomes = self.spawn_parties(s, "icount", &|i, _id, args| {
            let tmp = self.tmp_path(tool.name(), job, i);
            let cmd = match tool {
                Tool::Dhat => dhat::command(vg, &tmp, &self.bin.exe, &args),
                Tool::Cache => callgrind::command(vg, cache::TOOL_ARGS, &tmp, &self.bin.exe, &args),
            };
            self.measured_command(cmd, true)
        })?;
        for (i, (id, outcome)) in outcomes.into_iter().enumerate() {
            let tmp = self.tmp_path(tool.name(), job, i);
            let (final_path, rel) = self.out.instrument_paths(tool.name(), &id)?;
            let text = std::fs::read_to_string(&tmp);
            let result =
                instrument::tool(tool, &outcome, self.opts.timeout, s.ops, &tmp, text, rel)
                    .and_then(|m| {
                        keep(&tmp, &final_path, tool.name(), tool.name(), &outcome).map(|()| m)
                    });
            let _ = std::fs::remove_file(&tmp);
            self.store(&id, result)?;
        }
        self.progress.inc(1);
        Ok(())
    }

    /// `memory` or `perf`: the scenario binary measures itself, one process per party.
    pub(super) fn in_process_scenario(
        &self,
        kind: InProcess,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<()> {
        self.progress
            .set_message(format!("{} {}", kind.name(), s.name));
        let results = self.in_process_results(kind, s, job)?;
        for (id, r) in results {
            self.store(&id, r.map(|(f, _)| f))?;
        }
        self.progress.inc(1);
        Ok(())
    }

    /// Runs `s` in `memory` or `perf` mode; per measured id, the figure (with the raw perf
    /// counts, which the availability probe needs) or the failure.
    #[allow(clippy::type_complexity)]
    fn in_process_results(
        &self,
        kind: InProcess,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<
        Vec<(
            String,
            std::result::Result<(Measured, Option<proto::PerfCounts>), Failure>,
        )>,
    > {
        let inst = kind.name();
        let outcomes = self.spawn_parties(s, inst, &|i, _id, mut args| {
            args.push("--result".into());
            args.push(self.tmp_path(inst, job, i).display().to_string());
            let mut cmd = Command::new(&self.bin.exe);
            cmd.args(args);
            self.measured_command(cmd, kind == InProcess::Memory)
        })?;
        Ok(outcomes
            .into_iter()
            .enumerate()
            .map(|(i, (id, outcome))| {
                let tmp = self.tmp_path(inst, job, i);
                let r = instrument::in_process(
                    kind,
                    &outcome,
                    self.opts.timeout,
                    s.ops,
                    std::fs::read(&tmp),
                );
                let _ = std::fs::remove_file(&tmp);
                (id, r)
            })
            .collect())
    }

    /// Hardware counters: first the library's empty scenario, to learn whether the kernel
    /// gives counters at all (if not, the instrument is skipped with the kernel's reason),
    /// then every scenario, one at a time, since cycles depend on what else runs.
    pub(super) fn perf_phase(&self, listing: &Listing, selected: &[&ScenarioInfo]) -> Result<()> {
        if let Some(residual) = listing
            .scenarios
            .iter()
            .find(|s| s.name == RESIDUAL_SCENARIO)
        {
            let probe = self.in_process_results(InProcess::Perf, residual, 0)?;
            if let Some((_, Err(f))) = probe.first() {
                let reason = if f.kind == "no-measurement" {
                    f.message.clone()
                } else {
                    format!("the probe run failed ({}: {})", f.kind, f.message)
                };
                if !self.opts.quiet && !self.opts.json {
                    eprintln!("warning: perf skipped: {reason}");
                }
                let mut record = self.record.lock().expect("no worker panicked");
                record.skipped.push(model::Skipped {
                    instrument: "perf".into(),
                    reason,
                });
                record.settings.instruments.retain(|i| i != "perf");
                drop(record);
                self.progress.inc(selected.len() as u64);
                return self.save();
            }
        }
        for (k, s) in selected.iter().enumerate() {
            self.in_process_scenario(InProcess::Perf, s, k)?;
        }
        Ok(())
    }

    pub(super) fn walltime_phase(&self, selected: &[&ScenarioInfo]) -> Result<()> {
        let args = match self.opts.samples {
            Some(n) => vec![
                "--samples".to_string(),
                n.to_string(),
                "--max-ms".into(),
                "0".into(),
            ],
            None => Vec::new(),
        };
        for s in selected {
            self.progress.set_message(format!("walltime {}", s.name));
            for (id, r) in self.walltime_child(s, &self.bin.exe, &args)? {
                let figure = r.and_then(|m| {
                    walltime::figures(&m, s.ops)
                        .map(|w| Measured::Walltime(Box::new(w)))
                        .ok_or_else(|| walltime_failure("the child reported no samples", ""))
                });
                self.store(&id, figure)?;
            }
            self.progress.inc(1);
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
        args.push(s.name.clone());
        args.push("--result".into());
        args.push(result_file.path().display().to_string());
        args.extend(extra.iter().cloned());
        let mut cmd = Command::new(exe);
        cmd.args(&args);
        let mut cmd = child::scenario_command(cmd, &self.bin.cwd, false);
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
        instrument::walltime(s, outcome, self.opts.timeout, bytes)
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
        instrument::failure(
            instrument,
            outcome,
            "no-measurement",
            format!("cannot keep {what} output as {}: {e}", final_path.display()),
        )
    })
}
