//! Scenarios that fail on purpose, beside one that works, for costbench's failure-handling tests.

use costbench::{black_box, ops, Suite};

fn main() {
    let mut suite = Suite::new();
    suite.bench("works", ops(1, "runs"), |b| b.iter(|| black_box(1) + 1));
    suite.bench("panics", ops(1, "runs"), |b| {
        b.iter(|| {
            if black_box(true) {
                panic!("deliberate panic in the measured body")
            }
        })
    });
    suite.bench("hangs", ops(1, "runs"), |b| {
        b.iter(|| std::thread::sleep(std::time::Duration::from_secs(3600)))
    });
    suite.bench("no_iter", ops(1, "runs"), |_b| {});
    suite.bench("aborts", ops(1, "runs"), |b| {
        b.iter(|| {
            if black_box(true) {
                std::process::abort()
            }
        })
    });
    suite.main();
}
