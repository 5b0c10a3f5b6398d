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
pub struct HistoryCmd {
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
    #[arg(long, value_name = "N", default_value_t = crate::output::html::DEFAULT_HISTORY_LIMIT)]
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
