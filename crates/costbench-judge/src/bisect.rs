//! The search of `costbench bisect` over exact instruction counts: commits `0..n` of a range
//! (oldest first, the last one BAD), the good value measured at GOOD (just before commit 0),
//! and a binary search for the first commit whose count differs from it. Counts are exact, so
//! one measurement decides a commit; a commit that does not build can be skipped, as `git
//! bisect skip` does, and the answer may then be a range.
//!
//! Pure: the caller builds and measures the commit [`Bisection::next`] asks for and reports
//! what it found ([`Bisection::record`]).

/// What a measured commit showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The count is GOOD's.
    Good,
    /// The count differs from GOOD's.
    Bad,
    /// The commit could not be built or measured; leave it out.
    Skip,
}

/// Where the search stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Build and measure commit `k` next.
    Measure(usize),
    /// Commit `k` is the first whose count left GOOD's value.
    Found(usize),
    /// The first change is one of commits `first..=last`: the ones between could not be
    /// measured.
    Range {
        /// First candidate.
        first: usize,
        /// Last candidate (known bad).
        last: usize,
    },
}

/// The state of the search: everything before `lo + 1` is good (GOOD itself is `lo = None`),
/// commit `hi` is bad (BAD until measured otherwise; confirmed only when measured).
#[derive(Debug, Clone)]
pub struct Bisection {
    /// Last commit known good (`None`: GOOD, before commit 0).
    lo: Option<usize>,
    /// First commit known (or assumed: BAD) bad.
    hi: usize,
    /// Whether `hi` was measured bad, rather than assumed (BAD as given).
    hi_measured: bool,
    /// Commits that could not be measured.
    skipped: Vec<usize>,
}

impl Bisection {
    /// A search over `n` commits (at least one), the last of which is BAD.
    pub fn new(n: usize) -> Bisection {
        assert!(n > 0, "a range of at least one commit");
        Bisection {
            lo: None,
            hi: n - 1,
            hi_measured: false,
            skipped: Vec::new(),
        }
    }

    /// The commits still between the last good one and the first bad one, not skipped.
    fn open(&self) -> Vec<usize> {
        let start = self.lo.map_or(0, |l| l + 1);
        (start..self.hi)
            .filter(|k| !self.skipped.contains(k))
            .collect()
    }

    /// What to do next.
    pub fn next(&self) -> Step {
        let open = self.open();
        if !open.is_empty() {
            // The middle of what is left (the upper middle, so that two candidates take one
            // step), measured commits of a skipped stretch avoided.
            return Step::Measure(open[open.len() / 2]);
        }
        if !self.hi_measured {
            // Everything before BAD is good: BAD must be measured once to be the answer.
            return Step::Measure(self.hi);
        }
        let first = self.lo.map_or(0, |l| l + 1);
        if first == self.hi {
            Step::Found(self.hi)
        } else {
            Step::Range {
                first,
                last: self.hi,
            }
        }
    }

    /// Commit `k` showed `outcome`.
    pub fn record(&mut self, k: usize, outcome: Outcome) {
        match outcome {
            Outcome::Good => {
                if k == self.hi {
                    // BAD counts like GOOD: nothing in the range left GOOD's value.
                    self.lo = Some(k);
                    self.hi_measured = true;
                } else {
                    self.lo = Some(k);
                }
            }
            Outcome::Bad => {
                self.hi = k;
                self.hi_measured = true;
            }
            Outcome::Skip => self.skipped.push(k),
        }
    }

    /// Whether BAD itself counted like GOOD (then [`Bisection::next`] has nothing to find).
    pub fn no_change(&self) -> bool {
        self.lo == Some(self.hi)
    }

    /// The last commit known good (`None`: GOOD itself).
    pub fn last_good(&self) -> Option<usize> {
        self.lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the search over `n` commits whose first bad one is `first_bad` (`n` for none), with
    /// `broken` commits skipped; returns the answer and how many commits were measured.
    fn run(n: usize, first_bad: usize, broken: &[usize]) -> (Step, usize) {
        let mut b = Bisection::new(n);
        let mut measured = 0;
        loop {
            match b.next() {
                Step::Measure(k) => {
                    measured += 1;
                    let outcome = if broken.contains(&k) {
                        Outcome::Skip
                    } else if k >= first_bad {
                        Outcome::Bad
                    } else {
                        Outcome::Good
                    };
                    b.record(k, outcome);
                    if b.no_change() {
                        return (Step::Measure(usize::MAX), measured);
                    }
                }
                done => return (done, measured),
            }
        }
    }

    /// Issue 27: every first bad commit of ranges of 1 to 40 commits is found in at most
    /// ⌈log2 N⌉ measurements of the range (GOOD's is the "+ 1"), and one more only when the
    /// answer is BAD itself.
    #[test]
    fn the_first_change_is_found_in_log2_steps() {
        for n in 1..=40usize {
            let log = (n as f64).log2().ceil() as usize;
            for first_bad in 0..n {
                let (step, measured) = run(n, first_bad, &[]);
                assert_eq!(step, Step::Found(first_bad), "n {n}, first bad {first_bad}");
                let bound = if first_bad == n - 1 { log + 1 } else { log };
                assert!(
                    measured <= bound,
                    "n {n}, first bad {first_bad}: {measured} measurements"
                );
            }
        }
        // BAD counts like GOOD: nothing to find.
        assert_eq!(run(8, 8, &[]).0, Step::Measure(usize::MAX));
    }

    #[test]
    fn a_commit_that_does_not_build_is_skipped_or_leaves_a_range() {
        // The broken commit is not the answer: found anyway.
        assert_eq!(run(10, 7, &[3]).0, Step::Found(7));
        // The commit before the answer is broken: the change is in 5..=6.
        assert_eq!(run(10, 6, &[5]).0, Step::Range { first: 5, last: 6 });
    }
}
