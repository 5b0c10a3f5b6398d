//! Data-placement perturbation for the child's `--perturb N`: shift where the heap and the stack
//! stand when a scenario's setup begins, so that the runner can see how far an instruction count
//! moves with data placement alone.
//!
//! Instruction counts are exact for one binary, but not independent of addresses: glibc malloc
//! walks different bins (`_int_malloc`, `unlink_chunk`) for a heap in another state, and
//! `memcmp`/`memmove` take other paths for data at another alignment. Adding an unrelated scenario
//! to a suite changes the heap every scenario starts from, so such counts move on pull requests
//! that did not touch them. Perturbed runs measure that spread.
//!
//! This module owns the perturbation only; it is never entered without `--perturb`, so plain runs
//! execute exactly what they always did.
//!
//! Making the heap independent of the suite's other registrations instead was tried and measured:
//! running the scenario on a thread of its own gives it a fresh glibc arena, but from then on the
//! process is multi-threaded, and glibc's malloc takes its arena locks and every cancellable
//! syscall its cancellation path: on the built-in suite `io/read/open_once` counted 2.3x,
//! `io/write/unbuffered` 1.9x and `pipe/transfer_1mib_*` 1.7-1.9x the instructions, costs a
//! single-threaded program never pays.

//! Settling ([`settled`]) is the other half: every process that runs a scenario first brings the
//! heap and the stack to a placement that does not depend on what else the binary registered,
//! on the binary's path or on its arguments, so that two builds differing only there count the
//! same instructions, to the last one.

use std::hint::black_box;
use std::mem::MaybeUninit;

/// Runs `f` (a mode's whole work on one scenario: setup, body and result) from a settled
/// placement: the heap emptied of free chunks with its top at a fixed page offset and a fixed
/// size ([`heap::settle`]), and the stack at a fixed page offset.
///
/// Why: glibc malloc's paths depend on its free lists and top chunk, and `memcmp`'s on where its
/// operands lie within a page, so an instruction count depends on the heap a setup starts from.
/// The suite keeps no other scenario in the child ([`crate::Suite`]), but the user's code that
/// registered them ran (a `format!`ed name, a temporary, a captured buffer) and left free chunks
/// and a higher top. The stack's start depends on the environment (fixed by the runner), the
/// binary's path and the arguments, which differ between a baseline and a candidate.
pub(crate) fn settled<R>(f: impl FnOnce() -> R) -> R {
    heap::settle();
    with_stack_at(STACK_PAGE_OFFSET, f)
}

/// Where in its page the stack stands when a settled scenario starts (any fixed value works).
const STACK_PAGE_OFFSET: usize = 0xe00;

const PAGE: usize = 4096;

/// Runs `f` in a frame lowered so that the stack pointer stands at `offset` within its page, up
/// to this function's own (fixed) frame sizes.
#[inline(never)]
fn with_stack_at<R>(offset: usize, f: impl FnOnce() -> R) -> R {
    let probe = 0u8;
    let here = black_box(std::ptr::addr_of!(probe) as usize);
    let pad = here.wrapping_sub(offset) % PAGE / 16 * 16;
    let mut f = Some(f);
    let mut out = None;
    let mut call = || out = Some(f.take().expect("the frame calls its body once")());
    let mut inner = |_: ()| FINE[pad % 256 / 16](&mut call);
    COARSE[pad / 256](&mut || inner(()));
    out.expect("the frame called its body")
}

macro_rules! frames {
    ($step:literal: $($k:literal)*) => { [$(lowered::<{ $step * $k }> as fn(&mut dyn FnMut())),*] };
}

