//! The registry's phase: the one phase of every instrument whose children are one process per
//! party writing one file (under valgrind or in process), run in parallel or, after a probe,
//! one scenario at a time, as the registry (`crate::instrument::phase`) says; and [`keep`], how
//! a child's output is moved into the results directory. It spawns its children through
//! [`Session`], hands what they wrote to the instrument's parser and stores the figure; it
//! parses no child's output itself and names no instrument. The instruments with a phase of
//! their own run it from their folders (`crate::instrument::phase::OwnPhase`).

use super::session::Session;
use crate::ending::Outcome;
use crate::instrument::callgrind;
use crate::instrument::shape::{failure, Measured, Output, Party};
use crate::instrument::Phase;
use anyhow::Result;
use costbench_protocol::{Listing, ScenarioInfo, RESIDUAL_SCENARIO};
use costbench_record::model::{self, Failure};
use std::path::Path;

impl Session<'_> {
    /// Runs an instrument that has no phase of its own in the registry's way: `--measure-jobs`
    /// scenarios at once, or one at a time after a probe. `valgrind` is there when it runs.
    pub(crate) fn registry_phase(
        &self,
        phase: Phase,
        valgrind: Option<&callgrind::Valgrind>,
        listing: &Listing,
        selected: &[&ScenarioInfo],
    ) -> Result<()> {
        match phase {
            Phase::Own(_) | Phase::Riding(_) => Ok(()),
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
            let read = inst.read(Output::read(&outcome, self.opts.timeout, s.ops, &tmp, rel));
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
    /// one at a time, since what it measures depends on what else runs (`Phase::Probed`).
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
}

/// Moves a child's output from `tmp` to where the record points (`final_path`). An output that
/// cannot be kept is a failure of `instrument` (the message calls the output `what`'s).
pub(crate) fn keep(
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
