//! `costbench run`: build the bench target, list its scenarios, run the instruments and write
//! the results. Instruction counts run in parallel (they do not depend on load); wall time runs
//! one scenario at a time afterwards, with nothing else of ours running.

pub mod baseline;
pub mod child;

use crate::cargo::{self, BenchTarget};
use crate::environment;
use crate::exit;
use crate::measure::{callgrind, walltime};
use crate::model::{self, Failure, Icount, RunRecord, ScenarioResult};
use crate::output::OutputDir;
use crate::report;
use anyhow::{bail, Context, Result};
use child::{Outcome, Running};
use costbench_protocol::{
    self as proto, Listing, ScenarioInfo, WalltimeResult, WalltimeSamples, CHILD_FLAG,
    PROTOCOL_VERSION, RESIDUAL_SCENARIO,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instruments {
    Icount,
    Walltime,
    All,
}

impl Instruments {
    fn icount(self) -> bool {
        matches!(self, Instruments::Icount | Instruments::All)
    }

    fn walltime(self) -> bool {
        matches!(self, Instruments::Walltime | Instruments::All)
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
    pub json: bool,
    pub quiet: bool,
    /// History database; `None` is the default path under the target directory.
    pub db: Option<PathBuf>,
    pub record_history: bool,
    /// Leave getrandom alone under callgrind.
    pub real_random: bool,
    /// Wall-time rounds when several sides are measured together.
    pub rounds: Rounds,
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
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let start = Instant::now();
        let mut running = Running::spawn(&mut cmd)
            .with_context(|| format!("cannot run scenario binary {}", self.exe.display()))?;
        let stdout = running.take_stdout();
        let outcome = child::wait_all(vec![running], start, timeout).remove(0);
        let stdout = stdout.join().unwrap_or_default();
        if !outcome.success() {
            let (_, what) = outcome.describe(timeout);
            bail!(
                "scenario binary {} failed to list its scenarios ({what}):\n{}",
                self.exe.display(),
                outcome.stderr_tail
            );
        }
        let listing: Listing = stdout
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .with_context(|| {
                format!(
                    "scenario binary {} did not answer the costbench protocol; its main must end with \
                     costbench::Suite::main()",
                    self.exe.display()
                )
            })?;
        proto::check_version(listing.protocol).map_err(anyhow::Error::msg)?;
        Ok(listing)
    }
}

pub fn run(opts: RunOptions) -> Result<i32> {
    let target = cargo::resolve(
        opts.manifest_path.as_deref(),
        opts.package.as_deref(),
        opts.bench.as_deref(),
    )?;
    let out_root = opts
        .output_dir
        .clone()
        .unwrap_or_else(|| target.target_directory.join("costbench").join("results"));
    if opts.list_only {
        let exe = cargo::build(&target, "default", opts.quiet)?;
        let bin = Binary {
            exe,
            cwd: target.package_dir.clone(),
        };
        let listing = bin.list(opts.timeout)?;
        print_list(&select(&listing, opts.filter.as_ref())?);
        return Ok(exit::OK);
    }
    // Checked before building: a wrong output directory should not cost a build.
    OutputDir::prepare(&out_root)?;
    let exe = cargo::build(&target, "default", opts.quiet)?;
    let side = SideSpec {
        label: "default".into(),
        exe,
        output_dir: out_root.clone(),
        target: None,
    };
    let record = measure_sides(&opts, &target, vec![side])?.remove(0);
    print_record(&opts, &record);
    if !opts.quiet && !opts.json {
        println!("results: {}", out_root.display());
    }
    Ok(exit_code(&[&record]))
}

/// Exit code for finished runs: [`exit::FAILURE`] when any scenario failed in any of them.
pub fn exit_code(records: &[&RunRecord]) -> i32 {
    if records.iter().any(|r| r.failed().next().is_some()) {
        exit::FAILURE
    } else {
        exit::OK
    }
}

/// Prints a finished run as `--format` and `--quiet` ask.
pub fn print_record(opts: &RunOptions, record: &RunRecord) {
    if opts.json {
        println!(
            "{}",
            serde_json::to_string_pretty(record).expect("a run record always serialises")
        );
    } else if !opts.quiet {
        print!("{}", report::terminal::table(record));
    } else {
        for r in record.failed() {
            for f in &r.failures {
                eprintln!(
                    "FAILED {} ({}, {}): {}",
                    r.id, f.instrument, f.kind, f.message
                );
            }
        }
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

/// How many interleaved rounds wall time takes when several sides are measured together, and the
/// samples and warm-up of each round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rounds {
    pub rounds: u32,
    pub samples_per_round: u32,
    pub warmup_ms: u64,
}

impl Default for Rounds {
    /// 10 rounds of 10 samples (about 1 ms each) after 50 ms of warm-up: 100 samples per side,
    /// as a single run takes, spread over ten short processes per side.
    fn default() -> Self {
        Rounds {
            rounds: 10,
            samples_per_round: 10,
            warmup_ms: 50,
        }
    }
}

/// Measures the selected scenarios of every side: instruction counts side after side (counts do
/// not depend on load), then wall time. With one side wall time runs as in a plain run (one
/// process per scenario, all samples in it). With several, wall time runs in interleaved rounds:
/// for every scenario, each round runs a short child of every side, in alternating order (ABBA),
/// so that the machine's drift from minute to minute hits every side alike. Each side's figures
/// then carry the per-round medians and a shared pairing id, from which `compare` judges the
/// sides with a paired test.
///
/// Every side's output directory is written atomically after each scenario, and every side's
/// run is recorded in the history unless `opts.record_history` is off. Returns the records in the
/// order of `sides`.
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
    let valgrind = if opts.instruments.icount() {
        match callgrind::detect() {
            Ok(v) => Some(v),
            Err(reason) if opts.instruments == Instruments::Icount => bail!("{reason}"),
            Err(reason) => {
                eprintln!("warning: instruction counts skipped: {reason}; wall time still runs");
                skipped.push(model::Skipped {
                    instrument: "icount".into(),
                    reason,
                });
                None
            }
        }
    } else {
        None
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
    let total: usize = selections.iter().map(Vec::len).sum();
    let progress = progress_bar(opts, total, valgrind.is_some());
    let sessions: Vec<Session> = sides
        .iter()
        .enumerate()
        .map(|(k, side)| {
            let mut record = new_record(
                opts,
                side.target.as_ref().unwrap_or(target),
                &listings[k],
                &selections[k],
                valgrind.as_ref(),
                skipped.clone(),
            );
            record.variant = side.label.clone();
            Session {
                opts,
                bin: &bins[k],
                out: &outs[k],
                record: Mutex::new(record),
                fixed_random: fixed_random.clone(),
                progress: progress.clone(),
            }
        })
        .collect();
    for s in &sessions {
        s.save()?;
    }
    if let Some(vg) = &valgrind {
        for (k, s) in sessions.iter().enumerate() {
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
    }
    if opts.instruments.walltime() {
        if let [one] = sessions.as_slice() {
            one.walltime_phase(&selections[0])?;
        } else {
            walltime_interleaved(&sessions, &selections, &opts.rounds)?;
        }
    }
    progress.finish_and_clear();
    let db = opts
        .db
        .clone()
        .unwrap_or_else(|| crate::store::default_path(&target.target_directory));
    let mut records = Vec::new();
    for (s, out) in sessions.into_iter().zip(&outs) {
        let mut record = s.record.into_inner().expect("no worker panicked");
        record.finished_at = Some(environment::now_rfc3339());
        out.write_all(&record)?;
        if opts.record_history {
            // The results are already on disk: a history failure is reported, not fatal to them.
            crate::store::sqlite::SqliteStore::open(&db)
                .and_then(|s| crate::store::Store::record(&s, &record))
                .with_context(|| {
                    format!(
                        "the run's results are in {}, but recording it in the history failed",
                        out.root().display()
                    )
                })?;
        }
        records.push(record);
    }
    Ok(records)
}

/// Every round's samples of one measured id so far, or the failure that ended its rounds.
type RoundsSoFar = std::result::Result<Vec<WalltimeSamples>, Failure>;

/// Wall time of several sides in interleaved rounds (see [`measure_sides`]).
fn walltime_interleaved(
    sessions: &[Session],
    selections: &[Vec<&ScenarioInfo>],
    rounds: &Rounds,
) -> Result<()> {
    let pairing = environment::new_run_id();
    // Scenarios in first-seen order over all sides; each runs on the sides that have it.
    let mut names: Vec<&str> = Vec::new();
    for sel in selections {
        for s in sel {
            if !names.contains(&s.name.as_str()) {
                names.push(&s.name);
            }
        }
    }
    let args = [
        "--samples".to_string(),
        rounds.samples_per_round.to_string(),
        "--warmup-ms".into(),
        rounds.warmup_ms.to_string(),
        "--max-ms".into(),
        "0".into(),
    ];
    for name in names {
        let on: Vec<(usize, &ScenarioInfo)> = selections
            .iter()
            .enumerate()
            .filter_map(|(k, sel)| sel.iter().find(|s| s.name == name).map(|s| (k, *s)))
            .collect();
        // Per side: per measured id, every round's samples so far, or the first failure.
        let mut got: Vec<Vec<(String, RoundsSoFar)>> = on
            .iter()
            .map(|(_, s)| {
                s.measured_ids()
                    .into_iter()
                    .map(|id| (id, Ok(Vec::new())))
                    .collect()
            })
            .collect();
        for round in 0..rounds.rounds {
            let order: Vec<usize> = if round % 2 == 0 {
                (0..on.len()).collect()
            } else {
                (0..on.len()).rev().collect()
            };
            for i in order {
                let (k, s) = on[i];
                if got[i].iter().all(|(_, r)| r.is_err()) {
                    continue;
                }
                sessions[k]
                    .progress
                    .set_message(format!("walltime {name} (round {})", round + 1));
                for (id, r) in sessions[k].walltime_child(s, &args)? {
                    let slot = got[i]
                        .iter_mut()
                        .find(|(gid, _)| *gid == id)
                        .expect("the child reports the ids of its scenario");
                    match (&mut slot.1, r) {
                        (Ok(all), Ok(m)) => all.push(m),
                        (Ok(_), Err(f)) => slot.1 = Err(f),
                        (Err(_), _) => {}
                    }
                }
            }
        }
        for (i, (k, s)) in on.iter().enumerate() {
            for (id, r) in std::mem::take(&mut got[i]) {
                let figure = r.and_then(|rounds| {
                    walltime::figures_from_rounds(&rounds, s.ops, &pairing)
                        .map(Figure::Walltime)
                        .ok_or_else(|| walltime_failure("the child reported no samples", ""))
                });
                sessions[*k].store(&id, figure)?;
            }
            sessions[*k].progress.inc(1);
        }
    }
    Ok(())
}

fn select<'a>(
    listing: &'a Listing,
    filter: Option<&regex::Regex>,
) -> Result<Vec<&'a ScenarioInfo>> {
    let user: Vec<&ScenarioInfo> = listing.scenarios.iter().filter(|s| !s.internal).collect();
    let selected: Vec<&ScenarioInfo> = user
        .iter()
        .copied()
        .filter(|s| filter.is_none_or(|f| f.is_match(&s.name)))
        .collect();
    if selected.is_empty() {
        let names: Vec<&str> = user.iter().map(|s| s.name.as_str()).collect();
        match filter {
            Some(f) => bail!(
                "--filter {:?} matches no scenario; scenarios: {}",
                f.as_str(),
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            ),
            None => bail!("the bench target registers no scenarios"),
        }
    }
    Ok(selected)
}

fn print_list(selected: &[&ScenarioInfo]) {
    for s in selected {
        let parties = if s.parties.is_empty() {
            String::new()
        } else {
            format!("  parties: {}", s.parties.join(", "))
        };
        println!("{}  ({} {}){parties}", s.name, s.ops, s.unit);
    }
}

fn new_record(
    opts: &RunOptions,
    target: &BenchTarget,
    listing: &Listing,
    selected: &[&ScenarioInfo],
    valgrind: Option<&callgrind::Valgrind>,
    skipped: Vec<model::Skipped>,
) -> RunRecord {
    let mut instruments = Vec::new();
    if opts.instruments.icount() && valgrind.is_some() {
        instruments.push("icount".to_string());
    }
    if opts.instruments.walltime() {
        instruments.push("walltime".to_string());
    }
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
                    failures: Vec::new(),
                })
            })
            .collect(),
    }
}

