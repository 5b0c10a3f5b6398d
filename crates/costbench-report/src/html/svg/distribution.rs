//! The distribution chart of a figure's samples: a box plot per series with every sample as a
//! dot.

use super::scale::{axis_x, Scale, W};
use crate::html::escape::escape;
use std::fmt::Write as _;

/// One row of a distribution chart: per-op samples of one run.
#[derive(Debug)]
pub struct Distribution<'a> {
    /// The row's label (the run it is from).
    pub label: &'a str,
    /// Per-op value of each sample, in nanoseconds.
    pub samples: &'a [f64],
    /// First quartile of the samples.
    pub q1: f64,
    /// Median of the samples.
    pub median: f64,
    /// Third quartile of the samples.
    pub q3: f64,
}

/// A horizontal box plot per row (quartiles, median, whiskers to the furthest samples within
/// 1.5 IQR) with every sample drawn as a dot, jittered vertically so that ties stay visible.
/// Rows share one axis, so a baseline and a candidate can be read against each other.
///
/// The axis spans the samples but stops 3 IQR beyond the quartiles: on a shared machine a few
/// samples hit by interference can be ten times the median, and drawing them to scale would
/// squeeze the box into a line. Samples beyond the axis are drawn at its edge as hollow dots and
/// counted ("5 beyond →").
pub fn distribution(rows: &[Distribution], fmt: fn(f64) -> String) -> String {
    let row_h = 44.0;
    let (left, right, top) = (110.0, 80.0, 8.0);
    let h = top + row_h * rows.len() as f64 + 28.0;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for r in rows {
        let iqr = r.q3 - r.q1;
        for &v in r.samples {
            lo = lo.min(v.max(r.q1 - 3.0 * iqr));
            hi = hi.max(v.min(r.q3 + 3.0 * iqr));
        }
    }
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" data-chart="distribution" data-series="{}" viewBox="0 0 {W} {h}" role="img" xmlns="http://www.w3.org/2000/svg">"#,
        rows.len()
    );
    if !lo.is_finite() {
        s.push_str("</svg>");
        return s;
    }
    let x = Scale::new(lo, hi, left, W - right);
    axis_x(&mut s, &x, top, h - 28.0, fmt);
    for (k, r) in rows.iter().enumerate() {
        let y0 = top + row_h * k as f64;
        let mid = y0 + row_h / 2.0;
        let iqr = r.q3 - r.q1;
        let inside = r
            .samples
            .iter()
            .copied()
            .filter(|v| *v >= r.q1 - 1.5 * iqr && *v <= r.q3 + 1.5 * iqr);
        let (wlo, whi) = inside.fold((r.q1, r.q3), |(a, b), v| (a.min(v), b.max(v)));
        let _ = write!(
            s,
            r#"<g class="series s{k}" data-label="{label}"><text class="label" x="{lx}" y="{ty:.1}" text-anchor="end">{label}</text>"#,
            label = escape(r.label),
            lx = left - 8.0,
            ty = mid + 4.0,
        );
        let _ = write!(
            s,
            r#"<line class="whisker" x1="{:.1}" x2="{:.1}" y1="{mid:.1}" y2="{mid:.1}"/>"#,
            x.at(wlo.max(x.d0)),
            x.at(whi.min(x.d1))
        );
        let _ = write!(
            s,
            r#"<rect class="box" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"><title>Q1 {} · median {} · Q3 {}</title></rect>"#,
            x.at(r.q1),
            mid - row_h * 0.3,
            (x.at(r.q3) - x.at(r.q1)).max(1.0),
            row_h * 0.6,
            fmt(r.q1),
            fmt(r.median),
            fmt(r.q3)
        );
        let _ = write!(
            s,
            r#"<line class="median" x1="{m:.1}" x2="{m:.1}" y1="{:.1}" y2="{:.1}"/>"#,
            mid - row_h * 0.3,
            mid + row_h * 0.3,
            m = x.at(r.median)
        );
        let (mut below, mut above) = (0, 0);
        // Dots inside the axis are zero-length segments of one path with round caps: a tenth of
        // the bytes of a circle element each, which matters at a hundred samples per row.
        let mut dots = String::new();
        for (i, v) in r.samples.iter().enumerate() {
            // A fixed pseudo-random offset per sample index: the same data draws the same page.
            let j = ((i as u64).wrapping_mul(2_654_435_761) % 1000) as f64 / 1000.0 - 0.5;
            let cy = mid + j * row_h * 0.7;
            if *v < x.d0 || *v > x.d1 {
                if *v < x.d0 {
                    below += 1;
                } else {
                    above += 1;
                }
                let _ = write!(
                    s,
                    r#"<circle class="dot out" cx="{:.1}" cy="{cy:.1}" r="2"/>"#,
                    x.at(v.clamp(x.d0, x.d1))
                );
            } else {
                let _ = write!(dots, "M{:.1} {cy:.1}h0", x.at(*v));
            }
        }
        if !dots.is_empty() {
            let _ = write!(s, r#"<path class="dots" d="{dots}"/>"#);
        }
        if below > 0 {
            let _ = write!(
                s,
                r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="start">← {below} beyond</text>"#,
                left,
                y0 + 10.0
            );
        }
        if above > 0 {
            let _ = write!(
                s,
                r#"<text class="tick" x="{:.1}" y="{:.1}">{above} beyond →</text>"#,
                W - right + 6.0,
                mid + 4.0
            );
        }
        s.push_str("</g>");
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
    fn distribution_draws_a_box_and_every_sample() {
        let a = [10.0, 11.0, 12.0, 13.0, 40.0];
        let b = [20.0, 21.0, 22.0];
        let svg = distribution(
            &[
                Distribution {
                    label: "<base>",
                    samples: &a,
                    q1: 11.0,
                    median: 12.0,
                    q3: 13.0,
                },
                Distribution {
                    label: "cand",
                    samples: &b,
                    q1: 20.5,
                    median: 21.0,
                    q3: 21.5,
                },
            ],
            fmt,
        );
        assert!(svg.starts_with(r#"<svg class="chart" data-chart="distribution" data-series="2""#));
        assert_eq!(
            svg.matches("h0").count() + svg.matches("<circle").count(),
            8
        );
        assert_eq!(svg.matches(r#"class="box""#).count(), 2);
        assert!(
            svg.contains("&lt;base&gt;") && !svg.contains("<base>"),
            "{svg}"
        );
        // The whisker of the first row stops at 13 (40 is beyond Q3 + 1.5 IQR = 16), and the
        // axis at Q3 + 3 IQR = 19 of that row (the second row's samples reach 22): 40 is drawn
        // at the edge and counted.
        let x = Scale::new(10.0, 22.0, 110.0, W - 80.0);
        assert!(svg.contains(&format!(r#"x2="{:.1}""#, x.at(13.0))), "{svg}");
        assert_eq!(svg.matches(r#"class="dot out""#).count(), 1, "{svg}");
        assert!(svg.contains("1 beyond →"), "{svg}");
    }
}
