//! Each instrument's slice of the reports: the section it adds to a group's counters table
//! (terminal run report), its columns of a run's terminal table, what it says of the whole run
//! and its notes under that table and the summary after it, its columns of the HTML page's overview, the facts and tables it adds
//! to its scenario's section of the HTML page (and its chart there), how that page's provenance
//! line names what measured it, the sections of its own a run's terminal table ends with and the
//! HTML page holds, the rows of its own that only its sections show, its measures in Bencher's
//! format, what the markdown report says of its compared rows' thresholds, and what it explains
//! of a comparison's changes ([`Slice`]). One module per
//! instrument, named like its folder in the registry (`costbench_record::for_each_instrument!`),
//! which expands here into the `mod` lines and [`slice`]; the renderers loop over
//! [`Instrument::ALL`] and name no instrument whose rows live here.
//!
//! Pure, like the rest of this crate: each piece is a function of results to text.

use costbench_judge::compare::{self, Comparison};
use costbench_record::fmt::fmt_threshold;
use costbench_record::instrument::{Figure, Instrument};
use costbench_record::model::{RunRecord, ScenarioResult};
use std::collections::HashMap;
use std::path::Path;

/// One row of a counters table: its label, then one cell per column.
pub(crate) type Row = (String, Vec<String>);

/// A section of a counters table: its title and rows.
pub(crate) type Section = (String, Vec<Row>);

/// Appends a chart to a result's section of the HTML page, with the baseline's result (and its
/// run) when there is one.
pub(crate) type Chart = fn(&mut String, &ScenarioResult, Option<(&RunRecord, &ScenarioResult)>);

