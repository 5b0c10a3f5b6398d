//! The hook through which compatibility crates (`costbench-criterion`, `costbench-divan`) have
//! costbench measure benchmarks written for another harness, unchanged.
//!
//! Such a benchmark is a closure that borrows from the function declaring it (criterion's
//! `c.bench_function("x", |b| b.iter(|| f(&data)))` with `data` a local), so it cannot be
//! registered up front as [`Suite::bench`]'s `'static` closures are. A [`Session`] instead
//! handles each benchmark when its declaration is reached, for whatever started the binary:
//!
//! - the runner's `--costbench-child list`: the benchmark is recorded (not run), and
//!   [`Session::finish`] prints the listing;
//! - the runner's `--costbench-child MODE ... NAME`: the benchmark called NAME is run under MODE
//!   exactly as a [`Suite`] scenario is (settled placement, measured region, result file), and the
//!   process exits; every other benchmark is skipped without calling its closure;
//! - a test runner (`cargo test --benches`, `cargo bench`, `cargo nextest`): the benchmark runs
//!   once, or is timed in process, or is listed, as [`Suite::main`] does for its scenarios.
//!
//! Hidden and outside the semver promise: the compatibility crates are its only callers.

use crate::bench::{Bench, BodyFn};
use crate::harness::{self, HarnessArgs};
use crate::suite::{Ops, Scenario, Suite};
use costbench_protocol::{self as proto, EXIT_SCENARIO_MISUSE};
use std::collections::BTreeSet;
use std::sync::Arc;

/// One run of a compatibility crate's bench binary: see the module docs.
#[derive(Debug)]
pub struct Session {
    kind: Kind,
    seen: BTreeSet<String>,
    errors: Vec<String>,
    passed: usize,
    failed: usize,
    header_printed: bool,
}

#[derive(Debug)]
enum Kind {
    /// `--costbench-child list`: the benchmarks seen so far, as scenarios that are never run.
    List { args: Vec<String>, listed: Suite },
    /// `--costbench-child MODE ... NAME`: run NAME, then exit.
    Run { args: Vec<String>, name: String },
    /// Started by a test runner.
    Harness(HarnessArgs),
}

impl Session {
    /// Reads the process's arguments. A malformed test-runner command line, or a child request
    /// for the harness residual (which needs none of the user's benchmarks), is answered here
    /// and the process exits.
    pub fn from_env() -> Session {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let kind = match args.split_first() {
            Some((first, rest)) if first == proto::CHILD_FLAG => {
                match crate::child_args::only_scenario() {
                    Some(name) if name == proto::RESIDUAL_SCENARIO => Suite::new().main(),
                    Some(name) => Kind::Run {
                        args: rest.to_vec(),
                        name,
                    },
                    // `list`, or arguments that do not parse: the child answers either.
                    None => Kind::List {
                        args: rest.to_vec(),
                        listed: Suite::keeping(None),
                    },
                }
            }
            _ => match harness::parse(&args) {
                Ok(a) => Kind::Harness(a),
                Err(e) => {
                    eprintln!("error: {e}");
                    std::process::exit(harness::EXIT_TEST_FAILED)
                }
            },
        };
        Session {
            kind,
            seen: BTreeSet::new(),
            errors: Vec::new(),
            passed: 0,
            failed: 0,
            header_printed: false,
        }
    }

    /// Whether the benchmark called `name` will be run (or listed) by [`Session::bench`]: a
    /// compatibility crate may skip preparing anything for one that is not.
    pub fn wants(&self, name: &str) -> bool {
        match &self.kind {
            Kind::List { .. } => true,
            Kind::Run { name: only, .. } => only == name,
            Kind::Harness(a) => a.selects(name),
        }
    }

    /// Whether [`Session::bench`] will read the `ops` it is given: to list the benchmark, or to
    /// print its per-op time in `cargo bench`'s table. A compatibility crate that learns a
    /// benchmark's ops only by running its setup (divan's counters) does that only then.
    pub fn needs_ops(&self) -> bool {
        match &self.kind {
            Kind::List { .. } => true,
            Kind::Run { .. } => false,
            Kind::Harness(a) => a.bench && !a.list,
        }
    }

    /// Handles the benchmark called `name`, of `ops` operations per run of its body: `f` is its
    /// whole life (setup, then one call to an `iter` method of the [`Bench`] it is given), called
    /// at most once, and only if this run needs it.
    pub fn bench(&mut self, name: &str, ops: Ops, f: &mut dyn FnMut(&mut Bench)) {
        if let Err(e) = crate::suite::check_name(name) {
            self.errors.push(format!("benchmark name {name:?}: {e}"));
            return;
        }
        if !self.seen.insert(name.to_string()) {
            self.errors.push(format!(
                "benchmark {name:?} is declared twice; costbench needs every id to be unique"
            ));
            return;
        }
        if ops.count() == 0 {
            self.errors
                .push(format!("benchmark {name:?} declares 0 ops"));
            return;
        }
        if !self.wants(name) {
            return;
        }
        match &mut self.kind {
            Kind::List { listed, .. } => {
                let never_run: BodyFn = Arc::new(|b: &mut Bench| b.iter(|| ()));
                listed.push(scenario(name, ops, never_run));
            }
            Kind::Run { args, .. } => {
                let args = args.clone();
                let code = with_borrowed(f, |body| {
                    let mut suite = Suite::keeping(Some(name.to_string()));
                    suite.push(scenario(name, ops, body));
                    crate::child::serve(&suite, &args)
                });
                std::process::exit(code)
            }
            Kind::Harness(a) => {
                let (list, bench) = (a.list, a.bench);
                if list {
                    harness::list_one(name);
                    self.passed += 1;
                    return;
                }
                if bench && !std::mem::replace(&mut self.header_printed, true) {
                    harness::bench_header();
                }
                let ok = with_borrowed(f, |body| {
                    let s = scenario(name, ops, body);
                    if bench {
                        harness::bench_rows(&s);
                        true
                    } else {
                        harness::smoke_one(&s)
                    }
                });
                if ok {
                    self.passed += 1;
                } else {
                    self.failed += 1;
                }
            }
        }
    }

