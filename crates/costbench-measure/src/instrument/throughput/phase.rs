//! The throughput phase: every selected service scenario under load, for every number of
//! clients asked for, after everything else of the run (nothing else of ours runs meanwhile).
//!
//! One build: `rounds` rounds, each a fresh server process (listening on a loopback port the
//! runner bound and passes down) and a fresh load process, which warms up and then measures its
//! slices. Several builds (`check --baseline-rev`, variants): every build's server is up for the
//! whole round, and their load processes take turns slice by slice through a token ring, so a
//! slice of every build runs within the same fraction of a second and the machine's drift hits
//! them alike; the first build alternates from round to round (ABBA). Comparisons pair slice
//! `k` of one build with slice `k` of another.

use crate::run::child::{self, Running};
use crate::run::layout::{LayoutMode, Layouts};
use crate::cargo::BenchTarget;
use crate::run::options::RunOptions;
use crate::run::session::{Session, Sides};
use crate::ending::Outcome;
use crate::environment;
use crate::instrument::phase::OwnPhase;
use crate::instrument::shape::Stored;
use super::parse::{self as throughput, load_round, LoadSettings};
use anyhow::{Context, Result};
use costbench_protocol::{LoadResult, ScenarioInfo};
use costbench_record::model::{self, Failure, LoadPairing, ScenarioResult};
use std::net::TcpListener;
use std::os::fd::OwnedFd;
use std::process::Command;
use std::time::Instant;

/// Throughput's own phase.
pub(crate) struct Load;

