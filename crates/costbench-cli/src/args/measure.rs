//! The arguments of the measuring commands (`run`, `variants`, and `check`'s measuring half):
//! which bench target and how cargo builds it, what to measure and how, throughput load, build
//! variants and interleaved rounds, with the value enums clap spells for the measuring crate.
//! Definitions only: validating them is `options`'.

use super::HistoryArgs;
use crate::output::formats;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::ValueEnum;
use costbench_record::instrument::{Instrument, InstrumentSet};
use costbench_report::render::Format;
use std::path::PathBuf;

/// The arguments of `costbench run` and `costbench variants`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// What to build and how to measure it.
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// List the selected scenarios (name, ops, unit, parties) and exit without measuring.
    #[arg(long)]
    pub list: bool,
    /// Output format on stdout.
    #[arg(long, value_parser = formats::parser(formats::RUN), default_value = "table")]
    pub format: Format,
    /// Also write report.html (the HTML report of `costbench report`) into the output
    /// directory, with changes against the previous run of the same variant and branch in
    /// history, and history charts.
    #[arg(long, conflicts_with = "list")]
    pub html: bool,
    /// The build variants: with any given, `run` measures them as `variants` does.
    #[command(flatten)]
    pub variants: VariantArgs,
}

/// What to build and how to measure it: shared by `run` and `check`.
#[derive(Debug, clap::Args)]
pub struct MeasureArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Run only scenarios whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Instruments to run, comma-separated (or the option repeated); `census,walltime` gives
    /// checks/op next to time/op.
    #[arg(
        long,
        value_parser = instrument_values(),
        value_delimiter = ',',
        default_value = "icount,walltime"
    )]
    pub instrument: Vec<InstrumentSet>,
    /// Directory for results [default: TARGET_DIR/costbench/results].
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Measuring processes (callgrind children) to run at once [default: number of cores].
    /// Wall time always runs one scenario at a time. (`-j/--jobs` used to mean this; it now
    /// means cargo's build jobs, as in every cargo command.)
    #[arg(long, value_name = "N")]
    pub measure_jobs: Option<usize>,
    /// Wall-time samples per scenario (each a batch of iterations). When given, exactly this
    /// many are taken; by default 100, fewer if a scenario would take over 5 s.
    #[arg(long, value_name = "N")]
    pub iterations_per_scenario: Option<u32>,
    /// Seconds after which a scenario's child process is killed and the scenario reported failed.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub timeout: u64,
    /// The CPU that wall-time children run on: `auto` picks the last CPU this process may use,
    /// a number picks that CPU, `any` leaves it to the scheduler. On one CPU, the builds of a
    /// paired comparison take turns on the same core and share its speed; the CPUs of a virtual
    /// machine can change speed independently, by up to 2x for seconds at a time.
    #[arg(long, value_name = "CPU|auto|any", default_value = "auto")]
    pub walltime_cpu: String,
    /// Function alignment of every build: `64` starts each function (and each block that
    /// nothing falls into) on a cache line, so that code moved by an unrelated change does not
    /// move the code measured within its cache lines (never-executed padding: instruction counts
    /// are unchanged); `off` builds as rustc does.
    #[arg(long, value_enum, value_name = "64|off", default_value = "64")]
    pub code_align: CodeAlignArg,
    /// Print only errors (no progress, no table).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Under instruction counting, let getrandom return real random bytes. By default
    /// costbench preloads a shim that makes it return a fixed sequence, so that std's HashMap
    /// seeds (and anything else seeded from getrandom, the libc wrapper or `syscall()`: ring's
    /// keys and nonces too) repeat and counts are identical run to run.
    #[arg(long)]
    pub real_random: bool,
    /// Measure only shard K of N (1-based: 1/3, 2/3, 3/3), for a CI matrix of N jobs: every
    /// job computes the same stable partition of the selected scenarios (with variants, of the
    /// variant × scenario cells), balanced by their cost in history (--db) where there is one,
    /// by count otherwise, and records it in run.json; `costbench merge` joins the shards.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    #[command(flatten)]
    pub(crate) load: LoadArgs,
    #[command(flatten)]
    pub(crate) history: HistoryArgs,
}

