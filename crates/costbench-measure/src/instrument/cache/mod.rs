//! Simulated counters: callgrind with its cache and branch simulation, counted only inside the
//! measured body (the same toggle as instruction counts), one process per party; [`parse`]
//! derives the figures and the estimated-cycles model.
//!
//! The cache geometry is pinned (see [`TOOL_ARGS`]) rather than guessed from the host's `cpuid`,
//! so that the figures are the same on every machine: left to guess, valgrind 3.19 on this
//! project's VM takes a 48 KiB 12-way D1 and a 512 MiB 2-way last level, which no real CPU has.

pub mod parse;

use super::callgrind::{self, Valgrind};
use super::phase::Phase;
use super::shape::{PerParty, Stored};
use costbench_record::instrument::cache::CacheSim;
use costbench_record::model::ScenarioResult;
use std::path::Path;
use std::process::Command;

/// How the scheduler runs it: one process per party, `--measure-jobs` scenarios at once.
pub(crate) const PHASE: Phase = Phase::Parallel(&Cache);

/// Callgrind options that switch the simulations on, with a fixed, common geometry: 32 KiB
/// 8-way L1 instruction and data caches and an 8 MiB 16-way last level, 64-byte lines.
pub const TOOL_ARGS: &[&str] = &[
    "--cache-sim=yes",
    "--branch-sim=yes",
    "--I1=32768,8,64",
    "--D1=32768,8,64",
    "--LL=8388608,16,64",
];

/// The cache instrument, as the registry runs it.
pub(crate) struct Cache;

impl PerParty for Cache {
    fn command(
        &self,
        valgrind: Option<&Valgrind>,
        exe: &Path,
        args: Vec<String>,
        out_file: &Path,
    ) -> Command {
        let vg = valgrind.expect("the cache instrument runs only with valgrind");
        callgrind::command(vg, TOOL_ARGS, out_file, exe, &args)
    }
}

impl Stored for CacheSim {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.counters.cache = Some(*self);
    }
}
