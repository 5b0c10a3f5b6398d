//! The planted crate's scenarios: one per idiom, each op one item (a line, a row, a word). The
//! inputs are built before each scenario's measured region.

use costbench::{black_box, ops, Suite};
use idioms_fixture::*;

fn lines(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            if i % 4 == 0 {
                format!("# note {i}")
            } else {
                format!("value {i} and {}", i * 7)
            }
        })
        .collect()
}

fn text() -> String {
    (0..1000).map(|i| format!("w{} ", i % 50)).collect()
}

fn main() {
    let mut suite = Suite::new();
    suite.bench("regex/count_numbers", ops(20, "lines"), |b| {
        let owned = lines(20);
        let l: Vec<&str> = owned.iter().map(String::as_str).collect();
        b.iter(|| count_numbers(black_box(&l)))
    });
    suite.bench("regex/comments", ops(200, "lines"), |b| {
        let owned = lines(200);
        let l: Vec<&str> = owned.iter().map(String::as_str).collect();
        b.iter(|| comments(black_box(&l)))
    });
    suite.bench("io/save", ops(1000, "rows"), |b| {
        let rows: Vec<u64> = (0..1000).collect();
        b.iter(|| save(black_box("/dev/null"), black_box(&rows)).unwrap())
    });
    suite.bench("vec/squares", ops(1000, "items"), |b| {
        let rows: Vec<u64> = (0..1000).collect();
        b.iter(|| squares(black_box(&rows)))
    });
    suite.bench("map/word_counts", ops(1000, "words"), |b| {
        let t = text();
        let words: Vec<&str> = t.split_whitespace().collect();
        b.iter(|| word_counts(black_box(&words)))
    });
    suite.bench("clone/total_len", ops(500, "names"), |b| {
        let owned: Vec<String> = (0..500).map(|i| format!("name-{i}")).collect();
        let names: Vec<&str> = owned.iter().map(String::as_str).collect();
        b.iter(|| total_len(black_box(&names)))
    });
    suite.bench("iter/word_lengths", ops(1000, "words"), |b| {
        let t = text();
        b.iter(|| word_lengths(black_box(&t)))
    });
    suite.bench("index/gather", ops(1000, "elements"), |b| {
        let data: Vec<u64> = (0..1000).collect();
        let positions: Vec<usize> = (0..1000).map(|i| (i * 7919) % 1000).collect();
        b.iter(|| gather(black_box(&data), black_box(&positions)))
    });
    suite.main();
}