/// Frames of 0 to 3,840 bytes in steps of 256 and of 0 to 240 in steps of 16: two calls reach any
/// 16-byte offset within a page.
const COARSE: [fn(&mut dyn FnMut()); 16] = frames!(256: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
const FINE: [fn(&mut dyn FnMut()); 16] = frames!(16: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);

/// Runs `f` (a scenario's setup and body) with perturbation `n` (at least 1) applied: a heap
/// block whose size depends on `n` stays allocated until `f` returns, and `f` runs in a stack
/// frame lowered by an `n`-dependent amount.
pub(crate) fn perturbed<R>(n: u32, f: impl FnOnce() -> R) -> R {
    // Odd perturbations also leave a heap history, even ones only move the heap's top: two kinds
    // of state, so that neither's blind spot is the only one (measured: the history alone moved
    // `regex/compile/once` as another registration does, the top alone moved a memcmp-bound
    // word count that the history left unmoved).
    let history = if n % 2 == 1 {
        heap_history(n)
    } else {
        Vec::new()
    };
    let pad = heap_pad(n);
    let out = with_lowered_stack(n, f);
    black_box(&pad);
    drop(pad);
    black_box(&history);
    drop(history);
    out
}

/// Small blocks left behind for perturbation `n`, as other scenarios' registrations leave them
/// (a name, a boxed closure, a unit): `1 + n % 4` blocks of 24 to 136 bytes kept alive, each with
/// a freed neighbour of a nearby size before it. The freed chunks wait in glibc's tcache and bins
/// for the setup's first allocations of their sizes, so the small chunks a scenario gets, and the
/// free lists its allocator walks, differ from one perturbation to the next: a change of the heap's
/// history, not only of its top (measured: a suite with one more registered scenario moved
/// `regex/compile/once` by +0.44 % in malloc's paths, which a shifted top alone did not reach).
fn heap_history(n: u32) -> Vec<Vec<u8>> {
    let n = n as usize;
    let mut kept = Vec::new();
    for i in 0..(1 + n % 4) {
        let size = 24 + 16 * ((n * 5 + i * 3) % 7);
        let freed: Vec<u8> = Vec::with_capacity(size + 16 * ((n + i) % 3));
        black_box(freed.as_ptr());
        let keep: Vec<u8> = Vec::with_capacity(size);
        black_box(keep.as_ptr());
        kept.push(keep);
        drop(freed);
    }
    kept
}

/// Size of the heap block kept alive for perturbation `n`, in bytes requested.
///
/// glibc rounds a request up to a chunk of `request + 8` bytes in 16-byte steps, and later
/// allocations are carved after it: the chunk is sized `16 * (64n + n % 3 + 1)` bytes, so it
/// grows by about a quarter page per step and is never a multiple of 64. What follows moves to
/// another quarter of its page (`memcmp` takes a slower path for operands near a page's end,
/// which shifts within a page did not reach: issue 32) and to another offset within cache lines.
/// After [`settled`] the top starts at a page boundary, so perturbations 1 to 4 put the next
/// allocation at 1,056, 2,096, 3,088 and 32 bytes into its page.
pub(crate) fn heap_pad_bytes(n: u32) -> usize {
    let n = n as usize;
    16 * (64 * n + n % 3 + 1) - 8
}

fn heap_pad(n: u32) -> Vec<u8> {
    let v: Vec<u8> = Vec::with_capacity(heap_pad_bytes(n));
    black_box(v.as_ptr());
    v
}

/// Bytes of stack padding for perturbation `n`: `16 * (4k + k % 3 + 1)` with `k` cycling
/// through 1..=16, so never a multiple of 64 (the x86-64 ABI keeps the stack 16-byte aligned, so
/// 16, 32 and 48 modulo 64 are the offsets there are) and growing with `k` to reach other pages.
pub(crate) const fn stack_pad_bytes(n: u32) -> usize {
    let k = ((n as usize).saturating_sub(1)) % SHIFTS + 1;
    16 * (4 * k + k % 3 + 1)
}

/// A frame of `B` bytes of padding below the caller, then `f`.
#[inline(never)]
fn lowered<const B: usize>(f: &mut dyn FnMut()) {
    let mut pad = [MaybeUninit::<u8>::uninit(); B];
    // The padding must exist in the frame: the optimiser may not drop an array whose address
    // escapes.
    black_box(pad.as_mut_ptr());
    f();
    black_box(&pad);
}

macro_rules! shifts {
    ($($k:literal)*) => { [$(lowered::<{ stack_pad_bytes($k) }> as fn(&mut dyn FnMut())),*] };
}

/// Distinct stack shifts; perturbations beyond this repeat them (the heap block keeps growing).
const SHIFTS: usize = 16;

/// One monomorphised frame per stack shift (Rust has no `alloca`).
const STACK_SHIFTS: [fn(&mut dyn FnMut()); SHIFTS] =
    shifts!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);

