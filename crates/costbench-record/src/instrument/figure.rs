//! The figures a comparison judges and `check` gates: one per-op number of a measured id each,
//! named after the instrument that measured it (memory yields two: bytes allocated and the
//! process's max RSS; throughput two: time per op and p99 latency under load).
//!
//! It owns what describes a figure ([`FigureSpec`]: its name, heading, unit, where it sits in a
//! [`ScenarioResult`], which history series follows it and how it is judged) and the accessors
//! of [`Figure`] that read it. The variants of [`Figure`] are the registry's (each entry lists
//! its instrument's); each spec is its instrument's slice's (`Slice::figures`), so a new figure
//! edits neither this file nor a match. How a change of it is judged is `costbench-judge`'s.

use super::{Figure, Metric};
use crate::model::ScenarioResult;
use std::fmt;

/// How a change of a figure is judged, which picks its default threshold among the judge's
/// options: a new figure says here which it is, and the judge needs no arm of its own for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// An exact count (instructions, simulated cycles, bytes allocated): the instruction-count
    /// threshold, with the placement and history evidence of exact figures.
    Exact,
    /// The process's max RSS: exact in kind, but it moves by whole pages and with the loader's
    /// and allocator's arenas, so it has a threshold of its own.
    Rss,
    /// Median wall time: the wall-time threshold, paired rounds where both sides have them.
    Walltime,
    /// Under load (time per op, p99 latency): the load threshold, judged slice by slice.
    UnderLoad,
}

impl Judged {
    /// Whether the figure is exact in kind (judged as counts are, not as timings are).
    pub fn is_exact(self) -> bool {
        matches!(self, Judged::Exact | Judged::Rss)
    }
}

/// What a compared figure is, as its instrument's slice says it.
#[derive(Debug)]
pub struct FigureSpec {
    /// The figure described (its variant, from the registry's entry).
    pub figure: Figure,
    /// The name used in comparisons, verdicts and on the command line (`--limit`); the same as
    /// its name in JSON (the variant's name in lower case: a test holds them together).
    pub name: &'static str,
    /// A heading for reports.
    pub title: &'static str,
    /// A column heading for its price in the variant matrix ("instructions", "max RSS").
    pub short_title: &'static str,
    /// The unit of a count, where it is one ("Ir", "B"), shown after a whole number; `None`
    /// for a time in nanoseconds.
    pub unit: Option<&'static str>,
    /// How a change of it is judged.
    pub judged: Judged,
    /// What backs a verdict on it, as a comparison's evidence says ("exact instruction counts",
    /// "one figure per run").
    pub evidence: &'static str,
    /// The history series that follows it from run to run, if any: the one its threshold is
    /// learned from and its chart drawn of.
    pub history: Option<Metric>,
    /// A per-op figure with its unit: "2003 Ir", "12.35 ns".
    pub fmt_value: fn(f64) -> String,
    /// The per-op figure of a result, if it was measured.
    pub per_op: fn(&ScenarioResult) -> Option<f64>,
}

impl Figure {
    /// What its instrument's slice says of it.
    pub fn spec(self) -> &'static FigureSpec {
        self.instrument()
            .slice()
            .figures
            .iter()
            .find(|s| s.figure == self)
            .expect("every figure is described by its instrument's slice")
    }

    /// The name used in comparisons, verdicts and on the command line (`--limit`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The history series that follows this figure from run to run, if any: the one its
    /// threshold is learned from and its chart drawn of.
    pub fn history(self) -> Option<Metric> {
        self.spec().history
    }

    /// How a change of it is judged.
    pub fn judged(self) -> Judged {
        self.spec().judged
    }

    /// A heading for reports.
    pub fn title(self) -> &'static str {
        self.spec().title
    }

    /// A per-op figure with its unit: "2003 Ir", "12.35 ns".
    pub fn fmt_value(self, v: f64) -> String {
        (self.spec().fmt_value)(v)
    }

    /// The per-op figure of `r`, if it was measured.
    pub fn per_op(self, r: &ScenarioResult) -> Option<f64> {
        (self.spec().per_op)(r)
    }
}

impl fmt::Display for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
