//! The clap definitions of every command and option: the low-level arguments exactly as the
//! user typed them, and the `--help` text (documentation too). Nothing here validates values
//! or does work: `options` turns these into plain validated options, and `commands` runs them.

use crate::output::formats;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand, ValueEnum};
use costbench_record::history::Metric;
use costbench_record::instrument::{Instrument, InstrumentSet};
use costbench_record::render::Format;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Exit codes:
  0  everything asked for ran and was written (check: and the gate passed)
  1  a scenario failed or an error stopped the run (the message says which)
  2  the command line was wrong
  3  check: a significant regression, or a figure above a hard limit of costbench.toml
  130, 143  interrupted by Ctrl-C (SIGINT) or SIGTERM; what finished is kept";

/// Measure what Rust code costs per operation: exact instruction counts (callgrind) and wall
/// time, for scenarios written with the `costbench` library.
#[derive(Debug, Parser)]
#[command(name = "costbench", version, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Coloring: auto, always, never [default: CARGO_TERM_COLOR, else auto; auto colours a
    /// terminal unless NO_COLOR is set]. Given to cargo too.
    #[arg(long, global = true, value_enum, value_name = "WHEN")]
    pub color: Option<crate::terminal::ColorWhen>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build a bench target and measure its scenarios.
    ///
    /// Every scenario runs in its own child process: under callgrind with collection switched on
    /// only around the measured body (icount, and cache with its simulations), under DHAT
    /// (dhat), natively with counters read around the body (memory, perf), and in a fresh
    /// process for wall time. Results go to the output directory (icounts.csv, walltime.csv,
    /// counters.csv, memory.csv, throughput.csv, run.json, callgrind/*.out,
    /// callgrind-cache/*.out, dhat/*.json, and report.html with --html) and tables go to stdout.
    Run(RunArgs),
    /// Build the bench target once per variant and print the matrix of per-op costs.
    ///
    /// A variant changes profile keys, cargo features, rustflags, the global allocator or the
    /// toolchain: --variant 'NAME:KEY=VALUE,...', a [variants.NAME] table in costbench.toml, or
    /// --preset build-choices. Each builds into its own target directory; all are measured in one
    /// session; each run is recorded in history under its variant name; the matrix shows each
    /// variant's per-op figure and its ratio to the baseline (the first variant, or --baseline).
    /// Same options as `run`. Without --variant or --preset: every variant in costbench.toml.
    Variants(RunArgs),
    /// List recorded runs, or one scenario's series of per-op figures over them.
    History(HistoryCmd),
    /// Compare two runs (output directories or run ids from history), per op.
    ///
    /// Instruction counts: a change beyond the threshold (default 0.2 %) is significant. Two
    /// runs measured together in interleaved rounds (the sides of `check --baseline-rev`, build
    /// variants) are judged paired: a signed-rank interval of the rounds, at the rate Holm's
    /// procedure gives the row (family error 0.05 over all paired rows), beyond 3 % is a
    /// change, inside 3 % unchanged, straddling 3 % unresolved. Wall time of two separate runs
    /// is unresolved unless --history-branch gives a threshold from the noise between runs. A
    /// wall-time change with unchanged instruction counts is reported as placement, not as a
    /// regression.
    Compare(CompareCmd),
    /// Record an existing output directory in the history: a costbench one (run.json), or
    /// rustls ci-bench's (icounts.csv and walltime.csv or walltimes.csv).
    Import(ImportCmd),
    /// Print a run (directory or run id) in another format.
    Export(ExportCmd),
    /// List the bounds and overflow checks that survived optimisation in a binary.
    ///
    /// Builds the bench target as `run` does (or reads --binary, any x86-64 ELF binary with
    /// symbols; line tables make it name source lines) and finds every guard: a conditional
    /// branch whose failing side only panics. Prints totals per kind, per crate and per
    /// function, and each guard with its source line and inline chain. `costbench run
    /// --instrument census` counts how many of them execute per op.
    Census(CensusCmd),
    /// The CI gate: compare a candidate with a baseline and exit 3 on a significant regression.
    ///
    /// The candidate is measured now from the working tree (or given with --candidate). The
    /// baseline is an existing run (--baseline: a directory, a run id, or branch:NAME for the
    /// latest run of that branch in history, whose history then also sets the thresholds), or a
    /// git revision (--baseline-rev) that is built from a worktree and measured together with the
    /// candidate, wall time in interleaved rounds and judged paired, so the machine's drift
    /// between minutes cancels. Limits and ignores come from [check] in costbench.toml.
    ///
    /// Only regressions and hard limits fail the check. Rows the comparison could not resolve,
    /// and placement effects (the same instructions, the time moved), are listed as notes; wall
    /// time of separate runs without history is never judged.
    ///
    /// In GitHub Actions the markdown report is appended to the job summary and the violations
    /// become annotations (--github); --junit writes JUnit XML for other CI systems.
    Check(CheckCmd),
    /// Write one self-contained HTML report of runs: per-op figures, changes, distributions,
    /// variants and history.
    ///
    /// The page needs no network (inline CSS and SVG charts, a few lines of inline JavaScript to
    /// sort tables). With two or more runs of the same variant, the first is the baseline and the
    /// last the candidate, and significant changes are coloured; runs of different variants are
    /// shown as a heat map of ratios to the first variant. History charts (per scenario and
    /// metric, with the significance band and the runs that crossed it) come from the history
    /// database whenever it exists.
    Report(ReportCmd),
    /// Check the unsafe side of every trade under Miri (needs nightly with miri and rust-src).
    ///
    /// Builds the bench target with `cargo +nightly miri` and runs each selected scenario's
    /// setup and one run of its body in a Miri process of its own (multi-party scenarios: their
    /// parties as threads over in-memory links), reporting per scenario: clean, undefined
    /// behaviour (Miri's message, location, notes and backtrace), not runnable under Miri (foreign
    /// calls, process spawning, file access under isolation, inline assembly), or failed.
    /// Scenarios size their inputs for Miri with costbench::miri_size. Exit 1 when undefined
    /// behaviour is found, a scenario fails, or Miri is not installed; not-runnable scenarios do
    /// not fail the command. MIRIFLAGS is passed through; COSTBENCH_MIRI_TOOLCHAIN picks another
    /// toolchain than nightly.
    Miri(MiriCmd),
    /// Join the output directories of the shards of one sharded run (`--shard K/N`) into one run.
    ///
    /// The merged directory has the same files as an unsharded run (run.json, icounts.csv,
    /// walltime.csv, counters.csv, memory.csv, throughput.csv, callgrind/, callgrind-cache/,
    /// dhat/) and is an ordinary run for compare, check, history and report; run.json keeps which
    /// shard and machine measured each row, and wall time measured on different machines is never
    /// compared. Refuses shards of different commits, toolchains, suites, variants, settings,
    /// instruments, shard counts or partitions, a missing or duplicated shard, and a scenario
    /// measured twice. Records the merged run in history unless --no-history.
    ///
    /// Given the output roots of a sharded `variants` session (each holding a matrix.json),
    /// joins them into one root with every variant's run and the whole matrix, printed as
    /// `variants` prints it. Where every shard measured the baseline (wall time, load or
    /// hardware counters ran), each variant is compared with its own shard's baseline; the
    /// others' runs are kept as NAME@K.
    Merge(MergeCmd),
}

