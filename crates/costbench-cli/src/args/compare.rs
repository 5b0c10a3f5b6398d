//! The arguments of the judging commands, `compare` and `check`, and how both decide
//! significance. Definitions only: validating them is `options`'.

use super::history::RUN_ID_DB_HELP;
use super::{DatabaseArgs, MeasureArgs, RoundsArgs};
use crate::output::formats;
use clap::ValueEnum;
use costbench_report::render::Format;
use std::path::PathBuf;

/// The arguments of `costbench compare`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("db", |a| a.help(RUN_ID_DB_HELP)))]
pub struct CompareCmd {
    /// Baseline: an output directory (or its run.json), or a run id from history.
    pub base: String,
    /// Candidate: an output directory (or its run.json), or a run id from history.
    pub cand: String,
    #[arg(long, value_parser = formats::parser(formats::COMPARE), default_value = "table")]
    pub(crate) format: Format,
    /// Also write the comparison as JUnit XML to this file: one testsuite per instrument, one
    /// testcase per scenario, a failure for each significant regression, skipped for unresolved
    /// rows.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) significance: SignificanceArgs,
    /// Take each scenario's threshold from the history of this branch: Q3 + 3·IQR of the
    /// relative changes between its consecutive runs (at least 10 changes; floors 0.01 % for
    /// instruction counts, 1 % for wall time). Scenarios with less history keep the defaults.
    #[arg(long, value_name = "BRANCH")]
    pub history_branch: Option<String>,
    /// Runs of history to learn thresholds from.
    #[arg(long, value_name = "N", default_value_t = costbench_judge::compare::noise::DEFAULT_WINDOW)]
    pub history_window: usize,
    #[command(flatten)]
    pub(crate) database: DatabaseArgs,
}

/// The arguments of `costbench check`, the CI gate.
#[derive(Debug, clap::Args)]
// One of the two baselines is required, and clap's message then names both (issue 29).
#[command(group(clap::ArgGroup::new("a_baseline").required(true).args(["baseline", "baseline_rev"])))]
pub struct CheckCmd {
    /// Baseline run: an output directory (or its run.json), a run id from history, or
    /// branch:NAME for the newest run of that branch in history (of the same variant).
    #[arg(long, value_name = "SPEC")]
    pub baseline: Option<String>,
    /// Build this git revision (commit, tag, branch) from a worktree and measure it together
    /// with the candidate: instruction counts for both, wall time in interleaved rounds.
    #[arg(long, value_name = "REV", conflicts_with_all = ["baseline", "candidate"])]
    pub baseline_rev: Option<String>,
    /// Candidate run (output directory, run.json or run id) instead of measuring the working tree.
    #[arg(long, value_name = "SPEC")]
    pub candidate: Option<String>,
    #[arg(long, value_parser = formats::parser(formats::COMPARE), default_value = "table")]
    pub(crate) format: Format,
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
    pub(crate) significance: SignificanceArgs,
    #[command(flatten)]
    pub(crate) rounds: RoundsArgs,
    /// With --baseline-rev: each scenario whose instruction count changed beyond the icount
    /// threshold runs K more times under callgrind on both sides, with the heap and stack it
    /// starts from shifted (the child's --perturb 1..=K). A change within the spread those
    /// placements show is reported as "placement", not gated. 0 turns this off.
    #[arg(long, value_name = "K", default_value_t = costbench_measure::instrument::icount::placement::DEFAULT_PLACEMENT_RUNS)]
    pub placement_runs: u32,
    /// Pass the check although an instrument asked for could not run (valgrind missing: no
    /// instruction counts), judging the others. Without it such a check fails (exit 1), so that
    /// a gate never passes on figures it did not have; the report names the missing instrument
    /// either way.
    #[arg(long)]
    pub allow_missing_instrument: bool,
    /// Runs of history to learn thresholds from (with --baseline branch:NAME).
    #[arg(long, value_name = "N", default_value_t = costbench_judge::compare::noise::DEFAULT_WINDOW)]
    pub history_window: usize,
    /// Judge a baseline or candidate run that did not finish (killed, interrupted, out of space)
    /// instead of refusing it (exit 2): the report says so first, and the gate fails on every
    /// row that was not reached.
    #[arg(long)]
    pub allow_unfinished: bool,
    /// How to build and measure the candidate (and the baseline, when it is measured too).
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
    /// Threshold for wall time of two runs measured together in interleaved rounds (the
    /// baseline and candidate of `check --baseline-rev`, build variants), judged paired, in
    /// percent.
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

/// What `bisect` does with a commit that does not build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnBuildFailure {
    /// Stop and say which commit failed.
    Stop,
    /// Leave it out, as `git bisect skip` does: the answer may then be a range.
    Skip,
}

/// The arguments of `costbench bisect`.
#[derive(Debug, clap::Args)]
pub struct BisectCmd {
    /// A commit whose instruction count is the good value.
    #[arg(value_name = "GOOD")]
    pub good: String,
    /// A later commit whose count differs from it.
    #[arg(value_name = "BAD")]
    pub bad: String,
    /// What to do with a commit that does not build.
    #[arg(long, value_enum, default_value = "stop")]
    pub on_build_failure: OnBuildFailure,
    /// Build and measure every commit the search visits, even one that changed none of the
    /// files a measured commit's build read (by default such a commit takes that commit's
    /// count without a build): for scenarios that read files outside their package while
    /// they run.
    #[arg(long)]
    pub build_every_commit: bool,
    /// How to build and measure each commit; --filter must select exactly one scenario (with
    /// several bench targets, the target that offers it is bisected; an id two targets share
    /// is TARGET/ID), and instruction counts are measured (wall time is not used). Add `--instrument
    /// icount,census` for the checks that moved in the explanation.
    #[command(flatten)]
    pub measure: MeasureArgs,
}
