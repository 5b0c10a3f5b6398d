//! A pull request that turns a linear pass quadratic with a small constant, for the e2e test of
//! issue 28's target: `scan/N` validates N records, each weighed by a slow keyed hash (about
//! 18,000 instructions a record). With the feature `quadratic` (the "pull request") every
//! 128th record is also looked for among all the records: `N²/128` comparisons, which add less
//! than 0.2 % (the default icount threshold) at every size measured, 128 to 1024 records, while
//! the added cost grows as N². `costbench check` must flag the family's growth although no
//! single size regressed.

use costbench::{black_box, ops, Suite};

const SIZES: [usize; 4] = [128, 256, 512, 1024];

/// How many records go between two duplicate checks of the `quadratic` build.
const CHECK_EVERY: usize = 128;

/// Rounds of the weighing hash per record (a black box: counted, not folded away).
const ROUNDS: u32 = 4000;

/// xorshift64: the same records on every run.
fn records(n: usize) -> Vec<u64> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// A slow keyed hash of one record (splitmix64's finaliser, `rounds` times).
#[inline(never)]
fn weigh(record: u64, rounds: u32) -> u64 {
    let mut h = record;
    for _ in 0..rounds {
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    h
}

/// Every record weighed, chunk by chunk; with `quadratic`, the last record of each full chunk
/// is also counted among all the records (the duplicate check the pull request adds).
#[inline(never)]
fn validate(all: &[u64], rounds: u32) -> u64 {
    let mut acc = 0u64;
    for chunk in all.chunks(CHECK_EVERY) {
        for &r in chunk {
            acc ^= weigh(r, rounds);
        }
        #[cfg(feature = "quadratic")]
        if let Some(&last) = chunk.get(CHECK_EVERY - 1) {
            acc = acc.wrapping_add(all.iter().filter(|&&x| x == last).count() as u64);
        }
    }
    acc
}

fn main() {
    let mut suite = Suite::new();
    suite.bench_params(
        "scan",
        SIZES,
        |_| ops(1, "validations"),
        |b, &n| {
            let all = records(n);
            b.iter(|| validate(black_box(&all), black_box(ROUNDS)))
        },
    );
    suite.main();
}