#[derive(Debug, clap::Args)]
pub struct MergeCmd {
    /// The shards' output directories (each holding a run.json written with --shard K/N), or
    /// the output roots of a sharded `variants` session (each holding a matrix.json).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Directory for the merged run, or root for the merged variants [default:
    /// TARGET_DIR/costbench/merged].
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// How to print merged variants: a table, markdown, or the matrix as JSON.
    #[arg(long, value_parser = formats::parser(formats::RUN), default_value = "table")]
    pub format: Format,
    /// Cargo.toml whose target directory holds the default output and database [default: the
    /// nearest Cargo.toml at or above the current directory].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Print only errors.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub history: HistoryArgs,
}

#[derive(Debug, clap::Args)]
pub struct ReportCmd {
    /// Runs: output directories (or their run.json) or run ids from history. Without any: the
    /// newest run in history and the previous run of its variant and branch.
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    /// The HTML file to write.
    #[arg(long, short = 'o', value_name = "FILE", default_value = "report.html")]
    pub output: PathBuf,
    /// Require the history charts: fail when there is no history database (by default they are
    /// added whenever it exists).
    #[arg(long, conflicts_with = "no_history")]
    pub history: bool,
    /// Leave the history charts out.
    #[arg(long)]
    pub no_history: bool,
    /// Runs of history per chart (the newest).
    #[arg(long, value_name = "N", default_value_t = crate::output::html::DEFAULT_HISTORY_LIMIT)]
    pub history_limit: usize,
    /// History database: an SQLite file, or a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DB)
    /// [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "COSTBENCH_DB",
        hide_env_values = true
    )]
    pub db: Option<PathBuf>,
    /// Cargo.toml whose target directory holds the default database [default: the nearest
    /// Cargo.toml at or above the current directory].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct MiriCmd {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Check only scenarios whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Output format on stdout.
    #[arg(long, value_parser = formats::parser(formats::MIRI), default_value = "table")]
    pub format: Format,
    /// Seconds after which a scenario's Miri process is killed and the scenario reported failed.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub timeout: u64,
    /// Print only problems (undefined behaviour, failures) and errors.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Debug, clap::Args)]
