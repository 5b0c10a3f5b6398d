//! The planted crate's scenarios: one per idiom, each op one item (a line, a row, a word).

use costbench::{black_box, ops, Suite};
use idioms_fixture::*;

fn main() {
    let lines: Vec<String> = (0..200)
        .map(|i| if i % 4 == 0 { format!("# note {i}") } else { format!("value {i} and {}", i * 7) })
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let rows: Vec<u64> = (0..1000).collect();
    let text: String = (0..1000).map(|i| format!("w{} ", i % 50)).collect();
    let words: Vec<&str> = text.split(' ').collect();
    let names: Vec<String> = (0..500).map(|i| format!("name-{i}")).collect();

    let mut suite = Suite::new();
    let l = lines.clone();
    suite.bench("regex/count_numbers", ops(20, "lines"), move |b| {
        let l = &l[..20];
        b.iter(|| count_numbers(black_box(l)))
    });
    let l = lines.clone();
    suite.bench("regex/comments", ops(200, "lines"), move |b| {
        b.iter(|| comments(black_box(&l)))
    });
    let r = rows.clone();
    suite.bench("io/save", ops(1000, "rows"), move |b| {
        b.iter(|| save(black_box("/dev/null"), black_box(&r)).unwrap())
    });
    let r = rows.clone();
    suite.bench("vec/squares", ops(1000, "items"), move |b| {
        b.iter(|| squares(black_box(&r)))
    });
    let w = words.clone();
    suite.bench("map/word_counts", ops(1000, "words"), move |b| {
        b.iter(|| word_counts(black_box(&w)))
    });
    suite.bench("clone/total_len", ops(500, "names"), move |b| {
        b.iter(|| total_len(black_box(names.clone())))
    });
    suite.bench("iter/word_lengths", ops(1000, "words"), move |b| {
        b.iter(|| word_lengths(black_box(&text)))
    });
    suite.main();
}
