//! The instruments costbench knows: one registry, [`for_each_instrument!`] (in this file), with
//! one entry per instrument: its variant of [`Instrument`] with its doc line, its name on the
//! command line and in run records (which is also the name of its folder in the measuring
//! crate), and the fields of its [`Descriptor`]: the line `--instrument` shows for it, what it
//! needs to run, the figures a comparison judges from it ([`Figure`]), the series it adds to the
//! history ([`Metric`]) and where it runs among the others. The enum, its descriptors,
//! [`Instrument::ALL`] and [`Instrument::RUN_ORDER`] derive from that list here, and every other
//! vocabulary of instruments derives from them: the set asked for ([`InstrumentSet`]), the
//! judge's compared figures, the history's metrics and the command line's values. The measuring
//! crate expands the same list into its folders' `mod` lines and its `phase` table.
//!
//! Each entry also points at its instrument's slice of the record: the module of this folder
//! named like its folder (`dhat.rs`), which holds its figure's type where it has one, whether a
//! result has its figure, its CSV files and columns and its findings ([`Slice`], [`Finding`]).
//! The rest of this crate loops over
//! [`Instrument::slice`] and names no instrument there. What the record asks of the registry
//! is answered here too, so that the record's types know nothing of it: whether a result has an
//! instrument's figure or is done with it (`ScenarioResult::has_figure`, `settled_for`), and how
//! many scenarios of a run finished (`RunRecord::finished_scenarios`).
//!
//! Data only, like the rest of this crate: how an instrument's process is started and its output
//! read is `costbench-measure`'s (`src/instrument/`, one folder per instrument), how its figures
//! are judged `costbench-judge`'s. Nothing here may depend on clap or spawn anything.
//!
//! [`for_each_instrument!`]: crate::for_each_instrument!

pub(crate) mod counters;
mod figure;
mod finding;
mod metric;
mod slice;

use crate::model::{RunRecord, ScenarioResult};
pub use counters::{Counters, FigureValue, FindingDetail};

pub use figure::{FigureSpec, Judged};
pub use finding::{serialize_by_instrument, Finding, FindingSpec};
pub use metric::{MetricSpec, Steps};
pub use slice::{Column, Samples, Slice};

