//! The steps of a run before its first phase, in the order [`super::measure_sides`] takes
//! them: each side's binary, its listing and selection (refusing a run with nothing to
//! measure), the output directories, this shard's share, valgrind and the fixed getrandom it
//! preloads, what rides on each binary's runs (its guards, say), and one [`Session`] per side holding its empty record. It
//! measures nothing and never writes a record.

use super::binary::colliding;
use super::{
    callgrind, cancel, model, new_record, nothing_to_measure, select, sharding, Binary, Listing,
    OutputDir, Progress, Rounds, RunOptions, ScenarioInfo, Session, SideSpec,
};
use crate::cargo::BenchTarget;
use crate::instrument::shape::Rider;
use crate::instrument::Phase;
use anyhow::{bail, Result};
use costbench_record::instrument::Instrument;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

/// Each side's binary, run in its own package directory.
pub(super) fn binaries(target: &BenchTarget, sides: &[SideSpec]) -> Vec<Binary> {
    sides
        .iter()
        .map(|s| {
            let t = s.target.as_ref().unwrap_or(target);
            Binary::new(s.exe.clone(), t.package_dir.clone())
                .with_others(&t.bench, s.others.clone())
        })
        .collect()
}

/// Which build an error is about, in words a user knows: with one build there is no need to
/// say; with several, the directory it is measured into (a variant's, or check's `baseline/`
/// and `candidate/`).
fn which(several: bool, s: &SideSpec) -> impl FnOnce(anyhow::Error) -> anyhow::Error + '_ {
    move |e| {
        if several {
            e.context(format!(
                "the build measured into {}",
                s.output_dir.display()
            ))
        } else {
            e
        }
    }
}

/// Each side's listing of its scenarios. With several sides of which one measures several
/// bench targets (issue 41: `check --baseline-rev`, `variants`), an id that two targets offer
/// on any side is named `TARGET/ID` on every side, so that the sides name each scenario alike
/// and pair up by id.
pub(super) fn list(
    opts: &RunOptions,
    bins: &mut [Binary],
    sides: &[SideSpec],
) -> Result<Vec<Listing>> {
    let several = sides.len() > 1;
    if !several || !bins.iter().any(Binary::several) {
        return bins
            .iter_mut()
            .zip(sides)
            .map(|(b, s)| b.list(opts.timeout).map_err(which(several, s)))
            .collect();
    }
    let parts = bins
        .iter()
        .zip(sides)
        .map(|(b, s)| b.list_parts(opts.timeout).map_err(which(several, s)))
        .collect::<Result<Vec<_>>>()?;
    let prefixed: BTreeSet<String> = parts.iter().flat_map(|p| colliding(p)).collect();
    bins.iter_mut()
        .zip(parts)
        .zip(sides)
        .map(|((b, p), s)| b.merge(p, &prefixed).map_err(which(several, s)))
        .collect()
}

/// The scenarios `--filter` selects from each side's listing; an error when nothing at all is
/// selected, before any output directory is touched.
pub(super) fn select_all<'l>(
    opts: &RunOptions,
    target: &BenchTarget,
    listings: &'l [Listing],
    sides: &[SideSpec],
) -> Result<Vec<Vec<&'l ScenarioInfo>>> {
    let selections = listings
        .iter()
        .zip(sides)
        .map(|(l, s)| select(l, opts.filter.as_ref()).map_err(which(sides.len() > 1, s)))
        .collect::<Result<Vec<_>>>()?;
    nothing_to_measure(opts, target, &selections)?;
    Ok(selections)
}

/// Each side's output directory, prepared, and the janitor that cleans up after a killed run.
pub(super) fn prepare_outputs(sides: &[SideSpec]) -> Result<Vec<OutputDir>> {
    let outs = sides
        .iter()
        .map(|s| OutputDir::prepare(&s.output_dir))
        .collect::<Result<Vec<_>>>()?;
    if let Err(why) = cancel::start_janitor() {
        eprintln!(
            "warning: {why}; if this run is killed, its temporary files stay until the next run into the same directory"
        );
    }
    Ok(outs)
}

/// `--shard`: this job's share of each side's selection (each side's shard, to record), and the
/// wall-time rounds' budget cut to that share.
pub(super) fn shard(
    opts: &RunOptions,
    sides: &[SideSpec],
    selections: &mut [Vec<&ScenarioInfo>],
) -> (Option<Vec<model::ShardInfo>>, Rounds) {
    let labels: Vec<String> = sides.iter().map(|s| s.label.clone()).collect();
    let selected: usize = selections.iter().map(Vec::len).sum();
    let shard_infos = opts
        .shard
        .as_ref()
        .map(|plan| sharding::apply(plan, &labels, selections));
    let mut rounds = opts.rounds;
    if let Some(plan) = &opts.shard {
        let mine = selections.iter().map(Vec::len).sum();
        rounds.budget = rounds.budget.mul_f64(plan.work_share(mine, selected));
    }
    (shard_infos, rounds)
}

