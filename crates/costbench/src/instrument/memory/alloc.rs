//! Allocation counting and the choice of global allocator.
//!
//! [`CountingAlloc`] wraps any [`GlobalAlloc`] and counts, process-wide, allocations,
//! deallocations, reallocations, bytes allocated and live heap bytes (with their peak). The
//! runner's `memory` instrument reads the counters around the measured body. Counting changes
//! nothing about the inner allocator's decisions: every call is forwarded with the same layout,
//! and the only extra work is a handful of relaxed atomic additions per call.
//!
//! Cargo features of this crate pick the bench binary's global allocator so that users switch
//! allocators without editing code (`cargo bench --features costbench/mimalloc`):
//!
//! | features | global allocator installed by this crate |
//! |---|---|
//! | none | none (the program's own, by default the system allocator) |
//! | `mimalloc` | `mimalloc::MiMalloc` |
//! | `jemalloc` | `tikv_jemallocator::Jemalloc` |
//! | `count-alloc` | `CountingAlloc<System>` |
//! | `count-alloc` + `mimalloc` / `jemalloc` | `CountingAlloc<MiMalloc>` / `CountingAlloc<Jemalloc>` |
//!
//! A program that declares its own `#[global_allocator]` must not enable these features (the
//! linker refuses two global allocators); it can declare a `CountingAlloc` itself instead.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

// One set of counters per process: there is only one global allocator, and a generic type
// cannot own statics of its own.
static ALLOCS: AtomicU64 = AtomicU64::new(0);
static DEALLOCS: AtomicU64 = AtomicU64::new(0);
static REALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES_ALLOCATED: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

/// A global allocator that forwards to `A` and counts what passes through.
///
/// Declare it yourself when you do not use the `count-alloc` feature (not compiled as a doc
/// test: in this workspace another member turns `count-alloc` on, and a program may have only
/// one global allocator):
///
/// ```ignore
/// use std::alloc::System;
///
/// #[global_allocator]
/// static GLOBAL: costbench::CountingAlloc<System> = costbench::CountingAlloc::new(System);
/// # fn main() {}
/// ```
///
/// Counted, process-wide: every successful `alloc`/`alloc_zeroed` (one allocation, its size in
/// bytes allocated), every `dealloc`, every successful `realloc` (one reallocation; growth
/// counts as bytes allocated) and the live bytes requested, whose peak the runner reports above
/// the level at the start of the measured body. Sizes are the requested sizes, not what the
/// allocator rounds them up to.
#[derive(Debug, Default)]
pub struct CountingAlloc<A> {
    inner: A,
}

impl<A> CountingAlloc<A> {
    /// Wraps `inner`.
    pub const fn new(inner: A) -> Self {
        CountingAlloc { inner }
    }
}

fn grow_live(by: u64) {
    let now = LIVE.fetch_add(by, Relaxed) + by;
    // A plain load first: the locked compare-and-swap loop of fetch_max runs only when the
    // peak actually grows.
    if now > PEAK.load(Relaxed) {
        PEAK.fetch_max(now, Relaxed);
    }
}

fn on_alloc(size: usize) {
    ALLOCS.fetch_add(1, Relaxed);
    BYTES_ALLOCATED.fetch_add(size as u64, Relaxed);
    grow_live(size as u64);
}

// SAFETY: every method forwards to `inner` unchanged; the counters only observe.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.inner.alloc(layout) };
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.inner.alloc_zeroed(layout) };
        if !p.is_null() {
            on_alloc(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.dealloc(ptr, layout) };
        DEALLOCS.fetch_add(1, Relaxed);
        LIVE.fetch_sub(layout.size() as u64, Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            REALLOCS.fetch_add(1, Relaxed);
            let old = layout.size() as u64;
            let new = new_size as u64;
            if new >= old {
                BYTES_ALLOCATED.fetch_add(new - old, Relaxed);
                grow_live(new - old);
            } else {
                LIVE.fetch_sub(old - new, Relaxed);
            }
        }
        p
    }
}

/// The counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub allocs: u64,
    pub deallocs: u64,
    pub reallocs: u64,
    pub bytes_allocated: u64,
    pub live: u64,
    pub peak: u64,
}

