//! Command-line interface: clap definitions, turned into plain validated options for `run`.

use crate::run::{Instruments, RunOptions};
use anyhow::{bail, Result};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

const AFTER_HELP: &str = "\
Exit codes:
  0  everything asked for ran and was written
  1  a scenario failed or an error stopped the run (the message says which)
  2  the command line was wrong";

/// Measure what Rust code costs per operation: exact instruction counts (callgrind) and wall
/// time, for scenarios written with the `costbench` library.
#[derive(Debug, Parser)]
#[command(name = "costbench", version, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build a bench target and measure its scenarios.
    ///
    /// Every scenario runs in its own child process: under callgrind with collection switched on
    /// only around the measured body (icount), and in a fresh process for wall time. Results go
    /// to the output directory (icounts.csv, walltime.csv, run.json, callgrind/*.out) and a
    /// table goes to stdout.
    Run(RunArgs),
    /// List recorded runs, or one scenario's series of per-op figures over them.
    History(HistoryCmd),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MetricArg {
    /// Instructions per op.
    Icount,
    /// Median wall time per op.
    Walltime,
}

#[derive(Debug, clap::Args)]
pub struct HistoryCmd {
    /// Cargo.toml whose target directory holds the default database [default: ./Cargo.toml].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// History database [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(long, value_name = "PATH")]
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
    #[arg(long, value_enum, default_value = "icount")]
    pub metric: MetricArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InstrumentArg {
    /// Instruction counts under valgrind callgrind: exact and repeatable.
    Icount,
    /// Wall time: warm-up, then many timed batches; min, median, mean, p95, IQR per op.
    Walltime,
    /// Both.
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table for people.
    Table,
    /// The run record (the same as run.json) on stdout.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Cargo.toml of the crate or workspace whose bench target to run [default: ./Cargo.toml].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Package that has the bench target, when several do.
    #[arg(long, short = 'p', value_name = "SPEC")]
    pub package: Option<String>,
    /// Bench target (harness = false, main calls `costbench::Suite::main`). Without it:
    /// `run.bench` from costbench.toml, or the only bench target that depends on costbench.
    #[arg(long, value_name = "NAME")]
    pub bench: Option<String>,
    /// Run only scenarios whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// List the selected scenarios (name, ops, unit, parties) and exit without measuring.
    #[arg(long)]
    pub list: bool,
    /// Instruments to run.
    #[arg(long, value_enum, default_value = "all")]
    pub instrument: InstrumentArg,
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
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Print only errors (no progress, no table).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub history: HistoryArgs,
}

#[derive(Debug, Clone, clap::Args)]
pub struct HistoryArgs {
    /// History database [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Do not record this run in the history database.
    #[arg(long)]
    pub no_history: bool,
}

pub fn execute(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Run(args) => crate::run::run(args.into_options()?),
        Command::History(h) => history(h),
    }
}

/// The database named by `--db`, else the default one under the crate's target directory.
fn database(db: Option<PathBuf>, manifest_path: Option<&std::path::Path>) -> Result<PathBuf> {
    if let Some(db) = db {
        return Ok(db);
    }
    let dir = crate::cargo::target_directory(manifest_path)?;
    Ok(crate::store::default_path(&dir))
}

fn history(h: HistoryCmd) -> Result<i32> {
    use crate::store::{Metric, RunQuery, Store};
    let path = database(h.db, h.manifest_path.as_deref())?;
    if !path.exists() {
        bail!(
            "no history database at {}: `costbench run` records every run there (or pass --db PATH)",
            path.display()
        );
    }
    let store = crate::store::sqlite::SqliteStore::open(&path)?;
    let q = RunQuery {
        branch: h.branch,
        variant: h.variant,
        limit: Some(h.limit),
    };
    match h.scenario {
        None => print!("{}", crate::report::history::runs(&store.runs(&q)?)),
        Some(id) => {
            let metric = match h.metric {
                MetricArg::Icount => Metric::Icount,
                MetricArg::Walltime => Metric::Walltime,
            };
            let points = store.series(&id, metric, &q)?;
            if points.is_empty() {
                bail!(
                    "no {} figures for {id:?} in {}",
                    metric.as_str(),
                    path.display()
                );
            }
            print!("{}", crate::report::history::series(&id, metric, &points));
        }
    }
    Ok(crate::exit::OK)
}

impl RunArgs {
    fn into_options(self) -> Result<RunOptions> {
        if self.jobs == Some(0) {
            bail!("--jobs must be at least 1");
        }
        if self.iterations_per_scenario == Some(0) {
            bail!("--iterations-per-scenario must be at least 1");
        }
        if self.timeout == 0 {
            bail!("--timeout must be at least 1 second");
        }
        let filter = self
            .filter
            .as_deref()
            .map(regex::Regex::new)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--filter is not a valid regular expression: {e}"))?;
        let jobs = self.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        Ok(RunOptions {
            manifest_path: self.manifest_path,
            package: self.package,
            bench: self.bench,
            filter,
            list_only: self.list,
            instruments: match self.instrument {
                InstrumentArg::Icount => Instruments::Icount,
                InstrumentArg::Walltime => Instruments::Walltime,
                InstrumentArg::All => Instruments::All,
            },
            output_dir: self.output_dir,
            jobs,
            samples: self.iterations_per_scenario,
            timeout: Duration::from_secs(self.timeout),
            json: self.format == Format::Json,
            quiet: self.quiet,
            db: self.history.db,
            record_history: !self.history.no_history,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn bad_values_are_refused() {
        for args in [
            &["costbench", "run", "--jobs", "0"][..],
            &["costbench", "run", "--filter", "("],
            &["costbench", "run", "--timeout", "0"],
        ] {
            let cli = Cli::try_parse_from(args).unwrap();
            assert!(execute(cli).is_err(), "{args:?}");
        }
    }
}
