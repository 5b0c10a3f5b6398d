//! How the scheduler runs instruction counts (this folder's [`OwnPhase`]): each side's
//! scenarios under callgrind, `--measure-jobs` at once, the harness residual first, the census
//! riding on the same run. With several sides, one side that valgrind cannot run records the
//! failure and the others go on.

use super::Ir;
use crate::instrument::callgrind;
use crate::instrument::phase::OwnPhase;
use crate::instrument::shape::{Output, Parser, Stored};
use crate::run::cancel;
use crate::run::phases::keep;
use crate::run::session::{Session, Sides};
use anyhow::{bail, Result};
use costbench_protocol::{Listing, ScenarioInfo, RESIDUAL_SCENARIO};
use costbench_record::model::Failure;

/// Instruction counts' own phase.
pub(crate) struct Counts;

impl OwnPhase for Counts {
    fn per_side(&self, sides: &Sides<'_, '_>, k: usize) -> Result<()> {
        let Some(vg) = sides.valgrind else {
            return Ok(());
        };
        let s = &sides.sessions[k];
        if let Err(e) = s.icount_phase(vg, &sides.listings[k], &sides.selections[k]) {
            // With several builds, one that valgrind cannot run (a target-cpu=native build
            // with AVX-512 instructions dies of SIGILL under valgrind 3.19) must not cost the
            // other builds their results: its counts fail, its wall time still runs.
            if sides.sessions.len() == 1 || cancel::interrupted().is_some() {
                return Err(e);
            }
            eprintln!(
                "warning: instruction counts of {} failed; its wall time and the other builds still run: {e:#}",
                sides.labels[k]
            );
            s.fail_icount(&format!("{e:#}"))?;
        }
        Ok(())
    }

    /// Once every side has its counts: which ids changed decides what runs again, perturbed.
    fn all_sides(&self, sides: &Sides<'_, '_>) -> Result<()> {
        let Some(vg) = sides.valgrind else {
            return Ok(());
        };
        super::placement::phase(sides.sessions, sides.listings, sides.selections, vg)
    }
}

impl Session<'_> {
    /// Records `why` as the icount failure of every id that has no count yet.
    pub(crate) fn fail_icount(&self, why: &str) -> Result<()> {
        {
            let mut record = self.record.lock().expect("no worker panicked");
            let (message, tail) = why.split_once('\n').unwrap_or((why, ""));
            for r in &mut record.results {
                if r.icount.is_none() && !r.failures.iter().any(|f| f.instrument == "icount") {
                    r.failures.push(Failure {
                        instrument: "icount".into(),
                        kind: "no-measurement".into(),
                        message: message.to_string(),
                        stderr_tail: tail.to_string(),
                    });
                }
            }
        }
        self.save()
    }

    pub(crate) fn icount_phase(
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

    /// Callgrind's arguments for instruction counts: those of what rides on the run (the census
    /// reads per-instruction counts from it; the Ir total is unchanged).
    pub(crate) fn icount_tool_args(&self) -> Vec<&'static str> {
        self.riders
            .iter()
            .flat_map(|r| r.tool_args().iter().copied())
            .collect()
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
                callgrind::command(vg, &tool_args, &tmp, self.bin.exe_for(&s.name), &args),
                &s.name,
                true,
            )
        })?;
        for (i, (id, outcome)) in outcomes.into_iter().enumerate() {
            let tmp = self.tmp_path("icount", job, i);
            let (final_path, rel) = self.out.callgrind_paths(&id);
            let result = Ir
                .parse(Output::read(&outcome, self.opts.timeout, s.ops, &tmp, rel))
                .and_then(|i| keep(&tmp, &final_path, "callgrind", "icount", &outcome).map(|()| i));
            let result = self.unless_full(result)?;
            let _ = std::fs::remove_file(&tmp);
            // What rides on the run reads the file it kept, once the run itself was read.
            let ridden: Vec<_> = match &result {
                Ok(_) if s.name != RESIDUAL_SCENARIO => self
                    .riders
                    .iter()
                    .map(|r| {
                        let kept = &final_path;
                        r.read(Output::read(&outcome, self.opts.timeout, s.ops, kept, String::new()))
                    })
                    .collect(),
                _ => Vec::new(),
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
                for figure in ridden {
                    self.store(&id, figure)?;
                }
            }
        }
        if s.name != RESIDUAL_SCENARIO {
            self.progress.done(&format!("icount {}", s.name));
        }
        Ok(())
    }

}
