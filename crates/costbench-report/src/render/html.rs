//! The self-contained HTML page of runs (`report`, `run --html`): each variant compared with the
//! baseline variant as `costbench compare` would, then the page rendered. Written to a file,
//! not offered on `--format`.

use super::{variant_runs, Hook, Page, Renderer};
use costbench_judge::compare::{self, noise::HistoricThresholds, CompareOptions};

/// The HTML page.
pub(super) struct Html;

impl Renderer for Html {
    fn page<'a>(&self) -> Option<Hook<Page<'a>>> {
        Hook::file_only(page)
    }
}

fn page(p: &Page<'_>) -> String {
    let variants = variant_runs(p.runs);
    let opts = CompareOptions::default();
    let none = HistoricThresholds::default();
    let variants: Vec<crate::html::VariantRun> = variants
        .iter()
        .map(|r| crate::html::VariantRun {
            run: r,
            comparison: compare::compare_with(variants[0], r, &opts, &none),
        })
        .collect();
    crate::html::render(&crate::html::Input {
        runs: p.runs,
        comparison: p.comparison,
        variants: &variants,
        history: p.history,
        generated_at: p.generated_at,
    })
}