pub struct CensusCmd {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Analyse this binary instead of building a bench target.
    #[arg(long, value_name = "PATH", conflicts_with_all = [
        "manifest_path", "package", "bench", "features", "all_features", "no_default_features",
        "profile", "locked", "offline", "frozen",
    ])]
    pub binary: Option<PathBuf>,
    /// Only guards in functions whose demangled name, or whose crate, matches this regular
    /// expression.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    #[arg(long, value_parser = formats::parser(formats::CENSUS), default_value = "table")]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct CheckCmd {
    /// Baseline run: an output directory (or its run.json), a run id from history, or
    /// branch:NAME for the newest run of that branch in history (of the same variant).
    #[arg(long, value_name = "SPEC", required_unless_present = "baseline_rev")]
    pub baseline: Option<String>,
    /// Build this git revision (commit, tag, branch) from a worktree and measure it together
    /// with the candidate: instruction counts for both, wall time in interleaved rounds.
    #[arg(long, value_name = "REV", conflicts_with_all = ["baseline", "candidate"])]
    pub baseline_rev: Option<String>,
    /// Candidate run (output directory, run.json or run id) instead of measuring the working tree.
    #[arg(long, value_name = "SPEC")]
    pub candidate: Option<String>,
    #[arg(long, value_parser = formats::parser(formats::COMPARE), default_value = "table")]
    pub format: Format,
    /// Also write the markdown report (for a pull-request comment) to this file.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write the result as JUnit XML to this file, for CI systems that read test reports:
    /// one testsuite per instrument, one testcase per scenario, a failure for each violation of
    /// the gate, skipped for unresolved rows.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// GitHub Actions output. auto: when GITHUB_ACTIONS=true, print ::error annotations for
    /// regressions, broken limits and failed scenarios and ::warning for unresolved rows (on
    /// stderr), and when GITHUB_STEP_SUMMARY is set, append the markdown report to that file.
    /// on: the annotations outside GitHub Actions too. off: neither.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub github: GithubArg,
    #[command(flatten)]
    pub significance: SignificanceArgs,
    #[command(flatten)]
    pub rounds: RoundsArgs,
    /// With --baseline-rev: each scenario whose instruction count changed beyond the icount
    /// threshold runs K more times under callgrind on both sides, with the heap and stack it
    /// starts from shifted (the child's --perturb 1..=K). A change within the spread those
    /// placements show is reported as "placement", not gated. 0 turns this off.
    #[arg(long, value_name = "K", default_value_t = costbench_measure::run::placement::DEFAULT_PLACEMENT_RUNS)]
    pub placement_runs: u32,
    /// Runs of history to learn thresholds from (with --baseline branch:NAME).
    #[arg(long, value_name = "N", default_value_t = costbench_judge::compare::noise::DEFAULT_WINDOW)]
    pub history_window: usize,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// How `compare` and `check` decide significance.
