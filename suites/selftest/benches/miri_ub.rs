//! Scenarios for `costbench miri`'s tests: one sound, two deliberately unsound, and two that Miri
//! cannot run. Never part of a suite anyone measures; `test = false` keeps `cargo test --benches`
//! from running the unsound ones natively.

use costbench::{black_box, ops, Suite, UnalignedBytes};
use costbench_selftest::calibrated_loop;

/// Sums `data[i]` for every `i` in `idx` without bounds checks.
///
/// # Safety
/// Every index must be below `data.len()`.
unsafe fn sum_unchecked(data: &[u64], idx: &[usize]) -> u64 {
    // SAFETY: the caller promises every index is in bounds (the `oob` scenario breaks that).
    idx.iter().map(|&i| unsafe { *data.get_unchecked(i) }).sum()
}

fn main() {
    let mut suite = Suite::new();
    suite.bench("unchecked/in_bounds", ops(8, "lookups"), |b| {
        let data: Vec<u64> = (0..8).collect();
        let idx: Vec<usize> = (0..8).rev().collect();
        // SAFETY: indices 0..8 of an 8-element vector.
        b.iter(|| unsafe { sum_unchecked(black_box(&data), black_box(&idx)) })
    });
    suite.bench("unchecked/out_of_bounds", ops(8, "lookups"), |b| {
        let data: Vec<u64> = (0..8).collect();
        // Off by one: index 8 is one past the end.
        let idx: Vec<usize> = (1..=8).collect();
        // SAFETY: none: index 8 is out of bounds, deliberately.
        b.iter(|| unsafe { sum_unchecked(black_box(&data), black_box(&idx)) })
    });
    suite.bench("aligned_read/odd_address", ops(1, "words"), |b| {
        let bytes = UnalignedBytes::new(&[7u8; 16]);
        // SAFETY: none: `read` needs an 8-aligned pointer and this one is odd, deliberately.
        b.iter(|| unsafe { black_box(bytes.as_ptr()).cast::<u64>().read() })
    });
    suite.bench("asm/calibrated_loop", ops(10, "iterations"), |b| {
        b.iter(calibrated_loop::<10>)
    });
    suite.bench("process/spawn", ops(1, "processes"), |b| {
        b.iter(|| {
            std::process::Command::new("true")
                .status()
                .map(|s| s.success())
        })
    });
    suite.main();
}
