//! The census instrument: bounds and overflow checks executed per op. It rides on the icount
//! run, which with [`TOOL_ARGS`] also writes each instruction's execution count (the `Ir` total
//! is unchanged); [`parse`] joins those counts with the guards the static census
//! ([`analyse`]: the binary through `crate::elf`, `disasm`, `guards`) found in the binary beforehand, which is also
//! what `costbench census` prints.
//!
//! It starts no process of its own: the icount phase (`icount::phase`) hands it the kept
//! callgrind file of every measured id.

mod analyse;
pub mod disasm;
pub mod guards;
pub(crate) mod join;
pub mod parse;
pub mod sites;

pub use analyse::{analyse, attribute, crate_of};
pub(crate) use analyse::{Lines, READER};
pub(crate) use join::CensusJoin;
pub use join::TOOL_ARGS;

use super::phase::{Phase, Ride};
use super::shape::{Measured, Output, Parser, Rider, Stored};
use crate::run::binary::Binary;
use costbench_record::model::{self, ScenarioResult};

/// How the scheduler runs it: on the icount run, in its phase, with each binary's guards found
/// before any phase.
pub(crate) const PHASE: Phase = Phase::Riding(&Census);

/// The census as the run's setup prepares it: each binary's guards (the static census), which
/// the icount phase's runs are joined with.
struct Census;

impl Ride for Census {
    fn prepare(&self, bin: &Binary) -> Result<Box<dyn Rider>, String> {
        // The census joins callgrind's counts with one binary's guards.
        if bin.several() {
            return Err("the census reads one bench binary at a time: choose one bench \
                        target with --bench NAME"
                .to_string());
        }
        match analyse(&bin.exe) {
            Ok(c) => Ok(Box::new(CensusJoin::new(c, &bin.exe))),
            Err(e) => Err(format!("{e:#}")),
        }
    }

    fn still_runs(&self) -> &'static str {
        "instruction counts still run"
    }
}

impl Rider for CensusJoin {
    fn tool_args(&self) -> &'static [&'static str] {
        TOOL_ARGS
    }

    fn read(&self, out: Output<'_>) -> Measured {
        self.parse(out).map(|c| Box::new(c) as Box<dyn Stored>)
    }
}


impl Stored for model::Census {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.census = Some(*self);
    }
}
