//! The bodies of `native.rs` written for divan, measured through costbench-divan. Ids: `sum`,
//! `digits/64`, `digits/4096`, `sort::batched`, `sort::batched_ref`, and the generic
//! `fill/u64/16`, `fill/u64/256`, `fill/Vec<u8>/16`, `fill/Vec<u8>/256`.

use costbench_compat_suite as lib;
use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};

fn main() {
    divan::main();
}

#[divan::bench(sample_count = 100, min_time = 0.1)]
fn sum(bencher: Bencher) {
    let data: Vec<u64> = (0..1000).collect();
    bencher.bench_local(|| lib::sum(black_box(&data)));
}

#[divan::bench(args = [64, 4096])]
fn digits(bencher: Bencher, len: usize) {
    let text: Vec<u8> = (0..len).map(|i| b"a1b2c3d4e5"[i % 10]).collect();
    bencher
        .counter(BytesCount::new(len))
        .bench(|| lib::digits(black_box(&text)));
}

#[divan::bench_group(sample_size = 10)]
mod sort {
    use super::*;

    #[divan::bench(counters = [ItemsCount::new(1000usize)])]
    fn batched(bencher: Bencher) {
        let input = lib::scrambled(1000);
        bencher.with_inputs(|| input.clone()).bench_values(|mut v| {
            v.sort_unstable();
            v
        });
    }

    #[divan::bench]
    fn batched_ref(bencher: Bencher) {
        let input = lib::scrambled(1000);
        bencher
            .with_inputs(|| input.clone())
            .input_counter(|v| ItemsCount::new(v.len()))
            .bench_refs(|v| v.sort_unstable());
    }
}

#[divan::bench(types = [u64, Vec<u8>], consts = [16, 256])]
fn fill<T: Default + Clone, const N: usize>() -> Vec<T> {
    vec![T::default(); black_box(N)]
}

#[divan::bench(ignore)]
fn never_listed() {}
