//! Paired comparison of wall time measured in interleaved rounds: round `k` of the baseline and
//! round `k` of the candidate ran side by side, so the machine's drift between rounds (tens of
//! percent between minutes on a shared VM) cancels in their ratio.
//!
//! The statistic is the log ratio of the two sides' round figures (their fastest samples: see
//! `rounds::paired_rounds`), `d_k = ln(cand_k / base_k)`.
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

/// Per-round log ratios `ln(cand_k / base_k)` of two sides' round figures, over the rounds both
/// have, skipping rounds without two positive figures.
pub fn log_ratios(base: &[f64], cand: &[f64]) -> Vec<f64> {
    base.iter()
        .zip(cand)
        .filter_map(|(&b, &c)| log_ratio(b, c))
        .collect()
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

/// Two-sided exact p-value of the Wilcoxon signed-rank test of "the per-round log ratios `d` are
/// centred on 0" (no change). Zero differences are dropped (Wilcoxon's rule); tied magnitudes get
/// their average rank, and a half-integer statistic is rounded away from the centre, so the
/// p-value is never smaller than the exact one of untied data. `None` without non-zero rounds.
pub fn signed_rank_p(d: &[f64]) -> Option<f64> {
    let mut nz: Vec<f64> = d
        .iter()
        .copied()
        .filter(|x| *x != 0.0 && x.is_finite())
        .collect();
    let n = nz.len();
    if n == 0 {
        return None;
    }
    nz.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    // Average ranks of tied magnitudes.
    let mut t_plus = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && nz[j + 1].abs() == nz[i].abs() {
            j += 1;
        }
        let rank = (i + j + 2) as f64 / 2.0;
        t_plus += nz[i..=j].iter().filter(|x| **x > 0.0).count() as f64 * rank;
        i = j + 1;
    }
    let max = n * (n + 1) / 2;
    let cdf = signed_rank_cdf(n);
    // P(T+ <= t) and P(T+ >= t) = P(T+ <= max - t) by symmetry.
    let low = cdf[(t_plus.floor() as usize).min(max)];
    let high = cdf[((max as f64 - t_plus).floor() as usize).min(max)];
    Some((2.0 * low.min(high)).min(1.0))
}

/// Where a paired interval lies against a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Resolution {
    /// The interval excludes 1 on the side of the estimate, and the estimate is beyond the
    /// threshold: a change.
    Beyond,
    /// The interval lies inside `[1/(1+t), 1+t]`: no change as large as the threshold.
    Within,
    /// Neither: this many rounds cannot tell.
    Straddles,
}

/// What one id's paired rounds say, judged at one per-row error rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assessment {
    /// Hodges–Lehmann estimate of `cand / base`.
    pub estimate: f64,
    /// Signed-rank interval of `cand / base` at level `1 - alpha`.
    pub ci: RatioCi,
    /// Two-sided exact signed-rank p-value of "no change" ([`signed_rank_p`]).
    pub p_value: f64,
    /// Whether the interval settles the threshold, and on which side.
    pub resolution: Resolution,
    /// The smallest change (percent, of either sign) that these rounds would flag nine times in
    /// ten: the threshold or the interval's half-width, whichever is larger, plus 1.28 standard
    /// errors of the estimate (from the rounds' median absolute deviation). Infinite when the
    /// interval is unbounded.
    pub min_detectable_pct: f64,
}

