//! Reading u64 words out of a byte buffer: aligned loads vs `read_unaligned` at an odd offset,
//! and [`read_words`], whose strategy the crate's `unaligned` feature switches.

/// A byte buffer whose start is 8-byte aligned (backed by `u64`s), with one spare word so that
/// a view at an odd offset has as many whole words as the aligned one.
#[derive(Debug, Clone)]
pub struct WordBuffer {
    words: Vec<u64>,
}

impl WordBuffer {
    /// `n` words of data (plus one spare word).
    pub fn new(n: usize, seed: u64) -> WordBuffer {
        WordBuffer {
            words: crate::data::words(n + 1, seed),
        }
    }

    /// Whole words available through either view.
    pub fn len_words(&self) -> usize {
        self.words.len() - 1
    }

    /// The bytes, starting at an 8-aligned address.
    pub fn aligned(&self) -> &[u8] {
        let n = self.len_words() * 8;
        // SAFETY: the u64 buffer holds at least n bytes; u8 has no alignment or validity needs.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), n) }
    }

    /// The same number of bytes, starting one byte later (so never 8-aligned).
    pub fn misaligned(&self) -> &[u8] {
        let n = self.len_words() * 8;
        // SAFETY: the spare word leaves at least n + 1 bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>().add(1), n) }
    }
}

/// Sums the little-endian words of `bytes` with aligned loads.
///
/// # Safety
/// `bytes` must start at an 8-byte aligned address.
#[inline(never)]
pub unsafe fn sum_aligned(bytes: &[u8]) -> u64 {
    let p = bytes.as_ptr().cast::<u64>();
    let mut s = 0u64;
    for i in 0..bytes.len() / 8 {
        // SAFETY: in bounds, and aligned by the caller's guarantee.
        s = s.wrapping_add(u64::from_le(unsafe { p.add(i).read() }));
    }
    s
}

/// Sums the little-endian words of `bytes` with `read_unaligned`, at any alignment.
#[inline(never)]
pub fn sum_unaligned(bytes: &[u8]) -> u64 {
    let p = bytes.as_ptr().cast::<u64>();
    let mut s = 0u64;
    for i in 0..bytes.len() / 8 {
        // SAFETY: the whole word lies inside `bytes`; read_unaligned needs no alignment.
        s = s.wrapping_add(u64::from_le(unsafe { p.add(i).read_unaligned() }));
    }
    s
}

/// Sums the words of `bytes` the way the crate was built to: with alignment assumed by default
/// (checked once, up front), or with `read_unaligned` when the `unaligned` feature is on.
#[inline(never)]
pub fn read_words(bytes: &[u8]) -> u64 {
    #[cfg(feature = "unaligned")]
    {
        sum_unaligned(bytes)
    }
    #[cfg(not(feature = "unaligned"))]
    {
        assert!(
            bytes.as_ptr().align_offset(8) == 0,
            "read_words without the `unaligned` feature needs 8-aligned input"
        );
        // SAFETY: alignment checked just above.
        unsafe { sum_aligned(bytes) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_read_the_expected_words() {
        let b = WordBuffer::new(64, 9);
        // SAFETY: aligned() is 8-aligned.
        let a = unsafe { sum_aligned(b.aligned()) };
        assert_eq!(a, sum_unaligned(b.aligned()));
        assert_eq!(a, read_words(b.aligned()));
        let expect = b.words[..64].iter().fold(0u64, |s, &w| s.wrapping_add(w));
        assert_eq!(a, expect);
        assert_eq!(b.misaligned().len(), 64 * 8);
        assert_ne!(b.misaligned().as_ptr().align_offset(8), 0);
    }
}