fn progress_bar(opts: &RunOptions, measured: usize, icount: bool) -> ProgressBar {
    let per_instrument = measured as u64;
    let total = per_instrument * (u64::from(icount) + u64::from(opts.instruments.walltime()));
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
    progress: ProgressBar,
}

/// What one instrument produced for one measured id.
enum Figure {
    Icount(Icount),
    Walltime(model::Walltime),
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
                Ok(Figure::Walltime(w)) => r.walltime = Some(w),
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
        let next = AtomicUsize::new(0);
        let error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..self.opts.jobs.min(jobs.len()) {
                scope.spawn(|| loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(s) = jobs.get(k) else { break };
                    if let Err(e) = self.icount_scenario(vg, s, k) {
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

    /// Runs every party of `s` under callgrind at once, wired together by pipes.
    fn icount_scenario(
        &self,
        vg: &callgrind::Valgrind,
        s: &ScenarioInfo,
        job: usize,
    ) -> Result<()> {
        self.progress.set_message(format!("icount {}", s.name));
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
        let mut files = Vec::new();
        for (i, party) in parties.iter().enumerate() {
            let id = match party {
                Some(p) => proto::party_id(&s.name, p),
                None => s.name.clone(),
            };
            let (final_path, rel) = self.out.callgrind_paths(&id);
            let tmp = self
                .out
                .root()
                .join("callgrind")
                .join(format!(".tmp-{}-{job}-{i}.out", std::process::id()));
            let mut args = self.bin.child_args("icount");
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
            let mut cmd = child::scenario_command(
                callgrind::command(vg, &tmp, &self.bin.exe, &args),
                &self.bin.cwd,
                true,
            );
            if let Some(lib) = &self.fixed_random {
                cmd.env("LD_PRELOAD", lib);
            }
            child::inherit_fds(&mut cmd, &fds);
            let r = Running::spawn(&mut cmd)
                .with_context(|| format!("cannot start valgrind ({})", vg.path.display()))?;
            running.push(r);
            files.push((id, tmp, final_path, rel));
        }
        // Our copies of the pipe ends must close, or no party ever sees the end of its input.
        drop(pipes);
        let outcomes = child::wait_all(running, start, self.opts.timeout);
        for ((id, tmp, final_path, rel), outcome) in files.into_iter().zip(outcomes) {
            let result = self.icount_result(s, &outcome, &tmp, &final_path, rel);
            let _ = std::fs::remove_file(&tmp);
            if s.name == RESIDUAL_SCENARIO {
                match result {
                    Ok(Figure::Icount(i)) => {
                        self.record.lock().expect("no worker panicked").harness_residual_ir = Some(i.ir)
                    }
                    Ok(Figure::Walltime(_)) => unreachable!("icount yields icount figures"),
                    Err(f) => bail!(
                        "the harness residual could not be measured ({}: {}); is valgrind working?\n{}",
                        f.kind,
                        f.message,
                        f.stderr_tail
                    ),
                }
            } else {
                self.store(&id, result)?;
            }
        }
        if s.name != RESIDUAL_SCENARIO {
            self.progress.inc(1);
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
            for (id, r) in self.walltime_child(s, &args)? {
                let figure = r.and_then(|m| {
                    walltime::figures(&m, s.ops)
                        .map(Figure::Walltime)
                        .ok_or_else(|| walltime_failure("the child reported no samples", ""))
                });
                self.store(&id, figure)?;
            }
            self.progress.inc(1);
        }
        Ok(())
    }

    /// Runs one wall-time child of `s` with `extra` sampling arguments and returns, per measured
    /// id, its samples or why there are none.
    fn walltime_child(
        &self,
        s: &ScenarioInfo,
        extra: &[String],
    ) -> Result<Vec<(String, std::result::Result<WalltimeSamples, Failure>)>> {
        let ids = s.measured_ids();
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
        let mut cmd = Command::new(&self.bin.exe);
        cmd.args(&args);
        let mut cmd = child::scenario_command(cmd, &self.bin.cwd, false);
        let start = Instant::now();
        let r = Running::spawn(&mut cmd)
            .with_context(|| format!("cannot run scenario binary {}", self.bin.exe.display()))?;
        let outcome = child::wait_all(vec![r], start, self.opts.timeout).remove(0);
        let fail = |kind: &str, message: String| Failure {
            instrument: "walltime".into(),
            kind: kind.into(),
            message,
            stderr_tail: outcome.stderr_tail.clone(),
        };
        let all_fail = |f: Failure| ids.iter().map(|id| (id.clone(), Err(f.clone()))).collect();
        if !outcome.success() {
            let (kind, message) = outcome.describe(self.opts.timeout);
            return Ok(all_fail(fail(&kind, message)));
        }
        let parsed: std::result::Result<WalltimeResult, String> = std::fs::read(result_file.path())
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()));
        let result = match parsed {
            Ok(r) if r.protocol == PROTOCOL_VERSION => r,
            Ok(r) => {
                return Ok(all_fail(fail(
                    "protocol",
                    proto::check_version(r.protocol).unwrap_err(),
                )))
            }
            Err(e) => {
                return Ok(all_fail(fail(
                    "protocol",
                    format!("unreadable walltime result: {e}"),
                )))
            }
        };
        Ok(ids
            .iter()
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
            .collect())
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
