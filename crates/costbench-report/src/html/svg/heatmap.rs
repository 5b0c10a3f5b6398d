//! The heat map of ratios (the variant matrix): one cell per id and variant, coloured by how far
//! the ratio is from 1 on a log scale.

use crate::html::escape::escape;
use std::fmt::Write as _;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
