//! Steps of an exact series: the per-op figures of consecutive commits of a branch, oldest
//! first, of a metric where one measurement of a binary is its value (instructions, cycles
//! under callgrind, allocations, bytes, binary size). No test is needed to tell a change from
//! noise: two values are one level when they differ by at most the tolerance (the harness
//! residual per op), and any larger difference between consecutive values is a step. What this
//! module decides is only which steps *last*, so that `history changes` names the commits that
//! moved the cost for good and stays quiet about ones undone at once.
//!
//! The rule, for a step from `p` (the value the series last held) to `v[i]`, by what the next
//! value `v[i+1]` does:
//!
//! | `v[i+1]`                                  | the step at `i`                                |
//! |-------------------------------------------|------------------------------------------------|
//! | at `v[i]`'s level                         | lasting: reported, confirmed                   |
//! | none (`v[i]` is the newest value)         | reported, not confirmed                        |
//! | moves on, the same way as `p → v[i]`      | lasting: reported, confirmed (a staircase)     |
//! | turns back: to `p`'s level (a blip), part way, or past it | withdrawn: not reported        |
//!
//! - *Newest value*: nothing says yet whether it lasts, but the continuous CI job must hear of
//!   it on the run that brought it, not one commit later. `confirmed: false` says so.
//! - *Staircase*: a creep of 1 % per commit never holds a level for two commits, yet every one
//!   of those commits added its share and the series never went back. Waiting for a level to
//!   hold would hide exactly the slow creep that exact counts are best at catching.
//! - *Withdrawn*: a value the very next commit turns away from is a run that went wrong (a
//!   build or machine hiccup) or a change reverted at once; either way the cost the branch
//!   carries did not move, and an alert would be noise. The withdrawn value is then treated as
//!   absent, like a NaN, and the next value is compared with `p`. So the step back from a blip
//!   is no change point either (it returns to `p`), and after a partial return the step at
//!   `i+1` is measured from `p`, the lasting level, not from the transient value: 100, 110,
//!   105, 105 reports +5 % at the third commit, not −4.5 %. The step at `i+1` itself follows
//!   the same rule.
//!
//! `before` is therefore `v[i−1]` except after an absent value (non-finite or withdrawn), where
//! it is the last value the series held. Levels compare consecutive values, so a drift of less
//! than the tolerance per commit is never a step: the drift budget (`super::drift`) watches
//! that. A negative or NaN tolerance counts as 0.
//!
//! Pure: which commits the values belong to is the caller's.

/// A lasting step of an exact series.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The first index of the new level (at least 1).
    pub index: usize,
    /// The level before.
    pub before: f64,
    /// The level after.
    pub after: f64,
    /// Whether a later value confirmed the new level.
    pub confirmed: bool,
}

