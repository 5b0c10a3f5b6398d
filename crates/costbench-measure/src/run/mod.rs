//! Measuring: list the scenarios of built bench targets, run the instruments and write the
//! results ([`measure_sides`]). Instruction counts, simulated counters, heap profiles and allocation counts run in
//! parallel (they do not depend on load); hardware counters and wall time run one scenario at a
//! time afterwards, with nothing else of ours running.
//!
//! Building, printing, `--html`, history and exit codes are the command line's (its command core,
//! `core::session`, and the commands `run`, `check` and `variants`): this module returns records
//! and must not import `report`, `output`, `store` or `exit`.
//!
//! This file schedules ([`measure_sides`] in three steps: `setup`, `run_phases`, `finish`) and
//! builds each side's empty record. The rest, in the order a run meets it: `setup` takes the
//! steps before the first phase (listings, selections, output directories, shard, valgrind,
//! census, one session per side); `binary` lists a build's scenarios;
//! `session` holds one side's record and the plumbing every phase shares; `phases` runs the
//! instruments (instruction counts and census, and wall time, by phases of their own; the others
//! as the registry in `crate::instrument` says); the instruments' parsers read what a child
//! wrote, as pure functions; `interleaved`, [`adaptive`],
//! [`layout`] and [`placement`] measure several sides against each other; [`child`]
//! supervises processes, and [`cancel`] stops them at Ctrl-C and cleans up after a killed run.
//! A run that stops on an error (a full disk among them) writes its record marked unfinished
//! before it returns the error (`stopped`); one that has nothing to measure is refused before
//! an output directory is touched (`nothing_to_measure`).

pub mod adaptive;
pub mod backfill;
pub mod baseline;
mod binary;
pub mod bisect;
pub mod cancel;
pub mod child;
mod interleaved;
pub mod layout;
mod lock;
pub mod options;
mod phases;
pub mod placement;
mod progress;
mod session;
mod setup;
pub mod sharding;
mod throughput;

pub use adaptive::Rounds;
pub(crate) use binary::merge_listings;
pub use binary::Binary;
pub use options::{LoadOptions, RunOptions};

use costbench_record::selection::select;

use crate::cargo::{self, BenchTarget};
use crate::environment;
use crate::instrument::callgrind;
use crate::instrument::census::CensusJoin;
use crate::instrument::Phase;
use anyhow::Result;
use costbench_protocol::{self as proto, Listing, ScenarioInfo, PROTOCOL_VERSION};
use costbench_record::instrument::{Instrument, InstrumentSet, Need};
use costbench_record::model::{self, RunRecord, ScenarioResult};
use costbench_record::output::OutputDir;
use progress::Progress;
use session::Session;
use std::path::PathBuf;

