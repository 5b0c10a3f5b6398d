//! The scenario binary's side of the runner's child protocol (`--costbench-child MODE ...`):
//! list the scenarios, run one under the mode asked for, write its result. [`crate::entry`]
//! decides whether the runner or a test runner started the binary.
//!
//! Its command line is parsed in [`crate::child_args`], which the suite reads too.
//!
//! The library builds on every OS, but parts of the child protocol are Unix or Linux: `--peer`
//! and `--lockstep` name inherited pipe descriptors (Unix), and the `perf` mode needs
//! `perf_event_open` (Linux). Elsewhere the child refuses them with "not available on this OS"
//! (exit [`EXIT_BAD_REQUEST`](proto::EXIT_BAD_REQUEST)); wall time, allocation counting,
//! `cargo bench` and `cargo test --benches` work everywhere.

use crate::bench::{Bench, BodyFn, Counted, Mode};
use crate::child_args::{bad, parse_child_args, ChildArgs, ChildError};
use crate::link::Link;
use crate::suite::{Scenario, Suite};
use crate::walltime::{Coordinator, WalltimeConfig};
use costbench_protocol::{
    self as proto, CountersResult, Listing, MemoryCounts, ScenarioInfo, WalltimeResult,
    WalltimeSamples, EXIT_PROTOCOL_MISMATCH, EXIT_SCENARIO_MISUSE,
};
#[cfg(unix)]
use std::fs::File;
#[cfg(unix)]
use std::os::fd::FromRawFd;
use std::sync::Arc;

/// Answers the runner: `args` are what follows `--costbench-child`. Returns the exit code.
pub(crate) fn serve(suite: &Suite, args: &[String]) -> i32 {
    match child(suite, args) {
        Ok(code) => code,
        Err(ChildError(code, msg)) => {
            eprintln!("costbench child: {msg}");
            code
        }
    }
}

fn child(suite: &Suite, args: &[String]) -> Result<i32, ChildError> {
    let a = parse_child_args(args)?;
    let protocol = a.protocol.ok_or_else(|| bad("missing --protocol"))?;
    proto::check_version(protocol).map_err(|m| ChildError(EXIT_PROTOCOL_MISMATCH, m))?;
    if a.mode == "list" {
        let listing = listing(suite);
        let json = serde_json::to_string(&listing).expect("a listing always serialises");
        println!("{json}");
        return Ok(0);
    }
    let name = a
        .scenario
        .as_deref()
        .ok_or_else(|| bad("missing scenario name"))?;
    let scenario = suite
        .find(name)
        .ok_or_else(|| bad(format!("no scenario named {name:?} in this binary")))?;
    // Every mode that runs the scenario starts it from the same heap and stack placement,
    // whatever else the binary registered or its path and arguments are.
    crate::placement::settled(|| run_mode(scenario, &a))
}

fn run_mode(scenario: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    match a.mode.as_str() {
        "icount" => {
            process_body(scenario, a, Mode::Icount)?;
            Ok(0)
        }
        "memory" | "perf" => counters(scenario, a),
        "walltime" if a.perturb.is_some() => Err(bad(
            "--perturb is for icount, memory, perf and once: wall time has its own code-layout rounds",
        )),
        "walltime" => {
            let path = a
                .result
                .as_deref()
                .ok_or_else(|| bad("walltime needs --result FILE"))?;
            let measurements = walltime(scenario, &a.config);
            let result = WalltimeResult {
                protocol: proto::PROTOCOL_VERSION,
                scenario: scenario.name.clone(),
                measurements,
            };
            let json = serde_json::to_vec(&result).expect("a result always serialises");
            std::fs::write(path, json)
                .map_err(|e| ChildError(1, format!("cannot write result file {path}: {e}")))?;
            Ok(0)
        }
        "serve" | "load" if scenario.service.is_none() => Err(bad(format!(
            "scenario {:?} is not a service scenario (Suite::service): {} has nothing to serve",
            scenario.name, a.mode
        ))),
        "serve" => serve_mode(scenario, a),
        "load" => load_mode(scenario, a.clone()),
        "once" => {
            match a.perturb {
                Some(n) => crate::placement::perturbed(n, || once(scenario)),
                None => once(scenario),
            }
            Ok(0)
        }
        m => Err(bad(format!("unknown mode {m:?}"))),
    }
}