/// The registry of instruments: one entry per instrument, in the order `--instrument` lists them
/// (and the order of the compared figures they yield, [`Figure::ALL`]). Each entry is
/// `/// doc` `Variant(folder) { descriptor fields }`: the variant of [`Instrument`] with its doc
/// line, the folder `costbench-measure/src/instrument/FOLDER/` that runs it (named like the
/// instrument where its name is a Rust identifier), and the [`Descriptor`]'s fields but
/// `instrument`.
///
/// It calls back the macro it is given with the list: this crate derives [`Instrument`], its
/// descriptors, [`Instrument::ALL`] and [`Instrument::RUN_ORDER`] from it; the measuring crate
/// its `mod` lines and its table of phases (each folder exports `PHASE`). Adding an instrument is
/// one entry here and its folder there.
#[macro_export]
macro_rules! for_each_instrument {
    ($callback:ident) => {
        $callback! {
            /// Instruction counts under callgrind.
            Icount(icount) {
                figures: [
                    /// Instructions per op (`Icount::ir_per_op`).
                    Icount,
                ],
                metrics: [
                    /// Instructions per op.
                    Icount,
                ],
                name: "icount",
                help: "Instruction counts under valgrind callgrind: exact and repeatable",
                needs: &[Need::Valgrind],
                kept: Some(Kept { dir: "callgrind", ext: "out" }),
                machine_bound: false,
                run_rank: 10,
            },
            /// Wall time, in process.
            Walltime(walltime) {
                figures: [
                    /// Median wall time per op (`Walltime::ns_per_op.median`).
                    Walltime,
                ],
                metrics: [
                    /// Median wall time per op, ns.
                    Walltime,
                    /// Wall time against the previous measured commit, measured paired
                    /// (`history backfill`): the ratio where the paired test resolved a change,
                    /// 1 where it resolved none.
                    WalltimeStep,
                ],
                name: "walltime",
                help: concat!(
                    "Wall time: warm-up, then many timed batches; min, median, mean, p95, IQR ",
                    "per op",
                ),
                needs: &[],
                kept: None,
                machine_bound: true,
                run_rank: 70,
            },
            /// Simulated caches and branches under callgrind.
            Cache(cache) {
                figures: [
                    /// Simulated estimated cycles per op (`CacheSim::per_op["EstimatedCycles"]`):
                    /// as exact as instruction counts, judged with the same threshold.
                    Cache,
                ],
                metrics: [
                    /// Simulated estimated cycles per op.
                    Cycles,
                ],
                name: "cache",
                help: concat!(
                    "Simulated caches and branches (callgrind --cache-sim --branch-sim): reads, ",
                    "writes, I1/D1/LL misses, branches and mispredicts, estimated cycles (L1 + ",
                    "5·LL + 35·RAM), per op",
                ),
                needs: &[Need::Valgrind],
                kept: Some(Kept { dir: "callgrind-cache", ext: "out" }),
                machine_bound: false,
                run_rank: 30,
            },
            /// Allocation counts and max RSS, in process.
            Memory(memory) {
                figures: [
                    /// Bytes allocated per op (`Allocations::bytes_allocated_per_op`): exact with
                    /// the system allocator, judged with the instruction-count threshold.
                    Memory,
                    /// The process's max RSS in KiB (not per op): judged against the judge's RSS
                    /// threshold.
                    Rss,
                ],
                metrics: [
                    /// Bytes allocated per op.
                    AllocBytes,
                    /// Allocations per op.
                    Allocs,
                    /// Peak live heap bytes of one run of the body.
                    PeakBytes,
                    /// The process's max RSS, KiB.
                    MaxRss,
                ],
                name: "memory",
                help: concat!(
                    "Allocations, deallocations, reallocations, bytes allocated per op and peak ",
                    "live bytes of the body (needs the library's `count-alloc` feature), and ",
                    "the process's max RSS",
                ),
                needs: &[Need::CountAlloc],
                kept: None,
                machine_bound: false,
                run_rank: 50,
            },
            /// Hardware counters, in process.
            Perf(perf) {
                figures: [],
                metrics: [],
                name: "perf",
                help: concat!(
                    "Hardware counters (perf_event_open) around the body: cycles, instructions, ",
                    "IPC, branches, misses, cache and L1d figures, per op; skipped with the ",
                    "reason where the kernel refuses them",
                ),
                needs: &[Need::HardwareCounters],
                kept: None,
                machine_bound: true,
                run_rank: 60,
            },
            /// Valgrind's DHAT heap profile.
            Dhat(dhat) {
                figures: [],
                metrics: [],
                name: "dhat",
                help: "Valgrind DHAT: total and peak heap bytes and blocks of the whole process",
                needs: &[Need::Valgrind],
                kept: Some(Kept { dir: "dhat", ext: "json" }),
                machine_bound: false,
                run_rank: 40,
            },
            /// Bounds and overflow checks executed per op, riding on the icount run.
            Census(census) {
                figures: [],
                metrics: [],
                name: "census",
                help: concat!(
                    "Instruction counts plus the census: bounds and overflow checks executed ",
                    "per op, from the same callgrind run with per-instruction counts ",
                    "(`--dump-instr=yes`)",
                ),
                needs: &[Need::Valgrind],
                kept: None,
                machine_bound: false,
                run_rank: 20,
            },
            /// Operations per second and latency of service scenarios under load.
            Throughput(throughput) {
                figures: [
                    /// A service scenario under load: nanoseconds per op at the measured
                    /// throughput (`1e9 / Throughput::ops_per_sec`), so that more is worse as for
                    /// every other figure; shown with the ops per second it stands for. Judged
                    /// paired, slice by slice, like wall time.
                    Throughput,
                    /// A service scenario under load: the 99th percentile of request latency in
                    /// nanoseconds.
                    P99,
                ],
                metrics: [],
                name: "throughput",
                help: concat!(
                    "Service scenarios under load (loopback TCP, --clients N): operations per ",
                    "second and latency p50, p90, p99, p99.9 and max from an HDR histogram, in ",
                    "rounds of time slices",
                ),
                needs: &[Need::Services],
                kept: None,
                machine_bound: true,
                run_rank: 80,
            },
            /// Secret-dependent branches and addresses, under valgrind's memcheck.
            ConstantTime(consttime) {
                figures: [],
                metrics: [],
                name: "constant-time",
                help: concat!(
                    "Valgrind memcheck on the secrets a scenario marks (costbench::secret): ",
                    "every branch and memory address that depends on them, with its source ",
                    "line; any finding fails run and check (exit 3)",
                ),
                needs: &[Need::Valgrind],
                kept: Some(Kept { dir: "memcheck", ext: "xml" }),
                machine_bound: false,
                run_rank: 45,
            },
        }
    };
}

