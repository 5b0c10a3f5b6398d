//! `costbench completions SHELL`: the shell's completion script, generated from the command
//! definitions (`clap_complete`), on stdout.

use crate::args::{Cli, CompletionsCmd};
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;

pub(super) fn completions(c: CompletionsCmd) -> Result<i32> {
    let mut script = Vec::new();
    clap_complete::generate(c.shell, &mut Cli::command(), "costbench", &mut script);
    std::io::stdout()
        .lock()
        .write_all(&script)
        .context("cannot write the completion script to stdout")?;
    Ok(crate::exit::OK)
}