fn with_lowered_stack<R>(n: u32, f: impl FnOnce() -> R) -> R {
    let mut f = Some(f);
    let mut out = None;
    let mut call = || out = Some(f.take().expect("the frame calls its body once")());
    let k = (n as usize).saturating_sub(1) % SHIFTS;
    STACK_SHIFTS[k](&mut call);
    out.expect("the frame called its body")
}

/// glibc's heap, brought to one state whatever came before. Not under Miri (`costbench miri`
/// runs scenarios with `once`), which interprets no C library calls and gives every allocation a
/// heap of its own anyway.
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
pub(crate) mod heap {
    use std::ffi::c_void;

    type Mallinfo2 = unsafe extern "C" fn() -> libc::mallinfo2;

    /// Bytes free in the arenas outside their top chunks (bins and fast bins), and the top's size.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct Free {
        bins: usize,
        top: usize,
        system: usize,
        mmapped: usize,
    }

    fn free(info: Mallinfo2) -> Free {
        // SAFETY: mallinfo2 takes no arguments and only reads the allocator's state.
        let m = unsafe { info() };
        Free {
            bins: m.fordblks - m.keepcost,
            top: m.keepcost,
            system: m.arena,
            mmapped: m.hblkhd,
        }
    }

    /// `malloc(size)`, the pointer escaping: LLVM removes an allocation whose pointer is never
    /// used, and every allocation here is made for its effect on the heap.
    fn allocate(size: usize) -> *mut c_void {
        // SAFETY: a plain allocation; the caller keeps it or frees it once.
        std::hint::black_box(unsafe { libc::malloc(size) })
    }

    /// Chunk sizes of glibc's tcache (64 classes of 16 bytes from 32): a request of `c - 8` bytes
    /// gets a chunk of exactly `c`.
    const TCACHE_CHUNKS: std::ops::RangeInclusive<usize> = 2..=65;

    /// Entries a tcache class holds (glibc's default `glibc.malloc.tcache_count`).
    const TCACHE_COUNT: usize = 7;

    /// Requests above this go to `mmap`, not the heap (glibc's default threshold is 128 KiB).
    const LARGEST_REQUEST: usize = 64 * 1024;

    /// Upper bound on allocations made while settling, against a heap that does not behave as
    /// glibc's does (another allocator interposed): settling then stops where it is.
    const MAX_STEPS: usize = 1 << 20;

    /// Brings glibc's heap to a state that depends only on what is still allocated, not on what
    /// was allocated and freed before: no free chunk anywhere but the top (fast bins, bins and
    /// the tcache emptied, their chunks kept allocated), the top chunk starting at a fixed offset
    /// within its page and trimmed to a fixed size. Allocations that follow are carved from the
    /// top in order, at page offsets that only they decide.
    ///
    /// What is kept allocated stays so until the process exits (a few kilobytes: the free chunks
    /// the registrations left). Does nothing without `mallinfo2` (glibc before 2.33).
    ///
    /// Known limit: glibc raises its mmap threshold after freeing a large mmapped block; a user's
    /// registration code that allocates and frees more than 128 KiB before the setup changes
    /// which of the setup's large allocations are mmapped. The suite leaks (never frees) what
    /// other scenarios captured, so only such temporaries remain.
    pub(crate) fn settle() {
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks the symbol up.
        let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"mallinfo2".as_ptr()) };
        if sym.is_null() {
            return;
        }
        // SAFETY: glibc's mallinfo2 has exactly this signature.
        let info: Mallinfo2 = unsafe { std::mem::transmute::<*mut c_void, Mallinfo2>(sym) };
        let steps = std::cell::Cell::new(0);
        let step = || {
            steps.set(steps.get() + 1);
            steps.get() <= MAX_STEPS
        };
        // Fast bins merged into their neighbours and the top.
        // SAFETY: malloc_trim only reorganises the allocator's own free memory.
        unsafe { libc::malloc_trim(0) };
        // 1. Every free chunk in the bins taken: the largest request that the bins' free bytes
        //    allow is served from a bin if a chunk that large is free, else it came from the top
        //    and goes back (a chunk above the tcache's sizes merges into the top again) and the
        //    request halves; small requests carve what is left, the smallest chunk at a time.
        let mut want = LARGEST_REQUEST;
        let mut stale = 0;
        loop {
            let before = free(info);
            // More small allocations than a tcache class holds that took nothing from the bins:
            // the free bytes are not the main arena's (another thread's arena counts in
            // mallinfo2's figures too), and there is nothing more to take.
            if before.bins == 0 || stale > TCACHE_COUNT || !step() {
                break;
            }
            want = want.min(before.bins);
            let small = want <= 1024;
            let request = if small { 1 } else { want - 16 };
            let p = allocate(request);
            if p.is_null() {
                return;
            }
            let took = free(info).bins < before.bins;
            if small {
                stale = if took { 0 } else { stale + 1 };
                continue; // kept: it was a free chunk (or a tcache entry, emptied too)
            }
            if took {
                continue;
            }
            // SAFETY: `p` came from malloc above and is freed once.
            unsafe { libc::free(p) };
            want /= 2;
        }
        // 2. The tcache emptied, class by class: its entries are served without the arena's
        //    figures changing; the first allocation that changes them came from the top.
        for chunk in TCACHE_CHUNKS.map(|c| c * 16) {
            loop {
                let before = free(info);
                let p = allocate(chunk - 8);
                if p.is_null() || free(info) != before || !step() {
                    break;
                }
            }
        }
        // 3. The top moved to a fixed page offset: the next chunk is carved at the top's start,
        //    16 bytes before the pointer malloc returns.
        let p = allocate(24) as usize;
        if p == 0 {
            return;
        }
        let top = p - 16 + 32;
        let mut gap = (super::PAGE - top % super::PAGE) % super::PAGE;
        if gap != 0 && gap < 32 {
            gap += super::PAGE; // the smallest chunk is 32 bytes
        }
        if gap != 0 {
            // A chunk of exactly `gap` bytes from the top, kept.
            allocate(gap - 8);
        }
        // 4. The top trimmed: its end is page-aligned (the program break), so with its start
        //    fixed within a page, trimming leaves it the same size whatever it held.
        // SAFETY: as above.
        unsafe { libc::malloc_trim(0) };
    }
}

