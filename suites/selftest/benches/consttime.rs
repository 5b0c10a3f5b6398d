//! Scenarios for the `constant-time` instrument's tests: four that leak a secret on purpose
//! (a branch on a secret byte, a table lookup indexed by one, an early-exit comparison, and a
//! branch in the setup), two that do not (`subtle`'s ct_eq, an OR-fold of XORs) and one that
//! declares no secret. The e2e test (`crates/costbench-cli/tests/consttime_e2e.rs`) asserts
//! each leak at its source line: the lines marked `LEAK` below. The parser's testdata was recorded
//! from them (`crates/costbench-measure/src/instrument/consttime/testdata/`): keep them in place.

use costbench::{black_box, ops, Suite};
use subtle::ConstantTimeEq;

/// A substitution table, as an S-box lookup has one.
static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).wrapping_mul(167).wrapping_add(13);
        i += 1;
    }
    t
};

#[inline(never)]
fn branch_on_secret(key: &[u8; 16]) -> u32 {
    let mut n = 0;
    for &k in key {
        // black_box: an opaque step the optimiser cannot turn into a conditional move.
        n = if k & 1 == 1 { black_box(n + 3) } else { n }; // LEAK: branch
    }
    n
}

#[inline(never)]
fn table_lookup(key: &[u8; 16]) -> u8 {
    key.iter().fold(0u8, |acc, &k| acc ^ TABLE[k as usize]) // LEAK: address
}

/// Slices' `==`: `memcmp` (valgrind's own, under memcheck), which returns at the first byte
/// that differs. (Over two `[u8; 16]` arrays LLVM compiles `==` into one vector compare with no
/// branch, which is constant time: slices of a length known at run time keep the early exit.)
#[inline(never)]
fn early_exit_eq(a: &[u8], b: &[u8]) -> bool {
    a == b // LEAK: early exit
}

#[inline(never)]
fn fold_eq(a: &[u8; 16], b: &[u8; 16]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    costbench::public(&diff);
    diff == 0
}

fn main() {
    let mut suite = Suite::new();
    suite.bench("leak/branch", ops(16, "bytes"), |b| {
        let key = [0x5au8; 16];
        costbench::secret(&key);
        b.iter(|| branch_on_secret(black_box(&key)));
    });
    suite.bench("leak/table", ops(16, "bytes"), |b| {
        let key = [0x5au8; 16];
        costbench::secret(&key);
        b.iter(|| table_lookup(black_box(&key)));
    });
    suite.bench("leak/early_exit", ops(1, "comparisons"), |b| {
        let tag = vec![0x5au8; 32];
        let guess = vec![0x5au8; 32];
        costbench::secret_bytes(&tag);
        b.iter(|| early_exit_eq(black_box(&tag), black_box(&guess)));
    });
    // The leak is in the setup, before the body: still a finding, labelled as the setup's.
    suite.bench("leak/in_setup", ops(1, "comparisons"), |b| {
        let key = [0x5au8; 16];
        costbench::secret(&key);
        assert!(black_box(&key)[0] != 0, "a weak key"); // LEAK: setup
        let guess = [0x5au8; 16];
        b.iter(|| black_box(&guess)[0] == 0x5a);
    });
    suite.bench("clean/subtle_ct_eq", ops(1, "comparisons"), |b| {
        let tag = [0x5au8; 16];
        let guess = [0x5au8; 16];
        costbench::secret(&tag);
        b.iter(|| {
            let eq = black_box(&tag).ct_eq(black_box(&guess));
            costbench::public(&eq);
            bool::from(eq)
        });
    });
    // Marked inside the body: the secret is the body's own (a key derived per op).
    suite.bench("clean/fold_eq", ops(1, "comparisons"), |b| {
        let guess = [0x5au8; 16];
        b.iter(|| {
            let tag = [black_box(0x5au8); 16];
            costbench::secret(&tag);
            fold_eq(&tag, black_box(&guess))
        });
    });
    suite.bench("plain/no_secret", ops(16, "bytes"), |b| {
        let key = [0x5au8; 16];
        b.iter(|| branch_on_secret(black_box(&key)));
    });
    suite.main();
}
