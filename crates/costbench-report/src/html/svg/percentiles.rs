//! The latency percentile chart of service scenarios under load: one line per load level on a
//! scale of nines (90 %, 99 %, 99.9 %, ...), latency on a log scale.

use super::scale::{Scale, W};
use crate::html::escape::escape;
use std::fmt::Write as _;

/// One line of a percentile chart: a latency distribution as (percentile 0..=100, nanoseconds)
/// points, in increasing percentile order (HdrHistogram's percentile ticks).
#[derive(Debug)]
pub struct PercentileLine<'a> {
    /// The line's name in the legend and its tooltip ("4 clients · baseline").
    pub label: &'a str,
    /// (percentile, latency in ns) points.
    pub points: &'a [(f64, f64)],
    /// Colour of the line (class `cN`, cycling through six): one per number of clients.
    pub colour: usize,
    /// Dash pattern of the line (class `dN`, cycling through four; 0 is solid): one per build.
    pub dash: usize,
}

/// Where percentile `p` (0..=100) sits on the percentile axis: the number of nines of `p`,
/// log10(1 / (1 - p/100)), as HdrHistogram's plots lay it out (0 % at 0, 90 % at 1, 99 % at 2,
/// 99.9 % at 3). Infinite at 100 %.
fn nines(p: f64) -> f64 {
    -(1.0 - (p / 100.0).clamp(0.0, 1.0)).log10()
}

/// Latency against percentile, one line per distribution, on HdrHistogram's scale: the x axis
/// gives each further nine of the percentile (90 %, 99 %, 99.9 %, ...) the same width, so that
/// the tail, where services differ, gets most of the chart. The y axis is logarithmic: a tail
/// ten or a hundred times the median stays on the chart with the median still readable. The
/// 100 % point (the maximum) is drawn at the right edge.
pub fn percentiles(lines: &[PercentileLine]) -> String {
    let (left, right, top, h) = (76.0, 44.0, 10.0, 300.0);
    let bottom = h - 44.0;
    // The axis runs to the next whole nine past the last finite point, and at least to 99 %.
    let finite = |p: f64| p < 100.0;
    let reach = lines
        .iter()
        .flat_map(|l| l.points.iter())
        .filter(|(p, _)| finite(*p))
        .map(|(p, _)| nines(*p))
        .fold(0.0_f64, f64::max);
    // (Less a little: 99.9 % is 3.0000000000000004 nines in floating point.)
    let x_max = (reach - 1e-9).ceil().clamp(2.0, 7.0);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (_, ns) in lines.iter().flat_map(|l| l.points.iter()) {
        if *ns > 0.0 && ns.is_finite() {
            lo = lo.min(*ns);
            hi = hi.max(*ns);
        }
    }
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" data-chart="percentiles" data-series="{}" viewBox="0 0 {W} {h}" role="img" xmlns="http://www.w3.org/2000/svg">"#,
        lines.len()
    );
    if !lo.is_finite() {
        s.push_str("</svg>");
        return s;
    }
    let x = Scale {
        d0: 0.0,
        d1: x_max,
        r0: left,
        r1: W - right,
    };
    let (l0, l1) = (lo.log10(), hi.log10());
    let pad = if l1 > l0 { (l1 - l0) * 0.05 } else { 0.1 };
    let y = Scale {
        d0: l0 - pad,
        d1: l1 + pad,
        r0: bottom,
        r1: top,
    };
    for nine in 1..=x_max as u32 {
        let px = x.at(f64::from(nine));
        let _ = write!(
            s,
            r#"<line class="grid" x1="{px:.1}" x2="{px:.1}" y1="{top:.1}" y2="{bottom:.1}"/><text class="tick" x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            bottom + 16.0,
            nines_label(nine)
        );
    }
    // 50 % sits between 0 % and 90 %: labelled, without a grid line of its own.
    let _ = write!(
        s,
        r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="middle">50 %</text>"#,
        x.at(nines(50.0)),
        bottom + 16.0
    );
    for t in log_ticks(y.d0, y.d1) {
        let py = y.at(t.log10());
        let _ = write!(
            s,
            r#"<line class="grid" x1="{left}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            W - right,
            left - 6.0,
            py + 4.0,
            escape(&fmt_ns_round(t))
        );
    }
    let _ = write!(
        s,
        r#"<text class="axis" x="{:.1}" y="{:.1}" text-anchor="middle">percentile (each further nine equally wide)</text><text class="axis" x="14" y="{:.1}" text-anchor="middle" transform="rotate(-90 14 {:.1})">latency (log scale)</text>"#,
        (left + W - right) / 2.0,
        h - 8.0,
        (top + bottom) / 2.0,
        (top + bottom) / 2.0,
    );
    for (k, l) in lines.iter().enumerate() {
        let mut d = String::new();
        for (p, ns) in l.points {
            let px = x.at(nines(*p).min(x_max));
            let py = y.at(ns.max(lo).log10());
            let _ = write!(d, "{}{px:.1} {py:.1}", if d.is_empty() { "M" } else { "L" });
        }
        let _ = write!(
            s,
            r#"<path class="series s{k} pline c{} d{}" data-label="{label}" d="{d}"><title>{label}</title></path>"#,
            l.colour % 6,
            l.dash % 4,
            label = escape(l.label),
        );
    }
    // The legend in the top left, where latency lines (rising to the right) leave room; on a
    // pale backing in case one passes there.
    if !lines.is_empty() {
        let chars = lines
            .iter()
            .map(|l| l.label.chars().count())
            .max()
            .unwrap_or(0);
        let _ = write!(
            s,
            r#"<rect class="legend-back" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/>"#,
            left + 4.0,
            top + 2.0,
            44.0 + 6.5 * chars as f64,
            6.0 + 15.0 * lines.len() as f64
        );
    }
    for (k, l) in lines.iter().enumerate() {
        let ly = top + 12.0 + 15.0 * k as f64;
        let _ = write!(
            s,
            r#"<g class="legend"><line class="pline c{} d{}" x1="{:.1}" x2="{:.1}" y1="{ly:.1}" y2="{ly:.1}"/><text class="tick" x="{:.1}" y="{:.1}">{}</text></g>"#,
            l.colour % 6,
            l.dash % 4,
            left + 10.0,
            left + 34.0,
            left + 40.0,
            ly + 4.0,
            escape(l.label)
        );
    }
    s.push_str("</svg>");
    s
}

