//! The census's figure in the run record: the key `census` of a result ([`Census`]), the
//! checks executed by kind and the most executed sites. Plain serde types, apart from the slice
//! (`super`) so that the record's types can hold it without importing the functions over
//! results.

// As in the record's other types (`model`), some fields carry no doc comment yet; the book
// lists what `run.json` holds (docs/reference/output.md).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

/// The dynamic census of one measured id: guards (checks that survived optimisation) executed
/// during one run of the measured body, from callgrind's per-instruction counts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Census {
    /// Guard executions, all kinds.
    pub checks: u64,
    pub checks_per_op: f64,
    /// Distinct guards executed at least once.
    pub sites: usize,
    /// Every kind, in report order, zeros included.
    pub by_kind: Vec<CensusKind>,
    /// The most executed guards, most first.
    pub top_sites: Vec<CensusSite>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CensusKind {
    /// `slice-index`, `slice-range`, `str-boundary`, `overflow`, `div-by-zero`, `unwrap`,
    /// `other-panic`, `trap`.
    pub kind: String,
    pub checks: u64,
    pub checks_per_op: f64,
    pub sites: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CensusSite {
    /// Address of the guarding branch in the binary, `0x…`.
    pub address: String,
    pub kind: String,
    pub function: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Innermost first: the check's own line, then each caller it was inlined into with the
    /// line of the call.
    pub inline_chain: Vec<CensusFrame>,
    pub executions: u64,
    pub per_op: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CensusFrame {
    pub function: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
}

impl Census {
    /// Checks per op of the kinds that satisfy `pred`.
    pub fn per_op_where(&self, pred: impl Fn(&str) -> bool) -> (f64, usize) {
        self.by_kind
            .iter()
            .filter(|k| pred(&k.kind))
            .fold((0.0, 0), |(c, s), k| (c + k.checks_per_op, s + k.sites))
    }
}
