//! Write scenarios whose cost the `costbench` runner measures: instructions per op under
//! callgrind, time per op, and (for multi-process scenarios) each party on its own.
//!
//! A scenario has a name, a setup that is not measured, a measured body, and a declared number of
//! operations per run of the body, so every figure is reported *per op* (per lookup, per request,
//! per byte). Scenarios live in a bench target of your crate with `harness = false`:
//!
//! ```toml
//! [dev-dependencies]
//! costbench = "0.1"
//!
//! [[bench]]
//! name = "costs"
//! harness = false
//! ```
//!
//! ```no_run
//! // benches/costs.rs
//! use costbench::{black_box, ops, Suite};
//!
//! fn main() {
//!     let mut suite = Suite::new();
//!     suite.bench("sum/checked", ops(1000, "elements"), |b| {
//!         let data: Vec<u64> = (0..1000).collect(); // setup: not measured
//!         b.iter(|| black_box(&data).iter().sum::<u64>()); // measured
//!     });
//!     suite.main();
//! }
//! ```
//!
//! Then `costbench run` (or `cargo costbench run`) in the crate builds the target and measures
//! every scenario in its own process. `cargo bench` runs the same binary as a quick in-process
//! wall-time benchmark and `cargo test --benches` runs every scenario once as a smoke test.
//!
//! # What is measured
//!
//! Only the closure given to [`Bench::iter`] (or the body of [`Bench::iter_with_setup`]). Its
//! return value is dropped after the measurement stops. Under the runner's instruction counting
//! the body runs exactly once, inside a function named
//! [`costbench_measured_region`](crate::region::costbench_measured_region) that callgrind is told to
//! count; for wall time it runs many times in timed batches.
//!
//! # Checking the unsafe side under Miri
//!
//! `costbench miri` runs each scenario's setup and one run of its body under Miri and reports
//! undefined behaviour with its source location. Size inputs with [`miri_size`] so that Miri
//! (thousands of times slower than native code) gets a smaller one, and give code that reads
//! words out of bytes an [`UnalignedBytes`] buffer to check it at 1-byte alignment.
//!
//! # When to use [`black_box`]
//!
//! The optimiser sees your setup and your body together. If the inputs are constants it may
//! compute the result at compile time, and if a result is unused it may delete the work. Pass
//! inputs through `black_box` inside the body (`black_box(&data)`) when the compiler could know
//! them; the return value of the body is already opaque to the optimiser, so return what you
//! compute instead of discarding it.

//! # Counting allocations and choosing the allocator
//!
//! The runner's `memory` instrument reports allocations, bytes allocated and peak heap per op
//! when the bench binary's global allocator is a [`CountingAlloc`]. Enable this crate's
//! `count-alloc` feature to install one (over mimalloc or jemalloc with the `mimalloc` or
//! `jemalloc` feature, else over the system allocator), or declare it yourself. The `mimalloc`
//! and `jemalloc` features alone install that allocator, so `cargo bench --features
//! costbench/mimalloc` measures your code on mimalloc without editing it.
//!
//! # Platforms
//!
//! The runner measures on Linux, but this library builds on Linux, macOS and Windows, so that a
//! crate with it as a dev-dependency builds for every developer. `cargo bench`, `cargo test
//! --benches` and [`CountingAlloc`] work everywhere. What needs the OS is refused at run time with
//! "not available on this OS": the `perf` instrument off Linux (`perf_event_open`), and
//! multi-process parties and lockstep off Unix (inherited pipe descriptors). On Windows the
//! parties of a multi-party scenario are timed with the monotonic clock, waits for peers included,
//! since thread CPU time there advances only at scheduler ticks.

#![warn(missing_docs)]

mod bench;
mod body;
mod budget;
mod child;
mod child_args;
// The hook of the criterion and divan compatibility crates: hidden, outside the semver promise.
#[doc(hidden)]
#[path = "compat.rs"]
pub mod __compat;
mod entry;
mod harness;
mod instrument;
mod link;
mod miri;
mod placement;
pub mod region;
mod service;
mod suite;

pub use bench::Bench;
pub use budget::{Budget, Complexity};
pub use instrument::{public, secret, secret_bytes, CountingAlloc};
pub use link::Link;
pub use miri::{miri_size, under_miri, UnalignedBytes};
pub use service::{Client, Conn, Server};
pub use std::hint::black_box;
pub use suite::{ops, Multi, Ops, Service, Suite};
