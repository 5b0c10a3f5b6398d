//! The report's charts, as plain SVG generated here: a wall-time distribution (box plot with
//! every sample as a dot), a history line chart with its significance band, a heat map of
//! ratios, and latency percentile lines of service scenarios under load. No plotting library: the charts are simple, and plain SVG keeps the binary small and
//! the page free of scripts and fonts from elsewhere.
//!
//! Every chart's root `<svg>` carries `data-chart` (its kind) and `data-series` (how many series
//! it draws): stable hooks for tests and for readers' own scripts. Text passes through
//! [`escape`]; numbers are written by this module.

use super::escape::escape;
use std::fmt::Write as _;

/// Width of every chart's coordinate system; the page scales it to the column.
const W: f64 = 720.0;

/// A linear map from data values to pixels.
#[derive(Debug, Clone, Copy)]
struct Scale {
    d0: f64,
    d1: f64,
    r0: f64,
    r1: f64,
}

impl Scale {
    /// Maps `[lo, hi]` onto `[r0, r1]`, widened a little when the data has no spread.
    fn new(lo: f64, hi: f64, r0: f64, r1: f64) -> Scale {
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

    fn at(&self, v: f64) -> f64 {
        self.r0 + (v - self.d0) / (self.d1 - self.d0) * (self.r1 - self.r0)
    }

    /// Round values for about four axis labels inside the domain.
    fn ticks(&self) -> Vec<f64> {
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

/// Vertical grid lines and labels along the bottom.
fn axis_x(s: &mut String, x: &Scale, top: f64, bottom: f64, fmt: fn(f64) -> String) {
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

/// One run's value in a history chart.
#[derive(Debug)]
pub struct HistoryPoint {
    /// The per-op value.
    pub value: f64,
    /// Tooltip: run, commit, value, change (untrusted parts included; escaped here).
    pub title: String,
    /// The change from the previous run is beyond the threshold.
    pub crossed: bool,
}

/// A line through the runs' values, oldest left, with the band of ±`threshold_pct` around each
/// previous value shaded: a point outside the band moved significantly, and is drawn as a
/// larger, marked dot.
pub fn history(
    points: &[HistoryPoint],
    threshold_pct: f64,
    first_label: &str,
    last_label: &str,
    fmt: fn(f64) -> String,
) -> String {
    let (left, right, top, h) = (90.0, 20.0, 10.0, 190.0);
    let bottom = h - 30.0;
    let t = threshold_pct / 100.0;
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for (i, p) in points.iter().enumerate() {
        lo = lo.min(p.value);
        hi = hi.max(p.value);
        if i > 0 {
            let prev = points[i - 1].value;
            lo = lo.min((prev * (1.0 - t)).max(0.0));
            hi = hi.max(prev * (1.0 + t));
        }
    }
    // At least ±0.5 % around the values: a count that never moved is a flat line in a thin
    // band, not a line in a band filling the chart, with axis labels that all read the same.
    let mid = (lo + hi) / 2.0;
    if hi - lo < 0.01 * mid.abs() {
        lo = mid - 0.005 * mid.abs();
        hi = mid + 0.005 * mid.abs();
    }
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" data-chart="history" data-series="1" data-points="{}" data-crossed="{}" viewBox="0 0 {W} {h}" role="img" xmlns="http://www.w3.org/2000/svg">"#,
        points.len(),
        points.iter().filter(|p| p.crossed).count()
    );
    if points.is_empty() {
        s.push_str("</svg>");
        return s;
    }
    let y = Scale::new(lo, hi, bottom, top);
    let n = points.len();
    let xs = |i: usize| {
        if n == 1 {
            (left + W - right) / 2.0
        } else {
            left + (W - right - left) * i as f64 / (n - 1) as f64
        }
    };
    let mut prev_label = String::new();
    for tk in y.ticks() {
        let py = y.at(tk);
        let label = fmt(tk);
        if label == prev_label {
            continue;
        }
        prev_label.clone_from(&label);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{left}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            W - right,
            left - 6.0,
            py + 4.0,
            escape(&label)
        );
    }
    if n > 1 {
        let mut band = String::new();
        for i in 1..n {
            let _ = write!(
                band,
                "{:.1},{:.1} ",
                xs(i),
                y.at(points[i - 1].value * (1.0 + t))
            );
        }
        for i in (1..n).rev() {
            let _ = write!(
                band,
                "{:.1},{:.1} ",
                xs(i),
                y.at((points[i - 1].value * (1.0 - t)).max(0.0))
            );
        }
        let _ = write!(
            s,
            r#"<polygon class="band" points="{}"><title>±{threshold_pct} % around the previous run</title></polygon>"#,
            band.trim_end()
        );
    }
    let line: Vec<String> = (0..n)
        .map(|i| format!("{:.1},{:.1}", xs(i), y.at(points[i].value)))
        .collect();
    let _ = write!(
        s,
        r#"<polyline class="series s0 line" points="{}"/>"#,
        line.join(" ")
    );
    for (i, p) in points.iter().enumerate() {
        let _ = write!(
            s,
            r#"<circle class="{}" cx="{:.1}" cy="{:.1}" r="{}"><title>{}</title></circle>"#,
            if p.crossed { "point crossed" } else { "point" },
            xs(i),
            y.at(p.value),
            if p.crossed { 5 } else { 3 },
            escape(&p.title)
        );
    }
    let _ = write!(
        s,
        r#"<text class="tick" x="{left}" y="{:.1}">{}</text><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
        h - 8.0,
        escape(first_label),
        W - right,
        h - 8.0,
        escape(last_label)
    );
    s.push_str("</svg>");
    s
}

/// One cell of a heat map: the ratio to the baseline column, and whether the difference is
/// significant.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The cell's per-op ratio to the baseline column.
    pub ratio: f64,
    /// Whether `compare` judged the difference significant.
    pub significant: bool,
    /// Set when `compare` could not resolve the ratio or found it a placement effect: the mark
    /// (`?`, `≈`) and the reason. Such a cell is not shaded: its ratio is not a price.
    pub unsettled: Option<(&'static str, String)>,
}

/// A grid of ratios: a row per scenario, a column per variant. Cells above 1 (costs more than
/// the baseline) shade red, below 1 green, by the logarithm of the ratio (a halving and a
/// doubling shade alike, saturating at 2×); significant ratios are bold and starred.
pub fn heatmap(rows: &[String], cols: &[String], cells: &[Vec<Option<Cell>>]) -> String {
    let label_w = 40.0 + 7.0 * rows.iter().map(|r| r.chars().count()).max().unwrap_or(0) as f64;
    let label_w = label_w.min(360.0);
    let cell_w = 110.0;
    let cell_h = 24.0;
    let head = 30.0;
    let w = label_w + cell_w * cols.len() as f64 + 10.0;
    let h = head + cell_h * rows.len() as f64 + 6.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart heat" data-chart="heatmap" data-series="{}" viewBox="0 0 {w:.0} {h:.0}" style="max-width:{w:.0}px" role="img" xmlns="http://www.w3.org/2000/svg">"#,
        cols.len()
    );
    for (c, name) in cols.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text class="col" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            label_w + cell_w * (c as f64 + 0.5),
            head - 10.0,
            escape(name)
        );
    }
    for (r, name) in rows.iter().enumerate() {
        let y0 = head + cell_h * r as f64;
        let _ = write!(
            s,
            r#"<text class="row" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_w - 8.0,
            y0 + cell_h * 0.68,
            escape(name)
        );
        for (c, cell) in cells[r].iter().enumerate() {
            let x0 = label_w + cell_w * c as f64;
            let (fill, text, title) = match cell {
                Some(Cell {
                    ratio,
                    unsettled: Some((mark, why)),
                    ..
                }) => (
                    "#f4f4f4".to_string(),
                    format!("{ratio:.3}×{mark}"),
                    format!("{name} / {}: {ratio:.4}× the baseline; {why}", cols[c]),
                ),
                Some(cell) => (
                    heat_color(cell.ratio),
                    format!(
                        "{:.3}×{}",
                        cell.ratio,
                        if cell.significant { "*" } else { "" }
                    ),
                    format!(
                        "{} / {}: {:.4}× the baseline{}",
                        name,
                        cols[c],
                        cell.ratio,
                        if cell.significant {
                            ", significant"
                        } else {
                            ""
                        }
                    ),
                ),
                None => (
                    "#eeeeee".to_string(),
                    "–".to_string(),
                    format!("{name} / {}: not measured", cols[c]),
                ),
            };
            let bold = cell.as_ref().is_some_and(|c| c.significant);
            let _ = write!(
                s,
                r#"<g class="cell"><rect x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="{fill}"/><text x="{:.1}" y="{:.1}" text-anchor="middle"{}>{}</text><title>{}</title></g>"#,
                cell_w - 2.0,
                cell_h - 2.0,
                x0 + cell_w / 2.0,
                y0 + cell_h * 0.68,
                if bold { r#" font-weight="bold""# } else { "" },
                escape(&text),
                escape(&title)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// White at 1, toward red above and green below, saturating at a factor of 2.
fn heat_color(ratio: f64) -> String {
    if !ratio.is_finite() || ratio <= 0.0 {
        return "#dddddd".into();
    }
    let k = ratio.log2().clamp(-1.0, 1.0);
    let (r, g, b) = if k >= 0.0 {
        (224.0, 72.0, 60.0)
    } else {
        (46.0, 160.0, 90.0)
    };
    let a = k.abs();
    let mix = |c: f64| (255.0 + (c - 255.0) * a).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
}

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

    #[test]
    fn history_marks_points_outside_the_band() {
        let p = |v: f64, crossed| HistoryPoint {
            value: v,
            title: format!("v {v}"),
            crossed,
        };
        let svg = history(
            &[p(100.0, false), p(100.1, false), p(120.0, true)],
            5.0,
            "first",
            "last",
            fmt,
        );
        assert!(svg.contains(r#"data-points="3" data-crossed="1""#), "{svg}");
        assert_eq!(svg.matches(r#"class="point crossed""#).count(), 1);
        assert_eq!(svg.matches("<polygon").count(), 1);
        assert_eq!(svg.matches("<polyline").count(), 1);
    }

    #[test]
    fn heat_colours_are_symmetric_in_log_ratio() {
        assert_eq!(heat_color(1.0), "#ffffff");
        assert_eq!(heat_color(2.0), "#e0483c");
        assert_eq!(heat_color(0.5), "#2ea05a");
        assert_eq!(heat_color(4.0), heat_color(2.0));
        let svg = heatmap(
            &["a<b".into()],
            &["base".into(), "v2".into()],
            &[vec![
                Some(Cell {
                    ratio: 1.0,
                    significant: false,
                    unsettled: None,
                }),
                None,
            ]],
        );
        assert!(svg.contains(r#"data-series="2""#));
        assert!(svg.contains("a&lt;b") && !svg.contains("a<b"));
        assert!(svg.contains("not measured"));
        // A placement effect is grey and marked, whatever its ratio: it is not a price.
        let svg = heatmap(
            &["a".into()],
            &["v2".into()],
            &[vec![Some(Cell {
                ratio: 1.5,
                significant: false,
                unsettled: Some(("≈", "placement: same instructions".into())),
            })]],
        );
        assert!(svg.contains(r##"fill="#f4f4f4""##), "{svg}");
        assert!(svg.contains("1.500×≈"), "{svg}");
        assert!(svg.contains("1.5000× the baseline; placement: same instructions"));
    }

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
