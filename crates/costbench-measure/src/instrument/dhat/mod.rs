//! Valgrind's DHAT: total and peak heap bytes and blocks (the figures rustls's ci-bench keeps
//! in `memory.csv`), one process per party under `valgrind --tool=dhat`; [`parse`] reads its
//! JSON.
//!
//! DHAT cannot be switched on around one function, so its figures cover the scenario's whole
//! process: start-up, setup and the body. They complement the counting allocator's body-only
//! figures and need no change to the bench binary.

pub mod parse;

use super::callgrind::Valgrind;
use super::phase::Phase;
use super::shape::{PerParty, Stored};
use costbench_record::model::ScenarioResult;
use std::path::Path;
use std::process::Command;

/// How the scheduler runs it: one process per party, `--measure-jobs` scenarios at once.
pub(crate) const PHASE: Phase = Phase::Parallel(&Dhat);

/// `valgrind --tool=dhat` running `exe args`, writing its JSON to `out_file` (no `%` in it).
pub fn command(valgrind: &Valgrind, out_file: &Path, exe: &Path, args: &[String]) -> Command {
    valgrind.command(
        ["--tool=dhat", "--quiet"],
        "dhat-out-file",
        out_file,
        exe,
        args,
    )
}

/// The DHAT instrument, as the registry runs it.
pub(crate) struct Dhat;

impl PerParty for Dhat {
    fn command(
        &self,
        valgrind: Option<&Valgrind>,
        exe: &Path,
        args: Vec<String>,
        out_file: &Path,
    ) -> Command {
        let vg = valgrind.expect("DHAT runs only with valgrind");
        command(vg, out_file, exe, &args)
    }
}

impl Stored for costbench_record::instrument::dhat::Dhat {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.counters.dhat = Some(*self);
    }
}
