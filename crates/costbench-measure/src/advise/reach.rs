//! Which scenarios execute the code a candidate changes, and how much of each scenario's cost it
//! is, read from the unchanged copy's callgrind profiles: the instructions attributed to the
//! changed function's lines of its file (inlined copies included, since callgrind names the
//! source line of every instruction), and the inclusive cost of the calls made from those lines.
//! A change can move the count only of a scenario that executes it, so a candidate is measured
//! on those; the share is what `advise` shows for an idiom it cannot rewrite.

use crate::instrument::callgrind::{format::Reader, format::Record, totals};
use anyhow::{Context, Result};
use std::path::Path;

/// What one scenario executes of a stretch of source lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// Instructions executed at those lines, with the inclusive cost of the calls made there.
    pub ir: u64,
    /// The scenario's instructions in all (the profile's totals).
    pub total: u64,
}

impl Reach {
    /// `ir` as a percentage of `total` (at most 100: a recursive call counts its callee again).
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        (100.0 * self.ir as f64 / self.total as f64).min(100.0)
    }
}

/// What the profile `text` executes of lines `first..=last` of the source file `file` (as the
/// profile names it: the path the compiler was given, absolute for the copy's files).
pub fn reach(text: &str, file: &str, first: u64, last: u64) -> Result<Reach> {
    let total = totals(text)?
        .into_iter()
        .find(|(e, _)| e == "Ir")
        .map_or(0, |(_, v)| v);
    let mut reader = Reader::new(text);
    let mut ir = 0;
    while let Some(record) = reader.read()? {
        let Record::Cost(cost) = record else { continue };
        let Some(line) = cost.line else { continue };
        if (first..=last).contains(&line) && reader.file() == Some(file) {
            ir += cost.event(0)?;
        }
    }
    Ok(Reach { ir, total })
}

/// [`reach`] of the profile kept at `path`.
pub fn reach_file(path: &Path, file: &str, first: u64, last: u64) -> Result<Reach> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the profile {}", path.display()))?;
    reach(&text, file, first, last).with_context(|| format!("in {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile shaped as callgrind writes one (`positions: line`): `work` at lines 10-12 of
    /// lib.rs, called from `main` at line 3, calling `helper` (lines 20-21) from line 11.
    const PROFILE: &str = "\
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 1000

ob=(1) /bin/x
fl=(1) /w/src/main.rs
fn=(1) main
3 100
cfi=(2) /w/src/lib.rs
cfn=(2) work
calls=1 10
3 900
fl=(2)
fn=(2)
10 50
11 20
cfn=(3) helper
calls=4 20
11 800
12 30
fn=(3)
20 600
21 200
";

    #[test]
    fn lines_count_their_own_cost_and_their_calls_inclusive_cost() {
        let work = reach(PROFILE, "/w/src/lib.rs", 10, 12).unwrap();
        assert_eq!(
            work,
            Reach {
                ir: 900,
                total: 1000
            }
        );
        assert!((work.percent() - 90.0).abs() < 1e-9);
        let helper = reach(PROFILE, "/w/src/lib.rs", 20, 21).unwrap();
        assert_eq!(helper.ir, 800);
        let other_file = reach(PROFILE, "/w/src/main.rs", 10, 12).unwrap();
        assert_eq!(other_file.ir, 0);
        let cold = reach(PROFILE, "/w/src/lib.rs", 30, 40).unwrap();
        assert_eq!(cold.ir, 0);
    }
}
