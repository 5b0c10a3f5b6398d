//! The handle a scenario receives: marks where setup ends and the measured body begins.

use crate::instrument::walltime::sample::{self as walltime, Coordinator, WalltimeConfig};
use crate::link::Link;
use costbench_protocol::{AllocCounts, PerfCounts, WalltimeSamples, EXIT_SCENARIO_MISUSE};
use std::sync::Arc;

/// A scenario's (or one party's) whole life: setup, then one call to `iter`.
pub(crate) type BodyFn = Arc<dyn Fn(&mut Bench) + Send + Sync>;

pub(crate) enum Mode {
    /// Run the body once inside the measured region (callgrind counts it).
    Icount,
    /// Run the body once, unmeasured (smoke tests).
    Once,
    /// Run the body once between two readings of the allocation counters.
    Memory,
    /// Run the body once with hardware counters enabled around it.
    Perf,
    /// Sample the body's wall time in batches.
    Walltime(WalltimeConfig),
    /// Sample one party's thread CPU time, in lockstep with the other parties.
    WalltimeParty {
        config: WalltimeConfig,
        coordinator: Arc<Coordinator>,
        leader: bool,
    },
}

/// Given to every scenario (and every party of a multi-party scenario). Everything before the
/// call to [`Bench::iter`] or [`Bench::iter_with_setup`] is setup and is not measured; call one of
/// them exactly once.
///
/// ```no_run
/// let mut suite = costbench::Suite::new();
/// suite.bench("btree/lookup", costbench::ops(1000, "lookups"), |b| {
///     let map: std::collections::BTreeMap<u32, u32> = (0..1000).map(|i| (i, i)).collect();
///     b.iter(|| (0..1000).filter_map(|k| map.get(&costbench::black_box(k))).sum::<u32>())
/// });
/// suite.main();
/// ```
pub struct Bench {
    scenario: String,
    party: Option<String>,
    mode: Mode,
    links: Vec<(String, Option<Link>)>,
    ran: bool,
    samples: Option<WalltimeSamples>,
    counted: Option<Counted>,
}

/// What the `Memory` and `Perf` modes measured.
#[derive(Debug)]
pub(crate) enum Counted {
    /// `None` when the global allocator does not count.
    Memory(Option<AllocCounts>),
    Perf(PerfCounts),
}

impl std::fmt::Debug for Bench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bench")
            .field("scenario", &self.scenario)
            .field("party", &self.party)
            .finish_non_exhaustive()
    }
}

impl Bench {
    pub(crate) fn new(
        scenario: &str,
        party: Option<&str>,
        mode: Mode,
        links: Vec<(String, Link)>,
    ) -> Bench {
        Bench {
            scenario: scenario.to_string(),
            party: party.map(str::to_string),
            mode,
            links: links.into_iter().map(|(n, l)| (n, Some(l))).collect(),
            ran: false,
            samples: None,
            counted: None,
        }
    }

    /// Whether the scenario called `iter` or `iter_with_setup`.
    pub(crate) fn ran(&self) -> bool {
        self.ran
    }

    pub(crate) fn take_samples(&mut self) -> Option<WalltimeSamples> {
        let mut s = self.samples.take()?;
        s.party = self.party.clone();
        Some(s)
    }

    pub(crate) fn take_counted(&mut self) -> Option<Counted> {
        self.counted.take()
    }

    /// The scenario's name (useful in messages from shared setup code).
    ///
    /// ```no_run
    /// # let mut suite = costbench::Suite::new();
    /// suite.bench("named", costbench::ops(1, "op"), |b| {
    ///     assert_eq!(b.name(), "named");
    ///     b.iter(|| ())
    /// });
    /// ```
    pub fn name(&self) -> &str {
        &self.scenario
    }

    /// Measures `body`. Its return value is dropped outside the measurement.
    ///
    /// ```no_run
    /// # let mut suite = costbench::Suite::new();
    /// suite.bench("string/format", costbench::ops(1, "strings"), |b| {
    ///     b.iter(|| format!("{}-{}", costbench::black_box(1), 2))
    /// });
    /// ```
    pub fn iter<R, F: FnMut() -> R>(&mut self, mut body: F) {
        self.run(|| (), move |()| body());
    }

    /// Measures `body` on a fresh input from `setup` for every run; `setup` is not measured.
    /// Use it when the body consumes or mutates its input (sorting, draining, parsing in place).
    ///
    /// ```no_run
    /// # let mut suite = costbench::Suite::new();
    /// suite.bench("vec/sort", costbench::ops(1000, "elements"), |b| {
    ///     let data: Vec<u32> = (0..1000).rev().collect();
    ///     b.iter_with_setup(|| data.clone(), |mut v| { v.sort(); v })
    /// });
    /// ```
    pub fn iter_with_setup<I, R, S, F>(&mut self, setup: S, body: F)
    where
        S: FnMut() -> I,
        F: FnMut(I) -> R,
    {
        self.run(setup, body);
    }