/// `serve`: the service's server on the inherited listening socket, until killed.
fn serve_mode(s: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    let fd = a
        .listen_fd
        .ok_or_else(|| bad("serve needs --listen-fd FD"))?;
    let def = s.service.as_ref().expect("checked by the caller");
    #[cfg(unix)]
    {
        exit_on_panic();
        crate::service::serve(def, &s.name, fd)
            .map_err(|e| ChildError(1, format!("the server stopped accepting connections: {e}")))?;
        Ok(0)
    }
    #[cfg(not(unix))]
    {
        let _ = (fd, def);
        Err(bad(
            "serve takes an inherited socket, which only Unix passes: not available on this OS",
        ))
    }
}

/// `load`: N clients against the server at `--connect`, the slices' figures to `--result`.
fn load_mode(s: &Scenario, mut a: ChildArgs) -> Result<i32, ChildError> {
    let path = a
        .result
        .clone()
        .ok_or_else(|| bad("load needs --result FILE"))?;
    if a.load.connect.is_empty() {
        return Err(bad("load needs --connect ADDR"));
    }
    if a.load.slices == 0 {
        return Err(bad("--slices takes a number of at least 1"));
    }
    if a.warmup_given {
        a.load.warmup = a.config.warmup;
    }
    a.load.lockstep = a.config.lockstep;
    let def = s.service.as_ref().expect("checked by the caller");
    exit_on_panic();
    let result = crate::service::load(def, &s.name, &a.load);
    let json = serde_json::to_vec(&result).expect("a result always serialises");
    std::fs::write(&path, json)
        .map_err(|e| ChildError(1, format!("cannot write result file {path}: {e}")))?;
    Ok(0)
}

fn listing(suite: &Suite) -> Listing {
    Listing {
        protocol: proto::PROTOCOL_VERSION,
        library_version: env!("CARGO_PKG_VERSION").to_string(),
        scenarios: suite
            .scenarios
            .iter()
            .map(|s| ScenarioInfo {
                name: s.name.clone(),
                ops: s.ops.count(),
                unit: s.ops.unit().to_string(),
                parties: s.parties.iter().map(|(p, _)| p.clone()).collect(),
                internal: s.internal,
                service: s.service.as_ref().map(|d| proto::ServiceInfo {
                    ops_per_request: d.ops_per_request,
                    requests_per_run: d.requests_per_run,
                }),
            })
            .collect(),
        capabilities: vec![
            proto::CAPABILITY_LOCKSTEP.to_string(),
            proto::CAPABILITY_PERTURB.to_string(),
            proto::CAPABILITY_SERVICE.to_string(),
        ],
        budgets: suite.budgets.clone(),
    }
}

/// Runs `f` as the whole life of one scenario or party and checks that it measured something.
fn run_body(f: &BodyFn, mut bench: Bench) -> Bench {
    f(&mut bench);
    if !bench.ran() {
        eprintln!(
            "costbench: scenario {:?} returned without calling iter or iter_with_setup: nothing was measured",
            bench.name()
        );
        std::process::exit(EXIT_SCENARIO_MISUSE);
    }
    bench
}

