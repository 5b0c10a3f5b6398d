//! The log-log plot of a family of sized scenarios: its per-op figure at every size as dots and
//! its fitted curve as a line, one series per run (the baseline and the candidate of a
//! comparison), both axes logarithmic so that every class of growth is a curve of its own slope
//! (n a line of slope 1, n² of slope 2, log n bending flat). Draws only: the fit and the curve's
//! points come from the caller.

use super::scale::W;
use crate::html::escape::escape;
use std::fmt::Write as _;

/// One run's points and fitted curve in a log-log plot.
#[derive(Debug)]
pub struct LogLogSeries {
    /// The series' name in the legend ("baseline", "candidate", or the run's variant).
    pub label: String,
    /// (size, per-op figure) measured, every value above 0.
    pub points: Vec<(f64, f64)>,
    /// (size, fitted per-op figure) along the sizes, drawn as a line; values at or below 0
    /// are left out (a fit's offset can be negative).
    pub curve: Vec<(f64, f64)>,
}

/// Colours of the series, as the percentile chart's lines (`pline c0`, `c1`...).
const COLOURS: [&str; 6] = [
    "#2f5d9b", "#b25f12", "#2e8b57", "#8e3a9d", "#c0392b", "#5d6d7e",
];

/// A map from a positive value to pixels along a logarithmic axis.
#[derive(Debug, Clone, Copy)]
struct LogScale {
    l0: f64,
    l1: f64,
    r0: f64,
    r1: f64,
}

impl LogScale {
    /// `[lo, hi]` (both above 0) onto `[r0, r1]`, widened by a few percent of the span.
    fn new(lo: f64, hi: f64, r0: f64, r1: f64) -> LogScale {
        let (l0, l1) = (lo.log10(), hi.log10());
        let pad = if l1 > l0 { (l1 - l0) * 0.05 } else { 0.05 };
        LogScale {
            l0: l0 - pad,
            l1: l1 + pad,
            r0,
            r1,
        }
    }

    fn at(&self, v: f64) -> f64 {
        self.r0 + (v.log10() - self.l0) / (self.l1 - self.l0) * (self.r1 - self.r0)
    }

    /// Round values inside the axis: 1, 2 and 5 times powers of ten, or powers of ten alone
    /// when those are too many, or every digit times a power of ten when the axis spans less
    /// than two of them.
    fn ticks(&self) -> Vec<f64> {
        let (lo, hi) = (10f64.powf(self.l0), 10f64.powf(self.l1));
        let within = |digits: &[f64]| {
            let mut all = Vec::new();
            let mut decade = 10f64.powf(self.l0.floor());
            while decade <= hi && all.len() < 60 {
                for &m in digits {
                    let t = m * decade;
                    if t >= lo && t <= hi {
                        all.push((t, m == 1.0));
                    }
                }
                decade *= 10.0;
            }
            all
        };
        let mut all = within(&[1.0, 2.0, 5.0]);
        if all.len() < 2 {
            all = within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        }
        if all.len() > 6 {
            all.retain(|t| t.1);
        }
        all.into_iter().map(|t| t.0).collect()
    }
}