/// A measure in Bencher Metric Format: its name and its JSON.
pub(crate) type Measure = (&'static str, serde_json::Value);

/// The reports' half of one instrument's slice.
pub(crate) struct Slice {
    /// Its section of a group's counters table, from the group's results (one column each):
    /// its title and rows. Shown when some cell is not `-`.
    pub counters: Option<fn(&[&ScenarioResult]) -> Section>,
    /// Where its section of the counters table and its name on the HTML page's provenance line
    /// stand among the slices': by rank, the same ranks in the registry's order (`NONE`'s,
    /// `u16::MAX`, last). The figures every run table shows come first (1 and 2); the counter
    /// instruments keep the order those views had before the slices (cache 10, perf 20, memory
    /// 30, DHAT 40; the registry has memory before perf), in tens so that a new one finds room
    /// between two.
    pub rank: u16,
    /// What its figures of the whole run say under a run's terminal table (after the counters
    /// tables, before the skipped instruments: instruction counts' harness residual); empty
    /// when there is nothing.
    pub run_facts: Option<fn(&RunRecord) -> String>,
    /// Its notes under a run's terminal table (after the skipped instruments, before the
    /// failures): what the rows cannot say, once for the run; empty when there is none.
    pub run_notes: Option<fn(&RunRecord) -> String>,
    /// Its columns of the HTML page's overview table, after the id, the ops and the unit, in
    /// the order of the slices' places ([`Slice::place`]) and then the registry's, each shown
    /// when it is shown always or some result of the run has a value.
    pub overview: &'static [OverviewColumn],
    /// Its facts (name, value) in a result's section of the HTML page, in the order of the
    /// slices' places ([`Slice::place`]: those that stand first before the changes of the
    /// result's compared figures, the others after them); empty without its figure.
    pub facts: fn(&ScenarioResult) -> Vec<(&'static str, String)>,
    /// Its chart in a result's section of the HTML page, right after the facts, against the
    /// baseline's result (and its run) when there is one; nothing without its figure.
    pub chart: Option<Chart>,
    /// Its tables (or lists) in a result's section of the HTML page, after the explanations of
    /// a change and before the failures, in the registry's order (cache's, perf's, the census's
    /// most executed checks); nothing without its figure.
    pub tables: Option<fn(&mut String, &ScenarioResult)>,
    /// What measured it, as the HTML page's provenance line says, when a result has its figure.
    pub measured_by: Option<&'static str>,
    /// The section a run's terminal table ends with (after the budgets); empty when no result
    /// has its figure.
    pub run_terminal: Option<fn(&RunRecord) -> String>,
    /// Its section of the HTML page (after the overview), linked from the page's navigation when
    /// some result of the run shown has its figure.
    pub run_html: Option<RunSection>,
    /// Its section of the HTML page drawn from every build the page shows (after the contracts
    /// section), linked from the navigation before the `run_html` sections.
    pub builds_html: Option<BuildsSection>,
    /// Rows of its own, which only its sections show (throughput's `SCENARIO@Nc`, which have
    /// none of the per-op figures): the run's terminal table, the HTML overview and the
    /// scenario sections leave them out.
    pub own_rows: Option<OwnRows>,
    /// The threshold `compare`'s table says its unchanged rows were within ("0.2 %", after
    /// "icount within"), when some compared row is a figure of it; `None` leaves it out of that
    /// summary.
    pub within: Option<fn(&Comparison) -> String>,
    /// What a row of its figures adds to its threshold cell in the markdown report's tables
    /// (after the threshold), if anything.
    pub threshold_note: Option<fn(&compare::Row) -> String>,
    /// Its measure of a result in Bencher Metric Format (the measure's name and its JSON),
    /// `None` without its figure.
    pub bmf: Option<fn(&ScenarioResult) -> Option<Measure>>,
    /// Whether a result has its figure as the reports see it, where that differs from the
    /// record's answer (`ScenarioResult::has_figure`, which the other hooks ask otherwise): the
    /// census's record counts every result as having it, a row without checks holding none, and
    /// its reports show it only where it was measured.
    pub shows: Option<fn(&ScenarioResult) -> bool>,
    /// Its column of a run's terminal table, after the id, the ops and the unit, in the
    /// registry's order, shown when it is shown always or some result has a cell (a result
    /// without one shows `-`).
    pub run_column: Option<Column>,
    /// The last column of a run's terminal table (left-aligned and ragged), where a failed
    /// result shows `FAILED`: the first slice's in the registry's order that has one.
    pub run_last: Option<Column>,
    /// The section right after `run`'s terminal table (before the budgets; `merge`'s table
    /// leaves it out), with source paths relative to the directory given; empty when no result
    /// has its figure.
    pub run_summary: Option<fn(&RunRecord, Option<&Path>) -> String>,
    /// Where its facts in a result's section of the HTML page and its overview columns stand
    /// among the other slices'.
    pub place: Place,
    /// What it explains of a comparison's changes, where its figure says why a scenario moved
    /// (the census: the checks that moved), in every view of the comparison.
    pub explain: Option<Explain>,
}

/// Where a slice's facts and overview columns stand on the HTML page.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// First: its facts before the changes of the result's compared figures, its overview
    /// columns before every other slice's.
    First,
    /// Beside the figures per op every run has (the census's checks per op): its facts right
    /// after the changes, its overview columns after those of the slices that stand first.
    Early,
    /// After the others: its facts last, its overview columns after the early slices'.
    Late,
}

/// A column of a run's terminal table.
pub(crate) struct Column {
    /// Its header.
    pub header: &'static str,
    /// A result's cell, `None` without its figure.
    pub cell: fn(&ScenarioResult) -> Option<String>,
    /// Whether the table shows it when no result has a cell.
    pub always: bool,
}

/// A column of the HTML page's overview table: its header and a result's value, sortable.
pub(crate) struct OverviewColumn {
    /// The header cell's text.
    pub header: &'static str,
    /// The value of a result, if it has one (an empty cell otherwise, which sorts last).
    pub value: fn(&ScenarioResult) -> Option<f64>,
    /// How the cell shows the value.
    pub fmt: fn(f64) -> String,
    /// Whether the table shows it when no result has a value.
    pub always: bool,
    /// With a baseline, the column of a compared figure's change that follows it: its header
    /// and the figure.
    pub change: Option<(&'static str, Figure)>,
}

/// An instrument's part of what explains a comparison's changes, after the functions whose own
/// cost changed and before the machine code.
pub(crate) struct Explain {
    /// Its sections for the terminal, one per scenario it explains, in the comparison's order:
    /// (id, text).
    pub terminal: fn(&Comparison) -> Vec<(String, String)>,
    /// Appends its section of the markdown report.
    pub markdown: fn(&mut String, &Comparison),
    /// Appends its part of scenario `id`'s section of the HTML page.
    pub html: fn(&mut String, &Comparison, &str),
}

/// An instrument's section of the HTML page.
pub(crate) struct RunSection {
    /// The section's `id`, which the navigation links to.
    pub anchor: &'static str,
    /// The navigation's name for it.
    pub title: &'static str,
    /// Appends the section to the page (nothing when no result has its figure).
    pub section: fn(&mut String, &RunRecord),
}

/// One build a section of the HTML page draws from: its label ("baseline", a variant's name)
/// and its run.
pub(crate) type Build<'a> = (String, &'a RunRecord);

/// The rows of the page's comparison, by measured id and compared figure.
pub(crate) type ChangeRows<'a> = HashMap<(&'a str, Figure), &'a compare::Row>;

