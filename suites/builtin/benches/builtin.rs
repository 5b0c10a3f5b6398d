//! costbench's built-in suite: the classic Rust cost questions, each as a pair or trio of
//! scenarios doing the same work in different ways. Names are `topic/work/way`, so that the
//! ways of one piece of work sort together.
//!
//! Sizes go through `miri_size(full, small)`: `costbench miri` checks every scenario once under
//! Miri, which is thousands of times slower than native code, on the small size.

use costbench::{black_box, miri_size, ops, Suite, UnalignedBytes};
use costbench_suite::{data, files, index, packet, proto, strings, text, with_extra, words};
use regex::Regex;

const LOOKUPS: usize = miri_size(10_000, 200);
const TABLE: usize = miri_size(4096, 256);

fn indexing(suite: &mut Suite) {
    let setup = || (data::words(TABLE, 1), data::indices(LOOKUPS, TABLE, 2));
    suite.bench(
        "index/sum_indirect/checked",
        ops(LOOKUPS as u64, "lookups"),
        move |b| {
            let (d, idx) = (
                data::words(TABLE, 1),
                data::indices(with_extra(LOOKUPS), TABLE, 2),
            );
            b.iter(|| index::sum_indirect_checked(black_box(&d), black_box(&idx)))
        },
    );
    suite.bench(
        "index/sum_indirect/unchecked",
        ops(LOOKUPS as u64, "lookups"),
        move |b| {
            let (d, idx) = setup();
            // SAFETY: data::indices yields indices below TABLE = d.len().
            b.iter(|| unsafe { index::sum_indirect_unchecked(black_box(&d), black_box(&idx)) })
        },
    );
    suite.bench(
        "index/sum_indirect/iter",
        ops(LOOKUPS as u64, "lookups"),
        move |b| {
            let (d, idx) = setup();
            b.iter(|| index::sum_indirect_iter(black_box(&d), black_box(&idx)))
        },
    );

    const HAY: usize = miri_size(65_536, 1024);
    const NEEDLES: usize = miri_size(1000, 50);
    let hay = |needles: usize| {
        let mut h = data::words(HAY, 3);
        h.sort_unstable();
        let needles: Vec<u64> = data::indices(needles, h.len(), 4)
            .iter()
            .map(|&i| h[i] | 1)
            .collect();
        (h, needles)
    };
    type Search = fn(&[u64], u64) -> Option<usize>;
    let searches: [(&str, Search); 3] = [
        ("checked", index::binary_search_checked),
        ("unchecked", index::binary_search_unchecked),
        ("std", index::binary_search_std),
    ];
    for (way, search) in searches {
        suite.bench(
            format!("index/binary_search/{way}"),
            ops(NEEDLES as u64, "searches"),
            move |b| {
                let n = if way == "std" {
                    with_extra(NEEDLES)
                } else {
                    NEEDLES
                };
                let (h, needles) = hay(n);
                b.iter(|| {
                    needles
                        .iter()
                        .filter(|&&n| search(black_box(&h), n).is_some())
                        .count()
                })
            },
        );
    }

    const N: usize = miri_size(32, 8);
    let mats = || {
        let a: Vec<f64> = data::words(N * N, 5)
            .iter()
            .map(|&x| (x % 100) as f64)
            .collect();
        let b: Vec<f64> = data::words(N * N, 6)
            .iter()
            .map(|&x| (x % 100) as f64)
            .collect();
        (a, b)
    };
    let mul_adds = ops((N * N * N) as u64, "mul-adds");
    suite.bench("index/matmul32/checked", mul_adds.clone(), move |b| {
        let (x, y) = mats();
        let mut c = vec![0.0; N * N];
        b.iter(|| index::matmul_checked(black_box(&x), black_box(&y), &mut c, black_box(N)))
    });
    suite.bench("index/matmul32/unchecked", mul_adds.clone(), move |b| {
        let (x, y) = mats();
        let mut c = vec![0.0; N * N];
        // SAFETY: all three matrices hold N * N elements.
        b.iter(|| unsafe {
            index::matmul_unchecked(black_box(&x), black_box(&y), &mut c, black_box(N))
        })
    });
    suite.bench("index/matmul32/iter", mul_adds, move |b| {
        let (x, y) = mats();
        let yt = index::transpose(&y, N);
        let mut c = vec![0.0; N * N];
        b.iter(|| index::matmul_iter(black_box(&x), black_box(&yt), &mut c, black_box(N)))
    });
}

