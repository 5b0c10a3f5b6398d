//! Families of sized scenarios with known classes of growth, for the tests of complexity fits:
//! each declares its class with `Budget::complexity`, and the runner fits the per-op
//! instruction counts of `NAME/N` over the sizes.

use costbench::{black_box, ops, Budget, Complexity, Suite};

const SIZES: [usize; 4] = [64, 256, 1024, 4096];

/// xorshift64: the same pseudo-random data on every run.
fn data(n: usize) -> Vec<u64> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// Pairs `(i, j)`, `i < j`, whose sum is even: every pair is looked at.
#[inline(never)]
fn even_pairs(xs: &[u64]) -> u64 {
    let mut count = 0;
    for (i, a) in xs.iter().enumerate() {
        for b in &xs[i + 1..] {
            count += u64::from((a ^ b) & 1 == 0);
        }
    }
    count
}

fn main() {
    let mut suite = Suite::new();
    // O(log n): one lookup in a sorted table of n keys.
    suite.bench_params(
        "lookup",
        SIZES,
        |_| ops(1, "lookups"),
        |b, &n| {
            let keys: Vec<u64> = (0..n as u64).map(|k| 3 * k).collect();
            let probe = 3 * (n as u64 / 3) + 1;
            b.iter(|| black_box(&keys).binary_search(&black_box(probe)))
        },
    );
    // O(n): the sum of n numbers.
    suite.bench_params(
        "sum",
        SIZES,
        |_| ops(1, "sums"),
        |b, &n| {
            let xs = data(n);
            b.iter(|| black_box(&xs).iter().fold(0u64, |s, x| s.wrapping_add(*x)))
        },
    );
    // O(n log n): one sort of n pseudo-random numbers (the copy is setup).
    suite.bench_params(
        "sort",
        SIZES,
        |_| ops(1, "sorts"),
        |b, &n| {
            let xs = data(n);
            b.iter_with_setup(
                || xs.clone(),
                |mut v| {
                    v.sort_unstable();
                    v
                },
            )
        },
    );
    // O(n²): every pair of n numbers.
    suite.bench_params(
        "pairs",
        SIZES,
        |_| ops(1, "scans"),
        |b, &n| {
            let xs = data(n);
            b.iter(|| even_pairs(black_box(&xs)))
        },
    );
    suite.budget("lookup", Budget::new().complexity(Complexity::Log));
    suite.budget("sum", Budget::new().complexity(Complexity::Linear));
    suite.budget("sort", Budget::new().complexity(Complexity::NLogN));
    suite.budget("pairs", Budget::new().complexity(Complexity::Quadratic));
    suite.main();
}