/// An instrument's section of the HTML page drawn from every build the page shows: the
/// variants of a matrix, else the baseline and the candidate of a comparison, else the run
/// shown (which builds they are is the page's to decide).
pub(crate) struct BuildsSection {
    /// The section's `id`, which the navigation links to.
    pub anchor: &'static str,
    /// The navigation's name for it.
    pub title: &'static str,
    /// Whether some build has something for it: the page then holds and links the section.
    pub any: fn(&[Build<'_>]) -> bool,
    /// Appends the section to the page: the builds, which of them is the run shown, and the
    /// comparison's rows (what it judged of the rows the section shows is listed there).
    pub section: fn(&mut String, &[Build<'_>], usize, &ChangeRows<'_>),
}

/// Rows of an instrument's own, which the results table, the HTML overview and the scenario
/// sections leave out and its sections show.
pub(crate) struct OwnRows {
    /// Whether a result is one of them.
    pub is: fn(&ScenarioResult) -> bool,
    /// Their section of a run's terminal table, right after its results table (before the
    /// counters tables); empty when the run has none.
    pub terminal: fn(&RunRecord) -> String,
    /// What the HTML overview says under its table when the run shown has `n` of them (more
    /// than none): how many, and where they are.
    pub overview_note: fn(usize) -> String,
}

impl Slice {
    /// A slice that adds nothing to the reports.
    pub(crate) const NONE: Slice = Slice {
        counters: None,
        rank: u16::MAX,
        run_facts: None,
        run_notes: None,
        overview: &[],
        facts: |_| Vec::new(),
        chart: None,
        tables: None,
        measured_by: None,
        run_terminal: None,
        run_html: None,
        builds_html: None,
        own_rows: None,
        within: None,
        threshold_note: None,
        bmf: None,
        shows: None,
        run_column: None,
        run_last: None,
        run_summary: None,
        place: Place::Late,
        explain: None,
    };
}

/// One `mod` line per instrument of the registry, and the table of their slices.
macro_rules! slices {
    ($( $(#[$doc:meta])* $variant:ident($folder:ident) { $($field:tt)* } ),* $(,)?) => {
        $( pub(crate) mod $folder; )*

        /// The reports' slice of `i`.
        pub(crate) fn slice(i: Instrument) -> &'static Slice {
            match i {
                $( Instrument::$variant => &$folder::SLICE, )*
            }
        }
    };
}

costbench_record::for_each_instrument!(slices);

/// Whether `r` has the figure of `i` as the reports see it (the slice's `shows`, else the
/// record's `has_figure`).
fn shows(i: Instrument, r: &ScenarioResult) -> bool {
    match slice(i).shows {
        Some(shows) => shows(r),
        None => r.has_figure(i.name()),
    }
}

/// Whether a result has figures that some instrument's section of the counters table shows.
pub(crate) fn has_counters(r: &ScenarioResult) -> bool {
    Instrument::ALL
        .into_iter()
        .any(|i| slice(i).counters.is_some() && shows(i, r))
}

/// The instruments in the order of their slices' ranks ([`Slice::rank`]), the same ranks in
/// the registry's order.
fn by_rank() -> [Instrument; Instrument::ALL.len()] {
    let mut all = Instrument::ALL;
    all.sort_by_key(|i| slice(*i).rank);
    all
}

/// The sections of the counters table that the slices add, in the order of their ranks.
pub(crate) fn counters_sections(cols: &[&ScenarioResult]) -> Vec<Section> {
    by_rank()
        .into_iter()
        .filter_map(|i| slice(i).counters.map(|f| f(cols)))
        .collect()
}

/// What the slices say of the whole run under its terminal table, in the registry's order.
pub(crate) fn run_facts(run: &RunRecord) -> String {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).run_facts)
        .map(|f| f(run))
        .collect()
}

/// The notes the slices add under a run's terminal table, in the registry's order.
pub(crate) fn run_notes(run: &RunRecord) -> String {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).run_notes)
        .map(|f| f(run))
        .collect()
}

