//! A built scenario binary: the child arguments every mode shares, and its listing (the
//! scenarios it offers), asked for before anything is measured.

use super::child;
use anyhow::{bail, Context, Result};
use costbench_protocol::{self as proto, Listing, CHILD_FLAG, PROTOCOL_VERSION};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// A built scenario binary and where to run it.
#[derive(Debug, Clone)]
pub struct Binary {
    /// Path of the bench executable.
    pub exe: PathBuf,
    /// Directory the scenarios' children run in.
    pub cwd: PathBuf,
}

impl Binary {
    pub(super) fn child_args(&self, mode: &str) -> Vec<String> {
        vec![
            CHILD_FLAG.into(),
            mode.into(),
            "--protocol".into(),
            PROTOCOL_VERSION.to_string(),
        ]
    }

    /// Asks the binary for its scenarios (killing it after `timeout`).
    pub fn list(&self, timeout: Duration) -> Result<Listing> {
        let mut cmd = Command::new(&self.exe);
        cmd.args(self.child_args("list"))
            .current_dir(&self.cwd)
            .stdin(std::process::Stdio::null());
        let (outcome, stdout) = child::run_captured(&mut cmd, timeout, Default::default())
            .with_context(|| format!("cannot run scenario binary {}", self.exe.display()))?;
        if !outcome.success() {
            let (_, what) = outcome.describe(timeout);
            bail!(
                "scenario binary {} failed to list its scenarios ({what}):\n{}",
                self.exe.display(),
                outcome.stderr_tail
            );
        }
        Listing::from_stdout(&stdout).map_err(|e| match e {
            proto::DecodeError::NoListing => anyhow::anyhow!(
                "scenario binary {} did not answer the costbench protocol; its main must end with \
                 costbench::Suite::main()",
                self.exe.display()
            ),
            e => e.into(),
        })
    }
}
