//! The HTML page's sections that explain a flagged scenario's change: the machine-code diffs of
//! its top movers, whole functions with changed lines marked, and the differential flame graph
//! of its call paths (drawn by `svg::flame`). The text of each line is the terminal's and
//! markdown's (`crate::asm`). What an instrument's slice explains (the checks that moved) is its
//! slice's (`Slice::explain`), placed before these.

use super::escape::escape;
use costbench_judge::compare::asm::{AsmDiff, Edit};
use costbench_judge::compare::flame::FlameDiff;
use costbench_record::fmt::{fmt_count, fmt_ir};
use std::fmt::Write as _;

/// The HTML page's section for one diff: the whole function, changed lines marked.
pub(crate) fn asm(page: &mut String, d: &AsmDiff) {
    let _ = write!(
        page,
        "<details class=\"asm\"><summary>machine code of <code>{}</code>: {}</summary><pre class=\"asm\">",
        escape(&d.function),
        escape(&crate::asm::summary(d))
    );
    for l in &d.lines {
        let class = match l.edit {
            Edit::Added => "add",
            Edit::Removed => "del",
            Edit::Same if l.ran_differently() => "ran",
            Edit::Same => "same",
        };
        let _ = writeln!(
            page,
            "<span class=\"{class}\">{}</span>",
            escape(&crate::asm::line_text(l))
        );
    }
    page.push_str("</pre></details>");
}

/// The HTML page's differential flame graph of one scenario, collapsed, with how to read it and
/// what it left out.
pub(crate) fn flame(page: &mut String, d: &FlameDiff) {
    if let Some(why) = &d.unavailable {
        let _ = write!(
            page,
            "<p class=\"note\">differential flame graph: {}</p>",
            escape(why)
        );
        return;
    }
    let Some(f) = super::svg::flame(&d.frames) else {
        return;
    };
    let _ = write!(
        page,
        "<details class=\"flame\"><summary>differential flame graph: {} call paths drawn</summary>\
         <figure>{}<figcaption>Inclusive cost per op by call path from <code>{}</code> (at the \
         bottom) up through its callees, as callgrind's caller→callee edges give it: a function \
         with several callers is split among them in proportion to their calls' cost. Widths: the \
         candidate's cost. Colour: the change of each frame's own cost, red grew, blue shrank, \
         deepest for the largest change, grey unchanged. Hover a frame for both sides' figures.",
        f.drawn,
        f.svg,
        escape(costbench_judge::compare::flame::ROOT),
    );
    if f.narrow > 0 {
        let _ = write!(
            page,
            " {} frames narrower than {} px not drawn ({} Ir/op together).",
            f.narrow,
            super::svg::MIN_PX,
            escape(&fmt_count(f.narrow_cost))
        );
    }
    if let Some((widest, cost)) = f.gone.first() {
        let _ = write!(
            page,
            " {} call paths of the baseline only, not drawn (no width in the candidate), the \
             largest <code>{}</code> at {} Ir/op.",
            f.gone.len(),
            escape(widest),
            escape(&fmt_ir(*cost))
        );
    }
    page.push_str("</figcaption></figure></details>");
}
