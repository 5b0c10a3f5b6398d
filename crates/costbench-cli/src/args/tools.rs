//! The arguments of the commands that inspect a build rather than measure it: `miri`,
//! `census` and `asm`. Definitions only: validating them is `options`'.

use super::TargetArgs;
use crate::output::formats;
use costbench_report::render::Format;
use std::path::PathBuf;

/// The arguments of `costbench miri`.
#[derive(Debug, clap::Args)]
pub struct MiriCmd {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
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

/// The arguments of `costbench census`.
#[derive(Debug, clap::Args)]
pub struct CensusCmd {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Analyse this binary instead of building a bench target.
    #[arg(long, value_name = "PATH", conflicts_with_all = [
        "manifest_path", "package", "bench", "features", "all_features", "no_default_features",
        "profile", "locked", "offline", "frozen", "jobs",
    ])]
    pub binary: Option<PathBuf>,
    /// Only guards in functions whose demangled name, or whose crate, matches this regular
    /// expression (over every crate; `--filter` is its old spelling). A guard's crate is the
    /// crate whose source holds it: your library's function inlined into a bench closure counts
    /// as your library's.
    #[arg(long, value_name = "REGEX", alias = "filter")]
    pub functions: Option<String>,
    /// Show the guards of every crate in the binary: std's, the dependencies' and costbench's
    /// own harness. Without it (and without --functions), only the workspace's own crates.
    #[arg(long)]
    pub all_crates: bool,
    #[arg(long, value_parser = formats::parser(formats::CENSUS), default_value = "table")]
    pub(crate) format: Format,
}

/// The arguments of `costbench asm`.
#[derive(Debug, clap::Args)]
pub struct AsmCmd {
    /// The function: its whole demangled name (`suite::index::sum_indirect_checked`), or a part
    /// of it that only one function's name contains.
    #[arg(value_name = "FUNCTION")]
    pub function: String,
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Read this binary instead of building the bench target.
    #[arg(long, value_name = "PATH", conflicts_with_all = [
        "manifest_path", "package", "bench", "features", "all_features", "no_default_features",
        "profile", "locked", "offline", "frozen", "run",
    ])]
    pub binary: Option<PathBuf>,
    /// Read the binary a run measured, from its output directory (with --id): its kept
    /// callgrind output names the binary and gives each instruction's executions (when the run
    /// measured the census: `--instrument icount,census`).
    #[arg(long, value_name = "DIR", requires = "id", conflicts_with_all = [
        "manifest_path", "package", "bench", "features", "all_features", "no_default_features",
        "profile", "locked", "offline", "frozen",
    ])]
    pub run: Option<PathBuf>,
    /// Diff against this baseline: a binary, or a run's output directory (with --id). Prints
    /// the changed stretches with their context; --all prints every instruction.
    #[arg(long, value_name = "PATH|DIR")]
    pub diff: Option<PathBuf>,
    /// The scenario whose kept callgrind output to read in a run's output directory (--run, or
    /// --diff naming a directory).
    #[arg(long, value_name = "SCENARIO")]
    pub id: Option<String>,
    /// With --diff, print every instruction of the baseline and the candidate, not only the changed stretches.
    #[arg(long, requires = "diff")]
    pub all: bool,
}
