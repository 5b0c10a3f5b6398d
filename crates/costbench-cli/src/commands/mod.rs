//! The commands: one file per `costbench` subcommand, each a short function that takes the
//! validated options (`crate::options`) and wires the layers together: cargo builds, the
//! measuring engines (`run`, `variants`, `miri`, `census`), history (`store`), judging
//! (`compare`, `check`) and the output layer (`crate::output`: its sink prints and writes report
//! files). Choosing the exit code (`crate::exit`) happens here, never in the engines.
//!
//! The command files are leaves: none imports another. What several of them share (default
//! paths, the history location, loading and judging runs, measuring with recording, the shared
//! presentations) is the command core's (`crate::core`).

mod advise;
mod asm;
mod bisect;
mod census;
mod check;
mod compare;
mod completions;
mod export;
mod history;
mod import;
mod man;
mod merge;
mod miri;
mod report;
mod run;
mod variants;

use crate::args::{Cli, Command};
use anyhow::Result;

/// Runs the parsed command line and returns the process exit code.
pub(crate) fn execute(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Run(args) if args.variants.any() => variants::variants(args),
        Command::Run(args) => run::run(args),
        Command::Variants(args) => variants::variants(args),
        Command::History(h) => history::history(h),
        Command::Compare(c) => compare::compare(c),
        Command::Import(i) => import::import(i),
        Command::Export(e) => export::export(e),
        Command::Census(c) => census::census(c),
        Command::Asm(a) => asm::asm(a),
        Command::Check(c) => check::check(c),
        Command::Bisect(b) => bisect::bisect(b),
        Command::Report(r) => report::report(r),
        Command::Miri(m) => miri::miri(m),
        Command::Merge(m) => merge::merge(m),
        Command::Advise(a) => advise::advise(a),
        Command::Completions(c) => completions::completions(c),
        Command::Man(m) => man::man(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// Each bad value is refused by its own check, with a message naming the option: asserting
    /// only that the command fails would pass without the check, since this package has no
    /// bench target and the command would fail later anyway.
    #[test]
    fn bad_values_are_refused() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["run", "--measure-jobs", "0"],
                "--measure-jobs must be at least 1",
            ),
            (
                &["run", "--jobs", "0"],
                "--jobs 0: cargo's build jobs must not be 0",
            ),
            (
                &["run", "--filter", "("],
                "--filter is not a valid regular expression",
            ),
            (
                &["run", "--timeout", "0"],
                "--timeout must be at least 1 second",
            ),
            (
                &["run", "--iterations-per-scenario", "0"],
                "--iterations-per-scenario must be at least 1",
            ),
            (
                &["miri", "--timeout", "0"],
                "--timeout must be at least 1 second",
            ),
            (
                &["miri", "--filter", "("],
                "--filter is not a valid regular expression",
            ),
            (
                &["variants", "--variant", "a:", "--parallel-builds", "0"],
                "--parallel-builds must be at least 1",
            ),
            // The old spelling, hidden, still reaches the same check.
            (
                &["variants", "--variant", "a:", "--build-jobs", "0"],
                "--parallel-builds must be at least 1",
            ),
            (
                &["run", "--shard", "3/2"],
                "shards are numbered from 1 to N",
            ),
            (
                &["run", "--shard", "0/2"],
                "shards are numbered from 1 to N",
            ),
            (&["check", "--baseline", "x", "--shard", "2"], "is not K/N"),
            (
                &["check", "--baseline", "x", "--icount-threshold=-1"],
                "threshold",
            ),
            (&["run", "--walltime-cpu", "9999"], "--walltime-cpu 9999"),
            (
                &["report", "--history-limit", "1"],
                "--history-limit must be at least 2",
            ),
            (&["census", "--binary", "no/such/binary"], "no such file"),
            (
                &["census", "--filter", "("],
                "--functions is not a valid regular expression",
            ),
        ];
        for (args, message) in cases {
            let cli =
                Cli::try_parse_from(std::iter::once(&"costbench").chain(args.iter())).unwrap();
            let e = execute(cli).unwrap_err();
            let text = format!("{e:#}");
            assert!(text.contains(message), "{args:?}: {text}");
            // Issue 29: every one of them is a usage error, exit 2 as `--help` documents.
            assert_eq!(
                crate::exit::of_error(&e),
                crate::exit::USAGE,
                "{args:?}: {text}"
            );
        }
    }
}
