//! Scenarios with exactly known numbers of executed checks, for costbench's census tests.

use costbench::{black_box, ops, Suite};
use costbench_census_fixtures as fx;

/// Indices per run of `index/indirect`: exactly this many bounds checks execute.
const INDIRECT: usize = 1000;
/// Calls per run of `index/to_bound` and `index/range`.
const CALLS: usize = 10;

fn main() {
    let mut suite = Suite::new();
    suite.bench("index/indirect", ops(INDIRECT as u64, "lookups"), |b| {
        let data: Vec<u64> = (0..4096).collect();
        let idx: Vec<usize> = (0..INDIRECT).map(|i| i * 7 % 4096).collect();
        b.iter(|| fx::sum_indirect(black_box(&data), black_box(&idx)))
    });
    suite.bench("index/to_len", ops(1000, "elements"), |b| {
        let v: Vec<u64> = (0..1000).collect();
        b.iter(|| fx::sum_to_len(black_box(&v)))
    });
    suite.bench("index/to_bound", ops(CALLS as u64, "calls"), |b| {
        let v: Vec<u64> = (0..1000).collect();
        b.iter(|| {
            let mut s = 0u64;
            for _ in 0..CALLS {
                s = s.wrapping_add(fx::sum_to_bound(black_box(&v), black_box(1000)));
            }
            s
        })
    });
    suite.bench("index/range", ops(CALLS as u64, "calls"), |b| {
        let v: Vec<u64> = (0..100).collect();
        b.iter(|| {
            let mut s = 0usize;
            for _ in 0..CALLS {
                s = s.wrapping_add(fx::range_len(black_box(&v), black_box(10), black_box(20)));
            }
            s
        })
    });
    suite.bench("arith/times_three", ops(1000, "multiplications"), |b| {
        let xs: Vec<u64> = (0..1000).collect();
        b.iter(|| fx::times_three(black_box(&xs)))
    });
    suite.bench("index/helper", ops(1, "calls"), |b| {
        let v: Vec<u32> = (0..16).collect();
        b.iter(|| fx::through_helper(black_box(&v), black_box(5)))
    });
    suite.bench("index/by_hand", ops(1, "calls"), |b| {
        let v: Vec<u32> = (0..16).collect();
        b.iter(|| fx::checked_by_hand(black_box(&v), black_box(5)))
    });
    suite.main();
}
