//! The differential flame graph of one scenario (issue 27), drawn as flamegraph.pl and inferno
//! draw the output of `difffolded.pl` (and `inferno-diff-folded`): one rectangle per call path,
//! the root at the bottom and each function's callees on top of it, left to right by name;
//! widths by the candidate's inclusive cost per op; colour by the change of the frame's own cost,
//! red where it grew, blue where it shrank, deeper the nearer the change is to the largest one,
//! white-grey where it did not change. Each frame's `<title>` (the browser's tooltip) gives the
//! function, both sides' inclusive and own costs per op and the change.
//!
//! Frames narrower than [`MIN_PX`] are not drawn, and call paths of the baseline only have no
//! width in the candidate's picture: both are counted ([`Flame`]) for the caption to say. Plain
//! SVG, no script, nothing fetched; names pass through [`escape`].

use crate::html::escape::escape;
use costbench_judge::compare::flame::FlameFrame;
use costbench_record::fmt::{fmt_change, fmt_count};
use std::fmt::Write as _;

/// Width of the flame graph's coordinate system: the page's column.
pub const FLAME_W: f64 = 1160.0;
/// Height of one frame.
const ROW: f64 = 17.0;
/// Frames narrower than this (in [`FLAME_W`]'s units) are not drawn.
pub const MIN_PX: f64 = 0.5;
/// Frames at least this wide carry their name (cut to fit).
const LABEL_PX: f64 = 24.0;
/// Average width of a character of the label font, to cut names to fit.
const CHAR_PX: f64 = 6.4;

/// A drawn flame graph and what it left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Flame {
    /// The `<svg>` element.
    pub svg: String,
    /// Frames drawn.
    pub drawn: usize,
    /// Frames of the candidate narrower than [`MIN_PX`], not drawn.
    pub narrow: usize,
    /// Their inclusive cost per op in the candidate, outermost ones only (a narrow frame's
    /// callees are narrower still).
    pub narrow_cost: f64,
    /// Call paths of the baseline only (no width in the candidate's picture), outermost ones:
    /// their names and inclusive cost per op in the baseline, largest first.
    pub gone: Vec<(String, f64)>,
}

