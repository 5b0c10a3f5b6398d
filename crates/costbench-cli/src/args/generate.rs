//! The arguments of the commands that print what is generated from these definitions, as cargo
//! tools ship it: `completions` (a shell's completion script, `clap_complete`) and `man` (roff
//! man pages, `clap_mangen`). Nothing here generates anything: `commands` does.

use std::path::PathBuf;

/// `costbench completions SHELL`.
#[derive(Debug, clap::Args)]
pub struct CompletionsCmd {
    /// The shell to print the completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// `costbench man`.
#[derive(Debug, clap::Args)]
pub struct ManCmd {
    /// Write one page per command into this folder instead (costbench.1, costbench-run.1,
    /// costbench-history-changes.1, ...), each written whole or not at all; without it, the
    /// page of `costbench` itself, which lists the commands, goes to stdout.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
}
