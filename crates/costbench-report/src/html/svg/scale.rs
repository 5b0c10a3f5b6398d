//! What every chart shares: the width of its coordinate system, the linear map from data to
//! pixels with round ticks, and the x axis. No chart of its own.

use crate::html::escape::escape;
use std::fmt::Write as _;

/// Width of every chart's coordinate system; the page scales it to the column.
pub(super) const W: f64 = 720.0;

/// A linear map from data values to pixels.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scale {
    pub(super) d0: f64,
    pub(super) d1: f64,
    pub(super) r0: f64,
    pub(super) r1: f64,
}

impl Scale {
    /// Maps `[lo, hi]` onto `[r0, r1]`, widened a little when the data has no spread.
    pub(super) fn new(lo: f64, hi: f64, r0: f64, r1: f64) -> Scale {
        let pad = if hi > lo {
            (hi - lo) * 0.04
        } else if lo == 0.0 {
            1.0
        } else {
            lo.abs() * 0.01
        };
        // Per-op figures are never negative: padding stops at zero rather than label "-0.000".
        let (lo, hi) = (
            if lo >= 0.0 {
                (lo - pad).max(0.0)
            } else {
                lo - pad
            },
            hi + pad,
        );
        Scale {
            d0: lo,
            d1: hi,
            r0,
            r1,
        }
    }

    pub(super) fn at(&self, v: f64) -> f64 {
        self.r0 + (v - self.d0) / (self.d1 - self.d0) * (self.r1 - self.r0)
    }

    /// Round values for about four axis labels inside the domain.
    pub(super) fn ticks(&self) -> Vec<f64> {
        let span = self.d1 - self.d0;
        let raw = span / 4.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| span / s <= 5.0)
            .unwrap_or(10.0 * mag);
        let mut t = (self.d0 / step).ceil() * step;
        let mut out = Vec::new();
        while t <= self.d1 && out.len() < 8 {
            out.push(t);
            t += step;
        }
        out
    }
}

/// Vertical grid lines and labels along the bottom.
pub(super) fn axis_x(s: &mut String, x: &Scale, top: f64, bottom: f64, fmt: fn(f64) -> String) {
    let mut prev_label = String::new();
    for t in x.ticks() {
        let px = x.at(t);
        let label = fmt(t);
        if label == prev_label {
            continue;
        }
        prev_label.clone_from(&label);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{px:.1}" x2="{px:.1}" y1="{top:.1}" y2="{bottom:.1}"/><text class="tick" x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            bottom + 16.0,
            escape(&label)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside() {
        let s = Scale::new(0.0, 100.0, 0.0, 1.0);
        let t = s.ticks();
        assert!(t.len() >= 3 && t.len() <= 6, "{t:?}");
        assert!(t.iter().all(|v| *v >= s.d0 && *v <= s.d1));
        assert!(t
            .iter()
            .all(|v| (v / 20.0).fract() == 0.0 || (v / 25.0).fract() == 0.0));
    }
}
