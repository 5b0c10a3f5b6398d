//! Significance thresholds from history: how much a scenario's figure moved between consecutive
//! runs of the baseline branch, summarised as Q3 + 3·IQR of the absolute relative changes (the
//! rule rustc-perf and rustls use). Pure: the caller fetches the series.
//!
//! What else a kind of figure takes from its history is its slice's (`instrument::Judging`):
//! whether the threshold is at least the largest change the window shows between consecutive
//! runs, the floor that keeps a history that never moved from giving a threshold of 0 %, and the
//! threshold of a series too short to learn one from ([`series`]). A noisy history raises the
//! threshold as far as its noise requires.

pub use super::judge::Learned;
use super::types::CompareOptions;
use crate::instrument::judging;
use costbench_record::instrument::Figure;
use costbench_record::stats::quantile;
use std::collections::BTreeMap;

/// Consecutive changes needed before history is trusted over the default threshold.
pub const MIN_CHANGES: usize = 10;
/// Runs of history looked at by default.
pub const DEFAULT_WINDOW: usize = 30;

/// Lowest threshold history can set, per figure, in percent (its kind's slice says).
pub fn floor_pct(inst: Figure) -> f64 {
    judging(inst.judged()).history_floor_pct
}

/// Q3 + 3·IQR of the absolute relative changes (percent) between consecutive values of
/// `series` (oldest first), at least the largest of those changes where the figure's kind says
/// so, floored; `None` with fewer than [`MIN_CHANGES`] changes.
pub fn threshold_pct(series: &[f64], inst: Figure) -> Option<f64> {
    learned(series, inst).map(|l| l.pct)
}

/// The threshold a history series of `inst` (its values oldest first) is judged against, in
/// percent, and where it came from: learned from the series itself ([`threshold_pct`]) when it
/// is long enough; else what the figure's kind says of a short series, or the default threshold
/// `compare` judges it against without history.
pub fn series(series: &[f64], inst: Figure) -> (f64, &'static str) {
    if let Some(t) = threshold_pct(series, inst) {
        return (t, "learned from this history");
    }
    judging(inst.judged()).short_history.unwrap_or((
        CompareOptions::default().threshold_pct(inst),
        "default; history too short to learn one",
    ))
}

/// [`threshold_pct`] with the number of changes behind it.
pub fn learned(series: &[f64], inst: Figure) -> Option<Learned> {
    let mut changes: Vec<f64> = series
        .windows(2)
        .filter(|w| w[0] > 0.0)
        .map(|w| (100.0 * (w[1] - w[0]) / w[0]).abs())
        .collect();
    if changes.len() < MIN_CHANGES {
        return None;
    }
    changes.sort_by(f64::total_cmp);
    let (q1, q3) = (quantile(&changes, 0.25), quantile(&changes, 0.75));
    let mut pct = q3 + 3.0 * (q3 - q1);
    if judging(inst.judged()).history_at_least_largest {
        pct = pct.max(changes[changes.len() - 1]);
    }
    Some(Learned {
        pct: pct.max(floor_pct(inst)),
        changes: changes.len(),
    })
}

/// Thresholds measured from history, per measured id and instrument.
#[derive(Debug, Clone, Default)]
pub struct HistoricThresholds {
    map: BTreeMap<(String, &'static str), Learned>,
}

impl HistoricThresholds {
    /// Sets `id`'s threshold for `inst` from its series, when the series is long enough.
    pub fn learn(&mut self, id: &str, inst: Figure, series: &[f64]) {
        if let Some(t) = learned(series, inst) {
            self.map.insert((id.to_string(), inst.name()), t);
        }
    }

    /// Sets a threshold directly (tests that need an exact one; with the `testing` feature for
    /// the tests of the reports).
    #[cfg(any(test, feature = "testing"))]
    pub fn set(&mut self, id: &str, inst: Figure, pct: f64, changes: usize) {
        self.map
            .insert((id.to_string(), inst.name()), Learned { pct, changes });
    }

    /// The threshold for `id` under `inst`, percent, if history gave it one.
    pub fn get(&self, id: &str, inst: Figure) -> Option<f64> {
        self.learned(id, inst).map(|l| l.pct)
    }

    /// The threshold with the number of consecutive changes it came from (for evidence texts).
    pub fn learned(&self, id: &str, inst: Figure) -> Option<Learned> {
        self.map.get(&(id.to_string(), inst.name())).copied()
    }

    /// How many (id, instrument) thresholds history gave.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether history gave no threshold at all.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare_with, CompareOptions, Verdict};
    use costbench_record::testing;

