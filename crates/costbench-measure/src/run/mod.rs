//! Measuring: list the scenarios of built bench targets, run the instruments and write the
//! results ([`measure_sides`]). Instruments whose figures do not depend on load run several
//! scenarios at once (`--measure-jobs`); those whose figures do run one scenario at a time, with
//! nothing else of ours running; the instruments under valgrind come first (each instrument's
//! folder says how it runs, its `PHASE`).
//!
//! Building, printing, `--html`, history and exit codes are the command line's (its command core,
//! `core::session`, and the commands `run`, `check` and `variants`): this module returns records
//! and must not import `report`, `output`, `store` or `exit`.
//!
//! This file schedules ([`measure_sides`] in three steps: `setup`, `run_phases`, `finish`) and
//! builds each side's empty record. The rest, in the order a run meets it: `setup` takes the
//! steps before the first phase (listings, selections, output directories, shard, valgrind,
//! what rides on each binary's runs, one session per side); `binary` lists a build's scenarios;
//! `session` holds one side's record and the plumbing every phase shares; `phases` runs the
//! instruments that are one process per party as the registry in `crate::instrument` says; the
//! others run by their own phase, in their folders (`crate::instrument::phase::OwnPhase`), which
//! this file calls by the registry's run order and never by name; the instruments' parsers read
//! what a child wrote, as pure functions; [`layout`] relinks the builds that rounds of several
//! sides run (and instruction counts' own phase its data-placement runs), and [`adaptive`], the
//! options and looks of those rounds, is wall time's (re-exported here, where the options and
//! the command line find it); [`child`]
//! supervises processes, and [`cancel`] stops them at Ctrl-C and cleans up after a killed run.
//! A run that stops on an error (a full disk among them) writes its record marked unfinished
//! before it returns the error (`stopped`); one that has nothing to measure is refused before
//! an output directory is touched (`nothing_to_measure`).

pub mod backfill;
pub mod baseline;
pub(crate) mod binary;
pub mod bisect;
pub mod cancel;
pub mod child;
pub mod layout;
mod lock;
pub mod options;
pub(crate) mod phases;
pub(crate) mod progress;
pub(crate) mod session;
mod setup;
pub mod sharding;

pub use crate::instrument::throughput::options::LoadOptions;
pub use crate::instrument::walltime::adaptive::{self, Rounds};
pub(crate) use binary::merge_listings;
pub use binary::Binary;
pub use options::RunOptions;

use costbench_record::selection::select;

use crate::cargo::{self, BenchTarget};
use crate::environment;
use crate::instrument::callgrind;
use crate::instrument::phase::OwnPhase;
use crate::instrument::Phase;
use anyhow::Result;
use costbench_protocol::{self as proto, Listing, ScenarioInfo, PROTOCOL_VERSION};
use costbench_record::instrument::{Instrument, InstrumentSet, Need};
use costbench_record::model::{self, RunRecord, ScenarioResult};
use costbench_record::output::OutputDir;
use progress::Progress;
use session::{Session, Sides};
use std::path::PathBuf;

/// The instruments that run, in run order, with how each runs: those under valgrind or the
/// others (after them).
fn group(asked: InstrumentSet, under_valgrind: bool) -> Vec<Phase> {
    asked
        .running()
        .into_iter()
        .filter(|i| i.needs(Need::Valgrind) == under_valgrind)
        .map(crate::instrument::phase)
        .collect()
}

/// The instruments that run by a phase of their own, in run order.
fn own_phases(asked: InstrumentSet) -> impl Iterator<Item = &'static dyn OwnPhase> {
    asked
        .running()
        .into_iter()
        .filter_map(|i| match crate::instrument::phase(i) {
            Phase::Own(p) => Some(p),
            _ => None,
        })
}

/// How the instruments `opts` asks for measure several sides together, in run order, each as a
/// status line says it before the sides are measured (their phases' `OwnPhase::together`).
pub fn together(opts: &RunOptions) -> Vec<String> {
    own_phases(opts.instruments)
        .filter_map(|p| p.together(opts))
        .collect()
}