/// The plot of `series` (sizes along x, per-op figure along y, both logarithmic); `fmt` writes
/// the y axis's labels. Sizes measured label the x axis.
pub fn loglog(series: &[LogLogSeries], y_label: &str, fmt: fn(f64) -> String) -> String {
    let (left, right, top, h) = (90.0, 20.0, 10.0, 230.0);
    let bottom = h - 44.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" data-chart="loglog" data-series="{}" viewBox="0 0 {W} {h}" role="img" xmlns="http://www.w3.org/2000/svg">"#,
        series.len()
    );
    let values = series
        .iter()
        .flat_map(|x| x.points.iter().chain(x.curve.iter()))
        .filter(|p| p.0 > 0.0 && p.1 > 0.0);
    let (mut xlo, mut xhi, mut ylo, mut yhi) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
    for &(n, v) in values {
        (xlo, xhi, ylo, yhi) = (xlo.min(n), xhi.max(n), ylo.min(v), yhi.max(v));
    }
    if xhi <= 0.0 {
        s.push_str("</svg>");
        return s;
    }
    let x = LogScale::new(xlo, xhi, left, W - right);
    let y = LogScale::new(ylo, yhi, bottom, top);
    for t in y.ticks() {
        let py = y.at(t);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{left}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            W - right,
            left - 6.0,
            py + 4.0,
            escape(&fmt(t))
        );
    }
    let mut sizes: Vec<f64> = series
        .iter()
        .flat_map(|x| x.points.iter().map(|p| p.0))
        .collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    for n in &sizes {
        let px = x.at(*n);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{px:.1}" x2="{px:.1}" y1="{top}" y2="{bottom:.1}"/><text class="tick" x="{px:.1}" y="{:.1}" text-anchor="middle">{n}</text>"#,
            bottom + 16.0
        );
    }
    let _ = write!(
        s,
        r#"<text class="axis" x="{:.1}" y="{:.1}" text-anchor="middle">size n (log scale) · {} (log scale)</text>"#,
        (left + W - right) / 2.0,
        h - 8.0,
        escape(y_label)
    );
    for (k, ser) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let curve: Vec<String> = ser
            .curve
            .iter()
            .filter(|p| p.0 > 0.0 && p.1 > 0.0)
            .map(|p| format!("{:.1},{:.1}", x.at(p.0), y.at(p.1)))
            .collect();
        if curve.len() >= 2 {
            let _ = write!(
                s,
                r#"<polyline class="pline c{}" points="{}"><title>{}: fitted</title></polyline>"#,
                k % COLOURS.len(),
                curve.join(" "),
                escape(&ser.label)
            );
        }
        for &(n, v) in ser.points.iter().filter(|p| p.0 > 0.0 && p.1 > 0.0) {
            let _ = write!(
                s,
                r#"<circle class="point" style="fill:{colour}" cx="{:.1}" cy="{:.1}" r="3.5"><title>{}: n = {n}, {}</title></circle>"#,
                x.at(n),
                y.at(v),
                escape(&ser.label),
                escape(&fmt(v))
            );
        }
        let lx = left + 8.0 + 150.0 * k as f64;
        let _ = write!(
            s,
            r#"<circle fill="{colour}" cx="{lx:.1}" cy="{:.1}" r="3.5"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            top + 8.0,
            lx + 8.0,
            top + 12.0,
            escape(&ser.label)
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(v: f64) -> String {
        format!("{v}")
    }

    #[test]
    fn a_line_of_slope_one_and_its_points() {
        let points: Vec<(f64, f64)> = [64.0, 256.0, 1024.0, 4096.0]
            .iter()
            .map(|&n| (n, 2.0 * n))
            .collect();
        let svg = loglog(
            &[LogLogSeries {
                label: "<b>base</b>".into(),
                points: points.clone(),
                curve: points,
            }],
            "Ir/op",
            fmt,
        );
        assert!(svg.starts_with(r#"<svg class="chart" data-chart="loglog" data-series="1""#));
        assert_eq!(svg.matches(r#"<circle class="point""#).count(), 4);
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert!(!svg.contains("<b>") && svg.contains("&lt;b&gt;base"));
        // Equal ratios of n are equal steps along x, and along y for a power law.
        let xs: Vec<f64> = svg
            .split(r##"<circle class="point" style="fill:#2f5d9b" cx=""##)
            .skip(1)
            .map(|t| t[..t.find('"').unwrap()].parse().unwrap())
            .collect();
        assert_eq!(xs.len(), 4);
        for w in xs.windows(3) {
            assert!(((w[1] - w[0]) - (w[2] - w[1])).abs() < 0.2, "{xs:?}");
        }
    }

    #[test]
    fn ticks_are_round_and_nothing_breaks_without_points() {
        let y = LogScale::new(1000.0, 200_000.0, 100.0, 0.0);
        let t = y.ticks();
        assert!(t.contains(&10_000.0) && t.contains(&100_000.0), "{t:?}");
        assert!(t.len() <= 6, "{t:?}");
        // Less than one 1-2-5 step: every digit.
        let narrow = LogScale::new(80.0, 134.0, 100.0, 0.0).ticks();
        assert_eq!(narrow, [80.0, 90.0, 100.0], "{narrow:?}");
        let empty = loglog(&[], "Ir/op", fmt);
        assert!(empty.ends_with("</svg>") && !empty.contains("<circle"));
    }
}
