//! Regular expressions and their cheaper neighbours: compiling in the loop vs once, a suffix
//! regex vs `ends_with`, and a cheap length pre-filter in front of a regex.

use regex::Regex;

/// Pattern for the e-mail-like lines of [`lines`].
pub const EMAIL: &str = r"^[a-z]+@[a-z]+\.(com|org)$";

/// `n` lines, about a third of which match [`EMAIL`], the rest too long or missing the `@`.
pub fn lines(n: usize, seed: u64) -> Vec<String> {
    let words = crate::data::short_words(3 * n, seed);
    (0..n)
        .map(|i| {
            let (a, b, c) = (&words[3 * i], &words[3 * i + 1], &words[3 * i + 2]);
            match i % 3 {
                0 => format!("{a}@{b}.com"),
                1 => format!("{a} {b} {c} {a} {b} {c} and some more words to make it long"),
                _ => format!("{a}.{b}.org"),
            }
        })
        .collect()
}

/// File names, half of them ending in `.rs`.
pub fn file_names(n: usize, seed: u64) -> Vec<String> {
    crate::data::short_words(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, w)| format!("src/{w}.{}", if i % 2 == 0 { "rs" } else { "toml" }))
        .collect()
}

/// Counts lines matching `pattern`, compiling the regex again for every line.
#[inline(never)]
pub fn count_compiling_each_time(lines: &[String], pattern: &str) -> usize {
    lines
        .iter()
        .filter(|l| Regex::new(pattern).expect("valid pattern").is_match(l))
        .count()
}

/// Counts lines matching `re`, compiled once by the caller.
#[inline(never)]
pub fn count_compiled_once(lines: &[String], re: &Regex) -> usize {
    lines.iter().filter(|l| re.is_match(l)).count()
}

/// Counts lines matching `re`, asking the regex only about lines short enough and holding an `@`.
#[inline(never)]
pub fn count_prefiltered(lines: &[String], re: &Regex) -> usize {
    lines
        .iter()
        .filter(|l| l.len() <= 40 && l.contains('@') && re.is_match(l))
        .count()
}

/// Counts names matching a suffix regex such as `\.rs$`.
#[inline(never)]
pub fn count_suffix_regex(names: &[String], re: &Regex) -> usize {
    names.iter().filter(|n| re.is_match(n)).count()
}

/// Counts names ending in `.rs` with `str::ends_with`.
#[inline(never)]
pub fn count_suffix_ends_with(names: &[String]) -> usize {
    names.iter().filter(|n| n.ends_with(".rs")).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_counts_the_same() {
        let l = lines(30, 5);
        let re = Regex::new(EMAIL).unwrap();
        let n = count_compiled_once(&l, &re);
        assert_eq!(n, 10);
        assert_eq!(n, count_compiling_each_time(&l, EMAIL));
        assert_eq!(n, count_prefiltered(&l, &re));
        let names = file_names(40, 6);
        let suffix = Regex::new(r"\.rs$").unwrap();
        assert_eq!(count_suffix_regex(&names, &suffix), 20);
        assert_eq!(count_suffix_ends_with(&names), 20);
    }
}