#[derive(Debug, clap::Args)]
pub struct SignificanceArgs {
    /// Threshold for instruction counts, in percent.
    #[arg(long, value_name = "PCT", default_value_t = costbench_judge::compare::DEFAULT_ICOUNT_THRESHOLD_PCT)]
    pub icount_threshold: f64,
    /// Threshold for wall time of two separate runs, in percent.
    #[arg(long, value_name = "PCT", default_value_t = costbench_judge::compare::DEFAULT_WALLTIME_THRESHOLD_PCT)]
    pub walltime_threshold: f64,
    /// Threshold for wall time of two runs measured together in interleaved rounds (the sides
    /// of `check --baseline-rev`, build variants), judged paired, in percent.
    #[arg(long, value_name = "PCT", default_value_t = costbench_judge::compare::DEFAULT_PAIRED_WALLTIME_THRESHOLD_PCT)]
    pub paired_walltime_threshold: f64,
    /// Threshold for throughput and p99 latency under load of builds measured together
    /// (`--instrument throughput`), judged paired round by round, in percent.
    #[arg(long, value_name = "PCT", default_value_t = costbench_judge::compare::DEFAULT_LOAD_THRESHOLD_PCT)]
    pub load_threshold: f64,
    /// Confidence level of the bootstrap interval of two separate runs' wall time, in (0, 1).
    #[arg(long, value_name = "LEVEL", default_value_t = costbench_judge::compare::DEFAULT_CONFIDENCE)]
    pub confidence: f64,
    /// Confidence level of each paired interval (runs measured together in rounds) with
    /// --error-control none, in (0, 1).
    #[arg(long, value_name = "LEVEL", default_value_t = costbench_judge::compare::DEFAULT_PAIRED_CONFIDENCE)]
    pub paired_confidence: f64,
    /// How the paired wall-time rows of one comparison share its error rate: holm (the chance
    /// that any unchanged row is flagged is at most --family-error), fdr (the expected share of
    /// false alarms among flagged rows is at most --family-error), none (each row alone at
    /// --paired-confidence).
    #[arg(long, value_enum, value_name = "METHOD", default_value = "holm")]
    pub error_control: ErrorControlArg,
    /// The family error rate of --error-control holm or fdr, in (0, 1).
    #[arg(long, value_name = "RATE", default_value_t = costbench_judge::compare::DEFAULT_FAMILY_ALPHA)]
    pub family_error: f64,
}

/// `--error-control`: [`ErrorControl`](costbench_judge::compare::family::ErrorControl) as clap spells it
/// (the judging crate knows nothing of the command line). The variants' comments are the help
/// text of the possible values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ErrorControlArg {
    /// Holm's step-down: the chance that a check flags any unchanged row is at most the
    /// family error rate, whatever the rows' dependence.
    Holm,
    /// Benjamini–Hochberg: the expected share of flagged rows that are false is at most the
    /// family error rate (for independent or positively dependent rows); with no real change the
    /// same guarantee as Holm, more power when several rows change.
    Fdr,
    /// Every row at its own confidence level, as if it were the only one.
    None,
}

impl From<ErrorControlArg> for costbench_judge::compare::family::ErrorControl {
    fn from(arg: ErrorControlArg) -> Self {
        match arg {
            ErrorControlArg::Holm => Self::Holm,
            ErrorControlArg::Fdr => Self::Fdr,
            ErrorControlArg::None => Self::None,
        }
    }
}