/// The steps of `values` beyond `tolerance`.
pub fn steps(values: &[f64], tolerance: f64) -> Vec<Step> {
    // `max` also turns a NaN tolerance into 0.
    let tolerance = tolerance.max(0.0);
    let same = |a: f64, b: f64| (a - b).abs() <= tolerance;
    let finite = super::finite(values);
    let mut out = Vec::new();
    let Some(&(_, mut held)) = finite.first() else {
        return out;
    };
    for (j, &(index, value)) in finite.iter().enumerate().skip(1) {
        if same(value, held) {
            held = value;
            continue;
        }
        let confirmed = match finite.get(j + 1) {
            None => false,
            Some(&(_, next)) if same(next, value) => true,
            // Further the same way: a staircase (both differences are beyond the tolerance, so
            // neither sign is zero).
            Some(&(_, next)) if (next - value).signum() == (value - held).signum() => true,
            // Turned back at once: withdrawn; `held` stays the level to compare with.
            Some(_) => continue,
        };
        out.push(Step {
            index,
            before: held,
            after: value,
            confirmed,
        });
        held = value;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(index, before, after, confirmed)`.
    type Expected = (usize, f64, f64, bool);

    fn found(values: &[f64], tolerance: f64) -> Vec<Expected> {
        steps(values, tolerance)
            .into_iter()
            .map(|s| (s.index, s.before, s.after, s.confirmed))
            .collect()
    }

    #[test]
    fn table() {
        let staircase: Vec<f64> = (0..5).map(|i| 1000.0 * 1.01_f64.powi(i)).collect();
        let climbs: Vec<Expected> = (1..5)
            .map(|i| (i, staircase[i - 1], staircase[i], i < 4))
            .collect();
        let cases: Vec<(&str, Vec<f64>, f64, Vec<Expected>)> = vec![
            ("empty", vec![], 0.5, vec![]),
            ("single value", vec![100.0], 0.5, vec![]),
            ("flat", vec![100.0; 6], 0.5, vec![]),
            (
                "single lasting step",
                vec![100.0, 100.0, 104.0, 104.0, 104.0],
                0.5,
                vec![(2, 100.0, 104.0, true)],
            ),
            (
                "lasting step, confirmed by the last value",
                vec![100.0, 104.0, 104.0],
                0.5,
                vec![(1, 100.0, 104.0, true)],
            ),
            (
                "step at the last point",
                vec![100.0, 100.0, 100.0, 97.0],
                0.5,
                vec![(3, 100.0, 97.0, false)],
            ),
            (
                "two values, a step",
                vec![100.0, 97.0],
                0.5,
                vec![(1, 100.0, 97.0, false)],
            ),
            (
                "blip: neither the step up nor the step back",
                vec![100.0, 100.0, 150.0, 100.0, 100.0],
                0.5,
                vec![],
            ),
            (
                "blip back within the tolerance",
                vec![100.0, 150.0, 100.3, 100.1],
                0.5,
                vec![],
            ),
            (
                "step, then reverted two commits later",
                vec![100.0, 100.0, 110.0, 110.0, 100.0, 100.0],
                0.5,
                vec![(2, 100.0, 110.0, true), (4, 110.0, 100.0, true)],
            ),
            (
                "reverted two commits later, at the newest",
                vec![100.0, 110.0, 110.0, 100.0],
                0.5,
                vec![(1, 100.0, 110.0, true), (3, 110.0, 100.0, false)],
            ),
            ("staircase of 1 % per commit", staircase, 0.5, climbs),
            (
                "staircase down",
                vec![100.0, 98.0, 96.0, 96.0],
                0.5,
                vec![(1, 100.0, 98.0, true), (2, 98.0, 96.0, true)],
            ),
            (
                "wobble within the tolerance",
                vec![100.0, 100.4, 99.9, 100.2, 99.8, 100.1],
                0.5,
                vec![],
            ),
            (
                "overshoot, then part of the way back: measured from the held level",
                vec![100.0, 110.0, 105.0, 105.0],
                0.5,
                vec![(2, 100.0, 105.0, true)],
            ),
            (
                "overshoot past the old level",
                vec![100.0, 110.0, 90.0, 90.0],
                0.5,
                vec![(2, 100.0, 90.0, true)],
            ),
            (
                "two transients in a row, then a level",
                vec![100.0, 150.0, 120.0, 110.0, 110.0],
                0.5,
                vec![(3, 100.0, 110.0, true)],
            ),
            (
                "a spike within a climb",
                vec![100.0, 101.0, 150.0, 102.0, 102.0],
                0.5,
                vec![(1, 100.0, 101.0, true), (3, 101.0, 102.0, true)],
            ),
            (
                "withdrawn value before the newest",
                vec![100.0, 100.0, 150.0, 120.0],
                0.5,
                vec![(3, 100.0, 120.0, false)],
            ),
            (
                "flicker between two values",
                vec![100.0, 110.0, 100.0, 110.0, 100.0],
                0.5,
                vec![],
            ),
            (
                "flicker that settles",
                vec![100.0, 110.0, 100.0, 110.0, 110.0],
                0.5,
                vec![(3, 100.0, 110.0, true)],
            ),
            (
                "NaN is absent: compared with the previous finite value",
                vec![100.0, f64::NAN, 100.0, 104.0, f64::NAN, 104.0],
                0.5,
                vec![(3, 100.0, 104.0, true)],
            ),
            (
                "NaN between a step and its confirmation",
                vec![100.0, 104.0, f64::NAN, 104.0],
                0.5,
                vec![(1, 100.0, 104.0, true)],
            ),
            (
                "NaN after the newest finite value: still unconfirmed",
                vec![100.0, 104.0, f64::NAN],
                0.5,
                vec![(1, 100.0, 104.0, false)],
            ),
            ("only NaN", vec![f64::NAN, f64::INFINITY], 0.5, vec![]),
            (
                "zero tolerance: exact equality",
                vec![7.0, 7.0, 8.0, 8.0],
                0.0,
                vec![(2, 7.0, 8.0, true)],
            ),
            (
                "NaN tolerance counts as 0",
                vec![7.0, 8.0, 8.0],
                f64::NAN,
                vec![(1, 7.0, 8.0, true)],
            ),
            (
                "a difference of exactly the tolerance is one level",
                vec![100.0, 100.5, 100.5],
                0.5,
                vec![],
            ),
        ];
        for (name, values, tolerance, expected) in cases {
            assert_eq!(found(&values, tolerance), expected, "{name}: {values:?}");
        }
    }

    #[test]
    fn every_step_has_a_predecessor_and_comes_in_order() {
        // Indices are what `changes::detect` indexes with `index - 1`.
        let values = [5.0, 9.0, 9.0, 3.0, 3.0, 3.5, 4.0, 8.0];
        let s = steps(&values, 0.1);
        assert!(s.windows(2).all(|w| w[0].index < w[1].index));
        assert!(s.iter().all(|s| s.index >= 1 && s.index < values.len()));
    }
}