/// The classic per-packet comparison: the same kernel in C, checked Rust and unchecked Rust.
fn packets(suite: &mut Suite) {
    const SLOTS: usize = miri_size(4096, 256);
    const BATCH: usize = 32;
    const FLOWS: usize = 1024;
    type Kernel = fn(&[u8], usize, &mut [packet::Flow]) -> u64;
    let ways: [(&str, Kernel); 3] = [
        ("c", |r, head, f| packet::batch_c(r, head, BATCH, f)),
        ("rust_checked", |r, head, f| {
            packet::batch_checked(r, packet::SLOT, head, BATCH, f)
        }),
        // SAFETY: SLOTS and FLOWS are powers of two and SLOT is 64 bytes.
        ("rust_unchecked", |r, head, f| unsafe {
            packet::batch_unchecked(r, packet::SLOT, head, BATCH, f)
        }),
    ];
    for (way, kernel) in ways {
        suite.bench(
            format!("packet/flow_counters/{way}"),
            ops(SLOTS as u64, "packets"),
            move |b| {
                let ring = packet::ring(SLOTS, 15);
                let mut flows = vec![packet::Flow::default(); FLOWS];
                b.iter(|| {
                    let mut accepted = 0;
                    for head in (0..SLOTS).step_by(BATCH) {
                        accepted += kernel(black_box(&ring), head, &mut flows);
                    }
                    accepted
                })
            },
        );
    }
}

fn word_reads(suite: &mut Suite) {
    const WORDS: usize = miri_size(8192, 64);
    suite.bench("words/read_u64/aligned", ops(WORDS as u64, "words"), |b| {
        let buf = words::WordBuffer::new(WORDS, 7);
        // SAFETY: aligned() starts at an 8-aligned address.
        b.iter(|| unsafe { words::sum_aligned(black_box(buf.aligned())) })
    });
    suite.bench(
        "words/read_u64/unaligned",
        ops(WORDS as u64, "words"),
        |b| {
            // One byte past an 8-aligned address: aligned to 1 byte and nothing more.
            let buf = UnalignedBytes::new(words::WordBuffer::new(WORDS, 7).aligned());
            let bytes: &[u8] = &buf;
            b.iter(|| words::sum_unaligned(black_box(bytes)))
        },
    );
    // What the crate's `unaligned` feature costs: build the suite with and without it.
    suite.bench("words/read_u64/feature", ops(WORDS as u64, "words"), |b| {
        let buf = words::WordBuffer::new(WORDS, 7);
        // Under Miri, a build with `unaligned` is checked at 1-byte alignment: the input that
        // feature exists for.
        let odd = (cfg!(feature = "unaligned") && costbench::under_miri())
            .then(|| UnalignedBytes::new(buf.aligned()));
        let bytes = odd.as_deref().unwrap_or(buf.aligned());
        b.iter(|| words::read_words(black_box(bytes)))
    });
}