/// One build of the bench target to measure: a build variant, or one side of a paired A/B
/// comparison.
#[derive(Debug, Clone)]
pub struct SideSpec {
    /// Written to the run record's `variant`.
    pub label: String,
    /// The built scenario binary.
    pub exe: PathBuf,
    /// Where this side's results go.
    pub output_dir: PathBuf,
    /// The source this side was built from, when it is not the run's target (the baseline
    /// checkout of an A/B comparison): its package directory is the scenarios' working directory
    /// and its git state is recorded.
    pub target: Option<BenchTarget>,
    /// How costbench built it, when it built it as a build variant: kept in its run record.
    pub build: Option<model::BuildInfo>,
    /// The other bench targets measured with this side's in the same record (issue 41); empty
    /// for one target ([`Binary`] says how their ids are kept unique).
    pub others: Vec<cargo::BuiltBench>,
}

/// Measures the selected scenarios of every side, each instrument by its phase (`run_phases`):
/// those whose figures do not depend on load side after side; those whose figures do measure
/// every side at once when there are several (an own phase's `all_sides`: rounds in which every
/// side takes its turn, so that the machine's drift and bursts of load hit every side alike, as
/// each such instrument's folder describes). Each side's figures then carry the per-round figures
/// and a shared pairing id, from which `compare` judges the sides with a paired test.
///
/// Every side's output directory is written atomically after each scenario. Returns the records
/// in the order of `sides`; recording them in the history is the caller's (the commands') job.
pub fn measure_sides(
    opts: &RunOptions,
    target: &BenchTarget,
    sides: Vec<SideSpec>,
) -> Result<Vec<RunRecord>> {
    cancel::catch_signals();
    let mut bins = setup::binaries(target, &sides);
    let listings = setup::list(opts, &mut bins, &sides)?;
    let mut selections = setup::select_all(opts, target, &listings, &sides)?;
    // Only now that there is something to measure is an output directory touched, once no
    // other costbench run writes into it (or times wall time on the same CPU).
    let _locks = take_locks(opts, &sides)?;
    let outs = setup::prepare_outputs(&sides)?;
    let _tmp_dirs = TmpDirs::create(&outs)?;
    let (shard_infos, rounds) = setup::shard(opts, &sides, &mut selections);
    let (valgrind, skipped) = setup::valgrind(opts)?;
    let fixed_random = setup::fixed_random(opts, target, valgrind.as_ref());
    // What rides on another instrument's runs (each binary's guards, say) is prepared before
    // any of them runs.
    let rides = setup::rides(opts, &bins, valgrind.is_some());
    let total: usize = selections.iter().map(Vec::len).sum();
    let progress = progress_bar(opts, total, valgrind.is_some());
    let sessions = setup::sessions(
        setup::Sides {
            opts,
            target,
            sides: &sides,
            bins: &bins,
            listings: &listings,
            selections: &selections,
            outs: &outs,
        },
        valgrind.as_ref(),
        setup::Shared {
            skipped,
            shard_infos,
            fixed_random,
            rides,
            progress: progress.clone(),
        },
    );
    // The phases, until they end or a signal stops them; either way, what finished is written.
    let measured = run_phases(
        opts,
        &sessions,
        &sides,
        &listings,
        &selections,
        valgrind.as_ref(),
        &rounds,
    );
    progress.finish_and_clear();
    if let Some(signal) = cancel::interrupted() {
        return Err(interrupted(signal, &sessions, &outs));
    }
    if let Err(e) = measured {
        return Err(stopped(e, &sessions, &outs));
    }
    costbench_record::fault::point("after-measuring");
    finish(opts, target, &sessions, &outs, &listings, &sides)
}

/// The phases of a run, in order, each group in run order (the registry's `run_rank`): for
/// each side, the instruments under valgrind (an own phase's `per_side`, or the registry's
/// phase); every own phase of that group's `all_sides` (instruction counts' placement runs,
/// which need every side's counts); then the same for the instruments that run natively (wall
/// time and throughput measure every side at once, last).
fn run_phases(
    opts: &RunOptions,
    sessions: &[Session],
    sides: &[SideSpec],
    listings: &[Listing],
    selections: &[Vec<&ScenarioInfo>],
    valgrind: Option<&callgrind::Valgrind>,
    rounds: &Rounds,
) -> Result<()> {
    for s in sessions {
        s.save()?;
    }
    costbench_record::fault::point("before-first-scenario");
    let all = Sides {
        sessions,
        labels: sides.iter().map(|s| s.label.as_str()).collect(),
        listings,
        selections,
        valgrind,
        rounds,
    };
    if valgrind.is_some() {
        run_group(&all, group(opts.instruments, true))?;
    }
    run_group(&all, group(opts.instruments, false))
}