/// z such that a standard normal variable exceeds it with probability `1 - p` (Acklam's rational
/// approximation, relative error below 1.2e-9), for `p` in (0, 1).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Judges the per-round log ratios `d` against `threshold_pct` at the per-row error rate
/// `alpha` (the interval's level is `1 - alpha`). `None` with fewer than [`MIN_ROUNDS`] rounds.
pub fn assess(d: &[f64], threshold_pct: f64, alpha: f64) -> Option<Assessment> {
    let (estimate, ci) = log_ratio_ci(d, 1.0 - alpha)?;
    let p_value = signed_rank_p(d).unwrap_or(1.0);
    let t = 1.0 + threshold_pct / 100.0;
    let change_pct = (estimate - 1.0) * 100.0;
    let clear = (estimate > 1.0 && ci.low > 1.0) || (estimate < 1.0 && ci.high < 1.0);
    let resolution = if clear && change_pct.abs() > threshold_pct {
        Resolution::Beyond
    } else if ci.low > 1.0 / t && ci.high < t {
        Resolution::Within
    } else {
        Resolution::Straddles
    };
    let half_width = (ci.high.ln() - ci.low.ln()) / 2.0;
    let mut sorted = d.to_vec();
    sorted.sort_by(f64::total_cmp);
    let med = costbench_record::stats::quantile(&sorted, 0.5);
    let mut dev: Vec<f64> = sorted.iter().map(|x| (x - med).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let sd = 1.4826 * costbench_record::stats::quantile(&dev, 0.5);
    // Hodges–Lehmann's standard error for normal data: sd * sqrt(pi / (3 n)).
    let se = sd * (std::f64::consts::PI / (3.0 * d.len() as f64)).sqrt();
    let mde_log = t.ln().max(half_width) + normal_quantile(0.9) * se;
    let min_detectable_pct = if mde_log.is_finite() {
        (mde_log.exp() - 1.0) * 100.0
    } else {
        f64::INFINITY
    };
    Some(Assessment {
        estimate,
        ci,
        p_value,
        resolution,
        min_detectable_pct,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`log_ratio_ci`] of paired per-round figures.
    fn ratio_ci(base: &[f64], cand: &[f64], level: f64) -> Option<(f64, RatioCi)> {
        log_ratio_ci(&log_ratios(base, cand), level)
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
    fn signed_rank_p_matches_the_table() {
        // n = 10, all positive: T+ = 55, p = 2 / 1024.
        let d: Vec<f64> = (1..=10).map(|i| i as f64 / 100.0).collect();
        assert!((signed_rank_p(&d).unwrap() - 2.0 / 1024.0).abs() < 1e-12);
        // T+ = 8 of n = 10: P(T+ <= 8) = 25 / 1024, two-sided 50 / 1024.
        let d: Vec<f64> = (1..=10)
            .map(|i| {
                if [1, 3, 4].contains(&i) {
                    i as f64
                } else {
                    -(i as f64)
                }
            })
            .collect();
        assert!((signed_rank_p(&d).unwrap() - 50.0 / 1024.0).abs() < 1e-12);
        // Symmetric in sign; zeros dropped; nothing left gives nothing.
        let neg: Vec<f64> = d.iter().map(|x| -x).collect();
        assert_eq!(signed_rank_p(&d), signed_rank_p(&neg));
        assert_eq!(signed_rank_p(&[0.0, 0.0]), None);
    }

    #[test]
    fn normal_quantile_is_accurate() {
        assert!((normal_quantile(0.975) - 1.959_963_985).abs() < 1e-8);
        assert!((normal_quantile(0.9) - 1.281_551_566).abs() < 1e-8);
        assert!((normal_quantile(0.0005) + 3.290_526_731).abs() < 1e-7);
        assert_eq!(normal_quantile(0.5), 0.0);
    }

    #[test]
    fn assessment_resolves_changes_and_their_absence() {
        let wobble = [
            0.004, -0.005, 0.002, 0.0, -0.003, 0.005, -0.001, 0.003, -0.004, 0.001, 0.002, -0.002,
        ];
        // +6 % with ±0.5 % noise: beyond a 3 % threshold.
        let d: Vec<f64> = wobble.iter().map(|e| (1.06f64).ln() + e).collect();
        let a = assess(&d, 3.0, 0.001).unwrap();
        assert_eq!(a.resolution, Resolution::Beyond);
        assert!(a.p_value < 0.001 && a.min_detectable_pct < 5.0, "{a:?}");
        // No change with the same noise: resolved as within 3 %.
        let a = assess(&wobble, 3.0, 0.001).unwrap();
        assert_eq!(a.resolution, Resolution::Within, "{a:?}");
        // Rounds spread by ±10 % (code layouts that matter): cannot tell at 3 %.
        let wide: Vec<f64> = wobble.iter().map(|e| e * 20.0 + 0.02).collect();
        let a = assess(&wide, 3.0, 0.001).unwrap();
        assert_eq!(a.resolution, Resolution::Straddles, "{a:?}");
        assert!(a.min_detectable_pct > 5.0, "{a:?}");
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
