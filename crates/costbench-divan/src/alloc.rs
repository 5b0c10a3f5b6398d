//! [`AllocProfiler`]: divan's counting global allocator, as costbench's [`CountingAlloc`], so
//! that the runner's `memory` instrument counts the allocations of each benchmark's body.

use costbench::CountingAlloc;
use std::alloc::{GlobalAlloc, Layout, System};

/// A global allocator that counts allocations, as divan's does: with it installed, `costbench
/// run --instrument memory` reports allocations, bytes and peak heap per op. It is the
/// program's global allocator, so the costbench library's `count-alloc` feature (which installs
/// one) must stay off where it is declared.
///
/// Not compiled as a doc test: in this workspace another member turns `count-alloc` on, and a
/// program may have only one global allocator.
///
/// ```ignore
/// # extern crate costbench_divan as divan;
/// #[global_allocator]
/// static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();
/// # fn main() {}
/// ```
#[derive(Debug)]
pub struct AllocProfiler<A = System> {
    inner: CountingAlloc<A>,
}

impl AllocProfiler<System> {
    /// Counting over the system allocator.
    pub const fn system() -> Self {
        AllocProfiler::new(System)
    }
}

impl<A> AllocProfiler<A> {
    /// Counting over `alloc`.
    pub const fn new(alloc: A) -> Self {
        AllocProfiler {
            inner: CountingAlloc::new(alloc),
        }
    }
}

// SAFETY: every call is forwarded unchanged to `CountingAlloc`, itself a `GlobalAlloc`.
unsafe impl<A: GlobalAlloc> GlobalAlloc for AllocProfiler<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { self.inner.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe { self.inner.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { self.inner.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        unsafe { self.inner.realloc(ptr, layout, new_size) }
    }
}
