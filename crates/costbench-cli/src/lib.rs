//! The costbench runner: builds a bench target written with the `costbench` library, runs every
//! scenario in its own child process under the chosen instruments, and writes and prints the
//! per-op results.
//!
//! Layout: `args` holds the clap definitions, `options` validates them into plain values, and
//! `commands` runs each command, wiring the layers; `run` schedules and supervises child
//! processes; `measure` owns the instruments (what to spawn, how to read what they wrote);
//! `census` finds the bounds and overflow checks left in a binary and joins them with
//! callgrind's per-instruction counts; `html_report` gathers runs and history for the HTML
//! page; `miri` runs scenarios under Miri and reads its verdicts.
//!
//! The layers below are crates of their own, re-exported here under their old paths:
//! `costbench-record` (`model`, `output`, `fmt`, `stats`, `selection`: the run record and the
//! output directory), `costbench-judge` (`compare`, `check`: statistics and verdicts, pure) and
//! `costbench-store` (`store`: history) and `costbench-report` (`report`: every renderer, pure
//! functions from records and verdicts to text). None of them spawns a process, reads a clock or prints;
//! in this crate `run`, `measure`, `miri`, `cargo`, `environment` and `variants` spawn
//! processes (cargo, git, the scenario binaries, valgrind, perf).

pub mod args;
pub mod cargo;
pub mod census;
mod commands;
pub mod config;
pub mod environment;
pub mod html_report;
pub mod import;
pub mod measure;
pub mod miri;
mod options;
pub mod run;
pub mod variants;

// The layers below, cut into their own crates, under the paths this crate has always used
// (`crate::model::X`, `crate::compare::Y`): the record (data and the output directory), judging
// (statistics, verdicts, the gate) and history.
pub use costbench_judge::{check, compare};
pub use costbench_record::{fmt, model, output, selection, stats};
pub use costbench_report as report;
pub use costbench_store as store;

use std::ffi::OsString;

/// Exit codes, documented in `costbench --help` and the README.
pub mod exit {
    /// Everything asked for ran and was written.
    pub const OK: i32 = 0;
    /// A scenario failed, or an error stopped the run (the message says which).
    pub const FAILURE: i32 = 1;
    /// The command line was wrong.
    pub const USAGE: i32 = 2;
    /// `costbench check` found a significant regression or a broken hard limit.
    pub const REGRESSION: i32 = 3;
}

/// Parses `args` (program name first), runs the command and returns the process exit code.
pub fn main_with_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::Parser;
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // The janitor a measuring run starts (`run::cancel`): not a command, never shown.
    if args.get(1).is_some_and(|a| a == run::cancel::JANITOR_ARG) {
        return run::cancel::janitor_main();
    }
    // Printing into a closed pipe (`costbench compare ... | head`) should end the program
    // quietly, as it does for other command-line tools, not panic.
    // SAFETY: restoring the default disposition of a signal at start-up, before any threads.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match crate::args::Cli::try_parse_from(args) {
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
    let result = commands::execute(cli);
    // A run stopped by Ctrl-C or SIGTERM ends as a shell reports it: 128 + the signal.
    if let Some(i) = result.as_ref().err().and_then(|e| {
        e.chain()
            .find_map(|c| c.downcast_ref::<run::cancel::Interrupted>())
    }) {
        eprintln!("{i}");
        return i.exit_code();
    }
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::FAILURE
        }
    };
    match run::cancel::interrupted() {
        Some(signal) => {
            eprintln!("interrupted ({})", run::cancel::signal_name(signal));
            128 + signal
        }
        None => code,
    }
}