fn regexes(suite: &mut Suite) {
    const LINES: usize = miri_size(30, 2);
    suite.bench(
        "regex/compile/every_line",
        ops(LINES as u64, "lines"),
        |b| {
            let l = text::lines(LINES, 8);
            b.iter(|| text::count_compiling_each_time(black_box(&l), text::EMAIL))
        },
    );
    suite.bench("regex/compile/once", ops(LINES as u64, "lines"), |b| {
        let l = text::lines(LINES, 8);
        let re = Regex::new(text::EMAIL).expect("valid pattern");
        b.iter(|| text::count_compiled_once(black_box(&l), &re))
    });
    const MANY: usize = miri_size(2000, 20);
    suite.bench("regex/filter/regex_only", ops(MANY as u64, "lines"), |b| {
        let l = text::lines(with_extra(MANY), 9);
        let re = Regex::new(text::EMAIL).expect("valid pattern");
        b.iter(|| text::count_compiled_once(black_box(&l), &re))
    });
    suite.bench(
        "regex/filter/length_prefilter",
        ops(MANY as u64, "lines"),
        |b| {
            let l = text::lines(MANY, 9);
            let re = Regex::new(text::EMAIL).expect("valid pattern");
            b.iter(|| text::count_prefiltered(black_box(&l), &re))
        },
    );
    suite.bench("regex/suffix/regex", ops(MANY as u64, "names"), |b| {
        let names = text::file_names(MANY, 10);
        let re = Regex::new(r"\.rs$").expect("valid pattern");
        b.iter(|| text::count_suffix_regex(black_box(&names), &re))
    });
    suite.bench("regex/suffix/ends_with", ops(MANY as u64, "names"), |b| {
        let names = text::file_names(MANY, 10);
        b.iter(|| text::count_suffix_ends_with(black_box(&names)))
    });
}

fn file_io(suite: &mut Suite) {
    const READS: usize = 200;
    suite.bench("io/read/open_every_time", ops(READS as u64, "reads"), |b| {
        let f = files::TempFile::new("read-each", &[42u8; 4096]).expect("temp file");
        b.iter(|| files::read_opening_each_time(f.path(), READS).expect("read"))
    });
    suite.bench("io/read/open_once", ops(READS as u64, "reads"), |b| {
        let f = files::TempFile::new("read-once", &[42u8; 4096]).expect("temp file");
        let file = std::fs::File::open(f.path()).expect("open");
        b.iter(|| files::read_opened_once(&file, READS).expect("read"))
    });
    const LINES: usize = 1000;
    suite.bench("io/write/unbuffered", ops(LINES as u64, "lines"), |b| {
        let f = files::TempFile::new("write-unbuffered", b"").expect("temp file");
        let lines: Vec<String> = (0..LINES)
            .map(|i| format!("line {i:06} of the log"))
            .collect();
        b.iter(|| files::write_unbuffered(f.path(), &lines).expect("write"))
    });
    suite.bench("io/write/bufwriter", ops(LINES as u64, "lines"), |b| {
        let f = files::TempFile::new("write-buffered", b"").expect("temp file");
        let lines: Vec<String> = (0..LINES)
            .map(|i| format!("line {i:06} of the log"))
            .collect();
        b.iter(|| files::write_buffered(f.path(), &lines).expect("write"))
    });
}

fn ownership(suite: &mut Suite) {
    const WORDS: usize = miri_size(2000, 50);
    suite.bench(
        "alloc/word_count/to_string",
        ops(WORDS as u64, "words"),
        |b| {
            let w = data::short_words(WORDS, 11);
            b.iter(|| strings::count_owned(black_box(&w)))
        },
    );
    suite.bench(
        "alloc/word_count/borrowed",
        ops(WORDS as u64, "words"),
        |b| {
            let w = data::short_words(WORDS, 11);
            b.iter(|| strings::count_borrowed(black_box(&w)).len())
        },
    );
    const XS: usize = miri_size(10_000, 200);
    suite.bench("alloc/pipeline/collect", ops(XS as u64, "elements"), |b| {
        let xs = data::words(with_extra(XS), 12);
        b.iter(|| strings::sum_even_squares_collected(black_box(&xs)))
    });
    suite.bench("alloc/pipeline/stream", ops(XS as u64, "elements"), |b| {
        let xs = data::words(XS, 12);
        b.iter(|| strings::sum_even_squares_streamed(black_box(&xs)))
    });
    suite.bench(
        "alloc/short_strings/string",
        ops(WORDS as u64, "strings"),
        |b| {
            let w = data::short_words(WORDS, 13);
            let refs: Vec<&str> = w.iter().map(String::as_str).collect();
            b.iter(|| strings::to_strings(black_box(&refs)))
        },
    );
    suite.bench(
        "alloc/short_strings/compact_string",
        ops(WORDS as u64, "strings"),
        |b| {
            let w = data::short_words(WORDS, 13);
            let refs: Vec<&str> = w.iter().map(String::as_str).collect();
            b.iter(|| strings::to_compact_strings(black_box(&refs)))
        },
    );
}

