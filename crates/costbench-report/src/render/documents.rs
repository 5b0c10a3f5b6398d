//! The documents costbench prints and writes, each a [`Render`] through the hooks of the
//! formats' renderers: a finished run ([`RunView`]), a run exported ([`RunExport`]), a
//! comparison with or without the gate's verdict ([`ComparisonView`]), the variant matrix
//! ([`MatrixView`]), Miri's report ([`MiriView`]), the census of a binary ([`CensusView`]), the
//! history listing ([`HistoryView`]), the HTML page ([`Page`]) and the advice of `advise`
//! ([`AdviceView`]).
//!
//! A document is plain data: which formats it renders and how is the renderers' to say (one file
//! per format beside this one), so that the runner's sink (and its `--format` check) asks the
//! document rather than matching formats itself. What a document needs from outside (a directory
//! to shorten paths against, the time of a page, a line naming where results went) is given to
//! it.

use super::{ChangesView, Doc, Format, Render};
use costbench_judge::check::Gate;
use costbench_judge::compare::Comparison;
use costbench_judge::variants::Matrix;
use costbench_record::history::{Metric, RunSummary, SeriesPoint};
use costbench_record::instrument::census::{Guard, StaticCensus};
use costbench_record::model::miri::MiriReport;
use costbench_record::model::RunRecord;
use std::path::Path;

/// A finished run as `run` and `merge` print it: the per-op table (with the instruments'
/// summaries after it for `run`) and a closing line on where the results are, or the run
/// record; with a [`Page`], its HTML page (`run --html`).
#[derive(Debug)]
pub struct RunView<'a> {
    /// The run.
    pub record: &'a RunRecord,
    /// Whether the table is followed by the instruments' summaries of the run (what their
    /// slices of the reports put there), with paths relative to `base`.
    pub summaries: bool,
    /// Directory the summaries' paths are shortened against.
    pub base: Option<&'a Path>,
    /// Lines after the table (where the results and the report are).
    pub footer: String,
    /// The run's HTML page, gathered by the runner.
    pub page: Option<Page<'a>>,
}

/// A run as `export` prints it: the run record as a JSON value (keys in order), or Bencher
/// Metric Format.
#[derive(Debug, Clone, Copy)]
pub struct RunExport<'a>(pub &'a RunRecord);

/// A comparison (`compare`) or a comparison with the gate's verdict (`check`).
#[derive(Debug, Clone, Copy)]
pub struct ComparisonView<'a> {
    /// The comparison.
    pub comparison: &'a Comparison,
    /// The gate's verdict, for `check`.
    pub gate: Option<&'a Gate>,
    /// Colours of the table.
    pub styling: crate::style::Styling,
    /// costbench.toml's path relative to the repository root, if it exists: GitHub's
    /// annotations of hard limits name it.
    pub config_file: Option<&'a str>,
}

/// The variant matrix (`variants`, `run --variant`, `merge` of variants), the table followed by
/// a line on where the results are.
#[derive(Debug, Clone, Copy)]
pub struct MatrixView<'a> {
    /// The matrix.
    pub matrix: &'a Matrix,
    /// Lines after the table.
    pub footer: &'a str,
}

/// Miri's report.
#[derive(Debug, Clone, Copy)]
pub struct MiriView<'a>(pub &'a MiriReport);

/// The census of a binary, the guards a filter kept.
#[derive(Debug, Clone, Copy)]
pub struct CensusView<'a> {
    /// The census.
    pub census: &'a StaticCensus,
    /// The guards shown.
    pub guards: &'a [&'a Guard],
    /// Directory source paths are shortened against.
    pub base: Option<&'a Path>,
    /// Which guards are shown, when not all of the binary's (the table's second line).
    pub scope: Option<&'a str>,
}

/// What `history` lists: the recorded runs, or one id's series of one metric.
#[derive(Debug, Clone, Copy)]
pub enum HistoryView<'a> {
    /// The recorded runs, newest first.
    Runs(&'a [RunSummary]),
    /// One measured id's figures over the runs.
    Series {
        /// The measured id.
        id: &'a str,
        /// The metric.
        metric: Metric,
        /// The figures, oldest first.
        points: &'a [SeriesPoint],
    },
}

/// The HTML page of runs, with the changes `comparison` found and judged `history` series (the
/// runner gathers them): compares each variant with the baseline variant as `costbench compare`
/// would, then renders.
#[derive(Debug, Clone, Copy)]
pub struct Page<'a> {
    /// The runs, the last one shown.
    pub runs: &'a [RunRecord],
    /// The first run against the last, when they are of one variant.
    pub comparison: Option<&'a Comparison>,
    /// The history charts.
    pub history: &'a [crate::html::History],
    /// When the page was made (RFC 3339).
    pub generated_at: &'a str,
}

