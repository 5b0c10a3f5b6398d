//! The costbench runner: the command line over the library crates. It builds a bench target
//! written with the `costbench` library, runs every scenario in its own child process under the
//! chosen instruments, and writes, stores, compares and prints the per-op results.
//!
//! Layout: `args` holds the clap definitions, `options` validates them into plain values, and
//! `commands` runs each command (one short file each, none importing another), wiring the
//! layers below through `core`, which owns what commands share (default paths, the history
//! location, loading and judging runs, measuring with recording); `exit` numbers the exit
//! codes; `instrument` holds what a command does with one instrument's figure (one folder per
//! instrument that has any, and the lists the commands loop over); `output` is the
//! sink every document goes through to stdout and files, and gathers runs and history for the
//! HTML page; `import` reads other tools' result files;
//! `terminal` resolves `--color` as cargo does;
//! `github` reads GitHub Actions' environment for `check` and appends its job summary.
//!
//! The layers, each a crate, with dependencies running only downward:
//! - `costbench-measure`: cargo builds, child processes, the instruments, Miri, variants. The only layer that spawns processes or reads clocks.
//! - `costbench-store`: history behind one trait (SQLite).
//! - `costbench-report`: every renderer, pure functions from records and verdicts to text.
//! - `costbench-judge`: statistics and verdicts, pure.
//! - `costbench-record`: the run record and the output directory (data, CSV and JSON).
//! - `costbench-protocol`: the versioned wire protocol between the runner and scenario binaries.

#![warn(missing_docs)]

pub mod args;
mod commands;
mod core;
pub mod exit;
pub mod github;
pub mod import;
mod instrument;
mod options;
pub mod output;
pub mod terminal;

use costbench_measure::run::cancel;
use std::ffi::OsString;

/// Parses `args` (program name first), runs the command and returns the process exit code.
pub fn main_with_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::{CommandFactory, FromArgMatches};
    // Printing into a closed pipe (`costbench compare ... | head`) should end the program
    // quietly, as it does for other command-line tools, not panic.
    // SAFETY: restoring the default disposition of a signal at start-up, before any threads.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // The janitor a measuring run starts (`run::cancel`): not a command, never shown.
    if args.get(1).is_some_and(|a| a == cancel::JANITOR_ARG) {
        return cancel::janitor_main();
    }
    // Help and usage errors in the colours `--color` asks for, before the command line is parsed.
    let command = crate::args::Cli::command().color(terminal::clap_color(&args));
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|m| crate::args::Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return code;
        }
    };
    if let Err(e) = terminal::init(cli.color) {
        eprintln!("error: {e:#}");
        return exit::USAGE;
    }
    let result = commands::execute(cli);
    // A run stopped by Ctrl-C or SIGTERM ends as a shell reports it: 128 + the signal.
    if let Some(i) = result.as_ref().err().and_then(|e| {
        e.chain()
            .find_map(|c| c.downcast_ref::<cancel::Interrupted>())
    }) {
        // What finished, as the run's table (on stderr: stdout may be a document being piped),
        // then the line that says how the run ended.
        for dir in &i.results {
            if let Ok(run) = costbench_record::output::load_run(dir) {
                let rows: Vec<_> = run
                    .results
                    .iter()
                    .filter(|r| run.row_state(r).0 != costbench_record::model::RowState::NotReached)
                    .cloned()
                    .collect();
                if !rows.is_empty() {
                    let finished = costbench_record::model::RunRecord {
                        results: rows,
                        ..run
                    };
                    eprint!("{}", costbench_report::terminal::table(&finished));
                }
            }
        }
        eprintln!("{i}");
        return i.exit_code();
    }
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            let red = costbench_report::style::BAD;
            anstream::eprintln!("{red}error{red:#}: {e:#}");
            exit::of_error(&e)
        }
    };
    match cancel::interrupted() {
        Some(signal) => {
            eprintln!("interrupted ({})", cancel::signal_name(signal));
            128 + signal
        }
        None => code,
    }
}
