//! Adaptive rounds: the pure decisions of an interleaved wall-time session that looks at its
//! paired intervals twice (after the first `N` rounds and at the maximum `M`) instead of running
//! a fixed number of rounds. A scenario whose every id already resolves the threshold at the
//! first look (its interval lies beyond it or within it) stops; the others get more rounds while
//! the session's time budget lasts. Every look spends error rate, so each one judges at the
//! Bonferroni rate `family_alpha / (comparisons * looks)` and the record says how many looks
//! there were (`Paired::looks`), for `compare` to spend its own error rate over them too.
//!
//! This module owns the options (`Rounds`), the arithmetic of the looks and the decision; it runs
//! nothing and reads no clock (`interleaved`, beside it, does). The scheduler's options hold
//! `Rounds` (`run::RunOptions::rounds`, which `run` re-exports with this module).

use costbench_judge::compare::paired::{self, Resolution};
use costbench_protocol::WalltimeSamples;
use std::time::Duration;

/// Rounds before the first look.
pub const DEFAULT_FIRST_LOOK: u32 = 12;
/// Rounds at most (the second look).
pub const DEFAULT_MAX_ROUNDS: u32 = 24;
/// Seconds the rounds beyond the first look may take in one session, over all scenarios. A
/// default whole-suite check on this project's 2-vCPU VM took 47–82 s with 10 fixed rounds. With
/// layouts varied nearly every scenario is still unresolved at the first look (its interval must
/// lie within or beyond 3 % at a per-look rate of 0.05 / (35 ids * 2 looks)), and one more round
/// of the whole suite took 2–4 s (the higher figure with other builds loading the VM). 45 s lets
/// every scenario reach 24 rounds on a quiet machine and caps the extra time on a loaded one
/// (measured: 82–90 s before, 126–140 s after, load average 8–10), keeping a check within about
/// twice the old time.
pub const DEFAULT_BUDGET_SECS: u64 = 45;

/// How many interleaved rounds wall time takes when several sides are measured together, the
/// samples and warm-up of each round, and what the looks judge against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rounds {
    /// Rounds before the first look (`--rounds`).
    pub rounds: u32,
    /// Rounds at most (`--max-rounds`); equal to `rounds` for a fixed number.
    pub max_rounds: u32,
    /// Time the rounds beyond the first look may take, over the whole session (a shard's
    /// session gets its share: `ShardPlan::work_share`).
    pub budget: Duration,
    /// Wall-time samples each side takes per round.
    pub samples_per_round: u32,
    /// Unmeasured warm-up of each side before its samples, milliseconds.
    pub warmup_ms: u64,
    /// The paired wall-time threshold (percent) the looks judge against.
    pub threshold_pct: f64,
    /// The comparison's family error rate, spread over every comparison and look.
    pub family_alpha: f64,
    /// The side the others are judged against at a look (the baseline; for variants the
    /// matrix's baseline).
    pub baseline_side: usize,
    /// How each round's code layout differs from the build as cargo linked it (`--layouts`).
    pub layouts: crate::run::layout::LayoutMode,
}

impl Default for Rounds {
    /// 12 rounds of 10 samples (about 1 ms each) after 50 ms of warm-up, up to 24 rounds for
    /// scenarios still unresolved at 12.
    fn default() -> Self {
        Rounds {
            rounds: DEFAULT_FIRST_LOOK,
            max_rounds: DEFAULT_MAX_ROUNDS,
            budget: Duration::from_secs(DEFAULT_BUDGET_SECS),
            samples_per_round: 10,
            warmup_ms: 50,
            threshold_pct: costbench_judge::compare::DEFAULT_PAIRED_WALLTIME_THRESHOLD_PCT,
            family_alpha: costbench_judge::compare::DEFAULT_FAMILY_ALPHA,
            baseline_side: 0,
            layouts: crate::run::layout::LayoutMode::Shift,
        }
    }
}

impl Rounds {
    /// How many looks the session takes: 2 when it may add rounds, else 1.
    pub fn looks(&self) -> u32 {
        if self.max_rounds > self.rounds {
            2
        } else {
            1
        }
    }

