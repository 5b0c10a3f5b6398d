//! A fixture.

/// A token whose clone costs exactly 2 * 1000 + 1 instructions.
pub struct Token(pub u64);

impl Clone for Token {
    #[inline(always)]
    fn clone(&self) -> Token {
        // SAFETY: only touches ecx.
        unsafe {
            std::arch::asm!("mov ecx, 1000", "2:", "dec ecx", "jnz 2b", out("ecx") _, options(nomem, nostack));
        }
        Token(self.0)
    }
}

#[inline(never)]
pub fn consume(t: Token) -> u64 {
    t.0
}

#[inline(never)]
pub fn hot(t: &Token) -> u64 {
    let owned = t.clone();
    consume(owned.clone())
}

pub fn cold(name: &str) -> String {
    format!("bad name: {}", name.to_string())
}

pub fn split_count(s: &str) -> usize {
    s.split("x").count()
}

pub fn zeros(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    v.resize(n, 0);
    v
}
