//! The fixture's scenarios, written with the costbench library.

use advise_fixture::{hot, once, Token};
use costbench::{black_box, ops, Suite};

fn main() {
    let mut suite = Suite::new();
    suite.bench("token/hot", ops(1, "calls"), |b| {
        let t = Token(7);
        b.iter(|| hot(black_box(&t)))
    });
    suite.bench("token/once", ops(1, "calls"), |b| {
        let t = Token(7);
        b.iter(|| once(black_box(&t)))
    });
    suite.main();
}