    fn run<I, R>(&mut self, mut setup: impl FnMut() -> I, mut body: impl FnMut(I) -> R) {
        if self.ran {
            self.misuse("called iter more than once; call iter or iter_with_setup exactly once");
        }
        self.ran = true;
        match &self.mode {
            Mode::Icount => {
                let input = setup();
                let out = crate::region::measured(|| body(input));
                drop(out);
            }
            Mode::Once => drop(body(setup())),
            Mode::Memory => {
                let input = setup();
                let installed = crate::instrument::memory::alloc::counting_installed();
                crate::instrument::memory::alloc::reset_peak();
                let before = crate::instrument::memory::alloc::snapshot();
                let out = crate::region::measured(|| body(input));
                let after = crate::instrument::memory::alloc::snapshot();
                self.counted = Some(Counted::Memory(installed.then(|| AllocCounts {
                    allocs: after.allocs - before.allocs,
                    deallocs: after.deallocs - before.deallocs,
                    reallocs: after.reallocs - before.reallocs,
                    bytes_allocated: after.bytes_allocated - before.bytes_allocated,
                    peak_live_bytes: after.peak.saturating_sub(before.live),
                })));
                drop(out);
            }
            Mode::Perf => {
                let input = setup();
                let (out, counts) = crate::instrument::perf::events::measure(|| {
                    crate::region::measured(|| body(input))
                });
                self.counted = Some(Counted::Perf(counts));
                drop(out);
            }
            Mode::Walltime(config) => {
                self.samples = Some(walltime::sample_batched(config, &mut setup, &mut body));
            }
            Mode::WalltimeParty {
                config,
                coordinator,
                leader,
            } => {
                self.samples = Some(walltime::sample_party(
                    config,
                    coordinator,
                    *leader,
                    &mut setup,
                    &mut body,
                ));
            }
        }
    }

    /// For compatibility layers (criterion's `iter_custom`): measures a body that times itself,
    /// `timed(n)` running `n` iterations and returning the time they took by its own clock. Only
    /// wall time can honour that: under instruction counting, memory or hardware counters the
    /// scenario is refused with a message naming it. Outside the semver promise.
    #[doc(hidden)]
    pub fn __iter_custom(&mut self, mut timed: impl FnMut(u64) -> std::time::Duration) {
        if self.ran {
            self.misuse("called iter more than once; call iter or iter_with_setup exactly once");
        }
        match &self.mode {
            Mode::Once => drop(timed(1)),
            Mode::Walltime(config) => {
                self.samples = Some(walltime::sample_custom(config, &mut timed));
            }
            Mode::WalltimeParty { .. } => {
                self.misuse("times itself (iter_custom), which a party of a multi-party scenario cannot")
            }
            Mode::Icount | Mode::Memory | Mode::Perf => self.misuse(
                "times itself (criterion's iter_custom), so costbench measures it by wall time only: \
                 leave it out of other instruments (`--filter`), or rewrite it with iter or \
                 iter_batched to have it counted",
            ),
        }
        self.ran = true;
    }

    /// For compatibility layers: a benchmark the layer cannot measure faithfully (`what` says
    /// why and what to do). A smoke test (`cargo test --benches`) runs `once` instead; every
    /// measuring mode refuses the scenario with the message. Outside the semver promise.
    #[doc(hidden)]
    pub fn __unsupported(&mut self, what: &str, once: impl FnOnce()) {
        if self.ran {
            self.misuse("called iter more than once; call iter or iter_with_setup exactly once");
        }
        match self.mode {
            Mode::Once => once(),
            _ => self.misuse(what),
        }
        self.ran = true;
    }

    /// The link to the only other party of a two-party scenario. Take it during setup and move
    /// it into the body.
    ///
    /// ```no_run
    /// use std::io::Write;
    /// # let mut suite = costbench::Suite::new();
    /// suite.multi("send", costbench::ops(1, "messages"))
    ///     .party("client", |b| { let mut io = b.peer(); b.iter(move || io.write_all(b"x").unwrap()) })
    ///     .party("server", |b| { let mut io = b.peer(); b.iter(move || std::io::copy(&mut io, &mut std::io::sink()).unwrap()) });
    /// ```
    pub fn peer(&mut self) -> Link {
        match self.links.len() {
            1 => {
                let name = self.links[0].0.clone();
                self.peer_named(&name)
            }
            0 => self.misuse("called peer() but this is not a party of a multi-party scenario"),
            _ => self.misuse(
                "called peer() in a scenario with more than two parties; use peer_named(NAME)",
            ),
        }
    }

    /// The link to the party called `name`.
    ///
    /// ```no_run
    /// # let mut suite = costbench::Suite::new();
    /// suite.multi("relay", costbench::ops(1, "messages"))
    ///     .party("client", |b| { let _to_proxy = b.peer_named("proxy"); b.iter(|| ()) })
    ///     .party("proxy", |b| { let _c = b.peer_named("client"); let _s = b.peer_named("server"); b.iter(|| ()) })
    ///     .party("server", |b| { let _to_proxy = b.peer_named("proxy"); b.iter(|| ()) });
    /// ```
    pub fn peer_named(&mut self, name: &str) -> Link {
        let Some(slot) = self.links.iter_mut().find(|(n, _)| n == name) else {
            let known: Vec<_> = self.links.iter().map(|(n, _)| n.as_str()).collect();
            self.misuse(&format!(
                "asked for a link to party {name:?}, but its peers are {known:?}"
            ));
        };
        match slot.1.take() {
            Some(l) => l,
            None => self.misuse(&format!("took the link to {name:?} twice")),
        }
    }

    fn misuse(&self, what: &str) -> ! {
        match &self.party {
            Some(p) => eprintln!(
                "costbench: scenario {:?}, party {p:?}: {what}",
                self.scenario
            ),
            None => eprintln!("costbench: scenario {:?}: {what}", self.scenario),
        }
        std::process::exit(EXIT_SCENARIO_MISUSE)
    }
}
