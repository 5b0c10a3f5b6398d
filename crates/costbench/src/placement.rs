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
//! The other half is the opposite: [`on_fresh_heap`] makes the heap a scenario's setup starts from
//! independent of what else the binary did before (registering the suite's other scenarios), so
//! that adding a scenario to a suite no longer moves the others' counts.
//!
//! The perturbation is never entered without `--perturb`.

use std::hint::black_box;
use std::mem::MaybeUninit;

/// Runs `f` (a scenario's setup and body) with perturbation `n` (at least 1) applied: a heap
/// block whose size depends on `n` stays allocated until `f` returns, and `f` runs in a stack
/// frame lowered by an `n`-dependent amount.
pub(crate) fn perturbed<R>(n: u32, f: impl FnOnce() -> R) -> R {
    let pad = heap_pad(n);
    let out = with_lowered_stack(n, f);
    black_box(&pad);
    drop(pad);
    out
}

/// Runs `f` (a scenario's whole life in `icount` mode) on a thread of its own, and returns what
/// it returns; a panic in `f` continues in the caller.
///
/// Why a thread: by the time the child runs, `main` has registered every scenario of the suite,
/// and each registration allocated (its name, its closure, the growing list). With glibc malloc
/// those allocations decide where the chosen scenario's data lands and which bins its own
/// allocations take, so adding an unrelated scenario moved other scenarios' instruction counts
/// (issue 13: +0.3 % in `_int_malloc`, -1.2 % in `__memcmp_avx2_movbe`). Dropping the other
/// registrations would not undo that (freed chunks stay in the bins). A new thread, though, gets
/// a fresh glibc arena (its own heap, aligned to the arena size) and a fresh tcache: the heap
/// its setup starts from is the same whatever the suite registers. The thread's stack is as
/// large as the main thread's limit, so scenarios that recurse deeply still fit.
pub(crate) fn on_fresh_heap<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("costbench-scenario".into())
            .stack_size(main_stack_bytes())
            .spawn_scoped(scope, f)
            .expect("the system can start one thread for the scenario");
        match handle.join() {
            Ok(out) => out,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// The main thread's stack limit (`RLIMIT_STACK`), at least 8 MiB and at most 1 GiB (the
/// reservation is virtual: untouched pages cost nothing).
fn main_stack_bytes() -> usize {
    const MIB: usize = 1 << 20;
    // SAFETY: an all-zero rlimit is a valid out-value for getrlimit.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: `rl` is a valid out-pointer.
    let limit = if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut rl) } == 0 {
        usize::try_from(rl.rlim_cur).unwrap_or(usize::MAX)
    } else {
        0
    };
    limit.clamp(8 * MIB, 1024 * MIB)
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
    fn a_fresh_heap_runs_the_body_and_passes_panics_on() {
        assert_eq!(on_fresh_heap(|| [1, 2, 3].iter().sum::<i32>()), 6);
        let r = std::panic::catch_unwind(|| on_fresh_heap(|| panic!("boom")));
        assert!(r.is_err());
        assert!(main_stack_bytes() >= 8 << 20);
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
