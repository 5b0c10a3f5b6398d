//! Running a scenario's bodies in this process, whatever the mode measures: one scenario or one
//! party of it wired to its peers' descriptors ([`process_body`]), every party as threads linked
//! in memory ([`mem_links`], [`once`]), and the check that a body measured something
//! ([`run_body`]). The modes of [`crate::instrument`] and the test runner's smoke test build on it;
//! it measures nothing itself and names no mode.

use crate::bench::{Bench, BodyFn, Mode};
use crate::child_args::{bad, ChildArgs, ChildError};
use crate::link::Link;
use crate::suite::Scenario;
use costbench_protocol::EXIT_SCENARIO_MISUSE;
#[cfg(unix)]
use std::fs::File;
#[cfg(unix)]
use std::os::fd::FromRawFd;

/// Runs `f` as the whole life of one scenario or party and checks that it measured something.
pub(crate) fn run_body(f: &BodyFn, mut bench: Bench) -> Bench {
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
pub(crate) fn process_body(s: &Scenario, a: &ChildArgs, mode: Mode) -> Result<Bench, ChildError> {
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
pub(crate) fn mem_links(parties: &[(String, BodyFn)]) -> Vec<Vec<(String, Link)>> {
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
pub(crate) fn exit_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        std::process::exit(101);
    }));
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
    use crate::suite::Suite;

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
