//! The costbench runner: builds a bench target written with the `costbench` library, runs every
//! scenario in its own child process under the chosen instruments, and writes and prints the
//! per-op results.
//!
//! Layout: `args` holds the clap definitions, `options` validates them into plain values, and
//! `commands` runs each command, wiring the layers below; `run` schedules and supervises child
//! processes; `measure` owns the instruments (what to spawn, how to read what they wrote);
//! `census` finds the bounds and overflow checks left in a binary and joins them with
//! callgrind's per-instruction counts; `html_report` gathers runs and history for the HTML
//! page; `stats` and `report` are pure functions of their inputs;
//! `output` writes result files atomically; `miri` runs scenarios under Miri and reads its
//! verdicts. Only `run`, `measure` and `miri` spawn processes or read clocks.

pub mod args;
pub mod cargo;
pub mod census;
pub mod check;
mod commands;
pub mod compare;
pub mod config;
pub mod environment;
pub mod fmt;
pub mod html_report;
pub mod import;
pub mod measure;
pub mod miri;
pub mod model;
mod options;
pub mod output;
pub mod report;
pub mod run;
pub mod selection;
pub mod stats;
pub mod store;
pub mod variants;

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
    match commands::execute(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::FAILURE
        }
    }
}
