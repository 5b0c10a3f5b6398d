//! Paired comparison of wall time measured in interleaved rounds: round `k` of the baseline and
//! round `k` of the candidate ran side by side, so the machine's drift between rounds (tens of
//! percent between minutes on a shared VM) cancels in their ratio.
//!
//! The statistic is the log ratio of the two sides' round figures (their fastest samples: see
//! `compare::paired_log_ratios`), `d_k = ln(cand_k / base_k)`.
//! Its centre is estimated by Hodges–Lehmann (the median of the Walsh averages `(d_i + d_j) / 2`,
//! `i <= j`), and its confidence interval is the exact distribution-free one that inverts the
//! Wilcoxon signed-rank test: robust to a round disturbed by a neighbour, exact for the handful
//! of rounds a run takes, and assuming only that round differences are symmetric about their
//! centre. Pure: no clocks, no randomness.

use super::bootstrap::RatioCi;

/// Fewer rounds cannot give a two-sided 99 % signed-rank interval at all (with 7 rounds the
/// smallest attainable two-sided level is 1 - 2/128 = 98.4 %; 8 rounds reach 99.2 %).
pub const MIN_ROUNDS: usize = 8;

/// `ln(cand / base)` when both are positive and finite.
pub fn log_ratio(base: f64, cand: f64) -> Option<f64> {
    (base.is_finite() && cand.is_finite() && base > 0.0 && cand > 0.0).then(|| (cand / base).ln())
}

/// Hodges–Lehmann estimate and confidence interval of the ratio `cand / base`, from the
/// per-round log ratios `d` (see [`log_ratio`]). `None` with fewer than [`MIN_ROUNDS`] rounds.
/// The interval's actual coverage is the smallest attainable one at or above `level`.
pub fn log_ratio_ci(d: &[f64], level: f64) -> Option<(f64, RatioCi)> {
    let n = d.len();
    if n < MIN_ROUNDS {
        return None;
    }
    let mut walsh: Vec<f64> = Vec::with_capacity(n * (n + 1) / 2);
    for i in 0..n {
        for j in i..n {
            walsh.push((d[i] + d[j]) / 2.0);
        }
    }
    walsh.sort_by(f64::total_cmp);
    let m = walsh.len();
    let hl = if m % 2 == 1 {
        walsh[m / 2]
    } else {
        (walsh[m / 2 - 1] + walsh[m / 2]) / 2.0
    };
    // The interval is [W_(k), W_(m+1-k)] (1-based) where k - 1 is the largest c with
    // P(T+ <= c) <= alpha / 2 under the null: T+ of a symmetric null takes values 0..=m.
    let alpha = (1.0 - level).clamp(0.0, 1.0);
    let cdf = signed_rank_cdf(n);
    let k = cdf.iter().take_while(|&&p| p <= alpha / 2.0).count();
    let (low, high) = if k == 0 {
        // Not enough rounds for this level: the interval is everything.
        (f64::NEG_INFINITY, f64::INFINITY)
    } else {
        (walsh[k - 1], walsh[m - k])
    };
    Some((
        hl.exp(),
        RatioCi {
            low: low.exp(),
            high: high.exp(),
            level,
        },
    ))
}

