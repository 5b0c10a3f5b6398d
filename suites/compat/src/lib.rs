//! The code both bench targets measure, shared so that each target's body is one call.

/// The sum of `data`, by index: 1000 elements is a few thousand instructions.
pub fn sum(data: &[u64]) -> u64 {
    let mut s = 0u64;
    for &x in data {
        s = s.wrapping_add(x);
    }
    s
}

/// Counts the ASCII digits of `text`.
pub fn digits(text: &[u8]) -> usize {
    text.iter().filter(|b| b.is_ascii_digit()).count()
}

/// The input of the sorting benchmarks: `n` numbers in a scrambled order.
pub fn scrambled(n: u32) -> Vec<u32> {
    (0..n)
        .map(|i| i.wrapping_mul(2_654_435_761) % 10_007)
        .collect()
}