fn client_server(suite: &mut Suite) {
    const REQUESTS: usize = miri_size(100, 4);
    suite
        .multi("pipe/request_response", ops(REQUESTS as u64, "requests"))
        .party("client", |b| {
            let mut io = b.peer();
            let reqs: Vec<Vec<u8>> = (0..REQUESTS).map(|i| vec![i as u8; 64 + i % 64]).collect();
            b.iter(move || proto::client_requests(&mut io, &reqs).expect("exchange"))
        })
        .party("server", |b| {
            let mut io = b.peer();
            b.iter(move || proto::serve_requests(&mut io, REQUESTS).expect("exchange"))
        });
    const MIB: usize = miri_size(1 << 20, 4096);
    suite
        .multi("pipe/transfer_1mib", ops(MIB as u64, "bytes"))
        .party("client", |b| {
            let mut io = b.peer();
            let payload: Vec<u8> = data::words(MIB / 8, 14)
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            b.iter(move || proto::send_bulk(&mut io, &payload).expect("transfer"))
        })
        .party("server", |b| {
            let mut io = b.peer();
            let mut buf = vec![0u8; MIB];
            b.iter(move || proto::recv_bulk(&mut io, &mut buf).expect("transfer"))
        });
}

/// Families of sized scenarios (`growth/WORK/N`, registered with `bench_params`), whose per-op
/// instruction counts `costbench run` fits against the classes of growth (docs/contracts.md):
/// a binary search (log n), a linear scan for an absent key (n) and a sort (n log n). Registered
/// last, so that adding them moved no other scenario's place in the registry.
fn growth(suite: &mut Suite) {
    const SIZES: [usize; 4] = [
        miri_size(256, 16),
        miri_size(1024, 32),
        miri_size(4096, 64),
        miri_size(16_384, 128),
    ];
    // Even keys, so that an odd needle is absent: a search that runs to the end, the same
    // number of steps at every run.
    let even =
        |n: usize, seed: u64| -> Vec<u64> { data::words(n, seed).iter().map(|w| w & !1).collect() };
    let sorted = move |n: usize| {
        let mut h = even(n, 21);
        h.sort_unstable();
        h
    };
    suite.bench_params(
        "growth/binary_search",
        SIZES,
        |_| ops(1, "searches"),
        move |b, &n| {
            let hay = sorted(n);
            let needle = hay[n / 3] | 1;
            b.iter(|| index::binary_search_checked(black_box(&hay), black_box(needle)))
        },
    );
    suite.bench_params(
        "growth/scan",
        SIZES,
        |_| ops(1, "scans"),
        move |b, &n| {
            let hay = even(n, 22);
            b.iter(|| index::linear_search(black_box(&hay), black_box(1)))
        },
    );
    suite.bench_params(
        "growth/sort",
        SIZES,
        |_| ops(1, "sorts"),
        |b, &n| {
            let xs = data::words(n, 23);
            b.iter_with_setup(
                || xs.clone(),
                |mut v| {
                    v.sort_unstable();
                    v
                },
            )
        },
    );
}

fn main() {
    let mut suite = Suite::new();
    indexing(&mut suite);
    packets(&mut suite);
    word_reads(&mut suite);
    regexes(&mut suite);
    file_io(&mut suite);
    ownership(&mut suite);
    client_server(&mut suite);
    growth(&mut suite);
    suite.main();
}