/// The instruments asked for that run by the registry's phases rather than one of their own,
/// in run order: those under valgrind (before placement runs, which need every side's counts)
/// or the others (after them).
fn registry_phases(asked: InstrumentSet, under_valgrind: bool) -> Vec<Instrument> {
    asked
        .running()
        .into_iter()
        .filter(|i| i.needs(Need::Valgrind) == under_valgrind)
        .filter(|i| crate::instrument::phase(*i).in_registry_phases())
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

/// Measures the selected scenarios of every side: instruction counts side after side (counts do
/// not depend on load), then wall time. With one side wall time runs as in a plain run (one
/// process per scenario, all samples in it). With several, wall time runs in interleaved rounds:
/// for every scenario, each round runs a short child of every side at once, the children taking
/// turns sample by sample through a token ring (who goes first alternates, ABBA), so that the
/// machine's drift and bursts of load hit every side alike. Multi-party scenarios, and libraries
/// too old for the ring, take turns round by round instead. Each side's figures
/// then carry the per-round figures and a shared pairing id, from which `compare` judges the
/// sides with a paired test.
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
    // The census needs each binary's guards before any callgrind output can be joined with them.
    let censuses = setup::censuses(opts, &bins, valgrind.is_some());
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
            censuses,
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

/// The phases of a run, in order: each side's instruments under valgrind (instruction counts
/// first, then the registry's), the placement runs that need every side's counts, the
/// registry's instruments that run natively, throughput, and last wall time (one side alone, or
/// several interleaved).
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
    if let Some(vg) = valgrind {
        for (k, s) in sessions.iter().enumerate() {
            if opts.instruments.runs(Instrument::Icount) {
                if let Err(e) = s.icount_phase(vg, &listings[k], &selections[k]) {
                    // With several builds, one that valgrind cannot run (a target-cpu=native build
                    // with AVX-512 instructions dies of SIGILL under valgrind 3.19) must not cost the
                    // other builds their results: its counts fail, its wall time still runs.
                    if sessions.len() == 1 || cancel::interrupted().is_some() {
                        return Err(e);
                    }
                    eprintln!(
                        "warning: instruction counts of {} failed; its wall time and the other builds still run: {e:#}",
                        sides[k].label
                    );
                    s.fail_icount(&format!("{e:#}"))?;
                }
            }
            for i in registry_phases(opts.instruments, true) {
                s.registry_phase(
                    crate::instrument::phase(i),
                    Some(vg),
                    &listings[k],
                    &selections[k],
                )?;
            }
        }
        // Needs every side's counts: which ids changed decides what runs again, perturbed.
        placement::phase(sessions, listings, selections, vg)?;
    }
    for (k, s) in sessions.iter().enumerate() {
        for i in registry_phases(opts.instruments, false) {
            s.registry_phase(
                crate::instrument::phase(i),
                None,
                &listings[k],
                &selections[k],
            )?;
        }
    }
    if opts.instruments.asked(Instrument::Throughput) {
        throughput::throughput_phase(sessions, selections)?;
    }
    if opts.instruments.asked(Instrument::Walltime) {
        if let [one] = sessions {
            one.walltime_phase(&selections[0])?;
        } else {
            // A token ring needs every side's library to know `--lockstep` (a baseline revision
            // may predate it); without it, sides take turns round by round.
            let lockstep = listings.iter().all(|l| {
                l.capabilities
                    .iter()
                    .any(|c| c == proto::CAPABILITY_LOCKSTEP)
            });
            interleaved::walltime_interleaved(sessions, selections, rounds, lockstep)?;
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
    let timed = opts.instruments.asked(Instrument::Walltime)
        || opts.instruments.asked(Instrument::Throughput);
    if let (Some(cpu), true, false) = (opts.walltime_cpu, timed, opts.list_only) {
        held.push(lock::take(
            &lock::cpu_lock_path(cpu),
            &format!("CPU {cpu}"),
            "another costbench run is measuring wall time on it; --walltime-cpu picks another",
        )?);
    }
    Ok(held)
}

/// Refuses `--instrument throughput` when no selected scenario of any side (before sharding:
/// a shard may rightly get none) is a service scenario, instead of writing rows without figures:
/// a [`BadInput`](costbench_record::error::BadInput) (a usage error), found from the listing
/// before any output directory is touched.
fn nothing_to_measure(
    opts: &RunOptions,
    target: &BenchTarget,
    selections: &[Vec<&ScenarioInfo>],
) -> Result<()> {
    if !opts.instruments.asked(Instrument::Throughput)
        || selections.iter().flatten().any(|s| s.service.is_some())
    {
        return Ok(());
    }
    let selected = selections.first().map_or(0, Vec::len);
    Err(costbench_record::error::bad_input(format_args!(
        "nothing to measure: --instrument throughput puts service scenarios (Suite::service) \
         under load, and none of the {selected} selected scenarios of bench {:?} is one; select \
         a bench that has some (the built-in suite's are in --bench cache) or a --filter that \
         matches one",
        target.names()
    )))
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
    census: bool,
    skipped: Vec<model::Skipped>,
) -> RunRecord {
    let instruments = opts
        .instruments
        .running()
        .into_iter()
        .filter(|i| valgrind.is_some() || !i.needs(Need::Valgrind))
        .filter(|i| census || *i != Instrument::Census)
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
                .filter(|_| opts.instruments.asked(Instrument::Walltime)),
            code_align: Some(opts.code_align.name().to_string()),
            features: opts.cargo.features.clone(),
            all_features: opts.cargo.all_features,
            no_default_features: opts.cargo.no_default_features,
            profile: opts.cargo.profile.clone(),
        },
        selected
            .iter()
            .flat_map(|s| {
                let load_rows: Vec<ScenarioResult> = match &s.service {
                    Some(_) if opts.instruments.asked(Instrument::Throughput) => opts
                        .load
                        .clients
                        .iter()
                        .map(|&n| ScenarioResult {
                            clients: Some(n),
                            ..ScenarioResult::empty(
                                model::load_id(&s.name, n),
                                &s.name,
                                None,
                                s.service.as_ref().map_or(s.ops, |v| v.ops_per_request),
                                &s.unit,
                            )
                        })
                        .collect(),
                    _ => Vec::new(),
                };
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
