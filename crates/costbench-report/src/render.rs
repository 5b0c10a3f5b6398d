//! The documents costbench prints and writes, each a [`Render`] over the renderers of this
//! crate: a finished run ([`RunView`]), a run exported ([`RunExport`]), a comparison with or
//! without the gate's verdict ([`ComparisonView`]), the variant matrix ([`MatrixView`]),
//! Miri's report ([`MiriView`]), the census of a binary ([`CensusView`]), the history listing
//! ([`HistoryView`]) and the HTML page ([`Page`]).
//!
//! Each document says which formats it renders, so that the runner's sink (and its `--format`
//! check) asks the document rather than matching formats itself. A new format of a document is
//! one arm here beside the function that renders it. Like the rest of this crate: no files, no
//! printing, no clocks; what a document needs from outside (a directory to shorten paths
//! against, the time of a page, a line naming where results went) is given to it.

use costbench_judge::check::Gate;
use costbench_judge::compare::noise::HistoricThresholds;
use costbench_judge::compare::{self, CompareOptions, Comparison};
use costbench_judge::variants::Matrix;
use costbench_record::census::{Guard, StaticCensus};
use costbench_record::history::{Metric, RunSummary, SeriesPoint};
use costbench_record::model::miri::MiriReport;
use costbench_record::model::RunRecord;
use costbench_record::render::{Format, Render};
use std::path::Path;

/// Whether `format` is one of `doc`'s formats.
fn offered(doc: &dyn Render, format: Format) -> bool {
    doc.formats().contains(&format)
}

/// A finished run as `run` and `merge` print it: the per-op table (with the census summary for
/// `run`) and a closing line on where the results are, or the run record; with a [`Page`], its
/// HTML page (`run --html`).
#[derive(Debug)]
pub struct RunView<'a> {
    /// The run.
    pub record: &'a RunRecord,
    /// Whether the table ends with the summary of executed checks (the census), with paths
    /// relative to `base`.
    pub census_summary: bool,
    /// Directory the census summary's paths are shortened against.
    pub base: Option<&'a Path>,
    /// Lines after the table (where the results and the report are).
    pub footer: String,
    /// The run's HTML page, gathered by the runner.
    pub page: Option<Page<'a>>,
}

impl RunView<'_> {
    /// The formats of a run on stdout.
    pub const FORMATS: &'static [Format] = &[Format::Table, Format::Json];
}

impl Render for RunView<'_> {
    fn formats(&self) -> &'static [Format] {
        match self.page {
            Some(_) => &[Format::Table, Format::Json, Format::Html],
            None => Self::FORMATS,
        }
    }

    fn render(&self, format: Format) -> Option<String> {
        match format {
            Format::Table => {
                let mut s = crate::terminal::table(self.record);
                if self.census_summary {
                    s += &crate::census::dynamic_summary(self.record, self.base);
                }
                Some(s + &self.footer)
            }
            Format::Json => Some(
                serde_json::to_string_pretty(self.record).expect("a run record always serialises"),
            ),
            Format::Html => self.page.as_ref()?.render(Format::Html),
            _ => None,
        }
    }
}

/// A run as `export` prints it: the run record as a JSON value (keys in order), or Bencher
/// Metric Format.
#[derive(Debug, Clone, Copy)]
pub struct RunExport<'a>(pub &'a RunRecord);

impl RunExport<'_> {
    /// The formats of `export`.
    pub const FORMATS: &'static [Format] = &[Format::Json, Format::Bmf];
}

impl Render for RunExport<'_> {
    fn formats(&self) -> &'static [Format] {
        Self::FORMATS
    }

    fn render(&self, format: Format) -> Option<String> {
        let value = match format {
            Format::Json => serde_json::to_value(self.0).expect("a run record always serialises"),
            Format::Bmf => crate::bmf::bmf(self.0),
            _ => return None,
        };
        Some(serde_json::to_string_pretty(&value).expect("JSON values serialise"))
    }
}

/// A comparison (`compare`) or a comparison with the gate's verdict (`check`).
#[derive(Debug, Clone, Copy)]
pub struct ComparisonView<'a> {
    /// The comparison.
    pub comparison: &'a Comparison,
    /// The gate's verdict, for `check`.
    pub gate: Option<&'a Gate>,
    /// Colours of the table.
    pub styling: crate::style::Styling,
}

impl ComparisonView<'_> {
    /// The formats of a comparison.
    pub const FORMATS: &'static [Format] =
        &[Format::Table, Format::Markdown, Format::Json, Format::Junit];
}