/// One group of phases: each side's, then those of every side at once.
fn run_group(all: &Sides, phases: Vec<Phase>) -> Result<()> {
    for (k, s) in all.sessions.iter().enumerate() {
        for p in &phases {
            match p {
                Phase::Own(own) => own.per_side(all, k)?,
                Phase::Riding(_) => {}
                Phase::Parallel(_) | Phase::Probed(_) => {
                    s.registry_phase(*p, all.valgrind, &all.listings[k], &all.selections[k])?
                }
            }
        }
    }
    for p in &phases {
        if let Phase::Own(own) = p {
            own.all_sides(all)?;
        }
    }
    Ok(())
}

/// Each side's record, finished: contracts checked, each instrument's own finishing (its
/// folder's `finish`), the end time set, and written.
fn finish(
    opts: &RunOptions,
    target: &BenchTarget,
    sessions: &[Session],
    outs: &[OutputDir],
    listings: &[Listing],
    sides: &[SideSpec],
) -> Result<Vec<RunRecord>> {
    let mut records = Vec::new();
    for (((s, out), listing), side) in sessions.iter().zip(outs).zip(listings).zip(sides) {
        let mut record = s.record.lock().expect("no worker panicked");
        let root = &side.target.as_ref().unwrap_or(target).workspace_root;
        check_contracts(&mut record, listing, &opts.budgets)?;
        // What each instrument does to a finished side's record (its folder's `finish`).
        for i in opts.instruments.running() {
            if let Phase::Parallel(p) | Phase::Probed(p) = crate::instrument::phase(i) {
                p.finish(&mut record, root, opts);
            }
        }
        record.finished_at = Some(environment::now_rfc3339());
        if let Err(e) = out.write_all(&record) {
            record.finished_at = None;
            drop(record);
            return Err(stopped(e, sessions, outs));
        }
        records.push(record.clone());
    }
    Ok(records)
}

/// The suite's budgets (from its listing), then costbench.toml's, checked against `record`;
/// the fits of its families of sized ids, and the declared classes checked against them.
fn check_contracts(
    record: &mut RunRecord,
    listing: &Listing,
    config: &[costbench_record::model::budget::Budget],
) -> Result<()> {
    use costbench_judge::budget::Source;
    use costbench_judge::complexity;
    for b in &listing.budgets {
        b.validate()
            .and_then(|()| complexity::validate(b))
            .map_err(|e| anyhow::anyhow!("the suite declares a budget the runner refuses: {e}"))?;
    }
    let budgets: Vec<_> = listing
        .budgets
        .iter()
        .map(|b| (b.clone(), Source::Library))
        .chain(config.iter().map(|b| (b.clone(), Source::Config)))
        .collect();
    record.budgets = costbench_judge::budget::evaluate(record, &budgets);
    record.complexity = complexity::fits(record);
    record.complexity_checks = complexity::check_declared(record, &record.complexity, &budgets);
    Ok(())
}

/// Another costbench run on this machine must not write into the same output folder, nor time
/// wall time on the same CPU at once: the locks of every output folder and of the wall-time
/// CPU, held until the run ends (the second run says what it waits for, and waits).
fn take_locks(opts: &RunOptions, sides: &[SideSpec]) -> Result<Vec<lock::Held>> {
    let mut held = Vec::new();
    for s in sides {
        held.push(lock::take(
            &lock::output_lock_path(&s.output_dir),
            &format!("the output folder {}", s.output_dir.display()),
            "another costbench run is writing its results there",
        )?);
    }
    let timed = own_phases(opts.instruments).any(|p| p.holds_cpu());
    if let (Some(cpu), true, false) = (opts.walltime_cpu, timed, opts.list_only) {
        held.push(lock::take(
            &lock::cpu_lock_path(cpu),
            &format!("CPU {cpu}"),
            "another costbench run is measuring wall time on it; --walltime-cpu picks another",
        )?);
    }
    Ok(held)
}

