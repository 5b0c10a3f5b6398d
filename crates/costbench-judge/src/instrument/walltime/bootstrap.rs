//! Bootstrap confidence interval of the ratio of two medians, with a small seeded PRNG of its
//! own. Pure: the same inputs and seed always give the same interval, bit for bit, on every
//! platform (no clocks, no OS randomness, no floating-point reductions whose order could vary).

use costbench_record::stats::quantile;
use serde::Serialize;

/// Confidence interval of `candidate median / baseline median`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RatioCi {
    /// Lower bound of the ratio.
    pub low: f64,
    /// Upper bound of the ratio.
    pub high: f64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
}

impl RatioCi {
    /// Whether the interval includes 1 (no change).
    pub fn contains_one(&self) -> bool {
        self.low <= 1.0 && 1.0 <= self.high
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014; the seeding generator of xoshiro): one 64-bit add
/// and a mix per draw, passes BigCrush, and has no bad seeds, so a fixed constant is fine.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by Lemire's multiply-shift: the bias is below n / 2^64,
    /// far too small to matter for a few thousand resamples of a few hundred samples.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `[0, 1)` with 53 random bits. Only the test fixtures' deterministic noise
    /// (`testing::noisy`) draws these.
    #[cfg(any(test, feature = "testing"))]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Median of `v` (non-empty), reordering it; linear time.
fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    let mid = n / 2;
    let (lower, upper, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    if n % 2 == 1 {
        *upper
    } else {
        let below = lower
            .iter()
            .copied()
            .max_by(f64::total_cmp)
            .unwrap_or(*upper);
        (below + *upper) / 2.0
    }
}

/// `cand / base`, with 0/0 read as "no change" and x/0 as +inf, so that no NaN reaches the sort.
pub fn ratio(base: f64, cand: f64) -> f64 {
    if base == 0.0 {
        if cand == 0.0 {
            1.0
        } else {
            f64::INFINITY
        }
    } else {
        cand / base
    }
}

/// Percentile-bootstrap interval of `median(cand) / median(base)`: each resample draws
/// `base.len()` values from `base` and `cand.len()` from `cand`, with replacement. Both slices
/// must be non-empty and `resamples` at least 1.
///
/// Caveat: the bootstrap treats samples as independent. Wall-time samples of one process are
/// somewhat autocorrelated (frequency scaling, cache state), so the interval is optimistic; that
/// is why significance also requires a change beyond a noise threshold.
pub fn ratio_of_medians_ci(
    base: &[f64],
    cand: &[f64],
    resamples: usize,
    level: f64,
    seed: u64,
) -> RatioCi {
    assert!(
        !base.is_empty() && !cand.is_empty(),
        "bootstrap of no samples"
    );
    let mut rng = SplitMix64::new(seed);
    let mut b = vec![0.0; base.len()];
    let mut c = vec![0.0; cand.len()];
    let mut ratios: Vec<f64> = (0..resamples.max(1))
        .map(|_| {
            for x in b.iter_mut() {
                *x = base[rng.below(base.len())];
            }
            for x in c.iter_mut() {
                *x = cand[rng.below(cand.len())];
            }
            ratio(median_in_place(&mut b), median_in_place(&mut c))
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let alpha = (1.0 - level).clamp(0.0, 1.0);
    RatioCi {
        low: quantile(&ratios, alpha / 2.0),
        high: quantile(&ratios, 1.0 - alpha / 2.0),
        level,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_reference_output() {
        // The published first outputs of splitmix64.c for seed 1234567 (Rosetta Code,
        // "Pseudo-random numbers/Splitmix64").
        let mut r = SplitMix64::new(1_234_567);
        let expected = [
            6_457_827_717_110_365_317,
            3_203_168_211_198_807_973,
            9_817_491_932_198_370_423,
            4_593_380_528_125_082_431,
            16_408_922_859_458_223_821,
        ];
        for e in expected {
            assert_eq!(r.next_u64(), e);
        }
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SplitMix64::new(7);
        let mut seen = [0usize; 7];
        for _ in 0..7000 {
            seen[r.below(7)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
    }

    #[test]
    fn medians_odd_and_even() {
        let cases: &[(&[f64], f64)] = &[
            (&[3.0], 3.0),
            (&[2.0, 1.0], 1.5),
            (&[5.0, 1.0, 3.0], 3.0),
            (&[4.0, 1.0, 3.0, 2.0], 2.5),
            (&[1.0, 1.0, 1.0, 9.0], 1.0),
        ];
        for (v, m) in cases {
            assert_eq!(median_in_place(&mut v.to_vec()), *m, "{v:?}");
        }
    }

    #[test]
    fn ratio_edge_cases() {
        assert_eq!(ratio(0.0, 0.0), 1.0);
        assert_eq!(ratio(0.0, 1.0), f64::INFINITY);
        assert_eq!(ratio(2.0, 3.0), 1.5);
    }

    #[test]
    fn same_inputs_same_interval() {
        let base: Vec<f64> = (0..50).map(|i| 100.0 + f64::from(i % 7)).collect();
        let cand: Vec<f64> = (0..60).map(|i| 103.0 + f64::from(i % 5)).collect();
        let a = ratio_of_medians_ci(&base, &cand, 2000, 0.95, 42);
        let b = ratio_of_medians_ci(&base, &cand, 2000, 0.95, 42);
        assert_eq!(a, b);
        assert!(a.low <= a.high);
        assert!(a.low > 1.0, "{a:?}");
    }

    #[test]
    fn constant_samples_give_a_point_interval() {
        let ci = ratio_of_medians_ci(&[10.0; 20], &[12.0; 20], 500, 0.95, 1);
        assert_eq!((ci.low, ci.high), (1.2, 1.2));
        assert!(!ci.contains_one());
        let ci = ratio_of_medians_ci(&[0.0; 5], &[0.0; 5], 100, 0.95, 1);
        assert!(ci.contains_one());
    }
}