/// `--instrument`'s values: the registry's instruments in its order, then `all`; each value
/// is the set it asks for, and the sets of a list are joined.
fn instrument_values() -> impl clap::builder::TypedValueParser<Value = InstrumentSet> {
    let values = Instrument::ALL
        .into_iter()
        .map(|i| PossibleValue::new(i.name()).help(i.descriptor().help))
        .chain([PossibleValue::new("all").help("Every instrument above")]);
    PossibleValuesParser::new(values)
        .map(|name| Instrument::from_name(&name).map_or(InstrumentSet::ALL, InstrumentSet::of))
}

/// Which bench target, and how cargo builds it: shared by every command that builds one. The
/// options are cargo's own, under the headings cargo's `--help` gives them.
#[derive(Debug, clap::Args)]
pub struct TargetArgs {
    /// Package that has the bench target, when several do.
    #[arg(
        long,
        short = 'p',
        value_name = "SPEC",
        help_heading = "Package Selection"
    )]
    pub package: Option<String>,
    /// Bench target (harness = false, main calls `costbench::Suite::main`, or criterion's or
    /// divan's benches through costbench-criterion and costbench-divan); repeat it for several.
    /// Without it: `run.bench` from costbench.toml (a name or a list), or every bench target of
    /// the package that depends on costbench, as `cargo bench` runs them all (`run`, `check`,
    /// `variants`, `advise` and `history backfill` measure them in one run per build, an id two
    /// targets share named `TARGET/ID`; `census` and `miri` go through each; `bisect` takes the
    /// one that offers the scenario --filter selects; `asm` takes one target).
    #[arg(long, value_name = "NAME", help_heading = "Target Selection")]
    pub bench: Vec<String>,
    // After package and target selection and cargo's flags, so that the headings come in
    // cargo's order (clap orders them by first use).
    #[command(flatten)]
    pub(crate) cargo: CargoArgs,
    /// Cargo.toml of the crate or workspace that has the bench target [default: the nearest
    /// Cargo.toml at or above the current directory].
    #[arg(long, value_name = "PATH", help_heading = "Manifest Options")]
    pub manifest_path: Option<PathBuf>,
}

/// Cargo's feature selection, profile and lock-file flags, passed to every cargo command
/// costbench runs for the bench target (`cargo metadata`, the build, `cargo miri`), with
/// cargo's meaning. The build directory stays costbench's own (`TARGET/costbench/build/...`,
/// under `CARGO_TARGET_DIR` or the workspace's target directory).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CargoArgs {
    /// Space or comma separated list of features to activate (repeatable); `DEP/FEAT` for a
    /// dependency's. With variants, added to every variant's own features.
    #[arg(
        long,
        short = 'F',
        value_name = "FEATURES",
        help_heading = "Feature Selection"
    )]
    pub features: Vec<String>,
    /// Activate all available features of the bench target's package.
    #[arg(long, help_heading = "Feature Selection")]
    pub all_features: bool,
    /// Do not activate the `default` feature of the bench target's package.
    #[arg(long, help_heading = "Feature Selection")]
    pub no_default_features: bool,
    /// Build with this cargo profile [default: bench, which inherits release; `miri`: the test
    /// profile]. costbench forces line tables on (debug = "line-tables-only") and strip off in
    /// it, so that callgrind and the census can name source lines.
    #[arg(
        long,
        value_name = "PROFILE-NAME",
        help_heading = "Compilation Options"
    )]
    pub profile: Option<String>,
    /// Number of parallel jobs for cargo's build, passed to cargo as its own `-j` [default:
    /// cargo's, the number of CPUs]. How many measuring processes run at once is
    /// --measure-jobs.
    #[arg(
        long,
        short = 'j',
        value_name = "N",
        allow_negative_numbers = true,
        help_heading = "Compilation Options"
    )]
    pub jobs: Option<i32>,
    /// Assert that `Cargo.lock` will remain unchanged.
    #[arg(long, help_heading = "Manifest Options")]
    pub locked: bool,
    /// Run without accessing the network.
    #[arg(long, help_heading = "Manifest Options")]
    pub offline: bool,
    /// Equivalent to specifying both --locked and --offline.
    #[arg(long, help_heading = "Manifest Options")]
    pub frozen: bool,
}