/// Refuses a run that an instrument asked for has nothing to measure in (its own phase's
/// `refuse`: a [`BadInput`](costbench_record::error::BadInput), a usage error), found from the
/// listing before any output directory is touched.
fn nothing_to_measure(
    opts: &RunOptions,
    target: &BenchTarget,
    selections: &[Vec<&ScenarioInfo>],
) -> Result<()> {
    own_phases(opts.instruments).try_for_each(|p| p.refuse(target, selections))
}

/// Ends a run that stopped on `error` before it finished: every side's record is marked
/// unfinished (out of space when a file could not be written for lack of room, else failed) and
/// written, after the space this run reserved is given back so that it can be, and the error
/// says what the output directories hold and what they lack.
fn stopped(error: anyhow::Error, sessions: &[Session], outs: &[OutputDir]) -> anyhow::Error {
    // By kind: tempfile wraps the OS error with its path, which hides the raw errno.
    let full = error.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|e| {
            use std::io::ErrorKind::{FileTooLarge, QuotaExceeded, StorageFull};
            matches!(e.kind(), StorageFull | FileTooLarge | QuotaExceeded)
        })
    });
    let why = if full {
        model::StopReason::OutOfSpace
    } else {
        model::StopReason::Failed
    };
    let mut said = Vec::new();
    for (s, out) in sessions.iter().zip(outs) {
        out.release_reserve();
        let mut record = s.record.lock().unwrap_or_else(|e| e.into_inner());
        record.completion = Some(model::Completion::stopped(
            why,
            format!("{}", error.root_cause()),
        ));
        let missing: Vec<String> = record.not_reached().into_iter().map(String::from).collect();
        let rows = record.results.len();
        // Which rows, the first ten by name: what to measure again.
        let named = match missing.len() {
            0 => String::new(),
            n if n <= 10 => format!(" ({})", missing.join(", ")),
            n => format!(" ({}, and {} more)", missing[..10].join(", "), n - 10),
        };
        said.push(match out.write_all(&record) {
            Ok(()) => format!(
                "{} holds the figures of {} of {rows} rows, marked unfinished ({}); {} rows \
                 were not written{named}",
                out.root().display(),
                rows - missing.len(),
                why.name(),
                missing.len()
            ),
            Err(e) => match costbench_record::output::load_run(out.root()) {
                Ok(last) if last.run_id == record.run_id => format!(
                    "{} holds what was last written, marked unfinished (killed), since the end \
                     of the run could not be written either ({e:#})",
                    out.root().display()
                ),
                Ok(earlier) => format!(
                    "{} still holds the files of an earlier run ({}), unchanged: this run \
                     could not write its record ({e:#})",
                    out.root().display(),
                    earlier.run_id
                ),
                Err(_) => format!(
                    "{} holds no record of this run: it could not be written ({e:#})",
                    out.root().display()
                ),
            },
        });
    }
    error.context(format!("the run did not finish: {}", said.join("; ")))
}

/// The run's temporary directories, one per output directory: registered with the janitor
/// while the run lasts, and removed when it ends, however it ends.
struct TmpDirs<'a>(&'a [OutputDir]);

impl<'a> TmpDirs<'a> {
    fn create(outs: &'a [OutputDir]) -> Result<TmpDirs<'a>> {
        let dirs = TmpDirs(outs);
        for o in outs {
            cancel::register_dir(o.tmp_dir()?);
            // Room for the run's last record should the disk fill up meanwhile.
            o.reserve();
        }
        Ok(dirs)
    }
}

impl Drop for TmpDirs<'_> {
    fn drop(&mut self) {
        for o in self.0 {
            o.remove_tmp_dir();
            cancel::unregister_dir(o.tmp_dir_path());
        }
    }
}

