//! Measuring: list the scenarios of built bench targets, run the instruments and write the
//! results ([`measure_sides`]). Instruction counts, simulated counters, DHAT and allocation counts run in
//! parallel (they do not depend on load); hardware counters and wall time run one scenario at a
//! time afterwards, with nothing else of ours running.
//!
//! Building, printing, `--html`, history and exit codes are the commands' (`commands::run`,
//! `commands::check`, `commands::variants`): this module returns records and must not import
//! `report`, `html_report`, `store` or `exit`.

pub mod adaptive;
pub mod baseline;
pub mod child;
mod interleaved;
pub mod layout;
pub mod placement;

pub use adaptive::Rounds;

/// Scenario selection lives below `run`, for Miri too; re-exported for `run`'s callers.
pub(crate) use crate::selection::select;

use crate::cargo::{self, BenchTarget};
use crate::environment;
use crate::measure::{cache, callgrind, dhat, memory, perf, walltime};
use crate::model::{self, Failure, Icount, RunRecord, ScenarioResult};
use crate::output::OutputDir;
use anyhow::{bail, Context, Result};
use child::{Outcome, Running};
use costbench_protocol::{
    self as proto, CountersResult, Listing, ScenarioInfo, WalltimeResult, WalltimeSamples,
    CHILD_FLAG, PROTOCOL_VERSION, RESIDUAL_SCENARIO,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The instruments asked for (`--instrument`, a comma-separated list).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Instruments {
    pub icount: bool,
    pub walltime: bool,
    /// Simulated caches and branches under callgrind.
    pub cache: bool,
    /// Allocation counts and max RSS, in process.
    pub memory: bool,
    /// Hardware counters, in process.
    pub perf: bool,
    /// Valgrind's DHAT heap profile.
    pub dhat: bool,
    /// Bounds and overflow checks executed per op. It rides on the icount run (callgrind with
    /// per-instruction counts, which leave the instruction count unchanged), so it implies icount.
    pub census: bool,
}

impl Instruments {
    /// Every instrument, in the order they run.
    pub const ALL: Instruments = Instruments {
        icount: true,
        walltime: true,
        cache: true,
        memory: true,
        perf: true,
        dhat: true,
        census: true,
    };

    /// Whether the icount run happens (asked for, or carrying the census).
    pub fn icount(self) -> bool {
        self.icount || self.census
    }

    pub fn census(self) -> bool {
        self.census
    }

    pub fn walltime(self) -> bool {
        self.walltime
    }

    /// The instruments that need valgrind.
    fn valgrind(self) -> Vec<&'static str> {
        [
            ("census", self.census),
            ("icount", self.icount()),
            ("cache", self.cache),
            ("dhat", self.dhat),
        ]
        .into_iter()
        .filter_map(|(n, on)| on.then_some(n))
        .collect()
    }

    /// Names of the instruments asked for, in the order they run.
    pub fn names(self) -> Vec<&'static str> {
        [
            ("icount", self.icount()),
            ("census", self.census),
            ("cache", self.cache),
            ("dhat", self.dhat),
            ("memory", self.memory),
            ("perf", self.perf),
            ("walltime", self.walltime),
        ]
        .into_iter()
        .filter_map(|(n, on)| on.then_some(n))
        .collect()
    }
}

/// Validated options of `costbench run`.
#[derive(Debug)]
pub struct RunOptions {
    pub manifest_path: Option<PathBuf>,
    pub package: Option<String>,
    pub bench: Option<String>,
    pub filter: Option<regex::Regex>,
    pub list_only: bool,
    pub instruments: Instruments,
    pub output_dir: Option<PathBuf>,
    pub jobs: usize,
    pub samples: Option<u32>,
    pub timeout: Duration,
    /// The CPU every wall-time child is pinned to (`--walltime-cpu`); `None` lets it move.
    pub walltime_cpu: Option<usize>,
    /// Function alignment of the builds (`--code-align`).
    pub code_align: cargo::CodeAlign,
    pub json: bool,
    pub quiet: bool,
    /// History database; `None` is the default path under the target directory. Read by the
    /// commands, which record each measured run there.
    pub db: Option<PathBuf>,
    /// Record each measured run in the history (the commands do; `--no-history` turns it off).
    pub record_history: bool,
    /// Leave getrandom alone under callgrind.
    pub real_random: bool,
    /// Wall-time rounds when several sides are measured together.
    pub rounds: Rounds,
    /// With several sides: an id whose instructions per op differ between the first side and
    /// another by more than this (percent) gets data-placement runs.
    pub icount_threshold_pct: f64,
    /// Perturbed callgrind runs per side for such ids (`--placement-runs`; 0 = none).
    pub placement_runs: u32,
}

