//! Each instrument's slice of the reports: the section it adds to a group's counters table
//! (terminal run report), its notes under a run's terminal table, the columns it adds to the
//! HTML overview, the facts and tables it adds to its scenario's section of the HTML page, how
//! that page's provenance line names what measured it, and the sections of its own a run's
//! terminal table ends with and the HTML page holds ([`Slice`]). One module per
//! instrument, named like its folder in the registry (`costbench_record::for_each_instrument!`),
//! which expands here into the `mod` lines and [`slice`]; the renderers loop over
//! [`Instrument::ALL`] and name no instrument whose rows live here.
//!
//! Pure, like the rest of this crate: each piece is a function of results to text.

use costbench_judge::compare::Comparison;
use costbench_record::instrument::Instrument;
use costbench_record::model::{RunRecord, ScenarioResult};

/// One row of a counters table: its label, then one cell per column.
pub(crate) type Row = (String, Vec<String>);

/// A section of a counters table: its title and rows.
pub(crate) type Section = (String, Vec<Row>);

/// The reports' half of one instrument's slice.
pub(crate) struct Slice {
    /// Its section of a group's counters table, from the group's results (one column each):
    /// its title and rows. Shown when some cell is not `-`.
    pub counters: Option<fn(&[&ScenarioResult]) -> Section>,
    /// Where its section of the counters table and its name on the HTML page's provenance line
    /// stand among the slices': by rank, the same ranks in the registry's order (`NONE`'s,
    /// `u16::MAX`, last). The counter instruments keep the order those views had before the
    /// slices (cache 10, perf 20, memory 30, DHAT 40; the registry has memory before perf), in
    /// tens so that a new one finds room between two.
    pub rank: u16,
    /// Its notes under a run's terminal table (after the skipped instruments, before the
    /// failures): what the rows cannot say, once for the run; empty when there is none.
    pub run_notes: Option<fn(&RunRecord) -> String>,
    /// Its columns of the HTML page's overview table (after the figures of the instruments
    /// that have no slice here yet), each shown when some result of the run has a value.
    pub overview: &'static [Column],
    /// Its facts (name, value) in a result's section of the HTML page, after the figures of the
    /// instruments that have no slice here yet; empty without its figure.
    pub facts: fn(&ScenarioResult) -> Vec<(&'static str, String)>,
    /// Its tables in a result's section of the HTML page, after the explanations of a change
    /// and before the figures of the instruments that have no slice here yet; nothing without
    /// its figure.
    pub tables: Option<fn(&mut String, &ScenarioResult)>,
    /// What measured it, as the HTML page's provenance line says, when a result has its figure.
    pub measured_by: Option<&'static str>,
    /// The section a run's terminal table ends with (after the budgets); empty when no result
    /// has its figure.
    pub run_terminal: Option<fn(&RunRecord) -> String>,
    /// Its section of the HTML page (after the overview), linked from the page's navigation when
    /// some result of the run shown has its figure.
    pub run_html: Option<RunSection>,
    /// The threshold `compare`'s table says its unchanged rows were within ("0.2 %", after
    /// "icount within"), when some compared row is a figure of it; `None` leaves it out of that
    /// summary.
    pub within: Option<fn(&Comparison) -> String>,
}

/// A column of the HTML page's overview table: its header and a result's value, sortable.
pub(crate) struct Column {
    /// The header cell's text.
    pub header: &'static str,
    /// The value of a result, if it has one (an empty cell otherwise, which sorts last).
    pub value: fn(&ScenarioResult) -> Option<f64>,
    /// How the cell shows the value.
    pub fmt: fn(f64) -> String,
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

impl Slice {
    /// A slice that adds nothing to the reports.
    pub(crate) const NONE: Slice = Slice {
        counters: None,
        rank: u16::MAX,
        run_notes: None,
        overview: &[],
        facts: |_| Vec::new(),
        tables: None,
        measured_by: None,
        run_terminal: None,
        run_html: None,
        within: None,
    };
}

/// One `mod` line per instrument of the registry, and the table of their slices.
macro_rules! slices {
    ($( $(#[$doc:meta])* $variant:ident($folder:ident) { $($field:tt)* } ),* $(,)?) => {
        $( mod $folder; )*

        /// The reports' slice of `i`.
        pub(crate) fn slice(i: Instrument) -> &'static Slice {
            match i {
                $( Instrument::$variant => &$folder::SLICE, )*
            }
        }
    };
}

costbench_record::for_each_instrument!(slices);

/// Whether a result has figures that some instrument's section of the counters table shows.
pub(crate) fn has_counters(r: &ScenarioResult) -> bool {
    Instrument::ALL
        .into_iter()
        .any(|i| slice(i).counters.is_some() && r.has_figure(i.name()))
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

/// The notes the slices add under a run's terminal table, in the registry's order.
pub(crate) fn run_notes(run: &RunRecord) -> String {
    Instrument::ALL
        .into_iter()
        .filter_map(|i| slice(i).run_notes)
        .map(|f| f(run))
        .collect()
}

/// The columns the slices add to the HTML overview of `run`, in the registry's order: those
/// some result of the run has a value of.
pub(crate) fn overview_columns(run: &RunRecord) -> Vec<&'static Column> {
    Instrument::ALL
        .into_iter()
        .flat_map(|i| slice(i).overview)
        .filter(|c| run.results.iter().any(|r| (c.value)(r).is_some()))
        .collect()
}

/// The facts the slices add to a result's section of the HTML page, in the registry's order.
pub(crate) fn facts(r: &ScenarioResult) -> Vec<(&'static str, String)> {
    Instrument::ALL
        .into_iter()
        .flat_map(|i| (slice(i).facts)(r))
        .collect()
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
        .filter_map(|i| slice(i).measured_by.filter(|_| r.has_figure(i.name())))
        .collect()
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
            Some((s, run.results.iter().any(|r| r.has_figure(i.name()))))
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
