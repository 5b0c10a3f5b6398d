//! Scenarios with budgets (`Suite::budget`), for the tests of budgets: some within their limits,
//! two deliberately over them, with exactly known figures.

use costbench::{black_box, ops, Budget, Suite};
use costbench_selftest::calibrated_loop;

/// Parses a decimal `u64` without allocating: a zero-allocation parser.
fn parse_u64(s: &str) -> Option<u64> {
    s.bytes().try_fold(0u64, |n, b| {
        let d = b.wrapping_sub(b'0');
        (d < 10).then_some(())?;
        n.checked_mul(10)?.checked_add(u64::from(d))
    })
}

fn main() {
    let mut suite = Suite::new();
    // 2 * 1000 + 1 instructions plus the harness residual: about 2.003 per iteration.
    suite.bench("loop/per_iteration", ops(1000, "iterations"), |b| {
        b.iter(calibrated_loop::<1000>)
    });
    // The same loop as one op: 2001 + residual instructions, above a budget of 2000.
    suite.bench("loop/whole", ops(1, "runs"), |b| {
        b.iter(calibrated_loop::<1000>)
    });
    suite.bench("parse/u64", ops(1, "numbers"), |b| {
        b.iter(|| parse_u64(black_box("18446744073709551615")))
    });
    // Owned pieces: one Vec (of capacity 4 at the first push) and three Strings per op.
    suite.bench("parse/split_owned", ops(1, "lines"), |b| {
        b.iter(|| {
            black_box("ab,cd,ef")
                .split(',')
                .map(str::to_owned)
                .collect::<Vec<String>>()
        })
    });
    suite.budget("loop/per_iteration", Budget::new().instructions(2.05));
    suite.budget("loop/whole", Budget::new().instructions(2000.0));
    suite.budget(
        "parse/*",
        Budget::new().allocations(0.0).bytes(0.0).peak_heap(0),
    );
    suite.budget("*", Budget::new().binary_size(1 << 30));
    suite.main();
}