/// The flame graph of `frames` (depth-first, the root first, as `compare::flame::merge` gives
/// them). `None` when there is nothing to draw (no frames, or a root of no cost).
pub fn flame(frames: &[FlameFrame]) -> Option<Flame> {
    let root = frames.first().filter(|r| r.cand > 0.0)?;
    let scale = FLAME_W / root.cand;
    // Changes smaller than this are rounding of the splits, not changes.
    let eps = root.cand.max(root.base) * 1e-9;
    // First pass: place every frame (x from its parent's left edge and its elder siblings).
    let mut next = vec![0.0f64];
    let mut placed = Vec::with_capacity(frames.len());
    // Depth at which a left-out subtree (narrow or gone) began: its frames are not counted
    // again in the cost totals.
    let mut skipping: Option<usize> = None;
    let (mut narrow, mut narrow_cost, mut gone) = (0, 0.0, Vec::new());
    for f in frames {
        if skipping.is_some_and(|d| f.depth <= d) {
            skipping = None;
        }
        next.resize(f.depth + 2, 0.0);
        let x = next[f.depth];
        let w = f.cand * scale;
        next[f.depth] += w;
        next[f.depth + 1] = x;
        if f.cand <= 0.0 {
            if skipping.is_none() {
                gone.push((f.name.clone(), f.base));
                skipping = Some(f.depth);
            }
        } else if w < MIN_PX {
            narrow += 1;
            if skipping.is_none() {
                narrow_cost += f.cand;
                skipping = Some(f.depth);
            }
        } else {
            placed.push((f, x, w));
        }
    }
    gone.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let depth = placed.iter().map(|p| p.0.depth).max().unwrap_or(0);
    let max_delta = placed
        .iter()
        .map(|p| p.0.self_change().abs())
        .fold(0.0, f64::max);
    let h = ROW * (depth + 1) as f64 + 4.0;
    let mut s = String::with_capacity(256 * placed.len() + 256);
    let _ = write!(
        s,
        r#"<svg class="chart flame" data-chart="flame" data-series="2" data-frames="{}" data-narrow="{narrow}" data-gone="{}" viewBox="0 0 {FLAME_W:.0} {h:.0}" role="img" xmlns="http://www.w3.org/2000/svg">"#,
        placed.len(),
        gone.len()
    );
    for (f, x, w) in &placed {
        let y = 2.0 + ROW * (depth - f.depth) as f64;
        let _ = write!(
            s,
            r##"<g class="frame" data-depth="{}"><title>{}</title><rect x="{x:.3}" y="{y:.1}" width="{w:.3}" height="{:.1}" rx="2" fill="{}" stroke="#fff" stroke-width="0.5"/>"##,
            f.depth,
            escape(&title(f)),
            ROW - 1.0,
            fill(f.self_change(), max_delta, eps)
        );
        if *w >= LABEL_PX {
            let _ = write!(
                s,
                r##"<text x="{:.3}" y="{:.1}" fill="#1d1f23">{}</text>"##,
                x + 3.0,
                y + ROW - 5.0,
                escape(&fit(&f.name, *w - 6.0))
            );
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    Some(Flame {
        svg: s,
        drawn: placed.len(),
        narrow,
        narrow_cost,
        gone,
    })
}

/// flamegraph.pl's differential colours: red for growth, blue for shrinkage, from pale (a
/// change near zero) to full (the largest change of the picture); no change a light grey.
fn fill(delta: f64, max: f64, eps: f64) -> String {
    if delta.abs() <= eps || max <= 0.0 {
        return "rgb(236,236,236)".into();
    }
    let rest = (210.0 * (1.0 - delta.abs() / max))
        .round()
        .clamp(0.0, 210.0) as u8;
    if delta > 0.0 {
        format!("rgb(255,{rest},{rest})")
    } else {
        format!("rgb({rest},{rest},255)")
    }
}

/// The frame's tooltip: the function, inclusive and own costs per op on both sides, changes.
fn title(f: &FlameFrame) -> String {
    let pct = if f.base > 0.0 {
        format!(", {}", fmt_change(100.0 * f.change() / f.base))
    } else {
        ", new in the candidate".into()
    };
    format!(
        "{}\ninclusive per op: {} → {} ({}{pct})\nown per op: {} → {} ({})",
        f.name,
        fmt_count(f.base),
        fmt_count(f.cand),
        signed(f.change()),
        fmt_count(f.base_self),
        fmt_count(f.cand_self),
        signed(f.self_change()),
    )
}

/// A signed per-op change: "+1.000", "-0.000100", "0".
fn signed(v: f64) -> String {
    let sign = if v > 0.0 {
        "+"
    } else if v < 0.0 {
        "-"
    } else {
        ""
    };
    format!("{sign}{}", fmt_count(v.abs()))
}

/// `name` cut to about `px` wide, ".." marking the cut.
fn fit(name: &str, px: f64) -> String {
    let room = (px / CHAR_PX).floor().max(0.0) as usize;
    if name.chars().count() <= room {
        return name.to_string();
    }
    let keep = room.saturating_sub(2);
    let mut out: String = name.chars().take(keep).collect();
    out.push_str("..");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(name: &str, depth: usize, (base, cand): (f64, f64), own: (f64, f64)) -> FlameFrame {
        FlameFrame {
            name: name.into(),
            depth,
            base,
            cand,
            base_self: own.0,
            cand_self: own.1,
        }
    }

    /// A root of 100 per op: `a<b>` grew (own 20 → 40), `c` shrank, `gone` has no width,
    /// `tiny` is too narrow; names are escaped and the document is well-formed XML.
    fn frames() -> Vec<FlameFrame> {
        vec![
            frame("root", 0, (90.0, 100.0), (0.0, 0.0)),
            frame("a<b>&\"x\"", 1, (50.0, 70.0), (20.0, 40.0)),
            frame("leaf", 2, (30.0, 30.0), (30.0, 30.0)),
            frame("c", 1, (35.0, 29.96), (35.0, 29.96)),
            frame("gone", 1, (5.0, 0.0), (3.0, 0.0)),
            frame("gone_child", 2, (2.0, 0.0), (2.0, 0.0)),
            frame("tiny", 1, (0.0, 0.04), (0.0, 0.04)),
            frame("tinier", 2, (0.0, 0.01), (0.0, 0.01)),
        ]
    }

    #[test]
    fn widths_follow_the_candidate_and_sum_within_their_parent() {
        let f = flame(&frames()).unwrap();
        let doc = roxmltree::Document::parse(&f.svg).unwrap_or_else(|e| panic!("{e}:\n{}", f.svg));
        let svg = doc.root_element();
        assert_eq!(svg.attribute("data-chart"), Some("flame"));
        let rects: Vec<(usize, String, f64, f64, String)> = svg
            .children()
            .filter(|g| g.has_tag_name("g"))
            .map(|g| {
                let depth = g.attribute("data-depth").unwrap().parse().unwrap();
                let title = g.children().find(|c| c.has_tag_name("title")).unwrap();
                let rect = g.children().find(|c| c.has_tag_name("rect")).unwrap();
                let num = |a: &str| rect.attribute(a).unwrap().parse::<f64>().unwrap();
                (
                    depth,
                    title.text().unwrap().lines().next().unwrap().to_string(),
                    num("x"),
                    num("width"),
                    rect.attribute("fill").unwrap().to_string(),
                )
            })
            .collect();
        let names: Vec<&str> = rects.iter().map(|r| r.1.as_str()).collect();
        // Titles hold the names as they are (the XML parser undid the escaping).
        assert_eq!(names, ["root", "a<b>&\"x\"", "leaf", "c"]);
        assert_eq!((f.drawn, f.narrow), (4, 2));
        assert_eq!(f.gone, [("gone".to_string(), 5.0)]);
        assert!((f.narrow_cost - 0.04).abs() < 1e-12);
        let w = |k: usize| rects[k].3;
        assert!((w(0) - FLAME_W).abs() < 1e-3);
        assert!((w(1) - 0.70 * FLAME_W).abs() < 1e-2);
        // Siblings side by side: c starts where a ends; a callee starts at its caller's left.
        assert!((rects[3].2 - (rects[1].2 + w(1))).abs() < 1e-2);
        assert_eq!(rects[2].2, rects[1].2);
        // The callees drawn at depth 1 fill the root but for the narrow frame's 0.04 per op.
        let depth1: f64 = rects.iter().filter(|r| r.0 == 1).map(|r| r.3).sum();
        assert!((depth1 - 0.9996 * FLAME_W).abs() < 1e-2, "{depth1}");
        // Colours: the largest own-cost change (a's +20) is full red; c's -5.04 a pale blue;
        // the unchanged root and leaf grey.
        assert_eq!(rects[1].4, "rgb(255,0,0)");
        assert_eq!(rects[3].4, "rgb(157,157,255)");
        assert_eq!(rects[0].4, "rgb(236,236,236)");
        assert_eq!(rects[2].4, "rgb(236,236,236)");
        // The root at the bottom, callees above.
        let y = |name: &str| {
            svg.descendants()
                .filter(|n| n.has_tag_name("rect"))
                .find(|r| {
                    r.parent()
                        .unwrap()
                        .children()
                        .any(|t| t.has_tag_name("title") && t.text().unwrap().starts_with(name))
                })
                .unwrap()
                .attribute("y")
                .unwrap()
                .parse::<f64>()
                .unwrap()
        };
        assert!(y("root") > y("c") && y("c") > y("leaf"));
        // The raw text escapes what the names hold.
        assert!(f.svg.contains("a&lt;b&gt;&amp;&quot;x&quot;"), "{}", f.svg);
        assert!(!f.svg.contains("<b>"));
    }

    #[test]
    fn tooltips_give_both_sides_per_op() {
        let t = title(&frame("a", 1, (50.0, 70.0), (20.0, 40.0)));
        assert_eq!(
            t,
            "a\ninclusive per op: 50.00 → 70.00 (+20.00, +40.00 %)\nown per op: 20.00 → 40.00 (+20.00)"
        );
        let t = title(&frame("n", 1, (0.0, 0.0005), (0.0, 0.0005)));
        assert!(
            t.contains("0 → 0.000500 (+0.000500, new in the candidate)"),
            "{t}"
        );
    }

    #[test]
    fn names_are_cut_to_fit_and_nothing_is_drawn_without_a_root() {
        assert_eq!(fit("core::fmt::write", 200.0), "core::fmt::write");
        assert_eq!(fit("core::fmt::write", 6.4 * 8.0), "core::..");
        assert!(flame(&[]).is_none());
        assert!(flame(&[frame("root", 0, (1.0, 0.0), (1.0, 0.0))]).is_none());
    }
}
