//! Functions whose surviving bounds and overflow checks are known exactly, for the tests of
//! `costbench census` and `costbench run --instrument census`.
//!
//! Each function is `#[inline(never)]` so that it is its own symbol in the binary, and the
//! scenarios pass their inputs through `black_box` so that the optimiser cannot see the lengths.
//! Lines the tests look for carry a `census:` marker comment; the tests find them by that marker,
//! never by a hard-coded line number.

/// Sums `data[i]` for every `i` in `idx`: one bounds check per index, `idx.len()` in all.
#[inline(never)]
pub fn sum_indirect(data: &[u64], idx: &[usize]) -> u64 {
    let mut sum = 0u64;
    for &i in idx {
        sum = sum.wrapping_add(data[i]); // census: indirect
    }
    sum
}

/// `for i in 0..v.len()` reading `v[i]`: the optimiser removes the check.
#[inline(never)]
#[allow(clippy::needless_range_loop)] // the indexed loop is the point
pub fn sum_to_len(v: &[u64]) -> u64 {
    let mut sum = 0u64;
    for i in 0..v.len() {
        sum = sum.wrapping_add(v[i]); // census: to-len
    }
    sum
}

/// A loop to a caller-given bound: the check is hoisted out of the loop, once per call.
#[inline(never)]
#[allow(clippy::needless_range_loop)] // the indexed loop is the point
pub fn sum_to_bound(v: &[u64], n: usize) -> u64 {
    let mut sum = 0u64;
    for i in 0..n {
        sum = sum.wrapping_add(v[i]); // census: to-bound
    }
    sum
}

/// A range slice: two guards per call (`a <= b`, `b <= len`).
#[inline(never)]
pub fn range_len(v: &[u64], a: usize, b: usize) -> usize {
    let s = &v[a..b]; // census: range
    s.len() + s.first().map_or(0, |&x| x as usize)
}

/// `x * 3` for every element: one overflow check per multiplication when overflow checks are
/// on, none when they are off. `black_box` on each element keeps the loop scalar, so that the
/// checks are not merged by vectorisation.
#[inline(never)]
pub fn times_three(xs: &[u64]) -> u64 {
    let mut acc = 0u64;
    for &x in xs {
        let y = core::hint::black_box(x) * 3; // census: times-three
        acc = acc.wrapping_add(y);
    }
    acc
}

/// A check inside an `#[inline(always)]` helper: the census names the helper's line and the
/// caller's.
#[inline(always)]
fn helper_get(v: &[u32], i: usize) -> u32 {
    v[i] // census: helper
}

/// Calls `helper_get` once: one bounds check, attributed to the helper and to this caller.
#[inline(never)]
pub fn through_helper(v: &[u32], i: usize) -> u32 {
    helper_get(v, i).wrapping_add(1) // census: helper-call
}

/// A diverging function of our own: every path panics, so calls to it are failing sides too.
#[cold]
#[inline(never)]
fn out_of_range(i: usize, len: usize) -> ! {
    panic!("index {i} out of range for length {len}")
}

/// A hand-written check that fails through `out_of_range`: one guard, `other-panic`.
#[inline(never)]
pub fn checked_by_hand(v: &[u32], i: usize) -> u32 {
    // The guard is the test on the next line. census: by-hand
    if i >= v.len() {
        out_of_range(i, v.len());
    }
    // SAFETY: `i < v.len()` was checked just above.
    unsafe { *v.get_unchecked(i) }
}
