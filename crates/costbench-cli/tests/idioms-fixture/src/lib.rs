//! A crate planted with the classic slow idioms, for `costbench advise`'s end-to-end test
//! (`tests/advise_e2e.rs`) and `scripts/advise.sh`: each function below holds one, and each
//! scenario of `benches/costs.rs` runs one function. Two more are traps for the rewrites: one
//! that no longer compiles with a `BufWriter`, one whose test fails with it. `gather` holds a
//! bounds check executed once per element, the hottest the census finds.

use regex::Regex;
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;

/// How many numbers the lines hold: a `Regex` compiled again for every line.
pub fn count_numbers(lines: &[&str]) -> usize {
    let mut n = 0;
    for line in lines {
        let re = Regex::new(r"[0-9]+").unwrap();
        n += re.find_iter(line).count();
    }
    n
}

/// How many lines are comments: a `Regex` for a prefix test.
pub fn comments(lines: &[&str]) -> usize {
    let re = Regex::new("^#").unwrap();
    lines.iter().filter(|l| re.is_match(l)).count()
}

/// Writes one row per line: one `write` system call per row.
pub fn save(path: &str, rows: &[u64]) -> std::io::Result<()> {
    let mut out = File::create(path)?;
    for r in rows {
        writeln!(out, "{r}")?;
    }
    Ok(())
}

/// The squares: a `Vec` that grows by reallocating, its length known from the start.
pub fn squares(xs: &[u64]) -> Vec<u64> {
    let mut v = Vec::new();
    for x in xs {
        v.push(x * x);
    }
    v
}

/// How often each word occurs: the default hasher.
pub fn word_counts<'a>(words: &[&'a str]) -> HashMap<&'a str, u32> {
    let mut m = HashMap::new();
    for w in words {
        *m.entry(*w).or_insert(0) += 1;
    }
    m
}

/// The total length of the names: an owned copy of each, made only to be borrowed.
pub fn total_len(names: &[&str]) -> usize {
    let mut n = 0;
    for name in names {
        // clippy::unnecessary_to_owned: `len_of` takes a `&str`.
        n += len_of(&name.to_string());
    }
    n
}

/// The total length of the words: collected into a `Vec` only to be iterated once.
pub fn word_lengths(text: &str) -> usize {
    let mut n = 0;
    let words: Vec<&str> = text.split(' ').collect();
    for w in words {
        n += w.len();
    }
    n
}

/// Prints the rows, one `println!` each (no scenario runs it).
pub fn print_rows(rows: &[u64]) {
    for r in rows {
        println!("{r}");
    }
}

/// Writes the rows and syncs the file: with a `BufWriter`, `sync_all` no longer compiles.
pub fn save_synced(path: &str, rows: &[u64]) -> std::io::Result<()> {
    let mut out = File::create(path)?;
    for r in rows {
        out.write_all(&r.to_le_bytes())?;
    }
    out.sync_all()
}

/// Writes the rows and returns the file's length, read while the writer is still open: with a
/// `BufWriter` the rows are not on disk yet, and the test below fails.
pub fn save_and_measure(path: &str, rows: &[u64]) -> std::io::Result<u64> {
    let mut out = File::create(path)?;
    for r in rows {
        write!(out, "{r},")?;
    }
    Ok(std::fs::metadata(path)?.len())
}

/// The sum of the elements at the given positions: one bounds check per position, which the
/// optimiser cannot remove (the positions are data).
pub fn gather(data: &[u64], positions: &[usize]) -> u64 {
    let mut sum = 0u64;
    for &p in positions {
        sum = sum.wrapping_add(data[p]);
    }
    sum
}

/// The length of a name.
fn len_of(name: &str) -> usize {
    name.len()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_length_counts_every_row() {
        let path = std::env::temp_dir().join(format!("idioms-fixture-{}", std::process::id()));
        let path = path.to_str().unwrap();
        assert_eq!(super::save_and_measure(path, &[1, 22, 333]).unwrap(), 9);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn the_idioms_compute_what_they_should() {
        assert_eq!(super::count_numbers(&["a 1 b 22", "3"]), 3);
        assert_eq!(super::comments(&["# x", "y", "#"]), 2);
        assert_eq!(super::squares(&[2, 3]), [4, 9]);
        assert_eq!(super::word_counts(&["a", "b", "a"])["a"], 2);
        assert_eq!(super::total_len(&["ab", "c"]), 3);
        assert_eq!(super::word_lengths("ab c"), 3);
        assert_eq!(super::gather(&[5, 6, 7], &[2, 0, 2]), 19);
    }
}
