//! The arguments of `costbench advise`: which candidates to look for, how many to measure, and
//! the measuring options it shares with `run` and `check`. Definitions only: validating them is
//! the command's.

use super::{MeasureArgs, RoundsArgs};
use crate::output::formats;
use clap::ValueEnum;
use costbench_report::render::Format;
use std::path::PathBuf;

/// The arguments of `costbench advise`.
#[derive(Debug, clap::Args)]
pub struct AdviseCmd {
    /// Only these kinds of candidate, comma-separated: `build` (the build choices of
    /// `variants --preset advice`), `clippy` (clippy's machine-applicable suggestions),
    /// `idioms` (the slow idioms no linter flags, and the hottest bounds checks) [default: all
    /// three].
    #[arg(long, value_enum, value_name = "KIND", value_delimiter = ',')]
    pub only: Vec<CandidateKind>,
    /// Measure at most N source changes (clippy's first, in the order clippy gives them, then
    /// the idioms'); the others are listed as not measured.
    #[arg(long, value_name = "N")]
    pub max_candidates: Option<usize>,
    /// Rank the bounds checks the optimiser left in the crate's code by executions per op (a
    /// census of the unchanged code) and, for the N most executed, measure the upper bound of
    /// removing each (its index made unchecked in the scratch copy, vetted by the crate's tests
    /// and, where Miri is installed, `costbench miri`). 0 turns this off.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub checks: usize,
    /// Measure each source change on every scenario, not only on the scenarios that execute
    /// the code it changes (found from the unchanged code's instruction profile).
    #[arg(long)]
    pub all_scenarios: bool,
    /// Do not run the crate's own tests on each source change before measuring it (by default
    /// a change that fails them is reported as such and never measured).
    #[arg(long)]
    pub no_tests: bool,
    /// Apply candidate ID (`c1`, `i2`, as the last advise printed it) to the working tree and
    /// exit: its diff, as measured, from `advice.json` in the output directory. A file changed
    /// since then is an error and nothing is written.
    #[arg(long, value_name = "ID", conflicts_with_all = ["list", "only", "max_candidates"])]
    pub apply: Option<String>,
    /// Find the candidates and print them, with their diffs, without building or measuring.
    #[arg(long)]
    pub list: bool,
    /// Output format on stdout (`advice.json` is written to the output directory either way).
    #[arg(long, value_parser = formats::parser(formats::ADVICE), default_value = "table")]
    pub format: Format,
    /// Also write the markdown report (for a pull-request comment) to this file.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) rounds: RoundsArgs,
    /// Each scenario whose instruction count a candidate changed beyond the icount threshold
    /// runs K more times under callgrind on both sides, with shifted heap and stack placements;
    /// a change within their spread is placement, never a gain. 0 turns this off.
    #[arg(long, value_name = "K", default_value_t = costbench_measure::instrument::icount::placement::DEFAULT_PLACEMENT_RUNS)]
    pub placement_runs: u32,
    /// How to build and measure (`--filter`, `--instrument`, `-p`, `--bench`, `--features`,
    /// ...). advise records nothing in the history.
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// `--only`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CandidateKind {
    /// Build choices: overflow checks, debug assertions, codegen-units=1, fat and thin LTO,
    /// panic=abort, opt-level=2, mimalloc, jemalloc, target-cpu=native, one at a time.
    Build,
    /// Source changes: clippy's machine-applicable suggestions of its perf group and of the
    /// lints of the classic slow idioms, each applied alone in a scratch copy.
    Clippy,
    /// Source changes: the slow idioms no linter flags (a regex compiled per call or used for a
    /// plain string, unbuffered writes in a loop, a Vec without its known capacity, the default
    /// hasher, a Vec collected only to be iterated), rewritten where that is mechanical.
    Idioms,
}