impl Render for ComparisonView<'_> {
    fn formats(&self) -> &'static [Format] {
        Self::FORMATS
    }

    fn render(&self, format: Format) -> Option<String> {
        let (cmp, gate) = (self.comparison, self.gate);
        Some(match format {
            Format::Table => {
                let mut s = crate::comparison::terminal_styled(cmp, self.styling);
                if let Some(gate) = gate {
                    s += &crate::check::terminal_styled(gate, self.styling);
                }
                s
            }
            Format::Markdown => match gate {
                Some(gate) => crate::markdown::check(cmp, gate),
                None => crate::markdown::comparison(cmp),
            },
            Format::Json => match gate {
                Some(gate) => serde_json::to_string_pretty(&serde_json::json!({
                        // 2: the gate's `notes` (unresolved and placement rows, never gated) and
                        // the comparison's schema 2 (see compare::COMPARISON_SCHEMA_VERSION).
                        "schema": "costbench-check",
                        "schema_version": 2,
                        "passed": gate.passed(),
                        "gate": gate,
                        "comparison": cmp,
                }))
                .expect("a check always serialises"),
                None => serde_json::to_string_pretty(cmp).expect("a comparison always serialises"),
            },
            Format::Junit => crate::junit::junit(cmp, gate),
            _ => return None,
        })
    }
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

impl MatrixView<'_> {
    /// The formats of the matrix.
    pub const FORMATS: &'static [Format] = &[Format::Table, Format::Json, Format::Markdown];
}

impl Render for MatrixView<'_> {
    fn formats(&self) -> &'static [Format] {
        Self::FORMATS
    }

    fn render(&self, format: Format) -> Option<String> {
        match format {
            Format::Table => Some(crate::variants::table(self.matrix) + self.footer),
            Format::Json => {
                Some(serde_json::to_string_pretty(self.matrix).expect("the matrix serialises"))
            }
            Format::Markdown => Some(crate::variants::markdown(self.matrix)),
            _ => None,
        }
    }
}

/// Miri's report.
#[derive(Debug, Clone, Copy)]
pub struct MiriView<'a>(pub &'a MiriReport);

impl MiriView<'_> {
    /// The formats of Miri's report.
    pub const FORMATS: &'static [Format] = &[Format::Table, Format::Json];
}

impl Render for MiriView<'_> {
    fn formats(&self) -> &'static [Format] {
        Self::FORMATS
    }

    fn render(&self, format: Format) -> Option<String> {
        match format {
            Format::Table => Some(crate::miri::table(self.0)),
            Format::Json => {
                Some(serde_json::to_string_pretty(self.0).expect("a Miri report always serialises"))
            }
            _ => None,
        }
    }
}

/// The census of a binary, the guards a filter kept.
#[derive(Debug, Clone, Copy)]
pub struct CensusView<'a> {
    /// The census.
    pub census: &'a StaticCensus,
    /// The guards shown.
    pub guards: &'a [&'a Guard],
    /// Directory source paths are shortened against.
    pub base: Option<&'a Path>,
}

impl CensusView<'_> {
    /// The formats of the census.
    pub const FORMATS: &'static [Format] = &[Format::Table, Format::Json];
}

impl Render for CensusView<'_> {
    fn formats(&self) -> &'static [Format] {
        Self::FORMATS
    }

    fn render(&self, format: Format) -> Option<String> {
        match format {
            Format::Table => Some(crate::census::table(self.census, self.guards, self.base)),
            Format::Json => Some(
                serde_json::to_string_pretty(&crate::census::json(self.census, self.guards))
                    .expect("JSON values serialise"),
            ),
            _ => None,
        }
    }
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

impl Render for HistoryView<'_> {
    fn formats(&self) -> &'static [Format] {
        &[Format::Table]
    }

    fn render(&self, format: Format) -> Option<String> {
        (format == Format::Table).then(|| match *self {
            HistoryView::Runs(runs) => crate::history::runs(runs),
            HistoryView::Series { id, metric, points } => {
                crate::history::series(id, metric, points)
            }
        })
    }
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

impl Render for Page<'_> {
    fn formats(&self) -> &'static [Format] {
        &[Format::Html]
    }

    fn render(&self, format: Format) -> Option<String> {
        if !offered(self, format) {
            return None;
        }
        let variants = variant_runs(self.runs);
        let opts = CompareOptions::default();
        let none = HistoricThresholds::default();
        let variants: Vec<crate::html::VariantRun> = variants
            .iter()
            .map(|r| crate::html::VariantRun {
                run: r,
                comparison: compare::compare_with(variants[0], r, &opts, &none),
            })
            .collect();
        Some(crate::html::render(&crate::html::Input {
            runs: self.runs,
            comparison: self.comparison,
            variants: &variants,
            history: self.history,
            generated_at: self.generated_at,
        }))
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
                census_summary: true,
                base: None,
                footer: "results: out\n".into(),
                page: None,
            }),
            Box::new(RunView {
                record: &a,
                census_summary: false,
                base: None,
                footer: String::new(),
                page: Some(page),
            }),
            Box::new(RunExport(&a)),
            Box::new(ComparisonView {
                comparison: &cmp,
                gate: None,
                styling: crate::style::Styling::Plain,
            }),
            Box::new(ComparisonView {
                comparison: &cmp,
                gate: Some(&gate),
                styling: crate::style::Styling::Plain,
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
