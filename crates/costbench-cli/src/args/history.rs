//! The arguments of the commands over recorded runs (`history`, `import`, `export`, `report`,
//! `merge`) and where the history database is ([`DatabaseArgs`], [`HistoryArgs`]): one
//! definition of `--db` and `--manifest-path` that every such command flattens in. Definitions
//! only: finding the database is the command core's.

use crate::output::formats;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use costbench_record::history::Metric;
use costbench_report::render::Format;
use std::path::PathBuf;

/// Where the history database is, for the commands that read or write it without building the
/// bench target: `--db`, else the default under the target directory of `--manifest-path`.
#[derive(Debug, Clone, clap::Args)]
pub struct DatabaseArgs {
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

/// `--db`'s help where it is read for run ids (`compare`, `export`).
pub(super) const RUN_ID_DB_HELP: &str =
    "History database for run ids: an SQLite file, or a PostgreSQL URL \
(postgres://USER:PASSWORD@HOST/DB) [default: TARGET_DIR/costbench/history.sqlite]";

/// Where a measured or merged run is recorded.
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

#[derive(Debug, clap::Args)]
// `--manifest-path` before `--db`, as this command's help has always listed them.
/// The arguments of `costbench history`.
#[command(
    mut_arg("manifest_path", |a| a.display_order(0)),
    mut_arg("db", |a| a.display_order(1))
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryCmd {
    /// Watch a branch: measure its past, find where its series stepped, draw them.
    #[command(subcommand)]
    pub action: Option<HistoryAction>,
    #[command(flatten)]
    pub(crate) database: DatabaseArgs,
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

/// What `costbench history` does besides listing.
#[derive(Debug, clap::Subcommand)]
pub enum HistoryAction {
    /// Find every lasting step of every series (id × metric × machine × variant) of a branch,
    /// at the first commit that carries it, and each series' drift since a reference.
    ///
    /// Exact figures (instructions, allocations, bytes, binary size) step where a value leaves
    /// the one before by more than the harness residual and the next run keeps it; wall time,
    /// build time and RSS by a t-test change-point method (Hunter's, after E-Divisive). A step
    /// whose measured commits are not parent and child says so (`backfill --narrow` measures
    /// between them until they are). Each change is explained by the functions
    /// whose own cost moved, as `check` explains a pull request, where both runs' profiles
    /// were kept (backfilled runs keep them). Exit 3 when a change point after --since, or a
    /// drift over costbench.toml's budget, is not acknowledged in costbench.toml; 0 otherwise.
    Changes(ChangesCmd),
    /// Measure the commits of a range of the current branch and record each in the history
    /// with its commit, parent, position and author date.
    ///
    /// Follows the first-parent line (main as it was merged); --every K and --max-time sample it.
    /// One worktree is moved from commit to commit and builds start from `run`'s; a commit that
    /// changed none of the files a measured commit's build read is recorded with that commit's
    /// figures, marked carried over, without a build. A commit already recorded for the same
    /// machine, variant, instruments and filter is not measured again, so an interrupted backfill
    /// resumes where it stopped; a commit that does not build is recorded as such with the
    /// reason, and passed over. Bench targets on criterion or divan are switched to costbench's
    /// compatible crates in the worktree (the repository is not touched).
    Backfill(BackfillCmd),
    /// Write the history of a branch as a static site (one HTML file, no server, no network):
    /// a chart per series over commits, change points marked and explained, drift.
    Dashboard(DashboardCmd),
}

/// Which runs of the history change detection and the dashboard read, and how they judge them.
#[derive(Debug, Clone, clap::Args)]
pub struct ChangesArgs {
    /// Only runs of this branch [default: the branch checked out, if any; else every run].
    #[arg(long)]
    pub branch: Option<String>,
    /// Every branch's runs (by default only the checked-out branch's).
    #[arg(long, conflicts_with = "branch")]
    pub all_branches: bool,
    /// Only runs of this variant [default: every variant, each its own series].
    #[arg(long)]
    pub variant: Option<String>,
    /// Only series of this metric (repeatable) [default: every metric recorded].
    #[arg(long = "metric", value_name = "METRIC", value_parser = metric_values())]
    pub metrics: Vec<Metric>,
    /// Only scenarios (measured ids) whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Drift is measured from this revision (tag, branch, commit) or date (YYYY-MM-DD)
    /// [default: costbench.toml's `[history]` drift-reference, else the oldest run].
    #[arg(long, value_name = "REV|DATE")]
    pub reference: Option<String>,
    /// Drift budget in percent [default: costbench.toml's `[history]` drift-budget; without
    /// one, drift is shown and never fails].
    #[arg(long, value_name = "PCT")]
    pub drift_budget: Option<f64>,
    /// Wall time: the t-test's significance level.
    #[arg(long, value_name = "P", default_value_t = 0.001)]
    pub alpha: f64,
    /// Wall time: the fewest runs before and after a change point.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub min_segment: usize,
    /// Wall time: the smallest change reported, percent.
    #[arg(long, value_name = "PCT", default_value_t = 2.0)]
    pub min_change: f64,
}

/// The arguments of `costbench history changes`.
#[derive(Debug, clap::Args)]
pub struct ChangesCmd {
    #[command(flatten)]
    pub(crate) changes: ChangesArgs,
    /// Only change points after this commit fail (a CI job on a push passes the commit before
    /// the push, so that each change point fails once, on the push that brought it).
    #[arg(long, value_name = "REV")]
    pub since: Option<String>,
    /// Explain at most this many change points (the largest) with the functions that moved.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub explain: usize,
    #[arg(long, value_parser = formats::parser(formats::CHANGES), default_value = "table")]
    pub(crate) format: Format,
    /// GitHub Actions: auto (when GITHUB_ACTIONS is set) prints ::error annotations for the
    /// change points and drift that fail (on stderr) and appends the markdown listing to
    /// GITHUB_STEP_SUMMARY; on: the annotations outside GitHub Actions too; off: neither.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub github: crate::args::GithubArg,
    #[command(flatten)]
    pub(crate) database: DatabaseArgs,
}

/// The arguments of `costbench history backfill`.
#[derive(Debug, clap::Args)]
pub struct BackfillCmd {
    /// The commits to measure: `A..B` (those after A up to B, as git reads it) or one revision
    /// (the whole first-parent line up to it).
    #[arg(value_name = "REV_RANGE")]
    pub range: String,
    /// Measure every K-th commit of the range (the newest and the oldest always).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub every: usize,
    /// Stop starting new commits after this many seconds (the ones measured are kept; run it
    /// again to go on).
    #[arg(long, value_name = "SECS")]
    pub max_time: Option<u64>,
    /// Every commit of the range, also those reached only through a merge (by default the
    /// first-parent line).
    #[arg(long)]
    pub all_commits: bool,
    /// Measure commits again even when they are recorded for the same settings.
    #[arg(long)]
    pub again: bool,
    /// Build and measure every commit, even one that changed none of the files a measured
    /// commit's build read.
    #[arg(long)]
    pub build_every_commit: bool,
    /// The branch the runs are recorded under [default: the branch checked out].
    #[arg(long)]
    pub branch: Option<String>,
    /// Then narrow every change of an exact figure whose measured commits are not parent and
    /// child to its commit, by measuring commits between them (bisect) until they are.
    #[arg(long)]
    pub narrow: bool,
    /// Print the commits that would be measured and stop.
    #[arg(long)]
    pub dry_run: bool,
    /// How to print what the backfill did: one line, or every commit taken (markdown, JSON).
    #[arg(long, value_parser = formats::parser(formats::BACKFILL), default_value = "table")]
    pub(crate) format: Format,
    /// How to build and measure each commit (--shard K/N splits the commits, not the scenarios,
    /// over CI jobs writing into one history).
    #[command(flatten)]
    pub measure: crate::args::MeasureArgs,
}

/// The arguments of `costbench history dashboard`.
#[derive(Debug, clap::Args)]
pub struct DashboardCmd {
    #[command(flatten)]
    pub(crate) changes: ChangesArgs,
    /// Directory of the site; its index.html is written atomically [default:
    /// TARGET_DIR/costbench/dashboard].
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Title of the page [default: the package's name and branch].
    #[arg(long)]
    pub title: Option<String>,
    /// What to print besides writing the site: its path, or a JSON summary.
    #[arg(long, value_parser = formats::parser(formats::CHANGES), default_value = "table")]
    pub(crate) format: Format,
    #[command(flatten)]
    pub(crate) database: DatabaseArgs,
}

/// `--metric`'s values: the history's metrics, as the record crate lists them.
fn metric_values() -> impl clap::builder::TypedValueParser<Value = Metric> {
    let values = Metric::ALL
        .into_iter()
        .map(|m| PossibleValue::new(m.arg()).help(m.help()));
    PossibleValuesParser::new(values)
        .map(|arg| Metric::from_arg(&arg).expect("clap admits only the metrics' values"))
}

/// The arguments of `costbench import`.
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
    #[command(flatten)]
    pub(crate) database: DatabaseArgs,
}

/// The arguments of `costbench export`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("db", |a| a.help(RUN_ID_DB_HELP)))]
pub struct ExportCmd {
    /// An output directory (or its run.json), or a run id from history.
    pub run: String,
    #[arg(long, value_parser = formats::parser(formats::EXPORT), default_value = "json")]
    pub(crate) format: Format,
    /// Export a run that did not finish (killed, interrupted, out of space) as Bencher Metric
    /// Format, which has no place to say so (refused otherwise, exit 2). The JSON record says
    /// it itself (`completion`), so JSON is always exported, with a warning on stderr.
    #[arg(long)]
    pub(crate) allow_unfinished: bool,
    #[command(flatten)]
    pub(crate) database: DatabaseArgs,
}

/// The arguments of `costbench report`.
#[derive(Debug, clap::Args)]
pub struct ReportCmd {
    /// Runs: output directories (or their run.json), run ids from history, or the folder of a
    /// `costbench variants` session (it holds matrix.json: every variant's run, in columns).
    /// Without any: the newest run in history and the previous run of its variant and branch,
    /// or, when the newest run is a variant of the last `variants` session, that session.
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    /// The HTML file to write [default: TARGET_DIR/costbench/report.html].
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Require the history charts: fail when there is no history database (by default they are
    /// added whenever it exists).
    #[arg(long, conflicts_with = "no_history")]
    pub history: bool,
    /// Leave the history charts out.
    #[arg(long)]
    pub no_history: bool,
    /// Runs of history per chart (the newest).
    #[arg(long, value_name = "N", default_value_t = crate::core::page::DEFAULT_HISTORY_LIMIT)]
    pub history_limit: usize,
    #[command(flatten)]
    pub(crate) database: DatabaseArgs,
}

/// The arguments of `costbench merge`.
#[derive(Debug, clap::Args)]
pub struct MergeCmd {
    /// The shards' output directories (each holding a run.json written with --shard K/N), or
    /// the output roots of a sharded `variants` session (each holding a matrix.json).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Directory for the merged run, or root for the merged variants [default:
    /// TARGET_DIR/costbench/merged]. (`--output` is an old spelling.)
    #[arg(long, short = 'o', value_name = "DIR", alias = "output")]
    pub output_dir: Option<PathBuf>,
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
    /// Merge shards that did not finish (killed, interrupted, out of space) instead of refusing
    /// them: the merged run is marked unfinished, the rows they lack not reached, and it is not
    /// recorded in history.
    #[arg(long)]
    pub allow_unfinished: bool,
    #[command(flatten)]
    pub(crate) history: HistoryArgs,
}