/// Marks every side's record as interrupted by `signal`, writes it (the figures that finished
/// stay), and returns the error that ends the command with 128 + `signal`.
fn interrupted(signal: i32, sessions: &[Session], outs: &[OutputDir]) -> anyhow::Error {
    let (mut kept, mut scenarios) = (0, 0);
    for (s, out) in sessions.iter().zip(outs) {
        out.release_reserve();
        let mut record = s.record.lock().unwrap_or_else(|e| e.into_inner());
        let (finished, all) = record.finished_scenarios();
        record.interrupted = Some(model::Interruption {
            signal: cancel::signal_name(signal).into(),
            finished_scenarios: finished,
            scenarios: all,
        });
        record.finished_at = Some(environment::now_rfc3339());
        if let Err(e) = out.write_all(&record) {
            eprintln!("warning: cannot write what the interrupted run finished: {e:#}");
        }
        kept += finished;
        scenarios += all;
    }
    cancel::Interrupted {
        signal,
        kept,
        scenarios,
        results: outs.iter().map(|o| o.root().to_path_buf()).collect(),
    }
    .into()
}

/// A run's record before anything is measured: what was asked for, of which binary, on which
/// machine, one empty row per selected scenario (and party and load).
pub(crate) fn new_record(
    opts: &RunOptions,
    target: &BenchTarget,
    listing: &Listing,
    selected: &[&ScenarioInfo],
    valgrind: Option<&callgrind::Valgrind>,
    ridden: &[Instrument],
    skipped: Vec<model::Skipped>,
) -> RunRecord {
    let instruments = opts
        .instruments
        .running()
        .into_iter()
        .filter(|i| valgrind.is_some() || !i.needs(Need::Valgrind))
        // One riding on another's run is recorded only when its ride was set up.
        .filter(|i| ridden.contains(i) || !matches!(crate::instrument::phase(*i), Phase::Riding(_)))
        .map(|i| i.name().to_string())
        .collect();
    let mut record = RunRecord::new(
        environment::new_run_id(),
        environment::now_rfc3339(),
        model::Tool {
            name: "costbench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            protocol: PROTOCOL_VERSION,
        },
        model::SuiteInfo {
            package: target.package.clone(),
            bench: target.names(),
            library_version: listing.library_version.clone(),
        },
        environment::collect(&target.workspace_root, valgrind.map(|v| v.version.clone())),
        model::Settings {
            instruments,
            filter: opts.filter.as_ref().map(|f| f.as_str().to_string()),
            jobs: opts.jobs,
            timeout_secs: opts.timeout.as_secs(),
            samples: opts.samples,
            walltime_cpu: opts
                .walltime_cpu
                .filter(|_| own_phases(opts.instruments).any(|p| p.records_cpu())),
            code_align: Some(opts.code_align.name().to_string()),
            features: opts.cargo.features.clone(),
            all_features: opts.cargo.all_features,
            no_default_features: opts.cargo.no_default_features,
            profile: opts.cargo.profile.clone(),
        },
        selected
            .iter()
            .flat_map(|s| {
                let load_rows: Vec<ScenarioResult> = own_phases(opts.instruments)
                    .flat_map(|p| p.extra_rows(opts, s))
                    .collect();
                let parties: Vec<Option<String>> = if s.parties.is_empty() {
                    vec![None]
                } else {
                    s.parties.iter().cloned().map(Some).collect()
                };
                parties
                    .into_iter()
                    .map(move |p| {
                        let id = match &p {
                            Some(p) => proto::party_id(&s.name, p),
                            None => s.name.clone(),
                        };
                        ScenarioResult::empty(id, &s.name, p, s.ops, &s.unit)
                    })
                    .chain(load_rows)
            })
            .collect(),
    );
    record.skipped = skipped;
    record
}

fn progress_bar(opts: &RunOptions, measured: usize, valgrind: bool) -> Progress {
    let per_instrument = measured as u64;
    let phases = opts
        .instruments
        .running()
        .into_iter()
        .filter(|i| valgrind || !i.needs(Need::Valgrind))
        // An instrument riding on another's run has no rows of its own; a phase whose rows
        // are known only when it starts (servers times client counts) adds them then.
        .filter(|i| crate::instrument::phase(*i).counted())
        .count() as u64;
    let total = per_instrument * phases;
    Progress::new(total, opts.progress, opts.timeout)
}
