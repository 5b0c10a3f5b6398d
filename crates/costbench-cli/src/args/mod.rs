//! The clap definitions of every command and option: the low-level arguments exactly as the
//! user typed them, and the `--help` text (documentation too). Nothing here validates values
//! or does work: `options` turns these into plain validated options, and `commands` runs them.
//!
//! This file holds the command line itself ([`Cli`], [`Command`]); the arguments of each group
//! of commands are in a file of their own: `measure` (run, variants, what check measures),
//! `compare` (compare, check), `advise`, `history` (history, import, export, report, merge, and `--db`
//! with `--manifest-path` once for all of them), `tools` (miri, census), `generate`
//! (completions, man).

use clap::{Parser, Subcommand};

mod advise;
mod compare;
mod generate;
mod history;
mod measure;
mod tools;

// One namespace of clap definitions, split into files by command group only for size: the
// commands name every argument type as `crate::args::X`.
pub use advise::{AdviseCmd, CandidateKind};
pub use compare::{
    BisectCmd, CheckCmd, CompareCmd, ErrorControlArg, GithubArg, OnBuildFailure, SignificanceArgs,
};
pub use generate::{CompletionsCmd, ManCmd};
pub use history::{
    BackfillCmd, ChangesArgs, ChangesCmd, DashboardCmd, DatabaseArgs, ExportCmd, HistoryAction,
    HistoryArgs, HistoryCmd, ImportCmd, MergeCmd, ReportCmd,
};
pub use measure::{
    CargoArgs, CodeAlignArg, LayoutArg, LoadArgs, MeasureArgs, RoundsArgs, RunArgs, TargetArgs,
    VariantArgs,
};
pub use tools::{AsmCmd, CensusCmd, MiriCmd};

/// `--help`'s exit codes: these before code 3, [`exit_3_help`] for it, then [`AFTER_EXIT_3`].
const BEFORE_EXIT_3: &str = "\
Exit codes:
  0  everything asked for ran and was written (check: and the gate passed)
  1  a scenario failed or an error stopped the run (the message says which); check: an
     instrument asked for could not run (unless --allow-missing-instrument)
  2  the command line was wrong (a value, a name that does not exist, a --filter that
     matches no scenario), or asked to take a run that did not finish for one that did
     (merge, import, check without --allow-unfinished), or to measure nothing, or
     costbench.toml is wrong (an unknown key, a bad entry: the message names it)
";

/// `--help`'s exit codes after code 3.
const AFTER_EXIT_3: &str =
    "  130, 143  interrupted by Ctrl-C (SIGINT) or SIGTERM; what finished is kept";

/// The exit codes `--help` ends with.
fn after_help() -> String {
    format!("{BEFORE_EXIT_3}{}{AFTER_EXIT_3}", exit_3_help())
}

/// Exit code 3 in `--help`: what fails `check`, `run` and `variants`, with each instrument's
/// findings in its slice's words, wrapped as the other codes are.
fn exit_3_help() -> String {
    let findings: Vec<&costbench_record::instrument::FindingSpec> =
        costbench_record::instrument::Instrument::ALL
            .iter()
            .filter_map(|i| i.slice().findings.as_ref())
            .collect();
    let check = [
        "a significant regression".to_string(),
        "a figure above a hard limit of costbench.toml".into(),
        "a broken budget".into(),
    ]
    .into_iter()
    .chain(findings.iter().map(|f| format!("a {} finding", f.label)));
    let run =
        std::iter::once("a broken budget (a figure above its limit, or not measured)".to_string())
            .chain(findings.iter().map(|f| {
                format!(
                    "a {} finding ({}) that no {} entry accepted",
                    f.label, f.what, f.allow
                )
            }));
    let text = format!(
        "check: {}; run, variants: {}; history changes: a change point after --since, or a \
         drift over its budget, that costbench.toml does not acknowledge",
        either(check.collect()),
        either(run.collect()),
    );
    let mut out = String::from("  3 ");
    let mut width = out.len();
    for word in text.split(' ') {
        if width > 5 && width + 1 + word.len() > 92 {
            out.push_str("\n    ");
            width = 4;
        }
        out.push(' ');
        out.push_str(word);
        width += 1 + word.len();
    }
    out.push('\n');
    out
}

