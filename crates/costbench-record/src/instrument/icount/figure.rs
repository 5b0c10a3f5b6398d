//! Instruction counts' figure in the run record: the key `icount` of a result ([`Icount`]),
//! with the counts of extra runs under other data placements ([`IcountPlacement`]). Plain serde
//! types, apart from the slice (`super`) so that the record's types can hold it without
//! importing the functions over results.

// As in the record's other types (`model`), some fields carry no doc comment yet; the book
// lists what `run.json` holds (docs/reference/output.md).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Icount {
    /// Instructions executed by one run of the measured body (callgrind's Ir).
    pub ir: u64,
    pub ir_per_op: f64,
    /// Callgrind's output for this id, relative to the output directory.
    pub callgrind_out: String,
    /// Counts of extra runs with the heap and stack the body starts from shifted (`check` runs
    /// them for ids whose count changed): how far the count moves with data placement alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<IcountPlacement>,
}

/// Instruction counts of one id under several data placements (see [`Icount::placement`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IcountPlacement {
    /// Instructions per op of each perturbed run, in perturbation order (the unperturbed run's
    /// figure is [`Icount::ir_per_op`], not repeated here).
    pub ir_per_op: Vec<f64>,
    /// The perturbation of each run (the child's `--perturb` argument), same order.
    pub perturbations: Vec<u32>,
}
