//! Perturbed instruction counts: after every side of a comparison has its counts, each scenario
//! whose count differs between the baseline (the first side) and another side by more than the
//! icount threshold runs again under callgrind on every side, `--placement-runs K` times, with
//! the child's `--perturb 1..=K` (a shifted heap and stack). The counts go to
//! [`Icount::placement`](costbench_record::model::Icount::placement); `compare` then tells a change that
//! data placement alone explains from one beyond that spread.
//!
//! The perturbed runs use the icount phase's callgrind invocation and process environment (ASLR
//! off, environment cleared, getrandom pinned); their callgrind outputs are read for the total
//! and deleted: only the unperturbed run's output is kept for function attribution.

use crate::run::session::Session;
use crate::instrument::callgrind;
use anyhow::Result;
use costbench_protocol::RESIDUAL_SCENARIO;
use costbench_protocol::{self as proto, Listing, ScenarioInfo};
use costbench_record::instrument::Instrument;
use costbench_record::model::IcountPlacement;

/// Default of `--placement-runs`: four shifted placements per side and flagged scenario.
pub const DEFAULT_PLACEMENT_RUNS: u32 = 4;

/// The scenarios (by name, in the baseline's order) with an id whose instructions per op differ
/// between `sides[0]` and another side by more than `threshold_pct`.
fn changed_scenarios(sessions: &[Session], threshold_pct: f64) -> Vec<String> {
    let records: Vec<_> = sessions
        .iter()
        .map(|s| s.record.lock().expect("no worker panicked").clone())
        .collect();
    let (base, others) = records.split_first().expect("at least one side");
    let mut names: Vec<String> = Vec::new();
    for b in &base.results {
        let Some(bi) = &b.icount else { continue };
        let moved = others.iter().any(|o| {
            o.results
                .iter()
                .find(|r| r.id == b.id)
                .and_then(|r| r.icount.as_ref())
                .is_some_and(|ci| {
                    let change = if bi.ir_per_op == 0.0 {
                        if ci.ir_per_op == 0.0 {
                            0.0
                        } else {
                            f64::INFINITY
                        }
                    } else {
                        100.0 * (ci.ir_per_op - bi.ir_per_op) / bi.ir_per_op
                    };
                    change.abs() > threshold_pct
                })
        });
        if moved && !names.contains(&b.scenario) {
            names.push(b.scenario.clone());
        }
    }
    names
}

/// Runs the perturbed counts of every changed scenario on every side (see the module docs).
/// Does nothing with fewer than two sides or `--placement-runs 0`; with a side whose library
/// predates `--perturb`, says so and runs none.
pub(super) fn phase(
    sessions: &[Session],
    listings: &[Listing],
    selections: &[Vec<&ScenarioInfo>],
    vg: &callgrind::Valgrind,
) -> Result<()> {
    let Some(first) = sessions.first() else {
        return Ok(());
    };
    let opts = first.opts;
    if sessions.len() < 2 || opts.placement_runs == 0 || !opts.instruments.runs(Instrument::Icount)
    {
        return Ok(());
    }
    let changed = changed_scenarios(sessions, opts.icount_threshold_pct);
    if changed.is_empty() {
        return Ok(());
    }
    let old: Vec<String> = sessions
        .iter()
        .zip(listings)
        .enumerate()
        .filter(|(_, (_, l))| {
            !l.capabilities
                .iter()
                .any(|c| c == proto::CAPABILITY_PERTURB)
        })
        .map(|(k, (s, _))| match k {
            0 => "the baseline".to_string(),
            _ => format!(
                "the build of variant {}",
                s.record.lock().expect("no worker panicked").variant
            ),
        })
        .collect();
    if !old.is_empty() {
        // Said even under --quiet (check runs quietly): a reader must know this evidence is absent.
        eprintln!(
            "note: no data-placement runs for the {} changed instruction count(s): {} was built with a costbench library older than --perturb",
            changed.len(),
            old[0]
        );
        return Ok(());
    }
    for (k, s) in sessions.iter().enumerate() {
        let flagged: Vec<&ScenarioInfo> = selections[k]
            .iter()
            .copied()
            .filter(|sc| sc.name != RESIDUAL_SCENARIO && changed.contains(&sc.name))
            .collect();
        s.parallel_phase(&flagged, |sc, job| s.perturbed_scenario(vg, sc, job))?;
    }
    Ok(())
}

impl Session<'_> {
    /// `--placement-runs` perturbed callgrind runs of `s`, one after another; stores the counts
    /// of every id whose runs all succeeded.
    fn perturbed_scenario(
        &self,
        vg: &callgrind::Valgrind,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<()> {
        let ids = s.measured_ids();
        let mut got: Vec<Option<IcountPlacement>> = ids
            .iter()
            .map(|_| {
                Some(IcountPlacement {
                    ir_per_op: Vec::new(),
                    perturbations: Vec::new(),
                })
            })
            .collect();
        for p in 1..=self.opts.placement_runs {
            self.progress
                .set_message(format!("icount {} (placement {p})", s.name));
            let outcomes = self.spawn_parties(s, "icount", &|i, _id, mut args| {
                args.extend(["--perturb".to_string(), p.to_string()]);
                let tmp = self.tmp_path("placement", job, i);
                let exe = self.bin.exe_for(&s.name);
                self.measured_command(
                    callgrind::command(vg, &self.icount_tool_args(), &tmp, exe, &args),
                    &s.name,
                    true,
                )
            })?;
            for (i, (_, outcome)) in outcomes.into_iter().enumerate() {
                let tmp = self.tmp_path("placement", job, i);
                let ir = if outcome.success() {
                    callgrind::read_ir(&tmp).map_err(|e| format!("{e:#}"))
                } else {
                    Err(outcome.describe(self.opts.timeout).1)
                };
                let _ = std::fs::remove_file(&tmp);
                match (ir, &mut got[i]) {
                    (Ok(ir), Some(pl)) => {
                        pl.ir_per_op.push(ir as f64 / s.ops.max(1) as f64);
                        pl.perturbations.push(p);
                    }
                    (Err(why), slot @ Some(_)) => {
                        eprintln!(
                            "warning: data-placement run {p} of {} failed ({why}); its count is judged without them",
                            ids[i]
                        );
                        *slot = None;
                    }
                    (_, None) => {}
                }
            }
        }
        {
            let mut record = self.record.lock().expect("no worker panicked");
            for (id, pl) in ids.iter().zip(got) {
                let icount = record
                    .results
                    .iter_mut()
                    .find(|r| r.id == *id)
                    .and_then(|r| r.icount.as_mut());
                if let (Some(icount), Some(pl)) = (icount, pl) {
                    icount.placement = Some(pl);
                }
            }
        }
        self.save()
    }
}