/// `a`, `a or b`, `a, b or c`.
fn either(items: Vec<String>) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Measure what Rust code costs per operation: exact instruction counts (callgrind) and wall
/// time, for scenarios written with the `costbench` library.
#[derive(Debug, Parser)]
#[command(name = "costbench", version, after_help = after_help())]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// Coloring: auto, always, never [default: CARGO_TERM_COLOR, else auto; auto colours a
    /// terminal unless NO_COLOR is set]. Given to cargo too.
    #[arg(long, global = true, value_enum, value_name = "WHEN")]
    pub color: Option<crate::terminal::ColorWhen>,
}

/// costbench's commands, one variant each.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build the bench targets and measure their scenarios.
    ///
    /// Without --bench: every bench target of the package that depends on costbench (directly,
    /// or through costbench-criterion or costbench-divan under any name), as `cargo bench` runs
    /// them all, into one run record; an id two targets share is measured as TARGET/ID.
    /// Default instruments: icount and walltime.
    ///
    /// Every scenario runs in its own child process for each instrument (--instrument says how
    /// each measures): under valgrind, with collection switched on only around the measured body
    /// where the tool allows it, natively with counters read around the body, and in a fresh
    /// process for wall time. Results go to the output directory (icounts.csv, walltime.csv,
    /// counters.csv, memory.csv, throughput.csv, run.json, each valgrind instrument's raw files
    /// in a folder of its own, and report.html with --html) and tables go to stdout.
    Run(RunArgs),
    /// Build the bench targets once per variant and print the matrix of per-op costs.
    ///
    /// A variant changes profile keys, cargo features, rustflags, the global allocator or the
    /// toolchain: --variant 'NAME:KEY=VALUE,...', a [variants.NAME] table in costbench.toml, or
    /// --preset build-choices. Each builds into its own target directory; all are measured in one
    /// session; each run is recorded in history under its variant name; the matrix shows each
    /// variant's per-op figure and its ratio to the baseline (the first variant, or --baseline-variant).
    /// Same options as `run`: without --bench, each variant builds and measures every bench target
    /// that depends on costbench, into one run per variant. Without --variant or --preset: every
    /// variant in costbench.toml.
    Variants(RunArgs),
    /// List recorded runs, or one scenario's series of per-op figures over them.
    History(HistoryCmd),
    /// Compare two runs (output directories or run ids from history), per op.
    ///
    /// Instruction counts: a change beyond the threshold (default 0.2 %) is significant. Two
    /// runs measured together in interleaved rounds (the baseline and candidate of `check
    /// --baseline-rev`, build variants) are judged paired: a signed-rank interval of the rounds, at the rate Holm's
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
    /// Builds the bench targets as `run` does, one census per target's binary (or reads --binary,
    /// any x86-64 ELF binary with symbols; line tables make it name source lines), and finds every guard (a bounds or
    /// overflow check): a conditional branch that leads only to a panic. Prints totals per kind, per crate and per
    /// function, and each guard with its source line and inline chain. `costbench run
    /// --instrument census` counts how many of them execute per op.
    Census(CensusCmd),
    /// Print a function's machine code, or diff it between two builds.
    ///
    /// Builds the bench target as `run` does (or reads --binary) and prints the function in
    /// Intel syntax with each instruction's source line; addresses are normalised (branch
    /// targets inside the function as labels numbered in address order, calls by name, data as
    /// DATA), so that two builds of the same code read alike. Given a run's output directory (--run)
    /// and --id, each instruction's executions in that run are shown beside it (a run that
    /// measured the census keeps them). --diff BASELINE aligns two builds and prints what
    /// changed, with the baseline's and the candidate's executions per op.
    Asm(AsmCmd),
    /// The CI gate: compare a candidate with a baseline and exit 3 on a significant regression.
    ///
    /// The candidate is measured now from the working tree (or given with --candidate). The
    /// baseline is an existing run (--baseline: a directory, a run id, or branch:NAME for the
    /// latest run of that branch in history, whose history then also sets the thresholds), or a
    /// git revision (--baseline-rev) that is built from a worktree and measured together with the
    /// candidate, wall time in interleaved rounds and judged paired, so the machine's drift
    /// between minutes cancels. Both sides take every bench target, as `run` does. Limits and ignores come from `[check]` in costbench.toml.
    ///
    /// Only regressions and hard limits fail the check. Rows the comparison could not resolve,
    /// and placement effects (the same instructions, the time moved), are listed as notes; wall
    /// time of separate runs without history is never judged.
    ///
    /// In GitHub Actions the markdown report is appended to the job summary and the violations
    /// become annotations (--github); --junit writes JUnit XML for other CI systems.
    Check(CheckCmd),
    /// Find the first commit of GOOD..BAD where a scenario's instruction count left GOOD's value.
    ///
    /// Instruction counts are exact, so each step is one measurement: GOOD is measured, then
    /// commits of the range are checked out in one worktree (moved from commit to commit, as
    /// `git bisect` moves a checkout, so only what changed is rebuilt), built and measured by
    /// binary search, at most ⌈log2 N⌉ + 1 measurements for N commits (one more
    /// when the answer is BAD itself, to confirm it). A commit that changed none of the files a
    /// measured commit's build read (its crates' folders, the files rustc read, manifests, the
    /// lock file) takes that commit's count without a build, as `git bisect start -- PATHS`
    /// leaves such commits out (--build-every-commit builds them all); a first bisect starts
    /// from what `costbench run` built. Prints the commit, its change, and what
    /// explains it (the functions whose own cost changed, their machine code, and with
    /// --instrument icount,census the checks that moved) against the last commit still at
    /// GOOD's value. Exit 0 when found, 1 when GOOD and BAD count alike.
    Bisect(BisectCmd),
    /// Write one self-contained HTML report of runs: per-op figures, changes, distributions,
    /// variants, contracts (budgets, binary size, complexity fits) and history.
    ///
    /// The page needs no network (inline CSS and SVG charts, a few lines of inline JavaScript to
    /// sort tables). With two or more runs of the same variant, the first is the baseline and the
    /// last the candidate, and significant changes are coloured; runs of different variants are
    /// shown as a heat map of ratios to the first variant. History charts (per scenario and
    /// metric, with the significance band and the runs that crossed it) come from the history
    /// database whenever it exists.
    Report(ReportCmd),
    /// Run every scenario once under Miri to find undefined behaviour in its unsafe code (needs
    /// nightly with miri and rust-src).
    ///
    /// Builds each bench target with `cargo +nightly miri` and runs each selected scenario's
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
    /// walltime.csv, counters.csv, memory.csv, throughput.csv and the instruments' folders of raw
    /// files) and is an ordinary run for compare, check, history and report; run.json keeps which
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
    /// Find candidate changes of the crate, measure each alone against the unchanged code on
    /// your scenarios, and report only what was measured.
    ///
    /// Candidates: the build choices of `variants --preset advice` (codegen-units=1, fat and
    /// thin LTO, panic=abort, opt-level=2, mimalloc, jemalloc, target-cpu=native, measured
    /// together as `variants` measures them; overflow checks and debug assertions are reported
    /// as the price of the check, not as advice to turn it off); clippy's machine-applicable
    /// suggestions of its perf group and of the lints of the classic slow idioms; and the slow
    /// idioms no linter flags (a regex compiled per call or used for a plain string, unbuffered
    /// writes in a loop, a Vec without its known capacity, the default hasher, a Vec collected
    /// only to be iterated), rewritten where that is mechanical. Each source change is applied
    /// alone in a scratch copy of the sources (TARGET_DIR/costbench/advise-tree; your checkout
    /// is never written to unless --apply), built, vetted by the crate's own tests, and
    /// measured paired against the unchanged copy on the scenarios that execute the code it
    /// changes. Each candidate gets a verdict: worth it (a significant improvement, nothing
    /// significantly worse), no measurable effect, costs more, or mixed; unresolved and
    /// placement rows never count as gains. A change that does not compile or fails the tests
    /// is reported as such, never measured. Results: advice.json (`"schema":
    /// "costbench-advice"`) in the output directory [default: TARGET_DIR/costbench/advise].
    Advise(AdviseCmd),
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
    ///
    /// Load it from the shell's start-up file, or save it where the shell finds completions:
    /// bash `costbench completions bash > ~/.local/share/bash-completion/completions/costbench`,
    /// zsh into a folder of $fpath as `_costbench`, fish `costbench completions fish >
    /// ~/.config/fish/completions/costbench.fish`.
    Completions(CompletionsCmd),
    /// Print the man page of costbench (roff), which lists the commands; --output-dir writes one
    /// page per command.
    ///
    /// Read it with `costbench man | man -l -`, or install it: `costbench man --output-dir
    /// ~/.local/share/man/man1`, then `man costbench` and `man costbench-run`.
    Man(ManCmd),
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