    /// A history series' threshold: learned when the series is long enough; else wall time's
    /// none at all (separate runs get no verdict without history) and the default for the
    /// others.
    #[test]
    fn series_too_short_fall_back_by_their_kind() {
        let short = [100.0, 101.0, 99.0];
        assert_eq!(
            series(&short, Figure::Walltime),
            (
                f64::INFINITY,
                "history too short to judge wall time between runs"
            )
        );
        assert_eq!(
            series(&short, Figure::Icount),
            (
                crate::compare::DEFAULT_ICOUNT_THRESHOLD_PCT,
                "default; history too short to learn one"
            )
        );
        let long = [100.0; 11];
        assert_eq!(
            series(&long, Figure::Walltime).1,
            "learned from this history"
        );
    }

    #[test]
    fn short_histories_are_not_trusted() {
        assert_eq!(threshold_pct(&[100.0; 10], Figure::Icount), None);
        assert!(threshold_pct(&[100.0; 11], Figure::Icount).is_some());
    }

    #[test]
    fn flat_history_gives_the_floor_and_noisy_history_a_wide_threshold() {
        assert_eq!(threshold_pct(&[5000.0; 31], Figure::Icount), Some(0.01));
        assert_eq!(threshold_pct(&[5.0; 31], Figure::Walltime), Some(1.0));
        // Alternating 100 and 110: changes of +10 % and -9.09 %.
        let noisy: Vec<f64> = (0..31)
            .map(|i| if i % 2 == 0 { 100.0 } else { 110.0 })
            .collect();
        let t = threshold_pct(&noisy, Figure::Walltime).unwrap();
        // Q1 = 9.09, Q3 = 10: Q3 + 3 IQR = 12.73.
        assert!(
            (t - (10.0 + 3.0 * (10.0 - 100.0 / 11.0))).abs() < 1e-9,
            "{t}"
        );
    }

    #[test]
    fn wall_time_takes_the_largest_change_history_has_seen() {
        // 20 runs within ±1 % and one 12 % jump between two of them: Q3 + 3 IQR alone would be
        // a few percent and flag a repeat of that jump; the largest change sets the threshold.
        let mut series: Vec<f64> = (0..20)
            .map(|i| 100.0 * (1.0 + 0.01 * ((i % 3) as f64 - 1.0)))
            .collect();
        series[10] = 112.0;
        let l = learned(&series, Figure::Walltime).unwrap();
        let largest = 100.0 * (112.0 - series[9]) / series[9];
        assert!((l.pct - largest).abs() < 1e-9, "{l:?}");
        assert_eq!(l.changes, 19);
        // Instruction counts keep Q3 + 3 IQR: their largest change is the last real one.
        let ir = learned(&series, Figure::Icount).unwrap();
        assert!(ir.pct < largest / 2.0, "{ir:?}");
        // A separate-run comparison with a change as large as the largest seen: unchanged.
        let run = |id: &str, v: f64| {
            let r = testing::with_walltime(
                testing::scenario("s"),
                &crate::testing::noisy(v, 0.001, 20, id.len() as u64),
            );
            testing::record(id, vec![r])
        };
        let mut h = HistoricThresholds::default();
        h.learn("s", Figure::Walltime, &series);
        let c = compare_with(
            &run("b", 100.0),
            &run("cc", 111.0),
            &CompareOptions::default(),
            &h,
        );
        assert_eq!(c.rows[0].verdict, Verdict::Unchanged, "{:#?}", c.rows[0]);
        assert_eq!(
            c.rows[0].evidence,
            "separate runs: between-run noise from 19 consecutive changes of history"
        );
        // Beyond it, with the run's own samples agreeing: a regression.
        let c = compare_with(
            &run("b", 100.0),
            &run("cc", 125.0),
            &CompareOptions::default(),
            &h,
        );
        assert_eq!(c.rows[0].verdict, Verdict::Regression, "{:#?}", c.rows[0]);
    }

    #[test]
    fn comparison_uses_historic_thresholds_where_known() {
        let run = |id: &str, steady: f64, noisy: f64| {
            testing::record(
                id,
                vec![
                    testing::with_icount(testing::scenario("steady"), steady),
                    testing::with_icount(testing::scenario("noisy"), noisy),
                ],
            )
        };
        let base = run("base", 1000.0, 1000.0);
        let cand = run("cand", 1000.5, 1005.0);
        let mut h = HistoricThresholds::default();
        h.learn("steady", Figure::Icount, &[1000.0; 20]);
        let noisy: Vec<f64> = (0..20)
            .map(|i| if i % 2 == 0 { 1000.0 } else { 1010.0 })
            .collect();
        h.learn("noisy", Figure::Icount, &noisy);
        let c = compare_with(&base, &cand, &CompareOptions::default(), &h);
        let verdict = |id: &str| c.rows.iter().find(|r| r.id == id).unwrap();
        // +0.05 %: below the 0.2 % default, above a never-moving history's 0.01 % floor.
        assert_eq!(verdict("steady").verdict, Verdict::Regression);
        assert!(
            verdict("steady").reason.contains("(history)"),
            "{}",
            verdict("steady").reason
        );
        // +0.5 %: beyond the default, within a history that moves by 1 % every run.
        assert_eq!(verdict("noisy").verdict, Verdict::Unchanged);
    }
}