/// How `--instrument throughput` loads service scenarios.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Throughput (service scenarios under load)")]
pub struct LoadArgs {
    /// Concurrent clients, one connection each (comma-separated: one row per number).
    #[arg(long, value_name = "N,...", value_delimiter = ',', default_value = "4")]
    pub clients: Vec<u32>,
    /// Open loop: requests are due at this many ops per second over all clients, and each
    /// latency runs from when its request was due (coordinated omission corrected). Without it
    /// the load is a closed loop: each client sends its next request when the last reply came.
    #[arg(long, value_name = "OPS")]
    pub rate: Option<f64>,
    /// Rounds per build, each a fresh server and load process: the repeat intervals come from
    /// their spread (at least 3 give one), and comparisons of builds pair them (at least 8 are
    /// needed for a verdict).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub load_rounds: u32,
    /// Measured time slices per round (with several builds, the builds take turns slice by
    /// slice).
    #[arg(long, value_name = "N", default_value_t = 40)]
    pub slices: u32,
    /// Length of one slice: short, so that the builds take turns faster than the machine's
    /// speed drifts (on a 2-vCPU virtual machine, slices of 250 ms differed by up to 20 %
    /// between neighbours; of 25 ms, rounds of 40 agreed within 2 %).
    #[arg(long, value_name = "MS", default_value_t = 25)]
    pub slice_ms: u64,
    /// Unmeasured load before each round's first slice.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub load_warmup_ms: u64,
}

/// The build variants to measure, and how their builds take turns.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Build variants")]
pub struct VariantArgs {
    /// Build and measure this variant (repeatable, after a preset's; the first of all is the
    /// baseline): NAME for a
    /// [variants.NAME] of costbench.toml, 'NAME:' for the plain bench profile, or
    /// 'NAME:KEY=VALUE,...' with keys overflow-checks, debug-assertions, codegen-units, lto,
    /// opt-level, panic, incremental, debug, features (-NAME turns a default off),
    /// no-default-features, rustflags, allocator (system|mimalloc|jemalloc), toolchain. Quote a
    /// value that holds commas: rustflags='-C target-feature=+avx2,+fma'.
    #[arg(long = "variant", value_name = "SPEC")]
    pub variant: Vec<String>,
    /// A built-in set of variants, measured before any --variant: build-choices (alias
    /// safety-tax): release against overflow-checks, debug-assertions, codegen-units=1,
    /// lto=fat, panic=abort, mimalloc and target-cpu=native (less SSE4a and AVX-512, which
    /// valgrind cannot run), one at a time; advice: build-choices and lto=thin, opt-level=2
    /// and jemalloc (the choices `costbench advise` measures).
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// The variant the others are compared with [default: the first]. (`check --baseline`
    /// names a baseline run; `--baseline` here is an old spelling of this option.)
    #[arg(long, value_name = "NAME", alias = "baseline")]
    pub baseline_variant: Option<String>,
    /// Variant builds to run at once, each a cargo build of its own (each of which also runs
    /// -j/--jobs compiler jobs, by default one per core).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub parallel_builds: usize,
    /// The old spelling of --parallel-builds (easy to confuse with -j/--jobs): still accepted,
    /// with a note.
    #[arg(
        long,
        value_name = "N",
        hide = true,
        conflicts_with = "parallel_builds"
    )]
    pub build_jobs: Option<usize>,
    #[command(flatten)]
    pub(crate) rounds: RoundsArgs,
    /// Each scenario whose instruction count differs from the baseline variant's beyond the
    /// icount threshold (0.2 %) runs K more times under callgrind on every variant, with the heap
    /// and stack it starts from shifted (the child's --perturb 1..=K); a difference within that
    /// spread is reported as placement. 0 turns this off.
    #[arg(long, value_name = "K", default_value_t = costbench_measure::instrument::icount::placement::DEFAULT_PLACEMENT_RUNS)]
    pub placement_runs: u32,
}