    /// Ends the run: prints the listing, the smoke test's summary or the problems found with the
    /// declared benchmarks, and exits the process with the code the runner or test runner
    /// expects.
    pub fn finish(self) -> ! {
        for e in &self.errors {
            eprintln!("costbench: {e}");
        }
        let code = match self.kind {
            Kind::List { args, listed } => {
                if self.errors.is_empty() {
                    crate::child::serve(&listed, &args)
                } else {
                    EXIT_SCENARIO_MISUSE
                }
            }
            Kind::Run { args, name } => {
                // Not declared by any group: the child says so in its own words.
                crate::child::serve(&Suite::keeping(Some(name)), &args)
            }
            Kind::Harness(a) => {
                if a.list {
                    harness::list_footer(self.passed, a.terse);
                    if self.errors.is_empty() {
                        0
                    } else {
                        harness::EXIT_TEST_FAILED
                    }
                } else if a.bench {
                    if self.errors.is_empty() {
                        0
                    } else {
                        harness::EXIT_TEST_FAILED
                    }
                } else {
                    harness::smoke_summary(self.passed, self.failed + self.errors.len())
                }
            }
        };
        std::process::exit(code)
    }
}

fn scenario(name: &str, ops: Ops, body: BodyFn) -> Scenario {
    Scenario {
        name: name.to_string(),
        ops,
        parties: Vec::new(),
        body: Some(body),
        internal: false,
        service: None,
    }
}

/// A borrowed benchmark closure with its lifetime erased, so that it fits a scenario's
/// [`BodyFn`]. See [`with_borrowed`] for why that is sound.
struct Borrowed(*mut (dyn FnMut(&mut Bench) + 'static));

// SAFETY: a single-process scenario's body is only ever called on the thread that runs the
// scenario (`child`'s modes and the harness call it directly, never through a spawned thread),
// which is the thread that owns the closure; it is never called concurrently.
unsafe impl Send for Borrowed {}
// SAFETY: as above.
unsafe impl Sync for Borrowed {}

impl Borrowed {
    fn call(&self, b: &mut Bench) {
        // SAFETY: `with_borrowed` keeps the closure alive and otherwise unused while the body
        // exists, and calls are never concurrent (see the `Send` impl).
        unsafe { (*self.0)(b) }
    }
}

/// Runs `run` with `f` as a scenario body. The body must not outlive `run`: every use of a
/// single-process scenario's body (`child::serve`, the harness's smoke test and timing) is
/// finished when they return, and none keeps a clone of it.
fn with_borrowed<R>(f: &mut dyn FnMut(&mut Bench), run: impl FnOnce(BodyFn) -> R) -> R {
    let short: *mut (dyn FnMut(&mut Bench) + '_) = f;
    // SAFETY: only the lifetime changes; the pointer is used only while `f` is borrowed here.
    let long: *mut (dyn FnMut(&mut Bench) + 'static) = unsafe { std::mem::transmute(short) };
    let cell = Borrowed(long);
    let body: BodyFn = Arc::new(move |b: &mut Bench| cell.call(b));
    let out = run(body.clone());
    assert_eq!(
        Arc::strong_count(&body),
        1,
        "a compatibility benchmark's body outlived its run"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;

    fn harness_session(args: &str) -> Session {
        let args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        Session {
            kind: Kind::Harness(harness::parse(&args).unwrap()),
            seen: BTreeSet::new(),
            errors: Vec::new(),
            passed: 0,
            failed: 0,
            header_printed: false,
        }
    }

    #[test]
    fn a_smoke_test_runs_borrowing_benchmarks_once_each_and_counts_panics() {
        let data = [1u64, 2, 3];
        let mut sums = Vec::new();
        let mut s = harness_session("");
        s.bench("sum", ops(3, "elements"), &mut |b| {
            b.iter(|| data.iter().sum::<u64>());
            sums.push(data.len());
        });
        s.bench("panics", ops(1, "iterations"), &mut |b| {
            b.iter(|| panic!("deliberately"))
        });
        s.bench("sum", ops(1, "iterations"), &mut |b| b.iter(|| ()));
        assert_eq!((s.passed, s.failed), (1, 1));
        assert_eq!(sums, [3]);
        assert_eq!(s.errors.len(), 1);
        assert!(s.errors[0].contains("declared twice"), "{:?}", s.errors);
    }

    #[test]
    fn filters_select_which_closures_run() {
        let mut ran = Vec::new();
        let mut s = harness_session("group/b --skip group/b/2");
        for name in ["group/a", "group/b/1", "group/b/2"] {
            s.bench(name, ops(1, "iterations"), &mut |b| {
                ran.push(name);
                b.iter(|| ())
            });
        }
        assert_eq!(ran, ["group/b/1"]);
        assert!(!s.wants("group/a"));
    }
}