/// `P(T+ <= c)` for `c = 0..=n(n+1)/2`, where `T+` is the Wilcoxon signed-rank statistic of `n`
/// pairs under the null (each rank's sign a fair coin): the number of subsets of `{1..n}` with
/// each sum, over `2^n`.
fn signed_rank_cdf(n: usize) -> Vec<f64> {
    let max = n * (n + 1) / 2;
    // Counts as f64: exact up to 2^53, far beyond the rounds a run takes (n = 40 gives < 2^40).
    let mut ways = vec![0.0f64; max + 1];
    ways[0] = 1.0;
    for rank in 1..=n {
        for s in (rank..=max).rev() {
            ways[s] += ways[s - rank];
        }
    }
    let total = 2f64.powi(n as i32);
    let mut acc = 0.0;
    ways.iter()
        .map(|w| {
            acc += w;
            acc / total
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`log_ratio_ci`] of paired per-round figures.
    fn ratio_ci(base: &[f64], cand: &[f64], level: f64) -> Option<(f64, RatioCi)> {
        let d: Vec<f64> = base
            .iter()
            .zip(cand)
            .filter_map(|(b, c)| log_ratio(*b, *c))
            .collect();
        log_ratio_ci(&d, level)
    }

    #[test]
    fn null_distribution_matches_the_table() {
        // n = 10: P(T+ <= 8) = 0.0244 and P(T+ <= 9) = 0.0322 (standard tables), so the 95 %
        // interval uses k - 1 = 8.
        let cdf = signed_rank_cdf(10);
        assert_eq!(cdf.len(), 56);
        assert!((cdf[8] - 25.0 / 1024.0).abs() < 1e-12, "{}", cdf[8]);
        assert!((cdf[9] - 33.0 / 1024.0).abs() < 1e-12, "{}", cdf[9]);
        assert!((cdf[55] - 1.0).abs() < 1e-12);
        // Symmetric: P(T+ <= c) = P(T+ >= m - c).
        assert!((cdf[20] - (1.0 - cdf[34])).abs() < 1e-12);
    }

    #[test]
    fn a_constant_ratio_is_found_exactly() {
        let base = [100.0, 130.0, 90.0, 120.0, 110.0, 95.0, 140.0, 105.0];
        let cand: Vec<f64> = base.iter().map(|b| b * 1.05).collect();
        let (est, ci) = ratio_ci(&base, &cand, 0.95).unwrap();
        assert!((est - 1.05).abs() < 1e-12);
        assert!((ci.low - 1.05).abs() < 1e-12 && (ci.high - 1.05).abs() < 1e-12);
    }

    #[test]
    fn drift_shared_by_both_sides_cancels() {
        // Rounds drift by ±25 % together; the candidate is 3 % slower with ±0.5 % noise of its own.
        let drift = [1.0, 1.25, 0.8, 1.1, 0.9, 1.2, 0.75, 1.05, 0.95, 1.15];
        let noise = [
            0.004, -0.005, 0.002, 0.0, -0.003, 0.005, -0.001, 0.003, -0.004, 0.001,
        ];
        let base: Vec<f64> = drift.iter().map(|d| 50.0 * d).collect();
        let cand: Vec<f64> = drift
            .iter()
            .zip(noise)
            .map(|(d, e)| 50.0 * d * 1.03 * (1.0 + e))
            .collect();
        let (est, ci) = ratio_ci(&base, &cand, 0.95).unwrap();
        assert!((est - 1.03).abs() < 0.003, "{est}");
        assert!(ci.low > 1.02 && ci.high < 1.04, "{ci:?}");
    }

    #[test]
    fn no_change_gives_an_interval_around_one() {
        let base = [10.0, 11.0, 9.5, 10.2, 10.8, 9.9, 10.1, 10.4, 9.7, 10.0];
        let cand = [10.1, 10.9, 9.6, 10.1, 10.9, 9.8, 10.2, 10.3, 9.8, 9.9];
        let (_, ci) = ratio_ci(&base, &cand, 0.95).unwrap();
        assert!(ci.contains_one(), "{ci:?}");
    }

    #[test]
    fn too_few_rounds_or_bad_values_give_nothing() {
        assert!(ratio_ci(&[1.0; 7], &[1.0; 7], 0.95).is_none());
        let mut b = vec![1.0; 8];
        b[0] = 0.0;
        assert!(ratio_ci(&b, &[1.0; 8], 0.95).is_none());
        // Eight rounds are enough for 99 % (P(T+ = 0) = 1/256 <= 0.005).
        let (_, ci) = ratio_ci(&[1.0; 8], &[1.0; 8], 0.99).unwrap();
        assert!(ci.low.is_finite() && ci.high.is_finite());
    }
}
