//! Command-line interface: clap definitions, turned into plain validated options for `run`.

use crate::model::RunRecord;
use crate::run::{Instruments, RunOptions};
use anyhow::{bail, Context, Result};
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
    /// Instruction counts: a change beyond the threshold (default 0.2 %) is significant. Wall
    /// time: a change is significant only when it is beyond the threshold (default 5 %) and a
    /// bootstrap 95 % confidence interval of the ratio of medians excludes 1.
    Compare(CompareCmd),
    /// Record an existing output directory in the history: a costbench one (run.json), or
    /// rustls ci-bench's (icounts.csv and walltime.csv or walltimes.csv).
    Import(ImportCmd),
    /// Print a run (directory or run id) in another format.
    Export(ExportCmd),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    /// A table for people.
    Table,
    /// GitHub-flavoured markdown for a pull-request comment.
    Markdown,
    /// The comparison as JSON.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct CompareCmd {
    /// Baseline: an output directory (or its run.json), or a run id from history.
    pub base: String,
    /// Candidate: an output directory (or its run.json), or a run id from history.
    pub cand: String,
    #[arg(long, value_enum, default_value = "table")]
    pub format: CompareFormat,
    /// Threshold for instruction counts, in percent.
    #[arg(long, value_name = "PCT", default_value_t = crate::compare::DEFAULT_ICOUNT_THRESHOLD_PCT)]
    pub icount_threshold: f64,
    /// Threshold for wall time, in percent.
    #[arg(long, value_name = "PCT", default_value_t = crate::compare::DEFAULT_WALLTIME_THRESHOLD_PCT)]
    pub walltime_threshold: f64,
    /// Take each scenario's threshold from the history of this branch: Q3 + 3·IQR of the
    /// relative changes between its consecutive runs (at least 10 changes; floors 0.01 % for
    /// instruction counts, 1 % for wall time). Scenarios with less history keep the defaults.
    #[arg(long, value_name = "BRANCH")]
    pub history_branch: Option<String>,
    /// Runs of history to learn thresholds from.
    #[arg(long, value_name = "N", default_value_t = crate::compare::noise::DEFAULT_WINDOW)]
    pub history_window: usize,
    /// History database for run ids [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Cargo.toml whose target directory holds the default database [default: ./Cargo.toml].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ImportCmd {
    /// The directory to import.
    pub dir: PathBuf,
    /// Git commit the results belong to (for CSV imports, which do not say).
    #[arg(long)]
    pub commit: Option<String>,
    /// Git branch the results belong to (for CSV imports).
    #[arg(long)]
    pub branch: Option<String>,
    /// Variant name (for CSV imports) [default: default].
    #[arg(long)]
    pub variant: Option<String>,
    /// History database [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Cargo.toml whose target directory holds the default database [default: ./Cargo.toml].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// The run record (run.json), schema-versioned.
    Json,
    /// Bencher Metric Format (`bencher run --adapter json`).
    Bmf,
}

#[derive(Debug, clap::Args)]
pub struct ExportCmd {
    /// An output directory (or its run.json), or a run id from history.
    pub run: String,
    #[arg(long, value_enum, default_value = "json")]
    pub format: ExportFormat,
    /// History database for run ids [default: TARGET_DIR/costbench/history.sqlite].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Cargo.toml whose target directory holds the default database [default: ./Cargo.toml].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
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
    /// The run record (the same as run.json) on stdout; with variants, the matrix.
    Json,
    /// With variants only: the matrix as GitHub-flavoured markdown.
    Markdown,
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
    /// Under instruction counting, let getrandom return real random bytes. By default
    /// costbench preloads a shim that makes it return a fixed sequence, so that std's HashMap
    /// seeds (and anything else seeded from getrandom) repeat and counts are identical run to run.
    #[arg(long)]
    pub real_random: bool,
    #[command(flatten)]
    pub history: HistoryArgs,
    #[command(flatten)]
    pub variants: VariantArgs,
}

#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Build variants")]
pub struct VariantArgs {
    /// Build and measure this variant (repeatable; the first is the baseline): NAME for a
    /// [variants.NAME] of costbench.toml, 'NAME:' for the plain bench profile, or
    /// 'NAME:KEY=VALUE,...' with keys overflow-checks, debug-assertions, codegen-units, lto,
    /// opt-level, panic, incremental, debug, features (-NAME turns a default off),
    /// no-default-features, rustflags, allocator (system|mimalloc|jemalloc), toolchain. Quote a
    /// value that holds commas: rustflags='-C target-feature=+avx2,+fma'.
    #[arg(long = "variant", value_name = "SPEC")]
    pub variant: Vec<String>,
    /// A built-in set of variants, measured before any --variant: build-choices (alias
    /// safety-tax): release against overflow-checks, debug-assertions, codegen-units=1,
    /// lto=fat, panic=abort, mimalloc and target-cpu=native, one at a time.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// The variant the others are compared with [default: the first].
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Variant builds to run at once (each cargo build also uses every core).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub build_jobs: usize,
}

impl VariantArgs {
    fn any(&self) -> bool {
        !self.variant.is_empty() || self.preset.is_some() || self.baseline.is_some()
    }
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
        Command::Run(args) if args.variants.any() => variants(args),
        Command::Run(args) => {
            if args.format == Format::Markdown {
                bail!("--format markdown is for the variant matrix: add --variant or --preset, or use `costbench compare --format markdown`");
            }
            crate::run::run(args.into_options()?)
        }
        Command::Variants(args) => variants(args),
        Command::History(h) => history(h),
        Command::Compare(c) => compare(c),
        Command::Import(i) => import(i),
        Command::Export(e) => export(e),
    }
}

