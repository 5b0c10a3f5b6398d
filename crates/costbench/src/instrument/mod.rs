//! The library's slice folder: one module per instrument that has a piece in the scenario
//! binary, and the table of the child protocol's measuring modes ([`mode()`]), which the child
//! ([`crate::child`]) looks a mode up in, so that it names none.
//!
//! - `icount`: the `icount` mode, one run of the body inside the measured region;
//! - `memory`: [`CountingAlloc`] and the global allocator the crate's features install, and the
//!   `memory` mode;
//! - `perf`: hardware counters (`perf_event_open`, Linux only) and the `perf` mode;
//! - `counters`: what the `memory` and `perf` modes share (their result file); `mode`: the shape
//!   of a mode ([`mode::ChildMode`]);
//! - `walltime`: sampling in process (batches; parties in lockstep), the `walltime` mode and
//!   `cargo bench`'s in-process table;
//! - `throughput`: a service scenario under load, the `serve` and `load` modes;
//! - `consttime`: [`secret`], [`secret_bytes`] and [`public`], the marks the constant-time
//!   instrument checks under memcheck (it has no mode of its own: memcheck runs `icount`).
//!
//! Two layers meet in a module: what runs around the body, which the library's `Bench` and the
//! child's command line call, and the mode, which runs `Bench`. So a module with both keeps the
//! first in a file of its own below the other (`walltime/sample.rs`, `memory/alloc.rs`,
//! `perf/events.rs`, `throughput/load.rs`) and its mode in `mod.rs`, and no import runs back
//! up a layer.
//!
//! What stays outside: how a body runs in this process whatever is measured
//! ([`crate::body`]), the measured region that callgrind counts ([`crate::region`], whose
//! symbols the runner reads), the placement every mode starts from ([`crate::placement`]) and
//! [`crate::bench::Bench`]'s measured path, whose modes each call into their module here (it is
//! compiled into the user's binary around the body, where a finding's frames and the census's
//! sites name its lines).

mod consttime;
mod counters;
mod icount;
pub(crate) mod memory;
mod mode;
pub(crate) mod perf;
pub(crate) mod throughput;
pub(crate) mod walltime;

// The public API the instruments add, re-exported at the crate root.
pub use consttime::{public, secret, secret_bytes};
pub use memory::CountingAlloc;

use mode::ChildMode;

/// Every measuring mode, each its instrument's.
const MODES: &[ChildMode] = &[
    icount::MODE,
    memory::MODE,
    perf::MODE,
    walltime::MODE,
    throughput::SERVE,
    throughput::LOAD,
];

/// The measuring mode called `name`, if there is one.
pub(crate) fn mode(name: &str) -> Option<&'static ChildMode> {
    MODES.iter().find(|m| m.name == name)
}