/// Candidate changes of the user's crate, each measured alone (`advise`).
#[derive(Debug, Clone, Copy)]
pub struct AdviceView<'a>(pub &'a costbench_judge::advice::Advice);

/// What `history backfill` did, commit by commit.
#[derive(Debug, Clone, Copy)]
pub struct BackfillView<'a>(pub &'a costbench_record::history::BackfillSummary);

/// Each document renders through its hook of every format's renderer.
macro_rules! rendered_by {
    ($($doc:ident => $kind:ident . $hook:ident,)*) => {$(
        impl Render for $doc<'_> {
            fn formats(&self) -> Vec<Format> {
                Doc::$kind.formats()
            }

            fn render(&self, format: Format) -> Option<String> {
                format.renderer().$hook().map(|h| (h.render)(self))
            }
        }
    )*};
}

rendered_by! {
    RunExport => Export.export,
    ComparisonView => Comparison.comparison,
    MatrixView => Matrix.matrix,
    MiriView => Miri.miri,
    CensusView => Census.census,
    HistoryView => History.history,
    Page => Page.page,
    ChangesView => Changes.changes,
    AdviceView => Advice.advice,
    BackfillView => Backfill.backfill,
}

/// A run renders its own formats and, with a page, the page's (`run --html`).
impl Render for RunView<'_> {
    fn formats(&self) -> Vec<Format> {
        let mut formats = Doc::Run.formats();
        if let Some(page) = &self.page {
            formats.extend(page.formats());
        }
        formats
    }

    fn render(&self, format: Format) -> Option<String> {
        match format.renderer().run() {
            Some(h) => Some((h.render)(self)),
            None => self.page.as_ref()?.render(format),
        }
    }
}

/// The runs of the variants matrix: the last run of every variant, in order of each variant's
/// first appearance (the first is the baseline variant). Empty with fewer than two variants.
pub fn variant_runs(runs: &[RunRecord]) -> Vec<&RunRecord> {
    let mut order: Vec<&str> = Vec::new();
    for r in runs {
        if !order.contains(&r.variant.as_str()) {
            order.push(&r.variant);
        }
    }
    if order.len() < 2 {
        return Vec::new();
    }
    order
        .iter()
        .map(|v| {
            runs.iter()
                .rev()
                .find(|r| r.variant == *v)
                .expect("every variant comes from a run")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::compare::{self, noise::HistoricThresholds, CompareOptions};
    use costbench_record::testing::{record, scenario, with_icount};

    /// Every document renders exactly the formats it lists: the sink and `--format` trust
    /// `formats()` to refuse a format before anything is built.
    #[test]
    fn documents_render_exactly_the_formats_they_list() {
        let a = record("a", vec![with_icount(scenario("x"), 100.0)]);
        let b = record("b", vec![with_icount(scenario("x"), 110.0)]);
        let cmp = compare::compare_with(
            &a,
            &b,
            &CompareOptions::default(),
            &HistoricThresholds::default(),
        );
        let gate = costbench_judge::check::evaluate(&cmp, &b, &Default::default());
        let runs = [a.clone(), b.clone()];
        let page = Page {
            runs: &runs,
            comparison: Some(&cmp),
            history: &[],
            generated_at: "2026-01-01T00:00:00Z",
        };
        let docs: Vec<Box<dyn Render + '_>> = vec![
            Box::new(RunView {
                record: &a,
                summaries: true,
                base: None,
                footer: "results: out\n".into(),
                page: None,
            }),
            Box::new(RunView {
                record: &a,
                summaries: false,
                base: None,
                footer: String::new(),
                page: Some(page),
            }),
            Box::new(RunExport(&a)),
            Box::new(ComparisonView {
                comparison: &cmp,
                gate: None,
                styling: crate::style::Styling::Plain,
                config_file: None,
            }),
            Box::new(ComparisonView {
                comparison: &cmp,
                gate: Some(&gate),
                styling: crate::style::Styling::Plain,
                config_file: None,
            }),
            Box::new(HistoryView::Runs(&[])),
            Box::new(page),
        ];
        for doc in &docs {
            for &f in Format::ALL {
                assert_eq!(
                    doc.render(f).is_some(),
                    doc.formats().contains(&f),
                    "{f} of a document offering {:?}",
                    doc.formats()
                );
            }
        }
        let table = docs[0].render(Format::Table).unwrap();
        assert!(table.starts_with(&crate::terminal::table(&a)));
        assert!(table.ends_with("results: out\n"));
        // check's JSON carries the verdict; compare's is the comparison alone.
        assert!(docs[4]
            .render(Format::Json)
            .unwrap()
            .contains("costbench-check"));
        assert!(!docs[3]
            .render(Format::Json)
            .unwrap()
            .contains("costbench-check"));
        // JSON ends where the document ends: a file holds exactly it.
        assert!(!docs[2].render(Format::Json).unwrap().ends_with('\n'));
    }
}
