//! Deterministic inputs: a fixed-seed xorshift generator, so that every run measures the same
//! data (no `RandomState`, no time).

/// Marsaglia's xorshift64: small, fast and the same everywhere.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.max(1))
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// `n` pseudo-random words.
pub fn words(n: usize, seed: u64) -> Vec<u64> {
    let mut g = XorShift::new(seed);
    (0..n).map(|_| g.next_u64()).collect()
}

/// `n` indices below `len`.
pub fn indices(n: usize, len: usize, seed: u64) -> Vec<usize> {
    let mut g = XorShift::new(seed);
    (0..n).map(|_| g.below(len)).collect()
}

/// `n` short lowercase words of 3 to 12 letters.
pub fn short_words(n: usize, seed: u64) -> Vec<String> {
    let mut g = XorShift::new(seed);
    (0..n)
        .map(|_| {
            let len = 3 + g.below(10);
            (0..len)
                .map(|_| (b'a' + g.below(26) as u8) as char)
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_deterministic() {
        assert_eq!(words(4, 7), words(4, 7));
        assert_ne!(words(4, 7), words(4, 8));
        assert!(indices(100, 10, 3).iter().all(|&i| i < 10));
        assert!(short_words(50, 1)
            .iter()
            .all(|w| (3..=12).contains(&w.len())));
    }
}
