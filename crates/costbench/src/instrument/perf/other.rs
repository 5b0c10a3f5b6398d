//! The `perf` instrument off Linux, where `perf_event_open(2)` does not exist: `perf/mod.rs`
//! compiles this file as `events` in place of `events.rs` on every other OS, so that a crate
//! with the library as a dev-dependency still builds on macOS and Windows.
//!
//! The child refuses the `perf` mode with [`NOT_AVAILABLE`] ([`UNAVAILABLE`]) before a body runs; [`measure`]
//! exists only so that the rest of the library compiles unchanged, and should it ever be reached
//! it still invents no number: every counter is reported refused, with `ENOSYS`.

use costbench_protocol::{PerfCounts, PerfUnavailable};

/// Why the `perf` instrument does nothing on this OS.
pub(crate) const NOT_AVAILABLE: &str = "the perf instrument reads hardware counters with Linux's \
perf_event_open: not available on this OS";

/// Why the `perf` mode is refused here, before a body runs.
pub(crate) const UNAVAILABLE: Option<&str> = Some(NOT_AVAILABLE);

/// The counters `events.rs` asks for on Linux, by name.
const COUNTERS: [&str; 8] = [
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "l1d-loads",
    "l1d-load-misses",
];

/// Runs `f` and reports every counter as refused.
pub(crate) fn measure<R>(f: impl FnOnce() -> R) -> (R, PerfCounts) {
    let out = f();
    let unavailable = COUNTERS
        .iter()
        .map(|name| PerfUnavailable {
            counter: name.to_string(),
            errno: libc::ENOSYS,
            error: NOT_AVAILABLE.to_string(),
        })
        .collect();
    (
        out,
        PerfCounts {
            readings: Vec::new(),
            unavailable,
            paranoid: None,
        },
    )
}