impl OwnPhase for Load {
    fn together(&self, opts: &RunOptions) -> Option<String> {
        Some(format!(
            "throughput in {} rounds of slices taken in turn",
            opts.load.rounds
        ))
    }
    fn counted(&self) -> bool {
        false
    }
    fn all_sides(&self, sides: &Sides<'_, '_>) -> Result<()> {
        throughput_phase(sides.sessions, sides.selections)
    }
    fn holds_cpu(&self) -> bool {
        true
    }
    /// Refuses `--instrument throughput` when no selected scenario of any side (before
    /// sharding: a shard may rightly get none) is a service scenario, instead of writing rows
    /// without figures.
    fn refuse(&self, target: &BenchTarget, selections: &[Vec<&ScenarioInfo>]) -> Result<()> {
        if selections.iter().flatten().any(|s| s.service.is_some()) {
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
    /// One row per number of clients of a service scenario.
    fn extra_rows(&self, opts: &RunOptions, s: &ScenarioInfo) -> Vec<ScenarioResult> {
        let Some(service) = &s.service else {
            return Vec::new();
        };
        opts.load
            .clients
            .iter()
            .map(|&n| ScenarioResult {
                clients: Some(n),
                ..ScenarioResult::empty(
                    model::load_id(&s.name, n),
                    &s.name,
                    None,
                    service.ops_per_request,
                    &s.unit,
                )
            })
            .collect()
    }
}

/// One side's rounds so far, or the failure that ended them.
type Got = std::result::Result<Vec<LoadResult>, Failure>;

/// Runs the phase over every side.
fn throughput_phase(
    sessions: &[Session],
    selections: &[Vec<&ScenarioInfo>],
) -> Result<()> {
    let opts = &sessions[0].opts.load;
    // Service scenarios in first-seen order over all sides; each runs on the sides that have it.
    let mut names: Vec<&str> = Vec::new();
    for sel in selections {
        for s in sel.iter().filter(|s| s.service.is_some()) {
            if !names.contains(&s.name.as_str()) {
                names.push(&s.name);
            }
        }
    }
    if names.is_empty() {
        sessions[0].progress.suspend(|| {
            eprintln!(
                "note: throughput: no selected scenario is a service scenario (Suite::service); nothing to put under load"
            )
        });
        return Ok(());
    }
    let rows: usize = names
        .iter()
        .map(|n| {
            selections
                .iter()
                .filter(|sel| sel.iter().any(|s| s.name == *n))
                .count()
        })
        .sum::<usize>()
        * opts.clients.len();
    sessions[0].progress.inc_length(rows as u64);
    let pairing = environment::new_run_id();
    // Several builds: every round runs each build in a code layout of its own, as wall time's
    // rounds do, so that where the linker happened to put each build's code is part of the
    // round-to-round spread rather than a bias of one build.
    let exes: Vec<&std::path::Path> = sessions.iter().map(|s| s.bin.exe.as_path()).collect();
    let mode = if sessions.len() > 1 {
        sessions[0].opts.rounds.layouts
    } else {
        LayoutMode::Off
    };
    let layouts = Layouts::prepare(&exes, mode);
    if let Some(note) = layouts.note().filter(|_| mode != LayoutMode::Off) {
        sessions[0]
            .progress
            .suspend(|| eprintln!("note: throughput: {note}"));
    }
    for name in names {
        let on: Vec<(usize, &ScenarioInfo)> = selections
            .iter()
            .enumerate()
            .filter_map(|(k, sel)| {
                sel.iter()
                    .find(|s| s.name == name && s.service.is_some())
                    .map(|s| (k, *s))
            })
            .collect();
        for &clients in &opts.clients {
            let mut got: Vec<Got> = vec![Ok(Vec::new()); on.len()];
            for round in 0..opts.rounds {
                let order: Vec<usize> = if round % 2 == 0 {
                    (0..on.len()).collect()
                } else {
                    (0..on.len()).rev().collect()
                };
                let active: Vec<usize> = order.into_iter().filter(|&i| got[i].is_ok()).collect();
                if active.is_empty() {
                    break;
                }
                sessions[0].progress.set_message(format!(
                    "throughput {name} ({clients} clients, round {} of {})",
                    round + 1,
                    opts.rounds
                ));
                let results = run_round(sessions, &on, &active, clients, &layouts, round)?;
                for (i, r) in results {
                    match (&mut got[i], r) {
                        (Ok(all), Ok(l)) => all.push(l),
                        (slot @ Ok(_), Err(f)) => *slot = Err(f),
                        (Err(_), _) => {}
                    }
                }
            }
            let settings = LoadSettings {
                clients,
                target_rate: opts.rate,
                slice_ms: opts.slice.as_millis() as u64,
                warmup_ms: opts.warmup.as_millis() as u64,
            };
            let paired = on.len() > 1 && got.iter().filter(|g| g.is_ok()).count() > 1;
            for (i, (k, s)) in on.iter().enumerate() {
                let figure = match &got[i] {
                    Ok(rounds) => throughput::figures(rounds, &settings)
                        .map(|mut t| {
                            t.paired = paired.then(|| LoadPairing {
                                session: pairing.clone(),
                                lockstep: true,
                                round_layouts: layouts.seeds(*k, t.rounds as usize),
                            });
                            Box::new(t) as Box<dyn Stored>
                        })
                        .ok_or_else(|| Failure {
                            instrument: "throughput".into(),
                            kind: "no-measurement".into(),
                            message: "no request completed".into(),
                            stderr_tail: String::new(),
                        }),
                    Err(f) => Err(f.clone()),
                };
                sessions[*k].store(&model::load_id(&s.name, clients), figure)?;
                sessions[*k]
                    .progress
                    .done(&format!("throughput {} ({clients} clients)", s.name));
            }
        }
    }
    Ok(())
}

/// One round: a server and a load process for every side in `active` (indices into `on`, in
/// the order the sides take their turns). Returns each side's round.
fn run_round(
    sessions: &[Session],
    on: &[(usize, &ScenarioInfo)],
    active: &[usize],
    clients: u32,
    layouts: &Layouts,
    round: u32,
) -> Result<Vec<(usize, std::result::Result<LoadResult, Failure>)>> {
    // Layouts are relinked from each side's first bench target: another target's service
    // (issue 41) runs in its plain build on every side.
    let exe = |k: usize, s: &ScenarioInfo| -> Result<std::path::PathBuf> {
        let layout = match sessions.iter().all(|x| x.bin.on_first(&s.name)) {
            true => layouts.exe(k, round)?,
            false => None,
        };
        Ok(layout.unwrap_or_else(|| sessions[k].bin.exe_for(&s.name).to_path_buf()))
    };
    let opts = &sessions[0].opts.load;
    let (server_cpu, load_cpu) = cpus();
    // Servers first: each on a port of its own, bound here so that clients can connect at once.
    let mut servers = Vec::new();
    let mut addrs = Vec::new();
    for &i in active {
        let (k, s) = on[i];
        let listener = TcpListener::bind("127.0.0.1:0")
            .context("cannot bind a loopback TCP port for a service's server")?;
        addrs.push(listener.local_addr()?.to_string());
        let fd = OwnedFd::from(listener);
        let mut args = sessions[k].bin.child_args("serve");
        args.extend([
            sessions[k].bin.child_name(&s.name),
            "--listen-fd".into(),
            "3".into(),
        ]);
        let mut cmd = Command::new(exe(k, s)?);
        cmd.args(&args);
        let mut cmd = child::scenario_command(cmd, sessions[k].bin.cwd_for(&s.name), false);
        if let Some(cpu) = server_cpu {
            child::pin_to_cpu(&mut cmd, cpu);
        }
        child::inherit_fds(&mut cmd, &[(&fd, 3)]);
        let r = Running::spawn(&mut cmd).with_context(|| {
            format!(
                "cannot run scenario binary {}",
                sessions[k].bin.exe_for(&s.name).display()
            )
        })?;
        servers.push(r);
    }
    // The token ring between the load processes (none for one side).
    let n = active.len();
    let ring = if n > 1 {
        Some(child::token_ring(n)?)
    } else {
        None
    };
    let mut loads = Vec::new();
    let mut files = Vec::new();
    for (j, &i) in active.iter().enumerate() {
        let (k, s) = on[i];
        let session = &sessions[k];
        let file = tempfile::Builder::new()
            .prefix(".load-")
            .suffix(".json")
            .tempfile_in(session.out.tmp_dir_path())
            .context("cannot create a temporary result file")?;
        let mut args = session.bin.child_args("load");
        args.extend([
            session.bin.child_name(&s.name),
            "--connect".into(),
            addrs[j].clone(),
            "--clients".into(),
            clients.to_string(),
            "--result".into(),
            file.path().display().to_string(),
            "--warmup-ms".into(),
            opts.warmup.as_millis().to_string(),
            "--slice-ms".into(),
            opts.slice.as_millis().to_string(),
            "--slices".into(),
            opts.slices.to_string(),
        ]);
        if let Some(rate) = opts.rate {
            // The child paces requests; the option is in ops.
            let per_request = s.service.as_ref().map_or(1, |v| v.ops_per_request.max(1));
            args.extend(["--rate".into(), (rate / per_request as f64).to_string()]);
        }
        let mut cmd = Command::new(exe(k, s)?);
        cmd.args(&args);
        let mut cmd = child::scenario_command(cmd, session.bin.cwd_for(&s.name), false);
        if let Some(cpu) = load_cpu {
            child::pin_to_cpu(&mut cmd, cpu);
        }
        if let Some(pipes) = &ring {
            cmd.args(["--lockstep", "3,4"]);
            child::inherit_fds(
                &mut cmd,
                &[(&pipes[(j + n - 1) % n].0, 3), (&pipes[j].1, 4)],
            );
        }
        match Running::spawn(&mut cmd) {
            Ok(r) => loads.push(r),
            Err(e) => {
                drop(ring);
                child::wait_all(loads, Instant::now(), std::time::Duration::ZERO);
                for s in servers {
                    s.stop();
                }
                return Err(e).with_context(|| {
                    format!(
                        "cannot run scenario binary {}",
                        session.bin.exe_for(&s.name).display()
                    )
                });
            }
        }
        files.push(file);
    }
    // Our copies of the ring's ends must close, or a side whose peer died would wait forever.
    drop(ring);
    let outcomes: Vec<Outcome> = child::wait_all(loads, Instant::now(), sessions[0].opts.timeout);
    let server_endings: Vec<Option<Outcome>> = servers.into_iter().map(Running::stop).collect();
    Ok(active
        .iter()
        .enumerate()
        .map(|(j, &i)| {
            let bytes = std::fs::read(files[j].path());
            let r = load_round(
                &outcomes[j],
                server_endings[j].as_ref(),
                sessions[0].opts.timeout,
                bytes,
            );
            (i, r)
        })
        .collect())
}

/// (server CPU, load CPU): with two CPUs or more, every server runs on the last CPU this
/// process may use and every load process on the one before, so that the server's threads and
/// the clients' never compete for a core and the scheduler's choices stop varying from round to
/// round. With one CPU, neither is pinned.
fn cpus() -> (Option<usize>, Option<usize>) {
    match child::allowed_cpus().unwrap_or_default().as_slice() {
        [.., load, server] => (Some(*server), Some(*load)),
        _ => (None, None),
    }
}
