//! Descriptive statistics of a figure's samples: their summary as the run record keeps it
//! ([`Summary`], with its [`Outliers`]; `model` re-exports both) and the pure functions that
//! compute it. Imports nothing of the record, so that the figure types holding a summary (in
//! their slices) and `model`, which re-exports them, import it without a circle.

use serde::{Deserialize, Serialize};

/// The summary of one set of samples (times per op, in nanoseconds).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// The smallest sample.
    pub min: f64,
    /// The first quartile.
    pub q1: f64,
    /// The median.
    pub median: f64,
    /// The arithmetic mean.
    pub mean: f64,
    /// The third quartile.
    pub q3: f64,
    /// The 95th percentile.
    pub p95: f64,
    /// The largest sample.
    pub max: f64,
    /// The interquartile range, `q3 - q1`.
    pub iqr: f64,
    /// The sample standard deviation (0 for one sample).
    pub stddev: f64,
    /// How many samples lie beyond Tukey's fences.
    pub outliers: Outliers,
}

/// Tukey's fences: mild beyond 1.5 IQR from the quartiles, severe beyond 3 IQR.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Outliers {
    /// Below `q1 - 3 IQR`.
    pub low_severe: usize,
    /// Between `q1 - 3 IQR` and `q1 - 1.5 IQR`.
    pub low_mild: usize,
    /// Between `q3 + 1.5 IQR` and `q3 + 3 IQR`.
    pub high_mild: usize,
    /// Above `q3 + 3 IQR`.
    pub high_severe: usize,
}

/// Quantile `p` (0..=1) of sorted data, linearly interpolated between closest ranks (the
/// method R calls type 7, numpy's default).
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "quantile of no data");
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Summary of `values` (at least one).
pub fn summarize(values: &[f64]) -> Summary {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let (q1, q3) = (quantile(&v, 0.25), quantile(&v, 0.75));
    let iqr = q3 - q1;
    let mut outliers = Outliers::default();
    for &x in &v {
        if x < q1 - 3.0 * iqr {
            outliers.low_severe += 1;
        } else if x < q1 - 1.5 * iqr {
            outliers.low_mild += 1;
        } else if x > q3 + 3.0 * iqr {
            outliers.high_severe += 1;
        } else if x > q3 + 1.5 * iqr {
            outliers.high_mild += 1;
        }
    }
    Summary {
        min: v[0],
        q1,
        median: quantile(&v, 0.5),
        mean,
        q3,
        p95: quantile(&v, 0.95),
        max: v[v.len() - 1],
        iqr,
        stddev: var.sqrt(),
        outliers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert!((quantile(&v, 0.25) - 1.75).abs() < 1e-12);
    }

    #[test]
    fn summary_of_known_data() {
        // 1..=100 plus one far outlier.
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        v.push(1000.0);
        let s = summarize(&v);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 1000.0);
        assert_eq!(s.median, 51.0);
        assert_eq!(s.q1, 26.0);
        assert_eq!(s.q3, 76.0);
        assert_eq!(s.iqr, 50.0);
        assert_eq!(s.outliers.high_severe, 1);
        assert_eq!(
            s.outliers.high_mild + s.outliers.low_mild + s.outliers.low_severe,
            0
        );
        assert!((s.mean - (5050.0 + 1000.0) / 101.0).abs() < 1e-9);
    }

    #[test]
    fn single_sample() {
        let s = summarize(&[5.0]);
        assert_eq!(
            (s.min, s.median, s.max, s.iqr, s.stddev),
            (5.0, 5.0, 5.0, 0.0, 0.0)
        );
    }
}