/// Interleaved wall-time rounds of several builds measured together (`check --baseline-rev`,
/// variants).
#[derive(Debug, Clone, clap::Args)]
pub struct RoundsArgs {
    /// Interleaved wall-time rounds per scenario before the first look (each round: one short
    /// process per build, in alternating order, 10 samples after 50 ms of warm-up), so that the
    /// machine's drift hits every build alike. With two or more builds this replaces
    /// --iterations-per-scenario.
    #[arg(long, value_name = "N", default_value_t = costbench_measure::run::adaptive::DEFAULT_FIRST_LOOK)]
    pub rounds: u32,
    /// Rounds at most: a scenario whose paired interval still straddles the threshold after
    /// --rounds gets more rounds, up to this many, while --walltime-budget lasts. Equal to
    /// --rounds for a fixed number.
    #[arg(long, value_name = "M", default_value_t = costbench_measure::run::adaptive::DEFAULT_MAX_ROUNDS)]
    pub max_rounds: u32,
    /// Seconds the rounds beyond --rounds may take in all, over every scenario. A shard
    /// (--shard K/N) gets its share, in proportion to the scenarios and variants it measures.
    #[arg(long, value_name = "SECS", default_value_t = costbench_measure::run::adaptive::DEFAULT_BUDGET_SECS)]
    pub walltime_budget: u64,
    /// The code layout each round of each build runs, so that where the linker put a hot loop is
    /// part of the spread, not a bias of one build: `shift` moves all code by a seed-chosen
    /// multiple of 16 bytes (as a pull request moves the code after its edit), `shuffle` puts
    /// every section in a random order (lld's --shuffle-sections: a far larger change), `off`
    /// runs the build as cargo linked it.
    #[arg(long, value_enum, value_name = "MODE", default_value = "shift")]
    pub layouts: LayoutArg,
}

/// `--code-align`'s values (the measuring crate's `cargo::CodeAlign` knows nothing of clap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CodeAlignArg {
    /// On 64-byte (cache-line) boundaries: a function that did not change then sits the same
    /// way in every cache line and fetch block, however much code before it moved. The padding
    /// is never executed, so instruction counts are those of a plain build.
    #[value(name = "64")]
    CacheLine,
    /// As rustc and LLVM place them (functions on 16 bytes).
    Off,
}

impl From<CodeAlignArg> for costbench_measure::cargo::CodeAlign {
    fn from(arg: CodeAlignArg) -> Self {
        match arg {
            CodeAlignArg::CacheLine => Self::CacheLine,
            CodeAlignArg::Off => Self::Off,
        }
    }
}

/// `--layouts`' values (the measuring crate's `run::layout::LayoutMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// Every function moved by the same seed-chosen multiple of 16 bytes (a padding section in
    /// front of the code): the alignment changes a pull request causes downstream of its edit.
    Shift,
    /// Every input section in a seed-chosen random order (lld's `--shuffle-sections`).
    Shuffle,
    /// Every round runs the build as cargo linked it.
    Off,
}

impl From<LayoutArg> for costbench_measure::run::layout::LayoutMode {
    fn from(arg: LayoutArg) -> Self {
        match arg {
            LayoutArg::Shift => Self::Shift,
            LayoutArg::Shuffle => Self::Shuffle,
            LayoutArg::Off => Self::Off,
        }
    }
}