/// `check --github`: when to speak GitHub Actions' language. The variants' comments are the help
/// text of the possible values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GithubArg {
    /// Annotations when GITHUB_ACTIONS=true; the job summary when GITHUB_STEP_SUMMARY is set.
    Auto,
    /// Annotations wherever check runs; the job summary when GITHUB_STEP_SUMMARY is set.
    On,
    /// Neither annotations nor the job summary (for example in the jobs of a sharded check whose
    /// merged check reports).
    Off,
}

#[derive(Debug, clap::Args)]
pub struct CompareCmd {
    /// Baseline: an output directory (or its run.json), or a run id from history.
    pub base: String,
    /// Candidate: an output directory (or its run.json), or a run id from history.
    pub cand: String,
    #[arg(long, value_parser = formats::parser(formats::COMPARE), default_value = "table")]
    pub format: Format,
    /// Also write the comparison as JUnit XML to this file: one testsuite per instrument, one
    /// testcase per scenario, a failure for each significant regression, skipped for unresolved
    /// rows.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    #[command(flatten)]
    pub significance: SignificanceArgs,
    /// Take each scenario's threshold from the history of this branch: Q3 + 3·IQR of the
    /// relative changes between its consecutive runs (at least 10 changes; floors 0.01 % for
    /// instruction counts, 1 % for wall time). Scenarios with less history keep the defaults.
    #[arg(long, value_name = "BRANCH")]
    pub history_branch: Option<String>,
    /// Runs of history to learn thresholds from.
    #[arg(long, value_name = "N", default_value_t = costbench_judge::compare::noise::DEFAULT_WINDOW)]
    pub history_window: usize,
    /// History database for run ids: an SQLite file, or a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DB)
    /// [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "COSTBENCH_DB",
        hide_env_values = true
    )]
    pub db: Option<PathBuf>,
    /// Cargo.toml whose target directory holds the default database [default: the nearest
    /// Cargo.toml at or above the current directory].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ImportCmd {
    /// The directory to import.
    pub dir: PathBuf,
    /// Git commit the results belong to (for CSV imports, which do not say). With it, a CSV
    /// import's run id comes from the files and --commit/--branch/--variant, so importing the
    /// same files again (a retried CI job) records one run; without it every import is a run.
    #[arg(long)]
    pub commit: Option<String>,
    /// Git branch the results belong to (for CSV imports).
    #[arg(long)]
    pub branch: Option<String>,
    /// Variant name (for CSV imports) [default: default].
    #[arg(long)]
    pub variant: Option<String>,
    /// History database: an SQLite file, or a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DB)
    /// [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "COSTBENCH_DB",
        hide_env_values = true
    )]
    pub db: Option<PathBuf>,
    /// Cargo.toml whose target directory holds the default database [default: the nearest
    /// Cargo.toml at or above the current directory].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ExportCmd {
    /// An output directory (or its run.json), or a run id from history.
    pub run: String,
    #[arg(long, value_parser = formats::parser(formats::EXPORT), default_value = "json")]
    pub format: Format,
    /// History database for run ids: an SQLite file, or a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DB)
    /// [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "COSTBENCH_DB",
        hide_env_values = true
    )]
    pub db: Option<PathBuf>,
    /// Cargo.toml whose target directory holds the default database [default: the nearest
    /// Cargo.toml at or above the current directory].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

/// `--metric`'s values: the history's metrics, as the record crate lists them.
fn metric_values() -> impl clap::builder::TypedValueParser<Value = Metric> {
    let values = Metric::ALL
        .into_iter()
        .map(|m| PossibleValue::new(m.arg()).help(m.help()));
    PossibleValuesParser::new(values)
        .map(|arg| Metric::from_arg(&arg).expect("clap admits only the metrics' values"))
}

