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

use std::hint::black_box;
use std::mem::MaybeUninit;

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
/// allocations are carved after it: the chunk is sized `16 * (36n + n % 3 + 1)` bytes, so it
/// grows by about 576 bytes per step (through tcache, small-bin and larger size classes) and is
/// never a multiple of 64, moving what follows to another offset within cache lines.
pub(crate) fn heap_pad_bytes(n: u32) -> usize {
    let n = n as usize;
    16 * (36 * n + n % 3 + 1) - 8
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
            assert!(!heap.contains(&c), "heap chunk size repeats at n = {n}");
            heap.push(c);
        }
        let stacks: std::collections::BTreeSet<_> = (1..=16).map(stack_pad_bytes).collect();
        assert_eq!(stacks.len(), 16);
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
