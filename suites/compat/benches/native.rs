//! The bodies of `compat.rs`, written with costbench's own API under the same ids and ops.

use costbench::{black_box, ops, Suite};
use costbench_compat_suite::{digits, scrambled, sum};

fn main() {
    let mut suite = Suite::new();
    suite.bench("sum", ops(1, "iterations"), |b| {
        let data: Vec<u64> = (0..1000).collect();
        b.iter(|| sum(black_box(&data)))
    });
    for len in [64usize, 4096] {
        suite.bench(
            format!("digits/{len}"),
            ops(len as u64, "bytes"),
            move |b| {
                let text: Vec<u8> = (0..len).map(|i| b"a1b2c3d4e5"[i % 10]).collect();
                b.iter(|| digits(black_box(&text)))
            },
        );
    }
    suite.bench("sort/batched", ops(1000, "elements"), |b| {
        let input = scrambled(1000);
        b.iter_with_setup(
            || input.clone(),
            |mut v| {
                v.sort_unstable();
                v
            },
        )
    });
    suite.bench("sort/batched_ref/1000", ops(1000, "elements"), |b| {
        let input = scrambled(1000);
        b.iter_with_setup(
            || input.clone(),
            |mut v| {
                v.sort_unstable();
                v
            },
        )
    });
    suite.main();
}
