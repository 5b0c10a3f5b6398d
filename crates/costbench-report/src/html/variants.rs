//! The variants section: heat maps of each variant's per-op figures as ratios to the baseline
//! variant. Which runs are the variants and how they compare is the gatherer's
//! (`costbench_cli::core::page`); this module only draws the [`VariantRun`]s it is given.

use super::escape::escape;
use super::{svg, VariantRun};
use costbench_judge::compare::{Comparison, Verdict};
use costbench_record::instrument::Figure;
use costbench_record::model::RunRecord;
use std::fmt::Write as _;

/// Heat maps of every instrument measured by at least two variants: ratio of each variant's
/// per-op figure to the baseline variant's (the first), starred where `compare` finds the
/// difference significant.
pub(super) fn variants_section(page: &mut String, variants: &[VariantRun]) {
    let runs: Vec<&RunRecord> = variants.iter().map(|v| v.run).collect();
    let base = runs[0];
    let _ = write!(
        page,
        "<h2 id=\"variants\">Variants</h2><p>Ratio of each variant's per-op figure to the \
         baseline variant <b>{}</b> (1.000×: the same; red: costs more; green: costs less; \
         * and bold: significant, judged as <code>costbench compare</code> judges it; grey with ? \
         or ≈: unresolved or a placement effect, not a price).</p>",
        escape(&base.variant)
    );
    let cmps: Vec<&Comparison> = variants.iter().map(|v| &v.comparison).collect();
    let mut ids: Vec<String> = Vec::new();
    for r in &runs {
        for res in &r.results {
            if !ids.contains(&res.id) {
                ids.push(res.id.clone());
            }
        }
    }
    let cols: Vec<String> = runs.iter().map(|r| r.variant.clone()).collect();
    page.push_str("<div class=\"charts\">");
    for inst in Figure::ALL {
        let mut any = false;
        let cells: Vec<Vec<Option<svg::Cell>>> = ids
            .iter()
            .map(|id| {
                let b = base
                    .results
                    .iter()
                    .find(|x| &x.id == id)
                    .and_then(|x| inst.per_op(x));
                runs.iter()
                    .zip(&cmps)
                    .enumerate()
                    .map(|(k, (run, c))| {
                        let v = run
                            .results
                            .iter()
                            .find(|x| &x.id == id)
                            .and_then(|x| inst.per_op(x))?;
                        let b = b.filter(|b| *b > 0.0)?;
                        if k > 0 {
                            any = true;
                        }
                        let row = c.rows.iter().find(|r| &r.id == id && r.instrument == inst);
                        let unsettled = row.and_then(|r| match r.verdict {
                            Verdict::Unresolved => Some(("?", format!("unresolved: {}", r.reason))),
                            Verdict::Placement => Some(("≈", format!("placement: {}", r.reason))),
                            _ => None,
                        });
                        Some(svg::Cell {
                            ratio: v / b,
                            significant: row.is_some_and(|r| r.verdict.is_significant()),
                            unsettled,
                        })
                    })
                    .collect()
            })
            .collect();
        if any {
            // Ids no variant has this figure of (a load row `SCENARIO@Nc` in the
            // instruction-count map, say) would be rows of dashes. An id that only some variants
            // measured stays: its row says which did not.
            let measured = |id: &String| {
                runs.iter().any(|run| {
                    run.results
                        .iter()
                        .any(|x| &x.id == id && inst.per_op(x).is_some())
                })
            };
            let (rows, cells): (Vec<String>, Vec<Vec<Option<svg::Cell>>>) = ids
                .iter()
                .cloned()
                .zip(cells)
                .filter(|(id, _)| measured(id))
                .unzip();
            let _ = write!(
                page,
                "<figure><figcaption>{}: ratio to {}</figcaption>{}</figure>",
                inst.title(),
                escape(&base.variant),
                svg::heatmap(&rows, &cols, &cells)
            );
        }
    }
    page.push_str("</div>");
}
