//! The `perf` instrument's piece of the library: hardware counters read in process around one
//! run of the body, and the `perf` mode of the child protocol ([`MODE`]).
//!
//! The counters are `perf_event_open(2)`'s, which only Linux has: `events.rs` reads them there,
//! and on every other OS `other.rs` stands in its place (compiled as `events`), so that a crate
//! with the library as a dev-dependency still builds on macOS and Windows; the mode refuses to
//! run there before a body runs.

use super::mode::ChildMode;
use crate::bench::{Counted, Mode};
use crate::child_args::{ChildArgs, ChildError};
use crate::suite::Scenario;

// perf_event_open is Linux's: elsewhere the counters are a stub that says so.
#[cfg_attr(not(target_os = "linux"), path = "other.rs")]
pub(crate) mod events;

/// The `perf` mode of the child protocol: one run of the body with the counters enabled around
/// it, written as `PerfCounts`.
pub(super) const MODE: ChildMode = ChildMode {
    name: "perf",
    run: perf_mode,
};

fn perf_mode(s: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    // Refused before a body runs where there are no counters to read.
    if let Some(why) = events::UNAVAILABLE {
        return Err(crate::child_args::bad(why));
    }
    super::counters::run(s, a, Mode::Perf, |counted, result| {
        if let Counted::Perf(p) = counted {
            result.perf = Some(p)
        }
    })
}
