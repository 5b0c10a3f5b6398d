//! Scenarios with exactly known costs and deliberate failures, for costbench's own tests.

use costbench::{black_box, ops, Suite};
use costbench_selftest::{
    calibrated_loop, checked_sum, count_owned, knob_steps, short_words, spin, KNOB_EXTRA_PERMILLE,
};
use std::io::{Read, Write};

fn main() {
    let mut suite = Suite::new();
    suite.bench("empty", ops(1, "runs"), |b| b.iter(|| ()));
    // 2 * N + 1 instructions each, exactly: the tests check count(calibrate) - count(empty).
    suite.bench("calibrate/1000", ops(1000, "iterations"), |b| {
        b.iter(calibrated_loop::<1000>)
    });
    suite.bench("calibrate/100000", ops(100_000, "iterations"), |b| {
        b.iter(calibrated_loop::<100_000>)
    });
    // Exactly 2 * 1000 + 1 instructions, or 2 * 2000 + 1 with the `longer` feature.
    suite.bench("feature/loop", ops(1, "runs"), |b| {
        #[cfg(not(feature = "longer"))]
        let body = calibrated_loop::<1000>;
        #[cfg(feature = "longer")]
        let body = calibrated_loop::<2000>;
        b.iter(body)
    });
    // Only with the `extra` feature (`costbench run --features extra`): exactly 2 * 3000 + 1
    // instructions.
    #[cfg(feature = "extra")]
    suite.bench("feature/extra", ops(1, "runs"), |b| {
        b.iter(calibrated_loop::<3000>)
    });
    // More instructions with overflow checks on: one check per addition.
    suite.bench("checked/sum", ops(1000, "additions"), |b| {
        let xs: Vec<u32> = (0..1000).collect();
        b.iter(|| checked_sum(black_box(&xs)))
    });
    // Per op: one spin step at the committed knob; the accuracy benchmark turns the knob.
    suite.bench("knob/spin", ops(knob_steps(0), "steps"), |b| {
        b.iter(|| spin(black_box(knob_steps(KNOB_EXTRA_PERMILLE))))
    });
    suite.bench("sort/10000", ops(10_000, "elements"), |b| {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let data: Vec<u64> = (0..10_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect();
        b.iter_with_setup(
            || data.clone(),
            |mut v| {
                v.sort_unstable();
                v
            },
        )
    });
    suite.bench("alloc/strings", ops(100, "strings"), |b| {
        b.iter(|| {
            (0..100)
                .map(|i| format!("item-{}", black_box(i)))
                .collect::<Vec<_>>()
        })
    });
    // Exactly known heap traffic, per op: a 1000-byte box, and a 500-byte Vec grown to exactly
    // 1500 bytes (one realloc of +1000), both freed: 2 allocations, 1 reallocation,
    // 2 deallocations, 2500 bytes allocated; the peak (both alive) is 1000 + 1500 = 2500 bytes.
    suite.bench("memory/exact", ops(100, "ops"), |b| {
        b.iter(|| {
            for _ in 0..100 {
                let boxed = black_box(Box::new([7u8; 1000]));
                let mut v: Vec<u8> = black_box(Vec::with_capacity(500));
                v.reserve_exact(1500);
                black_box(&mut v);
                drop(boxed);
                drop(v);
            }
        })
    });
    // std's HashMap seeds itself from getrandom: its counts repeat only because costbench pins
    // getrandom under callgrind.
    suite.bench("hash/std_hashmap", ops(1000, "inserts"), |b| {
        b.iter(|| {
            let mut m = std::collections::HashMap::new();
            for i in 0..1000u64 {
                m.insert(black_box(i), i);
            }
            m
        })
    });
    suite
        .multi("pipe/echo", ops(16, "round trips"))
        .party("client", |b| {
            let mut io = b.peer();
            b.iter(move || {
                let mut r = [0u8; 64];
                for i in 0..16u8 {
                    io.write_all(&[i; 64]).unwrap();
                    io.read_exact(&mut r).unwrap();
                    assert_eq!(r, [i; 64]);
                }
            })
        })
        .party("server", |b| {
            let mut io = b.peer();
            b.iter(move || {
                let mut r = [0u8; 64];
                for _ in 0..16 {
                    io.read_exact(&mut r).unwrap();
                    io.write_all(&r).unwrap();
                }
            })
        });
    // Allocations and memcmp on heap data: a count that moves with data placement (`--perturb`).
    // The knob adds words, so that a knob change also changes this count.
    suite.bench("placement/words", ops(2000, "words"), |b| {
        let words = short_words(2000 + KNOB_EXTRA_PERMILLE as usize);
        b.iter(|| count_owned(black_box(&words)))
    });
    suite.main();
}
