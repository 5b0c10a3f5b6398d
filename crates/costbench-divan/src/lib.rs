//! divan's API over [costbench](https://docs.rs/costbench): measure the divan benches a crate
//! already has (instructions per op under callgrind, wall time, memory, the census of bounds
//! checks) by changing one line of `Cargo.toml`, and not a line of the benches:
//!
//! ```toml
//! [dev-dependencies]
//! divan = { package = "costbench-divan", version = "0.1" }
//! ```
//!
//! ```no_run
//! # extern crate costbench_divan as divan;
//! // benches/sums.rs, unchanged
//! use divan::counter::ItemsCount;
//! use divan::{black_box, Bencher};
//!
//! fn main() {
//!     divan::main();
//! }
//!
//! #[divan::bench]
//! fn add() -> u64 {
//!     black_box(2u64) + black_box(3)
//! }
//!
//! #[divan::bench(args = [10, 1000])]
//! fn sum(bencher: Bencher, n: u64) {
//!     let data: Vec<u64> = (0..n).collect();
//!     bencher
//!         .counter(ItemsCount::new(n))
//!         .bench(|| black_box(&data).iter().sum::<u64>());
//! }
//!
//! #[divan::bench(types = [Vec<u8>, String], consts = [16, 256])]
//! fn make<T: Default, const N: usize>(bencher: Bencher) {
//!     bencher.bench(|| (0..N).map(|_| T::default()).count());
//! }
//! ```
//!
//! Then `costbench run` in the crate measures every benchmark in a process of its own; `cargo
//! bench` prints costbench's in-process wall-time table, and `cargo test --benches` (or `cargo
//! nextest run --benches`) runs each benchmark once.
//!
//! # How a divan benchmark becomes a costbench scenario
//!
//! - Its id is its module path below the bench target's root and its name (`add`,
//!   `group::add`), then one `/`-separated part per type, const and argument:
//!   `make/Vec<u8>/16`, `sum/1000`.
//! - What the function does before calling `bench*` is setup, not measured; with
//!   `with_inputs(gen)`, `gen` runs outside the measurement and the input and output are
//!   dropped outside it. A benchmark without a [`Bencher`] is measured whole, its return value
//!   dropped outside the measurement.
//! - Its op is its counter (`counter(..)`, `input_counter(..)`, or the `counters`,
//!   `bytes_count`, `items_count`, `chars_count` options): bytes, items or chars per run of the
//!   body; without one, one iteration. A counter set inside the function is only known once it
//!   runs, so the listing runs each benchmark's setup (not its body) to learn it.
//! - divan's sampling options (`sample_count`, `sample_size`, `min_time`, `max_time`,
//!   `skip_ext_time`, `threads`) are accepted and change nothing; `ignore` (or `#[ignore]`)
//!   leaves the benchmark out.

#![warn(missing_docs)]

mod alloc;
mod bencher;
pub mod counter;

pub use alloc::AllocProfiler;
pub use bencher::{Bencher, BencherWithInputs};
pub use costbench_divan_macros::{bench, bench_group};
pub use std::hint::black_box;

/// Passes `value` through [`black_box`] and drops it.
pub fn black_box_drop<T>(value: T) {
    drop(black_box(value));
}

/// Runs every benchmark registered with `#[divan::bench]`, for costbench's runner or the test
/// runner that started the binary, and exits.
pub fn main() {
    __private::run_all()
}

/// Glue the attributes expand to; not part of the API.
#[doc(hidden)]
pub mod __private {
    use crate::bencher::{Bencher, Counted};
    use costbench::__compat::Session;
    use std::fmt::{Debug, Display};
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// One `#[divan::bench]` function, registered before `main`.
    #[derive(Debug)]
    pub struct Entry {
        module_path: &'static str,
        line: u32,
        declare: fn(&mut Registry),
        next: AtomicPtr<Entry>,
    }

    impl Entry {
        /// An entry for the function `declare` declares the variants of.
        pub const fn new(module_path: &'static str, line: u32, declare: fn(&mut Registry)) -> Self {
            Entry {
                module_path,
                line,
                declare,
                next: AtomicPtr::new(std::ptr::null_mut()),
            }
        }
    }

    /// The registered entries, a lock-free list: registration runs before `main`, from the
    /// platform's constructor section, where nothing else should be relied on.
    static HEAD: AtomicPtr<Entry> = AtomicPtr::new(std::ptr::null_mut());

    /// Adds `e` to the registered entries.
    pub fn register(e: &'static Entry) {
        let new = e as *const Entry as *mut Entry;
        let mut head = HEAD.load(Ordering::Acquire);
        loop {
            e.next.store(head, Ordering::Relaxed);
            match HEAD.compare_exchange_weak(head, new, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return,
                Err(h) => head = h,
            }
        }
    }

    fn entries() -> Vec<&'static Entry> {
        let mut out = Vec::new();
        let mut p = HEAD.load(Ordering::Acquire);
        while !p.is_null() {
            // SAFETY: only `register` stores into the list, and only `&'static Entry`s.
            let e: &'static Entry = unsafe { &*p };
            out.push(e);
            p = e.next.load(Ordering::Acquire);
        }
        out
    }

    /// Where a benchmark's variants are declared.
    #[derive(Debug)]
    pub struct Registry {
        session: Session,
    }

    impl Registry {
        /// Declares the benchmark `name`; `f` is its whole life, given a [`Bencher`].
        pub fn bench(&mut self, name: String, f: &mut dyn FnMut(Bencher<'_, '_>)) {
            if !self.session.wants(&name) {
                return;
            }
            // Ops are only known once the function sets its counter: learn them from a run of
            // its setup alone, where the runner or the test runner reads them.
            let ops = if self.session.needs_ops() {
                let mut counted = None;
                f(Bencher::probe(&mut counted));
                Counted::ops(counted)
            } else {
                costbench::ops(1, "iterations")
            };
            self.session
                .bench(&name, ops, &mut |b: &mut costbench::Bench| {
                    f(Bencher::run(b))
                });
        }
    }

    /// Declares every registered benchmark, in the order of their module paths and lines, then
    /// ends the session.
    pub fn run_all() -> ! {
        let mut es = entries();
        es.sort_by_key(|e| (e.module_path, e.line));
        let mut r = Registry {
            session: Session::from_env(),
        };
        for e in es {
            (e.declare)(&mut r);
        }
        r.session.finish()
    }

    /// The benchmark's path below the bench target's root: `module::name`.
    pub fn path(module_path: &str, name: &str) -> String {
        match module_path.split_once("::") {
            Some((_, rest)) => format!("{rest}::{name}"),
            None => name.to_string(),
        }
    }

    /// A value to name a variant by: its `Display` where it has one, else its `Debug`.
    #[derive(Debug)]
    pub struct Wrap<'a, T: ?Sized>(pub &'a T);

    /// Names by `Display` (chosen first, by auto-ref).
    pub trait ByDisplay {
        /// The name.
        fn __divan_name(&self) -> String;
    }

    impl<T: Display + ?Sized> ByDisplay for &Wrap<'_, T> {
        fn __divan_name(&self) -> String {
            self.0.to_string()
        }
    }

    /// Names by `Debug`.
    pub trait ByDebug {
        /// The name.
        fn __divan_name(&self) -> String;
    }

    impl<T: Debug + ?Sized> ByDebug for Wrap<'_, T> {
        fn __divan_name(&self) -> String {
            format!("{:?}", self.0)
        }
    }

    /// The values of `args = ...`.
    pub fn collect<I: IntoIterator>(args: I) -> Vec<I::Item> {
        args.into_iter().collect()
    }
}