/// `memory` and `perf` modes: one run of the body in this process (one party, when the scenario
/// has parties: each party is its own process, as under callgrind), figures to `--result`.
fn counters(s: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    #[cfg(not(target_os = "linux"))]
    if a.mode == "perf" {
        return Err(bad(crate::perf::NOT_AVAILABLE));
    }
    let path = a
        .result
        .as_deref()
        .ok_or_else(|| bad(format!("{} needs --result FILE", a.mode)))?;
    let memory = a.mode == "memory";
    let mut bench = process_body(s, a, if memory { Mode::Memory } else { Mode::Perf })?;
    let mut result = CountersResult {
        protocol: proto::PROTOCOL_VERSION,
        scenario: s.name.clone(),
        party: a.party.clone(),
        memory: None,
        perf: None,
    };
    match bench.take_counted() {
        Some(Counted::Memory(counts)) => {
            result.memory = Some(MemoryCounts {
                allocator: crate::alloc::allocator_name().to_string(),
                not_counted: counts
                    .is_none()
                    .then(|| crate::alloc::NOT_INSTALLED.to_string()),
                counts,
                max_rss_kib: max_rss_kib(),
            })
        }
        Some(Counted::Perf(p)) => result.perf = Some(p),
        None => unreachable!("run_body checked that the body ran"),
    }
    let json = serde_json::to_vec(&result).expect("a result always serialises");
    std::fs::write(path, json)
        .map_err(|e| ChildError(1, format!("cannot write result file {path}: {e}")))?;
    Ok(0)
}

/// Peak resident set size of this process so far, in KiB.
#[cfg(unix)]
fn max_rss_kib() -> u64 {
    // SAFETY: an all-zero rusage is a valid out-value for getrusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid out-pointer; RUSAGE_SELF always exists.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0;
    }
    // Linux (and the BSDs) report ru_maxrss in kilobytes, macOS in bytes.
    if cfg!(target_vendor = "apple") {
        ru.ru_maxrss as u64 / 1024
    } else {
        ru.ru_maxrss as u64
    }
}

/// Off Unix there is no `getrusage`: 0, which the protocol documents as "not measured".
#[cfg(not(unix))]
fn max_rss_kib() -> u64 {
    0
}

/// A link to a peer party over the two pipe descriptors the runner passed.
#[cfg(unix)]
fn fd_link(read: i32, write: i32) -> Link {
    // SAFETY: the runner passes these descriptors open, for this process alone.
    let (r, w) = unsafe { (File::from_raw_fd(read), File::from_raw_fd(write)) };
    Link::from_files(r, w)
}

#[cfg(not(unix))]
fn fd_link(_read: i32, _write: i32) -> Link {
    unreachable!("parse_child_args refuses --peer off Unix")
}

/// Runs one scenario, or one party of it wired to its peers' descriptors, in this process.
fn process_body(s: &Scenario, a: &ChildArgs, mode: Mode) -> Result<Bench, ChildError> {
    let (f, party) = match (&s.body, a.party.as_deref()) {
        (Some(f), None) => (f, None),
        (Some(_), Some(p)) => {
            return Err(bad(format!(
                "scenario {:?} has no parties, but --party {p} was given",
                s.name
            )))
        }
        (None, None) => return Err(bad(format!("scenario {:?} needs --party", s.name))),
        (None, Some(p)) => {
            let (_, f) = s
                .parties
                .iter()
                .find(|(n, _)| n == p)
                .ok_or_else(|| bad(format!("scenario {:?} has no party {p:?}", s.name)))?;
            (f, Some(p))
        }
    };
    let links = a
        .peers
        .iter()
        .map(|(name, r, w)| (name.clone(), fd_link(*r, *w)))
        .collect();
    // Without --perturb nothing else runs here: plain counts stay exactly what they were.
    Ok(match a.perturb {
        Some(n) => {
            crate::placement::perturbed(n, || run_body(f, Bench::new(&s.name, party, mode, links)))
        }
        None => run_body(f, Bench::new(&s.name, party, mode, links)),
    })
}

