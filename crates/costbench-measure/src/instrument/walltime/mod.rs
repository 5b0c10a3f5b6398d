//! Wall time: one process per scenario in `walltime` mode (all its parties in it), pinned to
//! `--walltime-cpu`, warming up and then timing batches of the body; with several builds,
//! short children of every build in interleaved rounds. The phase is this folder's own
//! (`phase`: one scenario at a time; `interleaved` for several builds, with the options and
//! looks of its rounds in [`adaptive`]); [`parse`] reads what a child wrote and turns samples
//! into per-op statistics; [`ci_bench`] reads the samples another harness wrote (rustls
//! ci-bench's wall-time CSV, for `costbench import`).

pub mod adaptive;
pub mod ci_bench;
mod interleaved;
pub mod parse;
mod phase;

use super::phase::Phase;
use super::shape::Stored;
use costbench_record::model::{self, ScenarioResult};

/// How the scheduler runs it: by a phase of its own: one scenario at a time, or interleaved with other builds.
pub(crate) const PHASE: Phase = Phase::Own(&phase::Timing);

/// The sampling arguments of a plain run's child: exactly `samples` samples and no time budget
/// when `--iterations-per-scenario` gives a count, else the library's defaults.
pub fn sampling_args(samples: Option<u32>) -> Vec<String> {
    match samples {
        Some(n) => vec![
            "--samples".to_string(),
            n.to_string(),
            "--max-ms".into(),
            "0".into(),
        ],
        None => Vec::new(),
    }
}

impl Stored for model::Walltime {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.walltime = Some(*self);
    }
}
