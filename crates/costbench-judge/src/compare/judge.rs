//! The vocabulary of a verdict, shared by the comparison and the instruments' slices that judge
//! its rows ([`crate::instrument`]): what one row is judged from ([`Pair`]), a verdict with
//! everything that backs it ([`Judgement`]), a threshold and where it came from
//! ([`Threshold`]), one learned from history ([`Learned`]), and the arithmetic every judging
//! shares ([`change_pct`], [`direction`]).
//!
//! Deciding a verdict is the slices' (each figure's spec says how it is judged, and the slice of
//! that kind decides); this module names no instrument and imports none of them, so the slices
//! can stand on it. Pure: no clocks, no processes.

use super::types::{CompareOptions, Verdict};
use costbench_record::fmt::fmt_threshold;
use costbench_record::instrument::Figure;
use costbench_record::model::{RunRecord, ScenarioResult};

/// What one row (an id under one figure, measured in both runs) is judged from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pair<'a> {
    /// The figure compared.
    pub figure: Figure,
    /// The baseline run.
    pub base: &'a RunRecord,
    /// The candidate run.
    pub cand: &'a RunRecord,
    /// The id's result in the baseline.
    pub b: &'a ScenarioResult,
    /// The id's result in the candidate.
    pub c: &'a ScenarioResult,
    /// The per-op figure of the baseline.
    pub bv: f64,
    /// The per-op figure of the candidate.
    pub cv: f64,
    /// The threshold: the one history learned for the id, else the options'.
    pub threshold: Threshold,
    /// What history learned of the id's figure, if it did.
    pub learned: Option<Learned>,
    /// The comparison's options.
    pub opts: &'a CompareOptions,
}

/// A row's verdict with everything that backs it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Judgement {
    pub change_pct: f64,
    pub threshold_pct: f64,
    pub ci: Option<super::types::RatioCi>,
    pub paired_rounds: Option<usize>,
    pub verdict: Verdict,
    pub reason: String,
    pub evidence: String,
    pub p_value: Option<f64>,
    pub min_detectable_pct: Option<f64>,
    pub spread_pct: Option<f64>,
}

impl Judgement {
    pub fn new(
        change_pct: f64,
        threshold_pct: f64,
        verdict: Verdict,
        reason: String,
        evidence: String,
    ) -> Self {
        Judgement {
            change_pct,
            threshold_pct,
            ci: None,
            paired_rounds: None,
            verdict,
            reason,
            evidence,
            p_value: None,
            min_detectable_pct: None,
            spread_pct: None,
        }
    }
}

/// A threshold learned from history, and how many consecutive changes it was learned from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Learned {
    /// The threshold, percent.
    pub pct: f64,
    /// How many consecutive changes of history it was learned from.
    pub changes: usize,
}

/// A threshold and where it came from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Threshold {
    pub pct: f64,
    pub from_history: bool,
}

impl Threshold {
    /// "0.2 %", or "0.2 % (history)".
    pub fn describe(self) -> String {
        if self.from_history {
            format!("{} (history)", fmt_threshold(self.pct))
        } else {
            fmt_threshold(self.pct)
        }
    }
}

/// `100 * (cand - base) / base`. Multiplying before dividing keeps integral inputs exact up to
/// the one rounding of the division, so 1002 vs 1000 gives the same double as the literal `0.2`:
/// a change exactly at the threshold is reliably not beyond it.
pub(crate) fn change_pct(base: f64, cand: f64) -> f64 {
    if base == 0.0 {
        if cand == 0.0 {
            0.0
        } else {
            f64::INFINITY.copysign(cand)
        }
    } else {
        100.0 * (cand - base) / base
    }
}

/// A significant change's verdict by its sign.
pub(crate) fn direction(change_pct: f64) -> Verdict {
    if change_pct > 0.0 {
        Verdict::Regression
    } else {
        Verdict::Improvement
    }
}