/// A built scenario binary and where to run it.
#[derive(Debug, Clone)]
pub struct Binary {
    pub exe: PathBuf,
    pub cwd: PathBuf,
}

impl Binary {
    fn child_args(&self, mode: &str) -> Vec<String> {
        vec![
            CHILD_FLAG.into(),
            mode.into(),
            "--protocol".into(),
            PROTOCOL_VERSION.to_string(),
        ]
    }

    /// Asks the binary for its scenarios (killing it after `timeout`).
    pub fn list(&self, timeout: Duration) -> Result<Listing> {
        let mut cmd = Command::new(&self.exe);
        cmd.args(self.child_args("list"))
            .current_dir(&self.cwd)
            .stdin(std::process::Stdio::null());
        let (outcome, stdout) = child::run_captured(&mut cmd, timeout, Default::default())
            .with_context(|| format!("cannot run scenario binary {}", self.exe.display()))?;
        if !outcome.success() {
            let (_, what) = outcome.describe(timeout);
            bail!(
                "scenario binary {} failed to list its scenarios ({what}):\n{}",
                self.exe.display(),
                outcome.stderr_tail
            );
        }
        Listing::from_stdout(&stdout).map_err(|e| match e {
            proto::DecodeError::NoListing => anyhow::anyhow!(
                "scenario binary {} did not answer the costbench protocol; its main must end with \
                 costbench::Suite::main()",
                self.exe.display()
            ),
            e => e.into(),
        })
    }
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
    let outs = sides
        .iter()
        .map(|s| OutputDir::prepare(&s.output_dir))
        .collect::<Result<Vec<_>>>()?;
    let bins: Vec<Binary> = sides
        .iter()
        .map(|s| Binary {
            exe: s.exe.clone(),
            cwd: s.target.as_ref().unwrap_or(target).package_dir.clone(),
        })
        .collect();
    let listings = bins
        .iter()
        .zip(&sides)
        .map(|(b, s)| {
            b.list(opts.timeout)
                .with_context(|| format!("side {:?}", s.label))
        })
        .collect::<Result<Vec<_>>>()?;
    let selections = listings
        .iter()
        .zip(&sides)
        .map(|(l, s)| {
            select(l, opts.filter.as_ref()).with_context(|| format!("side {:?}", s.label))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut skipped = Vec::new();
    let needs_valgrind = opts.instruments.valgrind();
    let valgrind = if needs_valgrind.is_empty() {
        None
    } else {
        match callgrind::detect() {
            Ok(v) => Some(v),
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
                None
            }
        }
    };
    let fixed_random = match (&valgrind, opts.real_random) {
        (Some(_), false) => {
            let cache = target.target_directory.join("costbench").join("cache");
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
        _ => None,
    };
    // The census needs each binary's guards before any callgrind output can be joined with them.
    let censuses: Vec<(Option<CensusJoin>, Option<model::Skipped>)> = bins
        .iter()
        .map(|b| match &valgrind {
            Some(_) if opts.instruments.census() => match crate::census::analyse(&b.exe) {
                Ok(c) => (Some(CensusJoin::new(c, &b.exe)), None),
                Err(e) => {
                    let reason = format!("{e:#}");
                    eprintln!("warning: census skipped: {reason}; instruction counts still run");
                    let skip = model::Skipped {
                        instrument: "census".into(),
                        reason,
                    };
                    (None, Some(skip))
                }
            },
            _ => (None, None),
        })
        .collect();
    let total: usize = selections.iter().map(Vec::len).sum();
    let progress = progress_bar(opts, total, valgrind.is_some());
    let sessions: Vec<Session> = sides
        .iter()
        .zip(censuses)
        .enumerate()
        .map(|(k, (side, (census, census_skipped)))| {
            let mut skipped = skipped.clone();
            skipped.extend(census_skipped);
            let mut record = new_record(
                opts,
                side.target.as_ref().unwrap_or(target),
                &listings[k],
                &selections[k],
                valgrind.as_ref(),
                census.is_some(),
                skipped,
            );
            record.variant = side.label.clone();
            Session {
                opts,
                bin: &bins[k],
                out: &outs[k],
                record: Mutex::new(record),
                fixed_random: fixed_random.clone(),
                census,
                progress: progress.clone(),
            }
        })
        .collect();
    for s in &sessions {
        s.save()?;
    }
    if let Some(vg) = &valgrind {
        for (k, s) in sessions.iter().enumerate() {
            if opts.instruments.icount() {
                if let Err(e) = s.icount_phase(vg, &listings[k], &selections[k]) {
                    // With several builds, one that valgrind cannot run (a target-cpu=native build
                    // with AVX-512 instructions dies of SIGILL under valgrind 3.19) must not cost the
                    // other builds their results: its counts fail, its wall time still runs.
                    if sessions.len() == 1 {
                        return Err(e);
                    }
                    eprintln!(
                        "warning: instruction counts of {} failed; its wall time and the other builds still run: {e:#}",
                        sides[k].label
                    );
                    s.fail_icount(&format!("{e:#}"))?;
                }
            }
            if opts.instruments.cache {
                s.parallel_phase(&selections[k], |sc, job| {
                    s.callgrind_scenario(vg, Kind::Cache, sc, job)
                })?;
            }
            if opts.instruments.dhat {
                s.parallel_phase(&selections[k], |sc, job| {
                    s.callgrind_scenario(vg, Kind::Dhat, sc, job)
                })?;
            }
        }
        // Needs every side's counts: which ids changed decides what runs again, perturbed.
        placement::phase(&sessions, &listings, &selections, vg)?;
    }
    for (k, s) in sessions.iter().enumerate() {
        if opts.instruments.memory {
            s.parallel_phase(&selections[k], |sc, job| {
                s.in_process_scenario(Kind::Memory, sc, job)
            })?;
        }
        if opts.instruments.perf {
            s.perf_phase(&listings[k], &selections[k])?;
        }
    }
    if opts.instruments.walltime {
        if let [one] = sessions.as_slice() {
            one.walltime_phase(&selections[0])?;
        } else {
            // A token ring needs every side's library to know `--lockstep` (a baseline revision
            // may predate it); without it, sides take turns round by round.
            let lockstep = listings.iter().all(|l| {
                l.capabilities
                    .iter()
                    .any(|c| c == proto::CAPABILITY_LOCKSTEP)
            });
            interleaved::walltime_interleaved(&sessions, &selections, &opts.rounds, lockstep)?;
        }
    }
    progress.finish_and_clear();
    let mut records = Vec::new();
    for (s, out) in sessions.into_iter().zip(&outs) {
        let mut record = s.record.into_inner().expect("no worker panicked");
        record.finished_at = Some(environment::now_rfc3339());
        out.write_all(&record)?;
        records.push(record);
    }
    Ok(records)
}

/// Per measured id of a scenario: the samples one wall-time child took, or why it has none.
type ChildSamples = Vec<(String, std::result::Result<WalltimeSamples, Failure>)>;

fn new_record(
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
        .names()
        .into_iter()
        .filter(|i| valgrind.is_some() || !matches!(*i, "icount" | "cache" | "dhat" | "census"))
        .filter(|i| census || *i != "census")
        .map(String::from)
        .collect();
    RunRecord {
        schema: model::SCHEMA.into(),
        schema_version: model::SCHEMA_VERSION,
        run_id: environment::new_run_id(),
        started_at: environment::now_rfc3339(),
        finished_at: None,
        tool: model::Tool {
            name: "costbench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            protocol: PROTOCOL_VERSION,
        },
        suite: model::SuiteInfo {
            package: target.package.clone(),
            bench: target.bench.clone(),
            library_version: listing.library_version.clone(),
        },
        variant: "default".into(),
        environment: environment::collect(
            &target.workspace_root,
            valgrind.map(|v| v.version.clone()),
        ),
        settings: model::Settings {
            instruments,
            filter: opts.filter.as_ref().map(|f| f.as_str().to_string()),
            jobs: opts.jobs,
            timeout_secs: opts.timeout.as_secs(),
            samples: opts.samples,
            walltime_cpu: opts.walltime_cpu.filter(|_| opts.instruments.walltime),
            code_align: Some(opts.code_align.name().to_string()),
        },
        skipped,
        harness_residual_ir: None,
        results: selected
            .iter()
            .flat_map(|s| {
                let parties: Vec<Option<String>> = if s.parties.is_empty() {
                    vec![None]
                } else {
                    s.parties.iter().cloned().map(Some).collect()
                };
                parties.into_iter().map(move |p| ScenarioResult {
                    id: match &p {
                        Some(p) => proto::party_id(&s.name, p),
                        None => s.name.clone(),
                    },
                    scenario: s.name.clone(),
                    party: p,
                    ops: s.ops,
                    unit: s.unit.clone(),
                    icount: None,
                    walltime: None,
                    counters: Default::default(),
                    census: None,
                    failures: Vec::new(),
                })
            })
            .collect(),
    }
}

fn progress_bar(opts: &RunOptions, measured: usize, valgrind: bool) -> ProgressBar {
    let per_instrument = measured as u64;
    let phases = opts
        .instruments
        .names()
        .iter()
        .filter(|i| valgrind || !matches!(**i, "icount" | "cache" | "dhat"))
        // The census rides on the icount run: no phase of its own.
        .filter(|i| **i != "census")
        .count() as u64;
    let total = per_instrument * phases;
    let bar = ProgressBar::with_draw_target(
        Some(total),
        if opts.quiet || opts.json {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .expect("the template is valid"),
    );
    bar
}

struct Session<'a> {
    opts: &'a RunOptions,
    bin: &'a Binary,
    out: &'a OutputDir,
    record: Mutex<RunRecord>,
    /// Preloaded under callgrind so that getrandom is the same in every run.
    fixed_random: Option<PathBuf>,
    /// The binary's guards, when the census runs.
    census: Option<CensusJoin>,
    progress: ProgressBar,
}

/// The static census of a scenario binary and how to recognise it in callgrind's output.
struct CensusJoin {
    guards: crate::census::StaticCensus,
    /// The binary's path as given to valgrind, and canonical: callgrind names objects by the
    /// path they were mapped from.
    exe: PathBuf,
    canonical: Option<PathBuf>,
}

impl CensusJoin {
    fn new(guards: crate::census::StaticCensus, exe: &Path) -> CensusJoin {
        CensusJoin {
            guards,
            exe: exe.to_path_buf(),
            canonical: exe.canonicalize().ok(),
        }
    }

    fn is_binary(&self, ob: &str) -> bool {
        let ob = Path::new(ob);
        ob == self.exe || self.canonical.as_deref() == Some(ob)
    }

    /// The census of one measured id from its callgrind output (written with `--dump-instr=yes`).
    fn measure(&self, callgrind_out: &Path, ops: u64) -> Result<model::Census> {
        let text = std::fs::read_to_string(callgrind_out)
            .with_context(|| format!("cannot read {}", callgrind_out.display()))?;
        let counts = crate::census::dynamic::instruction_counts(&text, |ob| self.is_binary(ob))
            .with_context(|| format!("in callgrind output {}", callgrind_out.display()))?;
        Ok(crate::census::join(&self.guards, &counts, ops))
    }
}

/// What one instrument produced for one measured id.
enum Figure {
    Icount(Icount),
    Walltime(Box<model::Walltime>),
    Census(model::Census),
    Cache(model::CacheSim),
    Memory(model::Memory),
    Perf(model::Perf),
    Dhat(model::Dhat),
}

/// The instruments that run one process per party with the runner's pipes between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Cache,
    Dhat,
    Memory,
    Perf,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Cache => "cache",
            Kind::Dhat => "dhat",
            Kind::Memory => "memory",
            Kind::Perf => "perf",
        }
    }
}

