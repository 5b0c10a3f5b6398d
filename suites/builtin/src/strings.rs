//! Owned vs borrowed data: counting words with `to_string()` keys vs `&str` keys, collecting
//! into a `Vec` before iterating vs streaming, and `String` vs `CompactString` for short strings.

use compact_str::CompactString;
use std::collections::BTreeMap;

/// Word frequencies keyed by owned copies (`to_string()` for every word).
#[inline(never)]
pub fn count_owned(words: &[String]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for w in words {
        *m.entry(w.to_string()).or_insert(0) += 1;
    }
    m
}

/// Word frequencies keyed by borrowed `&str`.
#[inline(never)]
pub fn count_borrowed(words: &[String]) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for w in words {
        *m.entry(w.as_str()).or_insert(0) += 1;
    }
    m
}

/// Squares, keeps the even ones and sums, with an intermediate `Vec` at each step.
#[inline(never)]
pub fn sum_even_squares_collected(xs: &[u64]) -> u64 {
    let squares: Vec<u64> = xs.iter().map(|x| x.wrapping_mul(*x)).collect();
    let even: Vec<u64> = squares.into_iter().filter(|x| x % 2 == 0).collect();
    even.iter().fold(0u64, |s, x| s.wrapping_add(*x))
}

/// The same, streamed through one iterator chain.
#[inline(never)]
pub fn sum_even_squares_streamed(xs: &[u64]) -> u64 {
    xs.iter()
        .map(|x| x.wrapping_mul(*x))
        .filter(|x| x % 2 == 0)
        .fold(0u64, |s, x| s.wrapping_add(x))
}

/// Copies every word into a `String` (one heap allocation each).
#[inline(never)]
pub fn to_strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_string()).collect()
}

/// Copies every word into a `CompactString` (inline up to 24 bytes: no allocation here).
#[inline(never)]
pub fn to_compact_strings(words: &[&str]) -> Vec<CompactString> {
    words.iter().map(|w| CompactString::from(*w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_and_borrowed_agree() {
        let w = crate::data::short_words(200, 4);
        let o = count_owned(&w);
        let b = count_borrowed(&w);
        assert!(o.iter().map(|(k, v)| (k.as_str(), *v)).eq(b.into_iter()));
        let xs = crate::data::words(100, 2);
        assert_eq!(
            sum_even_squares_collected(&xs),
            sum_even_squares_streamed(&xs)
        );
        let refs: Vec<&str> = w.iter().map(String::as_str).collect();
        assert!(to_strings(&refs)
            .iter()
            .zip(to_compact_strings(&refs))
            .all(|(a, b)| a == b.as_str()));
    }
}