/// Other C libraries and allocators, and Miri: nothing to settle that costbench knows how to.
#[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri))))]
pub(crate) mod heap {
    pub(crate) fn settle() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(request: usize) -> usize {
        (request + 8).div_ceil(16) * 16
    }

    #[test]
    fn shifts_are_never_multiples_of_64_and_differ() {
        let mut heap = Vec::new();
        for n in 1..=32 {
            assert_ne!(stack_pad_bytes(n) % 64, 0, "stack, n = {n}");
            assert_eq!(stack_pad_bytes(n) % 16, 0, "stack alignment, n = {n}");
            let c = chunk(heap_pad_bytes(n));
            assert_ne!(c % 64, 0, "heap chunk, n = {n}");
            assert!(c > 1024 * n as usize, "a quarter page per step, n = {n}");
            assert!(!heap.contains(&c), "heap chunk size repeats at n = {n}");
            heap.push(c);
        }
        let stacks: std::collections::BTreeSet<_> = (1..=16).map(stack_pad_bytes).collect();
        assert_eq!(stacks.len(), 16);
    }

    #[test]
    fn a_settled_stack_stands_at_one_page_offset_from_any_depth() {
        fn sp_in<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        let mut seen = std::collections::BTreeSet::new();
        for depth in [0usize, 1, 7, 100, 333] {
            let off = nest(depth, &mut || {
                with_stack_at(STACK_PAGE_OFFSET, || {
                    sp_in(|| {
                        let x = 0u8;
                        black_box(std::ptr::addr_of!(x) as usize) % PAGE
                    })
                })
            });
            seen.insert(off);
        }
        assert_eq!(seen.len(), 1, "offsets {seen:?}");
    }

    /// Calls `f` under `depth` frames of 48 bytes each.
    #[inline(never)]
    fn nest(depth: usize, f: &mut dyn FnMut() -> usize) -> usize {
        let pad = [0u8; 48];
        black_box(&pad);
        if depth == 0 {
            f()
        } else {
            nest(depth - 1, f)
        }
    }

    #[test]
    fn the_body_runs_once_deeper_in_the_stack() {
        let here = 0u8;
        let here = &here as *const u8 as usize;
        for n in [1, 2, 17] {
            let mut runs = 0;
            let there = perturbed(n, || {
                runs += 1;
                let x = 0u8;
                black_box(&x as *const u8 as usize)
            });
            assert_eq!(runs, 1);
            assert!(there + stack_pad_bytes(n) <= here, "n = {n}");
        }
    }
}