impl Session<'_> {
    /// Records `why` as the icount failure of every id that has no count yet.
    fn fail_icount(&self, why: &str) -> Result<()> {
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

    fn save(&self) -> Result<()> {
        let record = self.record.lock().expect("no worker panicked");
        self.out.write_all(&record)
    }

    /// Stores what an instrument produced for `id` (a figure or a failure) and saves the files.
    fn store(&self, id: &str, result: std::result::Result<Figure, Failure>) -> Result<()> {
        {
            let mut record = self.record.lock().expect("no worker panicked");
            let r = record
                .results
                .iter_mut()
                .find(|r| r.id == id)
                .expect("results are pre-populated for every measured id");
            match result {
                Ok(Figure::Icount(i)) => r.icount = Some(i),
                Ok(Figure::Walltime(w)) => r.walltime = Some(*w),
                Ok(Figure::Census(c)) => r.census = Some(c),
                Ok(Figure::Cache(c)) => r.counters.cache = Some(c),
                Ok(Figure::Memory(m)) => r.counters.memory = Some(m),
                Ok(Figure::Perf(p)) => r.counters.perf = Some(p),
                Ok(Figure::Dhat(d)) => r.counters.dhat = Some(d),
                Err(f) => r.failures.push(f),
            }
        }
        self.save()
    }

    fn icount_phase(
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

    /// Runs every party of `s` at once, one process each, wired together by pipes (a
    /// single-process scenario is one party). `command(i, id, args)` makes the command for party
    /// `i` (measured id `id`) from the child's argument list.
    fn spawn_parties(
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
            args.push(s.name.clone());
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
        let outcomes = child::wait_all(running, start, self.opts.timeout);
        Ok(ids.into_iter().zip(outcomes).collect())
    }

    /// A temporary file in the output directory for one party's output.
    fn tmp_path(&self, what: &str, job: usize, party: usize) -> PathBuf {
        self.out.root().join(format!(
            ".tmp-{what}-{}-{job}-{party}.out",
            std::process::id()
        ))
    }

    /// A scenario process prepared like every measured one, with getrandom pinned when asked.
    fn measured_command(&self, cmd: Command, pin_random: bool) -> Command {
        let mut cmd = child::scenario_command(cmd, &self.bin.cwd, true);
        if let (true, Some(lib)) = (pin_random, &self.fixed_random) {
            cmd.env("LD_PRELOAD", lib);
        }
        cmd
    }

    /// Callgrind's arguments for instruction counts. The census reads per-instruction counts
    /// from the same run (the Ir total is unchanged).
    fn icount_tool_args(&self) -> &'static [&'static str] {
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
            let result = self.icount_result(s, &outcome, &tmp, &final_path, rel);
            let _ = std::fs::remove_file(&tmp);
            let census = match (&result, &self.census) {
                (Ok(_), Some(c)) if s.name != RESIDUAL_SCENARIO => Some(
                    c.measure(&final_path, s.ops)
                        .map(Figure::Census)
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
                    Ok(Figure::Icount(i)) => {
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

    /// Runs `each(scenario, job)` over `selected`, `--jobs` at a time.
    fn parallel_phase(
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

    /// `cache` (callgrind with cache and branch simulation) or `dhat`, every party at once.
    fn callgrind_scenario(
        &self,
        vg: &callgrind::Valgrind,
        kind: Kind,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<()> {
        self.progress
            .set_message(format!("{} {}", kind.name(), s.name));
        let outcomes = self.spawn_parties(s, "icount", &|i, _id, args| {
            let tmp = self.tmp_path(kind.name(), job, i);
            let cmd = match kind {
                Kind::Dhat => dhat::command(vg, &tmp, &self.bin.exe, &args),
                _ => callgrind::command(vg, cache::TOOL_ARGS, &tmp, &self.bin.exe, &args),
            };
            self.measured_command(cmd, true)
        })?;
        for (i, (id, outcome)) in outcomes.into_iter().enumerate() {
            let tmp = self.tmp_path(kind.name(), job, i);
            let (final_path, rel) = self.out.instrument_paths(kind.name(), &id)?;
            let result = self.tool_result(kind, s, &outcome, &tmp, &final_path, rel);
            let _ = std::fs::remove_file(&tmp);
            self.store(&id, result)?;
        }
        self.progress.inc(1);
        Ok(())
    }

    fn fail(&self, instrument: &str, outcome: &Outcome, kind: &str, message: String) -> Failure {
        Failure {
            instrument: instrument.into(),
            kind: kind.into(),
            message,
            stderr_tail: outcome.stderr_tail.clone(),
        }
    }

    fn tool_result(
        &self,
        kind: Kind,
        s: &ScenarioInfo,
        outcome: &Outcome,
        tmp: &Path,
        final_path: &Path,
        rel: String,
    ) -> std::result::Result<Figure, Failure> {
        let inst = kind.name();
        if !outcome.success() {
            let (k, message) = outcome.describe(self.opts.timeout);
            return Err(self.fail(inst, outcome, &k, message));
        }
        let no = |m: String| self.fail(inst, outcome, "no-measurement", m);
        let figure = match kind {
            Kind::Cache => {
                let totals = callgrind::read_totals(tmp).map_err(|e| no(format!("{e:#}")))?;
                cache::figures(&totals, s.ops, rel)
                    .map(Figure::Cache)
                    .ok_or_else(|| no("callgrind reported no cache or branch events".into()))?
            }
            Kind::Dhat => {
                let (tb, tbk, gb, gbk) =
                    dhat::read_totals(tmp).map_err(|e| no(format!("{e:#}")))?;
                Figure::Dhat(model::Dhat {
                    total_bytes: tb,
                    total_blocks: tbk,
                    peak_bytes: gb,
                    peak_blocks: gbk,
                    dhat_out: rel,
                })
            }
            Kind::Memory | Kind::Perf => unreachable!("in-process kinds have no tool output"),
        };
        std::fs::rename(tmp, final_path).map_err(|e| {
            no(format!(
                "cannot keep {inst} output as {}: {e}",
                final_path.display()
            ))
        })?;
        Ok(figure)
    }

    /// `memory` or `perf`: the scenario binary measures itself, one process per party.
    fn in_process_scenario(&self, kind: Kind, s: &ScenarioInfo, job: usize) -> Result<()> {
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
        kind: Kind,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<
        Vec<(
            String,
            std::result::Result<(Figure, Option<proto::PerfCounts>), Failure>,
        )>,
    > {
        let inst = kind.name();
        let outcomes = self.spawn_parties(s, inst, &|i, _id, mut args| {
            args.push("--result".into());
            args.push(self.tmp_path(inst, job, i).display().to_string());
            let mut cmd = Command::new(&self.bin.exe);
            cmd.args(args);
            self.measured_command(cmd, kind == Kind::Memory)
        })?;
        Ok(outcomes
            .into_iter()
            .enumerate()
            .map(|(i, (id, outcome))| {
                let tmp = self.tmp_path(inst, job, i);
                let r = self.in_process_result(kind, s, &outcome, &tmp);
                let _ = std::fs::remove_file(&tmp);
                (id, r)
            })
            .collect())
    }

    fn in_process_result(
        &self,
        kind: Kind,
        s: &ScenarioInfo,
        outcome: &Outcome,
        tmp: &Path,
    ) -> std::result::Result<(Figure, Option<proto::PerfCounts>), Failure> {
        let inst = kind.name();
        if !outcome.success() {
            let (k, message) = outcome.describe(self.opts.timeout);
            return Err(self.fail(inst, outcome, &k, message));
        }
        let r = match proto::read_result::<CountersResult>(tmp) {
            Ok(r) => r,
            Err(e @ proto::DecodeError::Version { .. }) => {
                return Err(self.fail(inst, outcome, "protocol", e.to_string()));
            }
            Err(e) => {
                let m = format!("unreadable {inst} result: {e}");
                return Err(self.fail(inst, outcome, "protocol", m));
            }
        };
        let missing = || {
            self.fail(
                inst,
                outcome,
                "protocol",
                format!("the child sent no {inst} figures"),
            )
        };
        match kind {
            Kind::Memory => {
                let m = r.memory.ok_or_else(missing)?;
                Ok((Figure::Memory(memory::figures(&m, s.ops)), None))
            }
            Kind::Perf => {
                let p = r.perf.ok_or_else(missing)?;
                match perf::figures(&p, s.ops) {
                    Some(f) => Ok((Figure::Perf(f), Some(p))),
                    None => Err(self.fail(
                        inst,
                        outcome,
                        "no-measurement",
                        perf::unavailable_reason(&p),
                    )),
                }
            }
            Kind::Cache | Kind::Dhat => unreachable!("tool kinds have output files"),
        }
    }

    /// Hardware counters: first the library's empty scenario, to learn whether the kernel
    /// gives counters at all (if not, the instrument is skipped with the kernel's reason),
    /// then every scenario, one at a time, since cycles depend on what else runs.
    fn perf_phase(&self, listing: &Listing, selected: &[&ScenarioInfo]) -> Result<()> {
        if let Some(residual) = listing
            .scenarios
            .iter()
            .find(|s| s.name == RESIDUAL_SCENARIO)
        {
            let probe = self.in_process_results(Kind::Perf, residual, 0)?;
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
            self.in_process_scenario(Kind::Perf, s, k)?;
        }
        Ok(())
    }

    fn icount_result(
        &self,
        s: &ScenarioInfo,
        outcome: &Outcome,
        tmp: &Path,
        final_path: &Path,
        rel: String,
    ) -> std::result::Result<Figure, Failure> {
        let fail = |kind: String, message: String| Failure {
            instrument: "icount".into(),
            kind,
            message,
            stderr_tail: outcome.stderr_tail.clone(),
        };
        if !outcome.success() {
            let (kind, message) = outcome.describe(self.opts.timeout);
            return Err(fail(kind, message));
        }
        let ir =
            callgrind::read_ir(tmp).map_err(|e| fail("no-measurement".into(), format!("{e:#}")))?;
        std::fs::rename(tmp, final_path).map_err(|e| {
            fail(
                "no-measurement".into(),
                format!(
                    "cannot keep callgrind output as {}: {e}",
                    final_path.display()
                ),
            )
        })?;
        Ok(Figure::Icount(Icount {
            ir,
            ir_per_op: ir as f64 / s.ops as f64,
            callgrind_out: rel,
            placement: None,
        }))
    }

    fn walltime_phase(&self, selected: &[&ScenarioInfo]) -> Result<()> {
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
                        .map(|w| Figure::Walltime(Box::new(w)))
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
    fn walltime_child(
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
    fn spawn_walltime(
        &self,
        s: &ScenarioInfo,
        exe: &Path,
        extra: &[String],
        fds: &[(&std::os::fd::OwnedFd, std::os::fd::RawFd)],
    ) -> Result<(Running, tempfile::NamedTempFile)> {
        let result_file = tempfile::Builder::new()
            .prefix(".walltime-")
            .suffix(".json")
            .tempfile_in(self.out.root())
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
    fn collect_walltime(
        &self,
        s: &ScenarioInfo,
        outcome: &Outcome,
        result_file: &tempfile::NamedTempFile,
    ) -> ChildSamples {
        let ids = s.measured_ids();
        let fail = |kind: &str, message: String| Failure {
            instrument: "walltime".into(),
            kind: kind.into(),
            message,
            stderr_tail: outcome.stderr_tail.clone(),
        };
        let all_fail = |f: Failure| ids.iter().map(|id| (id.clone(), Err(f.clone()))).collect();
        if !outcome.success() {
            let (kind, message) = outcome.describe(self.opts.timeout);
            return all_fail(fail(&kind, message));
        }
        let result = match proto::read_result::<WalltimeResult>(result_file.path()) {
            Ok(r) => r,
            Err(e @ proto::DecodeError::Version { .. }) => {
                return all_fail(fail("protocol", e.to_string()))
            }
            Err(e) => {
                return all_fail(fail("protocol", format!("unreadable walltime result: {e}")))
            }
        };
        ids.iter()
            .map(|id| {
                let m = result.measurements.iter().find(|m| match &m.party {
                    Some(p) => proto::party_id(&s.name, p) == *id,
                    None => *id == s.name,
                });
                let r = match m {
                    Some(m) if !m.sample_ns.is_empty() => Ok(m.clone()),
                    _ => Err(fail(
                        "no-measurement",
                        "the child reported no samples".into(),
                    )),
                };
                (id.clone(), r)
            })
            .collect()
    }
}

fn walltime_failure(message: &str, stderr_tail: &str) -> Failure {
    Failure {
        instrument: "walltime".into(),
        kind: "no-measurement".into(),
        message: message.into(),
        stderr_tail: stderr_tail.into(),
    }
}
