//! Error control over a whole comparison rather than per row: the number a team lives with is
//! how often a check of an unchanged pull request fails, and with 35 wall-time rows a per-row
//! false-alarm rate of 1 % fails about every third check. Given every row's p-value, these
//! functions return the error rate each row is judged at, so that its interval and its verdict
//! agree with the family-wise procedure. Pure.

use serde::Serialize;

/// How the per-row error rate follows from the family's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorControl {
    /// Holm's step-down: the chance that a check flags any unchanged row is at most the
    /// family error rate, whatever the rows' dependence.
    Holm,
    /// Benjamini–Hochberg: the expected share of flagged rows that are false is at most the
    /// family error rate (for independent or positively dependent rows); with no real change the
    /// same guarantee as Holm, more power when several rows change.
    Fdr,
    /// Every row at its own confidence level, as if it were the only one.
    None,
}

impl ErrorControl {
    /// The method's name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            ErrorControl::Holm => "holm",
            ErrorControl::Fdr => "fdr",
            ErrorControl::None => "none",
        }
    }
}

/// Per-row error rates for rows with p-values `p` (already multiplied by their number of looks),
/// family error rate `alpha`, `row_alpha` for [`ErrorControl::None`]. Each row's p-value is at
/// most its rate exactly when the procedure rejects it.
pub fn row_alphas(p: &[f64], alpha: f64, row_alpha: f64, method: ErrorControl) -> Vec<f64> {
    let m = p.len();
    if m == 0 {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut out = vec![0.0; m];
    match method {
        ErrorControl::None => out.iter_mut().for_each(|a| *a = row_alpha),
        ErrorControl::Holm => {
            // Rank j (0-based) is judged at alpha / (m - j) while every smaller p-value was
            // rejected; from the first acceptance on, every row gets that row's rate, which
            // their p-values (no smaller) all exceed.
            let mut stopped: Option<f64> = None;
            for (j, &i) in order.iter().enumerate() {
                let level = stopped.unwrap_or(alpha / (m - j) as f64);
                if stopped.is_none() && p[i] > level {
                    stopped = Some(level);
                }
                out[i] = level;
            }
        }
        ErrorControl::Fdr => {
            // The largest k with p_(k) <= k alpha / m; rows up to k are rejected at that rate,
            // and every later p-value exceeds it (or k would be larger).
            let k = (1..=m)
                .rev()
                .find(|&k| p[order[k - 1]] <= k as f64 * alpha / m as f64)
                .unwrap_or(1);
            out.iter_mut()
                .for_each(|a| *a = k as f64 * alpha / m as f64);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(p: &[f64], method: ErrorControl) -> Vec<bool> {
        row_alphas(p, 0.05, 0.01, method)
            .iter()
            .zip(p)
            .map(|(a, p)| p <= a)
            .collect()
    }

    #[test]
    fn holm_steps_down_and_stops_at_the_first_acceptance() {
        // m = 4: levels 0.0125, 0.0167, 0.025, 0.05.
        let p = [0.01, 0.04, 0.012, 0.03];
        assert_eq!(rejected(&p, ErrorControl::Holm), [true, false, true, false]);
        // 0.03 > 0.025: stops there, so 0.04 <= 0.05 is not rejected either.
        let a = row_alphas(&p, 0.05, 0.01, ErrorControl::Holm);
        assert!((a[1] - 0.025).abs() < 1e-12 && (a[3] - 0.025).abs() < 1e-12);
    }

    #[test]
    fn fdr_rejects_up_to_the_largest_rank_below_its_line() {
        // m = 5, lines 0.01 0.02 0.03 0.04 0.05: p_(4) = 0.035 <= 0.04, p_(5) = 0.3.
        let p = [0.3, 0.001, 0.035, 0.02, 0.025];
        assert_eq!(
            rejected(&p, ErrorControl::Fdr),
            [false, true, true, true, true]
        );
        // Holm is stricter: 0.02 > 0.05 / 3.
        assert_eq!(
            rejected(&p, ErrorControl::Holm),
            [false, true, false, false, false]
        );
    }

    #[test]
    fn unchanged_rows_keep_the_family_rate() {
        // Under no change, each row's rate is at most alpha / m, so the union is at most alpha.
        let p: Vec<f64> = (1..=35).map(|i| 0.02 + i as f64 / 40.0).collect();
        for method in [ErrorControl::Holm, ErrorControl::Fdr] {
            let a = row_alphas(&p, 0.05, 0.01, method);
            assert!(
                a.iter().all(|a| (a - 0.05 / 35.0).abs() < 1e-12),
                "{method:?}"
            );
        }
        assert_eq!(
            row_alphas(&[], 0.05, 0.01, ErrorControl::Holm),
            Vec::<f64>::new()
        );
    }
}