/// "90 %", "99 %", "99.9 %", ...: the percentile with `nines` nines.
fn nines_label(nines: u32) -> String {
    let p = 100.0 * (1.0 - 10f64.powi(-(nines as i32)));
    format!("{p:.*} %", nines.saturating_sub(2) as usize)
}

/// Round latencies for the ticks of a logarithmic axis over `[d0, d1]` (log10 of ns): 1, 2 and 5
/// times the powers of ten inside it, only the powers of ten when those are many, every digit
/// when the range is too narrow for two.
fn log_ticks(d0: f64, d1: f64) -> Vec<f64> {
    let pick = |ms: &[f64]| -> Vec<f64> {
        let mut out = Vec::new();
        for k in d0.floor() as i32..=d1.ceil() as i32 {
            for m in ms {
                let v = m * 10f64.powi(k);
                if (d0..=d1).contains(&v.log10()) {
                    out.push(v);
                }
            }
        }
        out
    };
    let t = pick(&[1.0, 2.0, 5.0]);
    if t.len() > 8 {
        pick(&[1.0])
    } else if t.len() < 2 {
        pick(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    } else {
        t
    }
}

/// An axis label: nanoseconds in [`fmt_ns`]'s units without trailing zeros ("20 µs", "1.5 ms").
fn fmt_ns_round(ns: f64) -> String {
    let s = costbench_record::fmt::fmt_ns(ns);
    match s.split_once(' ') {
        Some((v, unit)) if v.contains('.') => {
            format!("{} {unit}", v.trim_end_matches('0').trim_end_matches('.'))
        }
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_chart_draws_a_path_per_line_on_the_nines_scale() {
        let a = [
            (0.0, 10_000.0),
            (50.0, 20_000.0),
            (99.0, 60_000.0),
            (100.0, 1e6),
        ];
        let b = [
            (0.0, 12_000.0),
            (90.0, 30_000.0),
            (99.9, 90_000.0),
            (100.0, 2e5),
        ];
        let svg = percentiles(&[
            PercentileLine {
                label: "1 client",
                points: &a,
                colour: 0,
                dash: 0,
            },
            PercentileLine {
                label: "4 clients <b>",
                points: &b,
                colour: 1,
                dash: 1,
            },
        ]);
        assert!(svg.starts_with(r#"<svg class="chart" data-chart="percentiles" data-series="2""#));
        assert_eq!(svg.matches("<path ").count(), 2, "{svg}");
        assert_eq!(svg.matches(r#"class="series "#).count(), 2);
        assert_eq!(svg.matches(r#"class="legend""#).count(), 2);
        // One point per (percentile, latency): M then L for each further one.
        let first = svg.split("<path ").nth(1).unwrap();
        assert_eq!(first.matches('L').count(), 3, "{first}");
        // The last finite point is at 99.9 %: the axis runs to 99.9 %, ticks at every nine and
        // at 50 %, latency from 10 µs to 1 ms on a log scale.
        for tick in [
            ">50 %<",
            ">90 %<",
            ">99 %<",
            ">99.9 %<",
            ">10 µs<",
            ">100 µs<",
            ">1 ms<",
        ] {
            assert!(svg.contains(tick), "{tick}: {svg}");
        }
        assert!(!svg.contains(">99.99 %<"));
        assert!(svg.contains(">percentile (each further nine equally wide)<"));
        assert!(svg.contains(">latency (log scale)<"));
        assert!(svg.contains("4 clients &lt;b&gt;") && !svg.contains("<b>"));
        // 100 % (the maximum) at the right edge, 0 % at the left; higher latency is higher up.
        assert!(svg.contains(&format!("L{:.1} ", W - 44.0)), "{svg}");
        assert!(first.contains(r#" d="M76.0 "#), "{first}");
        // Nothing to draw: an empty chart, not a broken one.
        let empty = percentiles(&[]);
        assert!(empty.contains(r#"data-series="0""#) && empty.ends_with("</svg>"));
    }

    #[test]
    fn nines_and_log_ticks() {
        assert!((nines(90.0) - 1.0).abs() < 1e-9);
        assert!((nines(99.9) - 3.0).abs() < 1e-9);
        assert_eq!(nines(0.0), 0.0);
        assert!(nines(100.0).is_infinite());
        let labels: Vec<String> = (1..=5).map(nines_label).collect();
        assert_eq!(labels, ["90 %", "99 %", "99.9 %", "99.99 %", "99.999 %"]);
        // Two decades: 1, 2, 5 of each; six: powers of ten only; a narrow range: every digit.
        assert_eq!(log_ticks(4.0, 6.0).len(), 7);
        assert_eq!(log_ticks(3.0, 9.0), [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]);
        assert_eq!(log_ticks(4.35, 4.6), [30_000.0]);
        assert_eq!(log_ticks(4.35, 4.65), [30_000.0, 40_000.0]);
        assert_eq!(fmt_ns_round(20_000.0), "20 µs");
        assert_eq!(fmt_ns_round(1_500_000.0), "1.5 ms");
        assert_eq!(fmt_ns_round(500.0), "500 ns");
    }
}
