//! Benchmarks written for criterion, measured through costbench-criterion. `native.rs` has the
//! same bodies written with costbench's own API; the end-to-end test compares their counts.

use costbench_compat_suite::{digits, scrambled, sum};
use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput,
};
use std::time::Duration;

fn plain(c: &mut Criterion) {
    let data: Vec<u64> = (0..1000).collect();
    c.bench_function("sum", |b| b.iter(|| sum(black_box(&data))));
}

fn grouped(c: &mut Criterion) {
    let mut group = c.benchmark_group("digits");
    for len in [64usize, 4096] {
        let text: Vec<u8> = (0..len).map(|i| b"a1b2c3d4e5"[i % 10]).collect();
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(BenchmarkId::from_parameter(len), &text, |b, t| {
            b.iter(|| digits(black_box(t)))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("sort");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(1000));
    let input = scrambled(1000);
    group.bench_function("batched", |b| {
        b.iter_batched(
            || input.clone(),
            |mut v| {
                v.sort_unstable();
                v
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function(BenchmarkId::new("batched_ref", 1000), |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| v.sort_unstable(),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn custom(c: &mut Criterion) {
    c.bench_function("timed_by_itself", |b| {
        b.iter_custom(|iters| {
            let start = std::time::Instant::now();
            for i in 0..iters {
                black_box(sum(black_box(&[i, 1, 2])));
            }
            start.elapsed()
        })
    });
}

criterion_group!(benches, plain, grouped);
criterion_group! {
    name = configured;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(10));
    targets = custom
}
criterion_main!(benches, configured);