fn variants(args: RunArgs) -> Result<i32> {
    let v = args.variants.clone();
    let format = match args.format {
        Format::Table => crate::variants::MatrixFormat::Table,
        Format::Json => crate::variants::MatrixFormat::Json,
        Format::Markdown => crate::variants::MatrixFormat::Markdown,
    };
    let opts = args.into_options()?;
    crate::variants::run(
        opts,
        crate::variants::VariantOptions {
            variants: v.variant,
            preset: v.preset,
            baseline: v.baseline,
            format,
            build_jobs: v.build_jobs,
        },
    )
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

/// A run named on the command line: a directory or run.json if that path exists, else a run id
/// in the history database.
fn load_side(
    what: &str,
    spec: &str,
    db: Option<&PathBuf>,
    manifest: Option<&std::path::Path>,
) -> Result<RunRecord> {
    use crate::store::Store;
    let path = std::path::Path::new(spec);
    if path.exists() {
        return crate::compare::load_run(path).with_context(|| format!("{what} {spec}"));
    }
    let db = database(db.cloned(), manifest).with_context(|| {
        format!("{what} {spec:?} is not a directory, so it must be a run id from history")
    })?;
    if !db.exists() {
        bail!(
            "{what} {spec:?}: no such directory, and no history database at {} to look it up as a run id",
            db.display()
        );
    }
    crate::store::sqlite::SqliteStore::open(&db)?
        .load(spec)
        .with_context(|| format!("{what} {spec:?} is not a directory"))
}

fn compare(c: CompareCmd) -> Result<i32> {
    let base = load_side(
        "baseline",
        &c.base,
        c.db.as_ref(),
        c.manifest_path.as_deref(),
    )?;
    let cand = load_side(
        "candidate",
        &c.cand,
        c.db.as_ref(),
        c.manifest_path.as_deref(),
    )?;
    let opts = crate::compare::CompareOptions {
        icount_threshold_pct: c.icount_threshold,
        walltime_threshold_pct: c.walltime_threshold,
        ..crate::compare::CompareOptions::default()
    };
    opts.validate()?;
    let mut historic = crate::compare::noise::HistoricThresholds::default();
    if let Some(branch) = &c.history_branch {
        use crate::compare::Instrument;
        use crate::store::{Metric, RunQuery, Store};
        let path = database(c.db.clone(), c.manifest_path.as_deref())?;
        if !path.exists() {
            bail!(
                "--history-branch: no history database at {}",
                path.display()
            );
        }
        let store = crate::store::sqlite::SqliteStore::open(&path)?;
        let q = RunQuery {
            branch: Some(branch.clone()),
            variant: Some(base.variant.clone()),
            limit: Some(c.history_window),
        };
        for r in &base.results {
            for (inst, metric) in [
                (Instrument::Icount, Metric::Icount),
                (Instrument::Walltime, Metric::Walltime),
            ] {
                let series: Vec<f64> = store
                    .series(&r.id, metric, &q)?
                    .iter()
                    .map(|p| p.per_op)
                    .collect();
                historic.learn(&r.id, inst, &series);
            }
        }
        if historic.is_empty() {
            eprintln!(
                "note: no scenario has {} consecutive runs on branch {branch:?} yet; default thresholds apply",
                crate::compare::noise::MIN_CHANGES + 1
            );
        }
    }
    let cmp = crate::compare::compare_with(&base, &cand, &opts, &historic);
    match c.format {
        CompareFormat::Table => print!("{}", crate::compare::terminal(&cmp)),
        CompareFormat::Markdown => print!("{}", crate::report::markdown::comparison(&cmp)),
        CompareFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&cmp).expect("a comparison always serialises")
        ),
    }
    Ok(crate::exit::OK)
}

fn import(i: ImportCmd) -> Result<i32> {
    use crate::store::Store;
    let dir = &i.dir;
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    let run = if dir.join("run.json").exists() {
        crate::compare::load_run(dir)?
    } else {
        let read = |name: &str| -> Result<Option<(String, String)>> {
            let p = dir.join(name);
            match std::fs::read_to_string(&p) {
                Ok(t) => Ok(Some((t, p.display().to_string()))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e).with_context(|| format!("cannot read {}", p.display())),
            }
        };
        let icounts = read("icounts.csv")?;
        let walltimes = match read("walltime.csv")? {
            Some(w) => Some(w),
            None => read("walltimes.csv")?,
        };
        let meta = crate::import::ImportMeta {
            commit: i.commit,
            branch: i.branch,
            variant: i.variant,
            started_at: None,
        };
        crate::import::from_csv(
            icounts.as_ref().map(|(t, f)| (t.as_str(), f.as_str())),
            walltimes.as_ref().map(|(t, f)| (t.as_str(), f.as_str())),
            &meta,
            dir,
        )?
    };
    let db = database(i.db, i.manifest_path.as_deref())?;
    crate::store::sqlite::SqliteStore::open(&db)?.record(&run)?;
    println!(
        "recorded run {} ({} results) in {}",
        run.run_id,
        run.results.len(),
        db.display()
    );
    Ok(crate::exit::OK)
}

fn export(e: ExportCmd) -> Result<i32> {
    let run = load_side("run", &e.run, e.db.as_ref(), e.manifest_path.as_deref())?;
    let value = match e.format {
        ExportFormat::Json => serde_json::to_value(&run).expect("a run record always serialises"),
        ExportFormat::Bmf => crate::report::bmf::bmf(&run),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&value).expect("JSON values serialise")
    );
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
            real_random: self.real_random,
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
