//! The static census of a binary as plain data: its [`Guard`]s, each with its inline [`Frame`]s
//! and [`Kind`], and the schema of `costbench census --format json`.
//!
//! Data only. Reading a binary, decoding it and joining it with callgrind's counts is the
//! measuring crate's slice of the census (`instrument::census`); rendering it is the report
//! crate's. The per-id census kept in the run record is [`super::Census`].

use super::classify::Kind;
use serde::Serialize;
use std::path::PathBuf;

/// `schema` of `costbench census --format json`.
pub const SCHEMA: &str = "costbench-census";
/// Bump on any incompatible change of the census JSON.
pub const SCHEMA_VERSION: u32 = 1;
/// Top sites kept per measured id in the run record.
pub const TOP_SITES: usize = 5;

/// One source frame of a guard: innermost (the check's own line) first, then each caller it
/// was inlined into, with the line of the call.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Frame {
    /// The function the frame is in, when the debug info names it.
    pub function: Option<String>,
    /// The frame's source file.
    pub file: Option<String>,
    /// The frame's line.
    pub line: Option<u32>,
}

/// A conditional branch whose failing side only panics: one check that survived optimisation.
#[derive(Debug, Clone, Serialize)]
pub struct Guard {
    /// Address of the branch instruction in the binary (as the ELF file and callgrind give it).
    #[serde(serialize_with = "hex")]
    pub address: u64,
    /// What the guard checks.
    pub kind: Kind,
    /// The function (symbol) the branch is in.
    pub function: String,
    /// The crate the check belongs to: the function's (its first path segment), or, once the
    /// census attributed it, the crate whose source holds it (a library function inlined into
    /// a bench closure is the library's).
    #[serde(rename = "crate")]
    pub krate: String,
    /// Source of the check: the innermost frame's location.
    pub file: Option<String>,
    /// Line of the check: the innermost frame's line.
    pub line: Option<u32>,
    /// Innermost first; a check inlined from a helper names the helper and every caller.
    pub inline_chain: Vec<Frame>,
}

fn hex<S: serde::Serializer>(v: &u64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:#x}"))
}

/// Every guard of a binary.
#[derive(Debug, Clone)]
pub struct StaticCensus {
    /// The binary that was read.
    pub binary: PathBuf,
    /// How many functions were decoded.
    pub functions_scanned: usize,
    /// Sorted by address.
    pub guards: Vec<Guard>,
}