/// The slices' columns of the HTML page's overview that are shown always or that some result of
/// `run` has a value in, by the slices' places ([`Slice::place`]), each place in the registry's
/// order.
pub(crate) fn overview_columns(run: &RunRecord) -> Vec<&'static OverviewColumn> {
    [Place::First, Place::Early, Place::Late]
        .into_iter()
        .flat_map(|place| {
            Instrument::ALL
                .into_iter()
                .filter(move |i| slice(*i).place == place)
        })
        .flat_map(|i| slice(i).overview)
        .filter(|c| c.always || run.results.iter().any(|r| (c.value)(r).is_some()))
        .collect()
}

/// The facts the slices of `place` add to a result's section of the HTML page, in the
/// registry's order.
pub(crate) fn facts(r: &ScenarioResult, place: Place) -> Vec<(&'static str, String)> {
    Instrument::ALL
        .into_iter()
        .filter(|i| slice(*i).place == place)
        .flat_map(|i| (slice(i).facts)(r))
        .collect()
}

/// Appends the charts the slices add to a result's section of the HTML page, in the registry's
/// order.
pub(crate) fn charts(
    page: &mut String,
    r: &ScenarioResult,
    base: Option<(&RunRecord, &ScenarioResult)>,
) {
    for f in Instrument::ALL.into_iter().filter_map(|i| slice(i).chart) {
        f(page, r, base);
    }
}

/// Appends the tables the slices add to a result's section of the HTML page, in the registry's
/// order.
pub(crate) fn tables(page: &mut String, r: &ScenarioResult) {
    for f in Instrument::ALL.into_iter().filter_map(|i| slice(i).tables) {
        f(page, r);
    }
}

/// What measured a result, as the slices name it, in the order of their ranks.
pub(crate) fn measured_by(r: &ScenarioResult) -> Vec<&'static str> {
    by_rank()
        .into_iter()
        .filter_map(|i| slice(i).measured_by.filter(|_| shows(i, r)))
        .collect()
}

/// The slices' columns of `run`'s terminal table that are shown always or that some result has
/// a cell in, in the registry's order.
pub(crate) fn run_columns(run: &RunRecord) -> Vec<&'static Column> {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).run_column.as_ref())
        .filter(|c| c.always || run.results.iter().any(|r| (c.cell)(r).is_some()))
        .collect()
}