/// What this crate derives from the registry: the enum, one descriptor per variant (at its
/// variant's index), the instruments in `--instrument`'s order, and one module per instrument
/// (named in its entry) holding its [`Slice`] of the record.
macro_rules! derive_instruments {
    ($( $(#[$doc:meta])* $variant:ident($folder:ident) {
        figures: [$( $(#[$fdoc:meta])* $figure:ident ),* $(,)?],
        metrics: [$( $(#[$mdoc:meta])* $metric:ident ),* $(,)?],
        $($field:ident: $value:expr),* $(,)?
    } ),* $(,)?) => {
        /// One instrument: one kind of measurement of every selected scenario.
        ///
        /// The order of the variants is the order `--instrument` lists them in and the order of
        /// the compared figures they yield ([`Figure::ALL`]); the order they run in is
        /// [`Instrument::RUN_ORDER`]. Declared by [`for_each_instrument!`].
        ///
        /// [`for_each_instrument!`]: crate::for_each_instrument!
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Instrument {
            $( $(#[$doc])* $variant, )*
        }

        /// A compared figure: what a row of a comparison is about, one per-op number of a
        /// measured id named after the instrument that measured it. The variants are the
        /// figures the registry's entries list, in its order (the order of a comparison's
        /// rows); each is described by its instrument's slice ([`FigureSpec`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
        #[serde(rename_all = "lowercase")]
        pub enum Figure {
            $( $( $(#[$fdoc])* $figure, )* )*
        }

        /// A metric of one measured id (instructions per op, median wall time per op ...), or of
        /// the run's bench binary (its size, its build time: [`Metric::RUN`]). The variants but
        /// the last two are the series the registry's entries list, in its order; each is
        /// described by its instrument's slice ([`MetricSpec`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Metric {
            $( $( $(#[$mdoc])* $metric, )* )*
            /// Bytes the bench binary loads (`text + data`), under the id `bench:NAME`.
            BinarySize,
            /// Seconds costbench's build of the bench binary took, under the id `bench:NAME`.
            BuildSeconds,
        }

        const DESCRIPTORS: &[Descriptor] = &[
            $( Descriptor {
                instrument: Instrument::$variant,
                figures: &[ $( Figure::$figure, )* ],
                metrics: &[ $( Metric::$metric, )* ],
                $($field: $value,)*
            }, )*
        ];

        impl Figure {
            /// Every figure a comparison can judge, in the order of the rows: the instruments'
            /// figures in the order of [`Instrument::ALL`].
            pub const ALL: [Figure; [ $( $( Figure::$figure, )* )* ].len()] =
                [ $( $( Figure::$figure, )* )* ];
        }

        impl Metric {
            /// Every metric, in the order of the instruments that record them, then the run's
            /// own (`--metric` lists them so).
            pub const ALL: [Metric; [ $( $( Metric::$metric, )* )* ].len() + 2] =
                [ $( $( Metric::$metric, )* )* Metric::BinarySize, Metric::BuildSeconds ];
        }

        $( pub mod $folder; )*

        impl Instrument {
            /// Every instrument, in the order `--instrument` lists them.
            pub const ALL: [Instrument; COUNT] = [ $( Instrument::$variant, )* ];

            /// Its slice of the run record: its module in this folder, named in its entry.
            pub fn slice(self) -> &'static Slice {
                match self {
                    $( Instrument::$variant => &$folder::SLICE, )*
                }
            }
        }
    };
}

for_each_instrument!(derive_instruments);

/// How many instruments there are.
const COUNT: usize = DESCRIPTORS.len();

/// Something an instrument cannot run without; where it is missing, the instrument is skipped
/// (valgrind, hardware counters) or has no figures (the feature, services).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Valgrind on the `PATH`.
    Valgrind,
    /// A kernel that grants `perf_event_open` counters.
    HardwareCounters,
    /// The library's `count-alloc` feature in the bench target (allocation counts; the max RSS
    /// needs nothing).
    CountAlloc,
    /// Service scenarios in the suite.
    Services,
}

/// Where an instrument keeps its raw output in a results directory: `DIR/<scenario>.EXT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    /// The subdirectory, the same for every run (a reader finds the file by it).
    pub dir: &'static str,
    /// The extension of its files.
    pub ext: &'static str,
}

/// What costbench knows about one instrument, in one place.
#[derive(Debug)]
pub struct Descriptor {
    /// The instrument described.
    pub instrument: Instrument,
    /// Its name on the command line, in the record's `settings.instruments`, its failures and
    /// its skips.
    pub name: &'static str,
    /// The line `--instrument` shows for it.
    pub help: &'static str,
    /// What it cannot run without.
    pub needs: &'static [Need],
    /// Where its raw output files stay in a results directory, for the readers that open them
    /// (reports, `explain`, `asm`), and which `merge` copies; `None` for an instrument whose
    /// file is read and removed.
    pub kept: Option<Kept>,
    /// Whether its figures depend on the machine and its load (time, hardware counters), so
    /// that they are judged only against a baseline measured on the same machine; the others
    /// count or simulate, and any machine with the same valgrind gives the same figures.
    pub machine_bound: bool,
    /// The figures a comparison judges (and `check` gates) from its results, in the order of the
    /// rows of a comparison.
    pub figures: &'static [Figure],
    /// The series it adds to the history of runs, charted in the HTML report.
    pub metrics: &'static [Metric],
    /// Where it runs among the others: [`Instrument::RUN_ORDER`] sorts by it, lowest first (in
    /// tens, so that a new instrument finds room between two).
    pub run_rank: u16,
}

impl Instrument {
    /// The order the phases of a run measure them in (their descriptors' `run_rank`):
    /// everything under valgrind first (counts do not depend on load, so those run in
    /// parallel), the census right after the icount run it rides on, then the in-process
    /// instruments, and last what needs a quiet machine.
    pub const RUN_ORDER: [Instrument; COUNT] = {
        let mut order = Instrument::ALL;
        let mut i = 1;
        while i < COUNT {
            let mut j = i;
            while j > 0 && order[j - 1].descriptor().run_rank > order[j].descriptor().run_rank {
                let t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
                j -= 1;
            }
            i += 1;
        }
        order
    };

    /// Everything costbench knows about it.
    pub const fn descriptor(self) -> &'static Descriptor {
        &DESCRIPTORS[self as usize]
    }

    /// Its name on the command line and in run records.
    pub const fn name(self) -> &'static str {
        self.descriptor().name
    }

    /// The instrument called `name`, if any.
    pub fn from_name(name: &str) -> Option<Instrument> {
        Instrument::ALL.into_iter().find(|i| i.name() == name)
    }

    /// The subdirectories of a results directory that hold the instruments' kept files
    /// ([`Descriptor::kept`]), each once, in `--instrument`'s order.
    pub fn kept_dirs() -> Vec<&'static str> {
        let mut dirs: Vec<&'static str> = Vec::new();
        for k in Instrument::ALL.iter().filter_map(|i| i.descriptor().kept) {
            if !dirs.contains(&k.dir) {
                dirs.push(k.dir);
            }
        }
        dirs
    }

    /// Whether it measures under load: its rows (`SCENARIO@Nc`) have its figures only, and
    /// its figures are judged slice by slice, never against history.
    pub fn under_load(self) -> bool {
        self == Instrument::Throughput
    }

    /// Whether it cannot run without `need`.
    pub fn needs(self, need: Need) -> bool {
        self.descriptor().needs.contains(&need)
    }
}

impl std::fmt::Display for Instrument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the figures and metrics owe to the descriptors: which instrument yields each. Here
/// rather than beside them, so that the figures and the history know nothing of the table.
impl Figure {
    /// The instrument that measures it: its failure makes the figure incomparable.
    pub fn instrument(self) -> Instrument {
        Instrument::ALL
            .into_iter()
            .find(|i| i.descriptor().figures.contains(&self))
            .expect("every figure is listed by its instrument's descriptor")
    }

    /// Figures measured under load (judged slice by slice, never against history).
    pub fn under_load(self) -> bool {
        self.instrument().under_load()
    }
}

impl Metric {
    /// The counter metrics of a result (every series the instruments' descriptors list, in
    /// their order, but instruction counts and wall time, which are recorded on their own),
    /// each with its value where `r` measured it.
    pub fn counters(r: &ScenarioResult) -> Vec<(Metric, f64)> {
        Instrument::ALL
            .into_iter()
            .flat_map(|i| i.descriptor().metrics)
            .filter(|m| !matches!(m, Metric::Icount | Metric::Walltime))
            .filter_map(|&m| Some((m, m.per_op(r)?)))
            .collect()
    }

    /// Every series of a result the instruments' descriptors list, in their order, each with
    /// its value where `r` measured it: what the history indexes of a measured id.
    pub fn of_result(r: &ScenarioResult) -> Vec<(Metric, f64)> {
        Instrument::ALL
            .into_iter()
            .flat_map(|i| i.descriptor().metrics)
            .filter_map(|&m| Some((m, m.per_op(r)?)))
            .collect()
    }

    /// The instrument that records it: the one whose descriptor lists it; `None` for the run's
    /// own metrics ([`Metric::RUN`]), which every run records.
    pub fn instrument(self) -> Option<Instrument> {
        Instrument::ALL
            .into_iter()
            .find(|i| i.descriptor().metrics.contains(&self))
    }

    /// The compared figure whose threshold applies to a series of this metric: the figure that
    /// follows this series, else its instrument's first figure (allocation counts and peak
    /// bytes take the threshold of bytes allocated). The run's own metrics take the threshold
    /// of a figure like them: the binary's size is exact, as instruction counts are; a build's
    /// time is a time between runs, as wall time is.
    pub fn figure(self) -> Figure {
        let Some(instrument) = self.instrument() else {
            return match self {
                Metric::BuildSeconds => Figure::Walltime,
                _ => Figure::Icount,
            };
        };
        let figures = instrument.descriptor().figures;
        figures
            .iter()
            .copied()
            .find(|f| f.history() == Some(self))
            .unwrap_or(figures[0])
    }
}

/// Where the run record keeps the figure of an instrument that has no typed field of its own:
/// [`Counters::figures`], by the instrument's name.
impl Counters {
    /// Stores `value` as the figure of `instrument`.
    pub fn set(&mut self, instrument: Instrument, value: impl Into<FigureValue>) {
        self.figures
            .insert(instrument.name().to_string(), value.into());
    }

    /// The figure `instrument` stored, if any.
    pub fn figure(&self, instrument: Instrument) -> Option<FigureValue> {
        self.figures.get(instrument.name()).copied()
    }
}

/// Which instruments are done with a result: what the registry owes to the record. Here rather
/// than beside the record's types, so that the record knows nothing of the registry.
impl ScenarioResult {
    /// Whether this result has a figure of instrument `inst` (by its `run.json` name): the one
    /// answer every reader takes (completion, unfinished runs, interrupted runs).
    pub fn has_figure(&self, inst: &str) -> bool {
        // Each instrument's slice says; an instrument without a typed field keeps its one
        // number in `figures` under its name (docs/extending.md).
        match Instrument::from_name(inst).and_then(|i| i.slice().has_figure) {
            Some(has) => has(self),
            None => self.counters.figures.contains_key(inst),
        }
    }

    /// Whether instrument `inst` (by its `run.json` name) measures this row: a row under load
    /// (`SCENARIO@Nc`, [`ScenarioResult::clients`]) the instruments under load only, every
    /// other row every other instrument.
    pub fn measured_by(&self, inst: &str) -> bool {
        under_load(inst) == self.clients.is_some()
    }

    /// Whether instrument `inst` is done with this result: it gave a figure or a failure.
    pub fn settled_for(&self, inst: &str) -> bool {
        self.has_figure(inst) || self.failures.iter().any(|f| f.instrument == inst)
    }
}

impl RunRecord {
    /// (scenarios finished, scenarios of the run): a scenario is finished when, for every party,
    /// every instrument of the run (the census aside, which rides on icount) gave a figure or a
    /// failure. What an interrupted run reports as kept.
    pub fn finished_scenarios(&self) -> (usize, usize) {
        let mut scenarios: std::collections::BTreeMap<&str, bool> = Default::default();
        for r in &self.results {
            let done = self
                .settings
                .instruments
                .iter()
                .filter(|i| r.measured_by(i))
                .all(|inst| r.settled_for(inst));
            *scenarios.entry(r.scenario.as_str()).or_insert(true) &= done;
        }
        (scenarios.values().filter(|d| **d).count(), scenarios.len())
    }

    /// The first instrument of this run that measures under load, by name, if any.
    pub fn under_load(&self) -> Option<&str> {
        self.settings
            .instruments
            .iter()
            .map(String::as_str)
            .find(|i| under_load(i))
    }
}

/// Whether the instrument named `inst` measures under load (an unknown name does not).
fn under_load(inst: &str) -> bool {
    Instrument::from_name(inst).is_some_and(Instrument::under_load)
}

/// A set of instruments, as asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct InstrumentSet(u16);

impl InstrumentSet {
    /// No instrument.
    pub const NONE: InstrumentSet = InstrumentSet(0);

    /// Every instrument (`--instrument all`).
    pub const ALL: InstrumentSet = InstrumentSet((1 << Instrument::ALL.len()) - 1);

    /// The set of one instrument.
    pub const fn of(i: Instrument) -> InstrumentSet {
        InstrumentSet(1 << i as u16)
    }

    /// This set and `i`.
    #[must_use]
    pub const fn with(self, i: Instrument) -> InstrumentSet {
        InstrumentSet(self.0 | InstrumentSet::of(i).0)
    }

    /// This set without `i`.
    #[must_use]
    pub const fn without(self, i: Instrument) -> InstrumentSet {
        InstrumentSet(self.0 & !InstrumentSet::of(i).0)
    }

    /// The instruments of either set.
    #[must_use]
    pub const fn union(self, other: InstrumentSet) -> InstrumentSet {
        InstrumentSet(self.0 | other.0)
    }

    /// Whether `i` was asked for.
    pub const fn asked(self, i: Instrument) -> bool {
        self.0 & InstrumentSet::of(i).0 != 0
    }

    /// Whether `i` runs: asked for, or (the icount run) carrying the census.
    pub fn runs(self, i: Instrument) -> bool {
        self.asked(i) || (i == Instrument::Icount && self.asked(Instrument::Census))
    }

    /// What runs, in the order it runs ([`Instrument::RUN_ORDER`]).
    pub fn running(self) -> Vec<Instrument> {
        Instrument::RUN_ORDER
            .into_iter()
            .filter(|i| self.runs(*i))
            .collect()
    }

    /// Names of the instruments that run, in the order they run.
    pub fn names(self) -> Vec<&'static str> {
        self.running().into_iter().map(Instrument::name).collect()
    }

    /// The instruments that run and need valgrind: without it these are skipped and the others
    /// still run. The census comes first, then the others in run order: the order a warning
    /// names them in and of their entries in a record's `skipped`, as records have always had it.
    pub fn valgrind(self) -> Vec<&'static str> {
        let census = self.runs(Instrument::Census).then_some(Instrument::Census);
        census
            .into_iter()
            .chain(
                self.running()
                    .into_iter()
                    .filter(|i| *i != Instrument::Census && i.needs(Need::Valgrind)),
            )
            .map(Instrument::name)
            .collect()
    }
}

impl FromIterator<Instrument> for InstrumentSet {
    fn from_iter<T: IntoIterator<Item = Instrument>>(iter: T) -> Self {
        iter.into_iter()
            .fold(InstrumentSet::NONE, InstrumentSet::with)
    }
}

#[cfg(test)]
mod tests;