#[derive(Debug, clap::Args)]
pub struct HistoryCmd {
    /// Cargo.toml whose target directory holds the default database [default: the nearest
    /// Cargo.toml at or above the current directory].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// History database: an SQLite file, or a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DB)
    /// [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "COSTBENCH_DB",
        hide_env_values = true
    )]
    pub db: Option<PathBuf>,
    /// Only runs of this git branch.
    #[arg(long)]
    pub branch: Option<String>,
    /// Only runs of this variant.
    #[arg(long)]
    pub variant: Option<String>,
    /// At most this many runs (the newest).
    #[arg(long, default_value_t = 30)]
    pub limit: usize,
    /// Show this scenario's (or party's) series instead of the list of runs.
    #[arg(long, value_name = "ID")]
    pub scenario: Option<String>,
    /// Metric of the series.
    #[arg(long, value_parser = metric_values(), default_value = "icount")]
    pub metric: Metric,
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

#[derive(Debug, clap::Args)]
pub struct RunArgs {
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
    #[command(flatten)]
    pub variants: VariantArgs,
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
    /// Bench target (harness = false, main calls `costbench::Suite::main`). Without it:
    /// `run.bench` from costbench.toml, or the only bench target that depends on costbench.
    #[arg(long, value_name = "NAME", help_heading = "Target Selection")]
    pub bench: Option<String>,
    // After package and target selection and cargo's flags, so that the headings come in
    // cargo's order (clap orders them by first use).
    #[command(flatten)]
    pub cargo: CargoArgs,
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

/// What to build and how to measure it: shared by `run` and `check`.
#[derive(Debug, clap::Args)]
pub struct MeasureArgs {
    #[command(flatten)]
    pub target: TargetArgs,
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
    /// Callgrind children to run at once [default: number of cores]. Wall time always runs one
    /// scenario at a time.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Wall-time samples per scenario (each a batch of iterations). When given, exactly this
    /// many are taken; by default 100, fewer if a scenario would take over 5 s.
    #[arg(long, value_name = "N")]
    pub iterations_per_scenario: Option<u32>,
    /// Seconds after which a scenario's child process is killed and the scenario reported failed.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub timeout: u64,
    /// The CPU that wall-time children run on: `auto` picks the last CPU this process may use,
    /// a number picks that CPU, `any` leaves it to the scheduler. On one CPU, the builds of a
    /// paired comparison take turns on the same core and share its speed; on the project's VM
    /// the two vCPUs changed speed independently, by up to 2x for seconds at a time.
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
    pub load: LoadArgs,
    #[command(flatten)]
    pub history: HistoryArgs,
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
    /// speed drifts (on this project's VM, slices of 250 ms differed by up to 20 % between
    /// neighbours; of 25 ms, rounds of 40 agreed within 2 %).
    #[arg(long, value_name = "MS", default_value_t = 25)]
    pub slice_ms: u64,
    /// Unmeasured load before each round's first slice.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub load_warmup_ms: u64,
}

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
    /// valgrind cannot run), one at a time.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// The variant the others are compared with [default: the first].
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Variant builds to run at once (each cargo build also uses every core).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub build_jobs: usize,
    #[command(flatten)]
    pub rounds: RoundsArgs,
    /// Each scenario whose instruction count differs from the baseline variant's beyond the
    /// icount threshold (0.2 %) runs K more times under callgrind on every variant, with the heap
    /// and stack it starts from shifted (the child's --perturb 1..=K); a difference within that
    /// spread is reported as placement. 0 turns this off.
    #[arg(long, value_name = "K", default_value_t = costbench_measure::run::placement::DEFAULT_PLACEMENT_RUNS)]
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

#[derive(Debug, Clone, clap::Args)]
pub struct HistoryArgs {
    /// History database: an SQLite file, or a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DB)
    /// [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "COSTBENCH_DB",
        hide_env_values = true
    )]
    pub db: Option<PathBuf>,
    /// Do not record this run in the history database.
    #[arg(long)]
    pub no_history: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
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