/// In-memory links for every pair of parties: `links[i]` holds party i's links, in party order.
fn mem_links(parties: &[(String, BodyFn)]) -> Vec<Vec<(String, Link)>> {
    let mut links: Vec<Vec<(String, Link)>> = parties.iter().map(|_| Vec::new()).collect();
    for i in 0..parties.len() {
        for j in i + 1..parties.len() {
            let (a, b) = Link::mem_pair();
            links[i].push((parties[j].0.clone(), a));
            links[j].push((parties[i].0.clone(), b));
        }
    }
    links
}

/// A party that panics while others wait at a barrier or on a link would hang the process: the
/// whole process exits instead, after the usual panic message.
fn exit_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        std::process::exit(101);
    }));
}

pub(crate) fn walltime(s: &Scenario, config: &WalltimeConfig) -> Vec<WalltimeSamples> {
    if let Some(f) = &s.body {
        let b = run_body(
            f,
            Bench::new(&s.name, None, Mode::Walltime(config.clone()), vec![]),
        );
        return vec![take(b)];
    }
    exit_on_panic();
    let co = Arc::new(Coordinator::new(s.parties.len()));
    let handles: Vec<_> = s
        .parties
        .iter()
        .zip(mem_links(&s.parties))
        .enumerate()
        .map(|(i, ((party, f), links))| {
            let mode = Mode::WalltimeParty {
                config: config.clone(),
                coordinator: co.clone(),
                leader: i == 0,
            };
            let bench = Bench::new(&s.name, Some(party), mode, links);
            let f = f.clone();
            std::thread::spawn(move || take(run_body(&f, bench)))
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("a panicking party exits the process"))
        .collect()
}

fn take(mut b: Bench) -> WalltimeSamples {
    b.take_samples()
        .expect("a walltime bench that ran has samples")
}

pub(crate) fn once(s: &Scenario) {
    if let Some(f) = &s.body {
        run_body(f, Bench::new(&s.name, None, Mode::Once, vec![]));
        return;
    }
    let handles: Vec<_> = s
        .parties
        .iter()
        .zip(mem_links(&s.parties))
        .map(|((party, f), links)| {
            let bench = Bench::new(&s.name, Some(party), Mode::Once, links);
            let f = f.clone();
            std::thread::spawn(move || {
                run_body(&f, bench);
            })
        })
        .collect();
    let mut panicked = None;
    for h in handles {
        if let Err(p) = h.join() {
            panicked = Some(p);
        }
    }
    if let Some(p) = panicked {
        std::panic::resume_unwind(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;

    #[test]
    fn listing_includes_parties_and_the_residual() {
        let mut s = Suite::new();
        s.multi("m", ops(2, "msgs"))
            .party("client", |b| b.iter(|| ()))
            .party("server", |b| b.iter(|| ()));
        let l = listing(&s);
        assert_eq!(l.scenarios.len(), 2);
        assert!(l.scenarios[0].internal);
        assert_eq!(l.scenarios[1].parties, ["client", "server"]);
        assert!(l.budgets.is_empty());
        s.budget("m_*", crate::Budget::new().allocations(0.0));
        let l = listing(&s);
        assert_eq!(l.budgets.len(), 1);
        assert_eq!(
            (l.budgets[0].scenario.as_str(), l.budgets[0].allocations),
            ("m_*", Some(0.0))
        );
    }

    #[test]
    fn multi_party_once_exchanges_bytes() {
        use std::io::{Read, Write};
        let mut s = Suite::new();
        s.multi("echo", ops(1, "msgs"))
            .party("client", |b| {
                let mut io = b.peer();
                b.iter(move || {
                    io.write_all(b"ping").unwrap();
                    let mut r = [0; 4];
                    io.read_exact(&mut r).unwrap();
                    assert_eq!(&r, b"ping");
                })
            })
            .party("server", |b| {
                let mut io = b.peer();
                b.iter(move || {
                    let mut r = [0; 4];
                    io.read_exact(&mut r).unwrap();
                    io.write_all(&r).unwrap();
                })
            });
        once(s.find("echo").unwrap());
    }
}