    /// The error rate one comparison is judged at in one look, with `comparisons` paired
    /// comparisons (ids times sides judged against the baseline) in the session.
    pub fn look_alpha(&self, comparisons: usize) -> f64 {
        self.family_alpha / (comparisons.max(1) as f64 * f64::from(self.looks()))
    }
}

/// The fastest sample of one round, in nanoseconds per op: what `compare` pairs.
pub fn round_min_ns_per_op(m: &WalltimeSamples, ops: u64) -> Option<f64> {
    let min = *m.sample_ns.iter().min()?;
    (m.iterations_per_sample > 0 && ops > 0)
        .then(|| min as f64 / m.iterations_per_sample as f64 / ops as f64)
}

/// Whether a scenario is done at a look: every comparison's rounds (`d`, per-round log ratios)
/// resolve `threshold_pct` at `alpha`. Too few usable rounds count as unresolved.
pub fn resolved(ds: &[Vec<f64>], threshold_pct: f64, alpha: f64) -> bool {
    ds.iter().all(|d| {
        paired::assess(d, threshold_pct, alpha)
            .is_some_and(|a| a.resolution != Resolution::Straddles)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_protocol::Clock;

    fn rounds(d: &[f64]) -> Vec<f64> {
        d.to_vec()
    }

    #[test]
    fn look_alpha_is_bonferroni_over_comparisons_and_looks() {
        let r = Rounds::default();
        assert_eq!(r.looks(), 2);
        assert!((r.look_alpha(35) - 0.05 / 70.0).abs() < 1e-15);
        let fixed = Rounds {
            max_rounds: 12,
            ..r
        };
        assert_eq!(fixed.looks(), 1);
        assert!((fixed.look_alpha(0) - 0.05).abs() < 1e-15);
    }

    #[test]
    fn a_clear_change_or_a_clear_null_stops_a_straddle_continues() {
        let alpha = Rounds::default().look_alpha(10);
        // +20 % in every round with ±0.5 % noise: beyond 3 %.
        let slower: Vec<f64> = (0..12)
            .map(|k| (1.20f64 + 0.005 * ((k % 3) as f64 - 1.0)).ln())
            .collect();
        // ±0.3 % around no change: within 3 %.
        let same: Vec<f64> = (0..12)
            .map(|k| (1.0f64 + 0.003 * ((k % 5) as f64 - 2.0) / 2.0).ln())
            .collect();
        // Rounds spread ±10 % around +3 %: cannot tell.
        let wide: Vec<f64> = (0..12)
            .map(|k| (1.03f64 + 0.10 * if k % 2 == 0 { 1.0 } else { -1.0 }).ln())
            .collect();
        assert!(resolved(&[rounds(&slower)], 3.0, alpha));
        assert!(resolved(&[rounds(&same)], 3.0, alpha));
        assert!(!resolved(&[rounds(&wide)], 3.0, alpha));
        // A scenario is done only when all of its ids are.
        assert!(!resolved(&[same.clone(), wide], 3.0, alpha));
        // Too few rounds for an interval: not resolved.
        assert!(!resolved(&[same[..5].to_vec()], 3.0, alpha));
        assert!(resolved(&[], 3.0, alpha), "nothing to compare");
    }

    #[test]
    fn round_figures_and_ratios() {
        let m = WalltimeSamples {
            party: None,
            clock: Clock::Monotonic,
            iterations_per_sample: 4,
            warmup_iterations: 0,
            clock_overhead_ns: 0.0,
            sample_ns: vec![900, 800, 1000],
        };
        assert_eq!(round_min_ns_per_op(&m, 2), Some(100.0));
        assert_eq!(round_min_ns_per_op(&m, 0), None);
        let d = paired::log_ratios(&[100.0, 200.0, 0.0], &[110.0, 200.0, 5.0, 7.0]);
        assert_eq!(d.len(), 2);
        assert!((d[0] - 1.1f64.ln()).abs() < 1e-12);
        assert_eq!(d[1], 0.0);
    }
}
