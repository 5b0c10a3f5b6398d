//! What an instrument's slice owns in the run record, beside its entry in the registry: whether
//! a result has its figure (the one answer completion, unfinished runs and every reader take,
//! through `ScenarioResult::has_figure`), its CSV file of its own, its lines of `counters.csv`
//! and its columns of `memory.csv`, what its compared figures and history series are (their
//! variants are listed in its registry entry), the samples the history keeps beside them, and
//! the findings it yields, if any. Each
//! instrument's module in this folder (named like its folder in the registry) holds its
//! [`Slice`] and, where it has one, its figure's type; the layers of this crate loop over the
//! slices and name no instrument.

use super::{FigureSpec, FindingSpec, MetricSpec};
use crate::csv::{CounterRow, SliceFile};
use crate::model::ScenarioResult;

/// The record's half of one instrument's slice.
#[derive(Debug)]
pub struct Slice {
    /// Whether a result has its figure; `None` for an instrument whose figure is one number
    /// kept in `figures` under its name (`Counters::set`).
    pub has_figure: Option<fn(&ScenarioResult) -> bool>,
    /// Its CSV file of its own in an output directory, if it has one.
    pub csv: Option<SliceFile>,
    /// Its lines of `counters.csv` for a result, after those of the instruments before it in
    /// the registry; `None`: it has none (the file is written when a result has the figure of
    /// any instrument with lines there).
    pub counters_csv: Option<fn(&ScenarioResult) -> Vec<CounterRow>>,
    /// Its columns of `memory.csv`, after those of the instruments before it in the registry;
    /// a result with the figure of any of them has a line there.
    pub memory_csv: &'static [Column],
    /// Its compared figures, one spec per figure its registry entry lists (in any order).
    pub figures: &'static [FigureSpec],
    /// Its history series, one spec per metric its registry entry lists (in any order).
    pub metrics: &'static [MetricSpec],
    /// Its findings, where it judges a measured id by what it found rather than by a figure:
    /// what they do to the gate and the exit code, and how every view names them.
    pub findings: Option<FindingSpec>,
    /// The samples of a result the history keeps beside its series (the store's `samples`
    /// table: nanoseconds per iteration, one per sample), if it has them; one slice at most
    /// has this.
    pub samples: Option<Samples>,
    /// Its figures in the test fixtures' run of every figure (`testing::every_figure`): sets
    /// them on that run's rows, by index, and anything else of the run they show (a skip).
    /// `None`: the fixture shows none of its figures. Test-only.
    #[cfg(any(test, feature = "testing"))]
    pub sample: Option<fn(&mut crate::model::RunRecord)>,
}

/// The samples of a result a slice has the history keep ([`Slice::samples`]).
pub type Samples = fn(&ScenarioResult) -> Option<&[f64]>;

/// One column of a CSV file: its header and a result's cell (`None` leaves it empty).
#[derive(Debug)]
pub struct Column {
    /// The header cell.
    pub header: &'static str,
    /// The cell of a result.
    pub cell: fn(&ScenarioResult) -> Option<String>,
}

impl Slice {
    /// A slice that adds nothing to the record's files, and whose figure is kept in `figures`.
    pub const NONE: Slice = Slice {
        has_figure: None,
        csv: None,
        counters_csv: None,
        memory_csv: &[],
        figures: &[],
        metrics: &[],
        findings: None,
        samples: None,
        #[cfg(any(test, feature = "testing"))]
        sample: None,
    };
}
