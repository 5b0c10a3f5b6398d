//! A crate with two idioms clippy knows how to fix, for `costbench advise`'s end-to-end test
//! (`tests/advise_e2e.rs`): a redundant clone on the hot path, whose clone costs exactly
//! 2 * 1000 + 1 instructions, and a `to_string` in `format!` arguments in code no scenario runs.

/// A token whose clone executes exactly 2 * 1000 + 1 instructions of its own (an x86-64 loop),
/// so that a clone less per call lowers a scenario's count by exactly that.
pub struct Token(pub u64);

impl Clone for Token {
    #[inline(always)]
    fn clone(&self) -> Token {
        spin_1000();
        Token(self.0)
    }
}

/// `mov ecx, 1000`, then 1000 times `dec ecx` and `jnz`: 2 * 1000 + 1 instructions.
#[inline(always)]
fn spin_1000() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: only touches ecx, which is declared clobbered; no memory, no stack.
    unsafe {
        std::arch::asm!(
            "mov ecx, 1000",
            "2:",
            "dec ecx",
            "jnz 2b",
            out("ecx") _,
            options(nomem, nostack),
        );
    }
}

/// Takes a token by value.
#[inline(never)]
pub fn consume(t: Token) -> u64 {
    t.0
}

/// The hot path: an owned copy of the token, then a clone of that copy, which is dropped
/// unused right after (clippy::redundant_clone).
#[inline(never)]
pub fn hot(t: &Token) -> u64 {
    let owned = t.clone();
    consume(owned.clone())
}

/// One clone, needed: the scenario that no candidate changes.
#[inline(never)]
pub fn once(t: &Token) -> u64 {
    consume(t.clone())
}

/// Never run by the scenarios: a `to_string` inside `format!`'s arguments
/// (clippy::to_string_in_format_args), in cold code.
pub fn describe(name: &str) -> String {
    format!("bad name: {}", name.to_string())
}
