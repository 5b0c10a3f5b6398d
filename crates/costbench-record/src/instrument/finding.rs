//! What an instrument found in a measured id that is not a figure but a verdict of its own: a
//! [`Finding`], yielded by its slice ([`Slice::findings`](super::Slice::findings), none for most
//! instruments). A finding that fails ([`Finding::fails`]) breaks `run`, `variants` and `check`
//! (exit 3) whatever the baseline had; one that costbench.toml accepted is listed with its
//! reason and fails nothing. The layers that gate, print and render findings
//! (`costbench-judge`'s gate, `costbench-report`'s terminal, markdown and JUnit views, the
//! command line's `--quiet` lines) read them here, with the words of their instrument's
//! [`FindingSpec`], and name no instrument.

use super::{FindingDetail, Instrument};
use crate::model::{RunRecord, ScenarioResult};
use serde::ser::{SerializeMap, SerializeStruct};

/// How an instrument's slice yields its findings and how every view names them.
#[derive(Debug)]
pub struct FindingSpec {
    /// How the terminal, the `--quiet` lines (in capitals) and JUnit (its suite and its
    /// failures' type) name a finding: `constant-time`.
    pub label: &'static str,
    /// How a markdown table's column names it: `constant time`.
    pub title: &'static str,
    /// The key of the check's JSON gate that lists the failing ones (the accepted ones under
    /// `KEY_accepted`).
    pub json_key: &'static str,
    /// The costbench.toml entries that accept a finding, as the markdown report and `--help`
    /// name them.
    pub allow: &'static str,
    /// What a finding that fails is, for `--help`'s exit codes: `a branch or an address that
    /// depends on a secret`.
    pub what: &'static str,
    /// The findings of one result, in the order the record keeps them.
    pub of: fn(&ScenarioResult) -> Vec<Finding>,
}

/// One finding of one measured id, with what every view says of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The instrument that found it.
    pub instrument: Instrument,
    /// The measured id.
    pub id: String,
    /// Whether it fails the gate and the exit code (not accepted, and of a kind that gates).
    pub fails: bool,
    /// Whether costbench.toml accepted it: listed with its reason, never failing.
    pub accepted: bool,
    /// Where it is, for a JUnit case's name: `benches/ct.rs:12`.
    pub place: String,
    /// One line for reports, with its reason where it was accepted.
    pub line: String,
    /// The frames that led there, innermost first, one line each (a JUnit failure's text).
    pub frames: Vec<String>,
    /// The instrument's own finding, as the check's JSON gate shows it.
    pub detail: FindingDetail,
}

impl Finding {
    /// What its instrument's slice says of findings.
    pub fn spec(&self) -> &'static FindingSpec {
        self.instrument
            .slice()
            .findings
            .as_ref()
            .expect("a finding comes from a slice that yields findings")
    }
}

/// `{"id": ..., "finding": ...}`, as the check's JSON gate has always listed them.
impl serde::Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Finding", 2)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("finding", &self.detail)?;
        st.end()
    }
}

/// Serialises `findings` as one key per instrument that has some (its spec's `json_key`, with
/// `suffix`), in the registry's order: for a flattened field of the check's gate.
pub fn serialize_by_instrument<S: serde::Serializer>(
    findings: &[Finding],
    suffix: &str,
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    for i in Instrument::ALL {
        let of: Vec<&Finding> = findings.iter().filter(|f| f.instrument == i).collect();
        if let (Some(spec), false) = (&i.slice().findings, of.is_empty()) {
            map.serialize_entry(&format!("{}{suffix}", spec.json_key), &of)?;
        }
    }
    map.end()
}

impl RunRecord {
    /// Every finding of the instruments that ran, result by result, in the registry's order.
    pub fn findings(&self) -> impl Iterator<Item = Finding> + '_ {
        self.results.iter().flat_map(|r| {
            Instrument::ALL
                .into_iter()
                .filter_map(|i| i.slice().findings.as_ref())
                .flat_map(move |spec| (spec.of)(r))
        })
    }

    /// The findings that fail the run.
    pub fn failing_findings(&self) -> impl Iterator<Item = Finding> + '_ {
        self.findings().filter(|f| f.fails)
    }

    /// The findings costbench.toml accepted.
    pub fn accepted_findings(&self) -> impl Iterator<Item = Finding> + '_ {
        self.findings().filter(|f| f.accepted)
    }
}