/// The last column of a run's terminal table ([`Slice::run_last`]), if a slice has one.
pub(crate) fn run_last() -> Option<&'static Column> {
    Instrument::ALL
        .into_iter()
        .find_map(|i| slice(i).run_last.as_ref())
}

/// The measures of a result in Bencher Metric Format the slices give, in the registry's order.
pub(crate) fn bmf(r: &ScenarioResult) -> Vec<Measure> {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).bmf)
        .filter_map(|f| f(r))
        .collect()
}

/// What the markdown report's folded negligible changes of `figure` say they were within: its
/// slice's `within`, else the threshold the figure is judged against.
pub(crate) fn markdown_within(c: &Comparison, figure: Figure) -> String {
    match slice(figure.instrument()).within {
        Some(within) => within(c),
        None => fmt_threshold(c.options.threshold_pct(figure)),
    }
}

/// What the row's figure's slice adds to its threshold cell in the markdown report.
pub(crate) fn threshold_note(row: &compare::Row) -> String {
    slice(row.instrument.instrument())
        .threshold_note
        .map(|f| f(row))
        .unwrap_or_default()
}

/// The summaries the slices put right after `run`'s terminal table, in the registry's order.
pub(crate) fn run_summaries(run: &RunRecord, base: Option<&Path>) -> String {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).run_summary)
        .map(|f| f(run, base))
        .collect()
}

/// The slices' explanations of a comparison's changes, in the registry's order.
pub(crate) fn explains() -> impl Iterator<Item = &'static Explain> {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).explain.as_ref())
}

/// The sections the slices end a run's terminal table with, in the registry's order.
pub(crate) fn run_terminal(run: &RunRecord) -> String {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).run_terminal)
        .map(|f| f(run))
        .collect()
}

/// The slices' sections of the HTML page, in the registry's order, with whether the page's
/// navigation links to each (some result of `run` has the instrument's figure).
pub(crate) fn run_html(run: &RunRecord) -> Vec<(&'static RunSection, bool)> {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| {
            let s = slice(i).run_html.as_ref()?;
            Some((s, run.results.iter().any(|r| shows(i, r))))
        })
        .collect()
}

/// The slices' sections of the HTML page drawn from every build, those some build has something
/// for, in the registry's order.
pub(crate) fn builds_html(builds: &[Build]) -> Vec<&'static BuildsSection> {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).builds_html.as_ref())
        .filter(|s| (s.any)(builds))
        .collect()
}

/// Whether `r` is a row of some slice's own ([`Slice::own_rows`]), which only that slice's
/// sections show.
pub(crate) fn own_row(r: &ScenarioResult) -> bool {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).own_rows.as_ref())
        .any(|o| (o.is)(r))
}

/// The sections of their own rows the slices add after a run's terminal results table, in the
/// registry's order.
pub(crate) fn own_rows_terminal(run: &RunRecord) -> String {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).own_rows.as_ref())
        .map(|o| (o.terminal)(run))
        .collect()
}

/// What the HTML overview says under its table of the rows of the slices' own that it left
/// out, in the registry's order.
pub(crate) fn own_rows_notes(run: &RunRecord) -> String {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).own_rows.as_ref())
        .filter_map(|o| {
            let n = run.results.iter().filter(|r| (o.is)(r)).count();
            (n > 0).then(|| (o.overview_note)(n))
        })
        .collect()
}

/// What `compare`'s table says the unchanged rows were within, one phrase per instrument that
/// says it (its slice's `within`) and has a compared row, in the registry's order:
/// `["icount within 0.2 %", "walltime within 5 %"]`.
pub(crate) fn unchanged_within(c: &Comparison) -> Vec<String> {
    Instrument::ALL
        .into_iter()
        .filter(|i| c.rows.iter().any(|r| r.instrument.instrument() == *i))
        .filter_map(|i| {
            let within = slice(i).within?;
            Some(format!("{} within {}", i.name(), within(c)))
        })
        .collect()
}