/// Valgrind, when an instrument asked for needs it, and the instruments skipped because it is
/// missing (an error when nothing else was asked for).
pub(super) fn valgrind(
    opts: &RunOptions,
) -> Result<(Option<callgrind::Valgrind>, Vec<model::Skipped>)> {
    let mut skipped = Vec::new();
    let needs_valgrind = opts.instruments.valgrind();
    if needs_valgrind.is_empty() {
        return Ok((None, skipped));
    }
    match callgrind::detect() {
        Ok(v) => Ok((Some(v), skipped)),
        // Nothing else was asked for: the run cannot do anything useful.
        Err(reason) if needs_valgrind.len() == opts.instruments.names().len() => {
            bail!("{reason}")
        }
        Err(reason) => {
            eprintln!(
                "warning: {} skipped: {reason}; the other instruments still run",
                needs_valgrind.join(", ")
            );
            for inst in needs_valgrind {
                skipped.push(model::Skipped {
                    instrument: inst.into(),
                    reason: reason.clone(),
                });
            }
            Ok((None, skipped))
        }
    }
}

/// The library preloaded under valgrind so that getrandom gives every run the same bytes
/// (unless `--real-random`).
pub(super) fn fixed_random(
    opts: &RunOptions,
    target: &BenchTarget,
    valgrind: Option<&callgrind::Valgrind>,
) -> Option<PathBuf> {
    if valgrind.is_none() || opts.real_random {
        return None;
    }
    let cache = target.costbench_dir().join("cache");
    match callgrind::fixed_random_library(&cache) {
        Ok(lib) => Some(lib),
        Err(why) => {
            eprintln!(
                "warning: {why}; instruction counts of code seeded from getrandom (std's HashMap) may drift between runs"
            );
            None
        }
    }
}

/// What rides on each binary's runs of another instrument (what the riding instrument needs
/// of the binary, found beforehand), or why it is skipped for that binary: each riding
/// instrument asked for prepares itself ([`Ride`](crate::instrument::phase::Ride)), under
/// valgrind only (the runs it rides on need it).
pub(super) fn rides(opts: &RunOptions, bins: &[Binary], valgrind: bool) -> Vec<Rides> {
    let riding: Vec<_> = opts
        .instruments
        .running()
        .into_iter()
        .filter(|_| valgrind)
        .filter_map(|i| match crate::instrument::phase(i) {
            Phase::Riding(ride) => Some((i, ride)),
            _ => None,
        })
        .collect();
    bins.iter()
        .map(|b| {
            let mut rides = Rides::default();
            for (i, ride) in &riding {
                match ride.prepare(b) {
                    Ok(rider) => rides.riders.push((*i, rider)),
                    Err(reason) => {
                        eprintln!(
                            "warning: {} skipped: {reason}; {}",
                            i.name(),
                            ride.still_runs()
                        );
                        rides.skipped.push(model::Skipped {
                            instrument: i.name().into(),
                            reason,
                        });
                    }
                }
            }
            rides
        })
        .collect()
}

/// What a run measures, per side (index `k` of each list is side `k`'s).
pub(super) struct Sides<'a, 'l> {
    pub opts: &'a RunOptions,
    pub target: &'a BenchTarget,
    pub sides: &'a [SideSpec],
    pub bins: &'a [Binary],
    pub listings: &'a [Listing],
    pub selections: &'a [Vec<&'l ScenarioInfo>],
    pub outs: &'a [OutputDir],
}

/// What every side's session shares.
pub(super) struct Shared {
    pub skipped: Vec<model::Skipped>,
    pub shard_infos: Option<Vec<model::ShardInfo>>,
    pub fixed_random: Option<PathBuf>,
    pub rides: Vec<Rides>,
    pub progress: Progress,
}

/// What rides on a side's runs, and what could not.
#[derive(Default)]
pub(super) struct Rides {
    /// The riders prepared for its binary, with their instruments.
    riders: Vec<(Instrument, Box<dyn Rider>)>,
    /// The riding instruments skipped for it, and why.
    skipped: Vec<model::Skipped>,
}

/// One session per side: its empty record (what was asked for, its variant, shard, build and
/// binary size) and what its phases share.
pub(super) fn sessions<'a>(
    s: Sides<'a, '_>,
    valgrind: Option<&callgrind::Valgrind>,
    shared: Shared,
) -> Vec<Session<'a>> {
    s.sides
        .iter()
        .zip(shared.rides)
        .enumerate()
        .map(|(k, (side, rides))| {
            let mut skipped = shared.skipped.clone();
            skipped.extend(rides.skipped);
            let ridden: Vec<Instrument> = rides.riders.iter().map(|(i, _)| *i).collect();
            let mut record = new_record(
                s.opts,
                side.target.as_ref().unwrap_or(s.target),
                &s.listings[k],
                &s.selections[k],
                valgrind,
                &ridden,
                skipped,
            );
            record.variant = side.label.clone();
            if s.bins[k].several() {
                record.suite.bench = s.bins[k].measured().join(",");
            }
            record.shard = shared.shard_infos.as_ref().map(|i| i[k].clone());
            record.build = side.build.clone();
            record.binary = match crate::size::measure(&side.exe) {
                // One binary's size; several targets' binaries are not one program.
                Ok(_) if !side.others.is_empty() => None,
                Ok(size) => Some(size),
                Err(e) => {
                    eprintln!("warning: the size of the bench binary is not recorded: {e:#}");
                    None
                }
            };
            Session {
                opts: s.opts,
                bin: &s.bins[k],
                out: &s.outs[k],
                record: Mutex::new(record),
                fixed_random: shared.fixed_random.clone(),
                riders: rides.riders.into_iter().map(|(_, r)| r).collect(),
                progress: shared.progress.clone(),
            }
        })
        .collect()
}
