//! One allocating scenario in a binary without `costbench::CountingAlloc`.

use costbench::{black_box, ops, Suite};

fn main() {
    let mut suite = Suite::new();
    suite.bench("alloc/vec", ops(1, "vectors"), |b| {
        b.iter(|| black_box(vec![0u8; 4096]))
    });
    suite.main();
}