pub(crate) fn snapshot() -> Snapshot {
    Snapshot {
        allocs: ALLOCS.load(Relaxed),
        deallocs: DEALLOCS.load(Relaxed),
        reallocs: REALLOCS.load(Relaxed),
        bytes_allocated: BYTES_ALLOCATED.load(Relaxed),
        live: LIVE.load(Relaxed),
        peak: PEAK.load(Relaxed),
    }
}

/// Starts a new peak: from now on the peak is measured from the current live level.
pub(crate) fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

/// Whether the process's global allocator is a [`CountingAlloc`]: allocates one block and looks
/// whether the allocation counter moved.
pub(crate) fn counting_installed() -> bool {
    let before = ALLOCS.load(Relaxed);
    drop(std::hint::black_box(Box::new(std::hint::black_box(1u64))));
    ALLOCS.load(Relaxed) != before
}

/// What to tell a user whose binary does not count allocations.
pub(crate) const NOT_INSTALLED: &str = "this bench binary's global allocator does not count \
allocations: enable the costbench library's `count-alloc` feature (in Cargo.toml: \
`costbench = { ..., features = [\"count-alloc\"] }`), or declare \
`#[global_allocator] static GLOBAL: costbench::CountingAlloc<std::alloc::System> = \
costbench::CountingAlloc::new(std::alloc::System);` in the bench target";

#[cfg(all(feature = "mimalloc", feature = "jemalloc"))]
compile_error!("costbench: enable at most one of the features `mimalloc` and `jemalloc`");

#[cfg(all(
    feature = "count-alloc",
    feature = "mimalloc",
    not(feature = "jemalloc")
))]
#[global_allocator]
static GLOBAL: CountingAlloc<mimalloc::MiMalloc> = CountingAlloc::new(mimalloc::MiMalloc);

#[cfg(all(
    feature = "count-alloc",
    feature = "jemalloc",
    not(feature = "mimalloc")
))]
#[global_allocator]
static GLOBAL: CountingAlloc<tikv_jemallocator::Jemalloc> =
    CountingAlloc::new(tikv_jemallocator::Jemalloc);

#[cfg(all(
    feature = "count-alloc",
    not(feature = "mimalloc"),
    not(feature = "jemalloc")
))]
#[global_allocator]
static GLOBAL: CountingAlloc<std::alloc::System> = CountingAlloc::new(std::alloc::System);

#[cfg(all(
    not(feature = "count-alloc"),
    feature = "mimalloc",
    not(feature = "jemalloc")
))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(all(
    not(feature = "count-alloc"),
    feature = "jemalloc",
    not(feature = "mimalloc")
))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Name of the allocator this crate installed, for the run record. Without any feature this
/// crate installs nothing and cannot see what the program declared.
pub(crate) fn allocator_name() -> &'static str {
    if cfg!(feature = "mimalloc") {
        "mimalloc"
    } else if cfg!(feature = "jemalloc") {
        "jemalloc"
    } else if cfg!(feature = "count-alloc") {
        "system"
    } else {
        "the binary's own"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The arithmetic of the wrapper, driven directly (the test binary's global allocator may
    // or may not count, depending on the features the workspace unified).
    #[test]
    fn wrapper_counts_calls_and_bytes() {
        let a = CountingAlloc::new(std::alloc::System);
        let l = Layout::from_size_align(100, 8).unwrap();
        let before = snapshot();
        // SAFETY: a valid layout; the block is grown, then freed with its current layout.
        unsafe {
            let p = a.alloc(l);
            assert!(!p.is_null());
            let q = a.realloc(p, l, 300);
            assert!(!q.is_null());
            a.dealloc(q, Layout::from_size_align(300, 8).unwrap());
        }
        let after = snapshot();
        // Other tests may allocate concurrently through a counting global allocator, so only
        // lower bounds are exact here; the e2e tests check exact figures in a quiet process.
        assert!(after.allocs - before.allocs >= 1);
        assert!(after.reallocs - before.reallocs >= 1);
        assert!(after.deallocs - before.deallocs >= 1);
        assert!(after.bytes_allocated - before.bytes_allocated >= 300);
        assert!(after.peak >= 300);
    }
}
