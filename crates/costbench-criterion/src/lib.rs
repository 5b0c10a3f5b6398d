//! criterion's API over [costbench](https://docs.rs/costbench): measure the criterion benches a
//! crate already has (instructions per op under callgrind, wall time, memory, the census of
//! bounds checks) by changing one line of `Cargo.toml`, and not a line of the benches:
//!
//! ```toml
//! [dev-dependencies]
//! criterion = { package = "costbench-criterion", version = "0.1" }
//! ```
//!
//! ```no_run
//! # extern crate costbench_criterion as criterion;
//! // benches/fib.rs, unchanged
//! use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
//!
//! fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
//!
//! fn bench(c: &mut Criterion) {
//!     c.bench_function("fib 20", |b| b.iter(|| fib(black_box(20))));
//!     let mut group = c.benchmark_group("sum");
//!     for n in [100u64, 10_000] {
//!         let data: Vec<u64> = (0..n).collect();
//!         group.throughput(Throughput::Elements(n));
//!         group.bench_with_input(BenchmarkId::from_parameter(n), &data, |b, d| {
//!             b.iter(|| d.iter().sum::<u64>())
//!         });
//!     }
//!     group.finish();
//! }
//!
//! criterion_group!(benches, bench);
//! criterion_main!(benches);
//! ```
//!
//! Then `costbench run` in the crate measures every benchmark in a process of its own; `cargo
//! bench` prints costbench's in-process wall-time table, and `cargo test --benches` (or `cargo
//! nextest run --benches`) runs each benchmark once.
//!
//! # How a criterion benchmark becomes a costbench scenario
//!
//! - Its id is criterion's: `function`, `group/function`, `group/function/parameter` or
//!   `group/parameter` (a comma, which costbench's CSV cannot hold, becomes `;`).
//! - What the closure does before its `iter*` call is setup: not measured. Criterion calls the
//!   closure once per sample; costbench calls it once per measuring process.
//! - Its op is the group's declared [`Throughput`] when there is one (`Elements(n)`: n
//!   elements; `Bytes(n)` and `BytesDecimal(n)`: n bytes), else one iteration of the routine.
//! - [`Bencher::iter_batched`], [`Bencher::iter_batched_ref`] and [`Bencher::iter_with_setup`]:
//!   the setup closure runs outside the measurement, and the input and output are dropped
//!   outside it too, whatever the [`BatchSize`].
//! - Sampling and reporting settings (`sample_size`, `measurement_time`, `warm_up_time`,
//!   `noise_threshold`, plots, baselines, ...) are accepted and change nothing: costbench
//!   samples, stores and judges on its own terms (`costbench.toml`, `--samples`).
//!
//! # What cannot be honoured
//!
//! - [`Bencher::iter_custom`] times itself: wall time takes the durations it returns, and the
//!   other instruments (instruction counts, memory, counters) refuse the benchmark with a
//!   message naming it (`--filter` leaves it out of them).
//! - A custom [`measurement::Measurement`] (`Criterion::default().with_measurement(..)`):
//!   costbench measures with its own instruments, so every such benchmark is refused by name
//!   when measured; `cargo test --benches` still runs it once.
//! - [`Bencher::to_async`]: each iteration runs under the executor's `block_on`, whose own cost is
//!   counted with the routine's (criterion times the whole batch under one `block_on`).
//! - Profilers (`with_profiler`) are accepted and never started: costbench keeps a
//!   callgrind profile of every measured body (`callgrind/` in the output directory).

#![warn(missing_docs)]

mod bencher;
mod criterion;
mod group;
pub mod measurement;
mod throughput;

pub use bencher::{async_executor, AsyncBencher, BatchSize, Bencher};
pub use criterion::{AxisScale, Criterion, PlotConfiguration, PlottingBackend, SamplingMode};
pub use group::{BenchmarkGroup, BenchmarkId, IntoBenchmarkId};
pub use std::hint::black_box;
pub use throughput::Throughput;

pub mod profiler;

/// Glue the macros expand to; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use crate::criterion::finish;
}

/// Declares a group of benchmark functions, as criterion's macro does: either
/// `criterion_group!(NAME, TARGET...)` or
/// `criterion_group! { name = NAME; config = EXPR; targets = TARGET... }`.
///
/// ```no_run
/// # extern crate costbench_criterion as criterion;
/// use criterion::{criterion_group, criterion_main, Criterion};
/// use std::time::Duration;
///
/// fn a(c: &mut Criterion) { c.bench_function("a", |b| b.iter(|| 1 + 1)); }
/// criterion_group! {
///     name = benches;
///     config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(1));
///     targets = a
/// }
/// criterion_main!(benches);
/// ```
#[macro_export]
macro_rules! criterion_group {
    (name = $name:ident; config = $config:expr; targets = $( $target:path ),+ $(,)*) => {
        /// A criterion benchmark group.
        pub fn $name() {
            let mut criterion: $crate::Criterion<_> = $config.configure_from_args();
            $( $target(&mut criterion); )+
        }
    };
    ($name:ident, $( $target:path ),+ $(,)*) => {
        $crate::criterion_group! {
            name = $name;
            config = $crate::Criterion::default();
            targets = $( $target ),+
        }
    };
}

/// The bench target's `main`: runs the groups, then answers costbench's runner or the test
/// runner that started the binary, as criterion's macro does.
///
/// ```no_run
/// # extern crate costbench_criterion as criterion;
/// use criterion::{criterion_group, criterion_main, Criterion};
/// fn a(c: &mut Criterion) { c.bench_function("a", |b| b.iter(|| 1 + 1)); }
/// criterion_group!(benches, a);
/// criterion_main!(benches);
/// ```
#[macro_export]
macro_rules! criterion_main {
    ( $( $group:path ),+ $(,)* ) => {
        fn main() {
            $( $group(); )+
            $crate::Criterion::default().configure_from_args().final_summary();
        }
    };
}
