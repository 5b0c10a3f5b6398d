//! The instruments' typed figures for one measured id, gathered in [`Counters`], which is
//! flattened into the result: one optional key per instrument whose figure is more than one
//! number (its type is its slice's), in the order run.json has always had them, beside the
//! figures of instruments that have no typed field of their own ([`Counters::figures`]); and
//! the type of each instrument's findings ([`FindingDetail`]). Beside the registry, as the
//! registry's list of instruments is: the one place outside a slice that names them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The counter instruments' figures for one measured id. Flattened into [`ScenarioResult`](crate::model::ScenarioResult), so
/// each is an optional key of the result (run.json schema 1 stays readable both ways).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Counters {
    /// `--instrument cache`: callgrind's cache and branch simulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<super::cache::CacheSim>,
    /// `--instrument perf`: hardware counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perf: Option<super::perf::Perf>,
    /// `--instrument memory`: allocation counts and max RSS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<super::memory::Memory>,
    /// `--instrument dhat`: valgrind DHAT's heap totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dhat: Option<super::dhat::Dhat>,
    /// `--instrument constant-time`: memcheck's findings on the secrets the scenario marked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constant_time: Option<super::consttime::ConstantTime>,
    /// The figure of each instrument that has no typed field here, by instrument name: one
    /// number, a count or a measurement (`"figures": {"nulgrind": 7}`). An instrument whose
    /// figure is one number stores it here (`Counters::set`, beside the registry of instruments)
    /// and needs no field of its own.
    /// Absent when empty: records without it read as before, and records of the instruments
    /// above are written as before. A key of its own, not a catch-all for unknown keys.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub figures: BTreeMap<String, FigureValue>,
}

/// An instrument's own finding ([`Finding::detail`](super::Finding::detail)), as the check's JSON
/// gate shows it: one variant per instrument whose slice yields findings, each serialised as
/// its slice's type is.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(untagged)]
pub enum FindingDetail {
    /// `--instrument constant-time`: memcheck's finding.
    ConstantTime(super::consttime::CtFinding),
}

/// One instrument's figure in [`Counters::figures`]: a count (exact, written as an integer) or
/// a measurement.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum FigureValue {
    /// A count: instructions, lines, checks.
    Count(u64),
    /// A measurement or a ratio.
    Measure(f64),
}

impl FigureValue {
    /// The figure as a float, whichever it is.
    pub fn as_f64(self) -> f64 {
        match self {
            FigureValue::Count(n) => n as f64,
            FigureValue::Measure(x) => x,
        }
    }
}

impl From<u64> for FigureValue {
    fn from(n: u64) -> Self {
        FigureValue::Count(n)
    }
}

impl From<f64> for FigureValue {
    fn from(x: f64) -> Self {
        FigureValue::Measure(x)
    }
}
