//! Throughput's figure in the run record: the key `throughput` of a row under load
//! ([`Throughput`], id [`load_id`]), with its latency percentiles, slices and pairing. Plain
//! serde types, apart from the slice (`super`) so that the record's types can hold it without
//! importing the functions over results.

// As in the record's other types (`model`), some fields carry no doc comment yet; the book
// lists what `run.json` holds (docs/reference/output.md).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

/// Id of the throughput row of service scenario `scenario` under `clients` clients.
pub fn load_id(scenario: &str, clients: u32) -> String {
    format!("{scenario}@{clients}c")
}

/// A service scenario under load from one number of clients, measured in rounds (a fresh server
/// and load process each) of equal time slices.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Throughput {
    pub clients: u32,
    /// `closed` (each client sends its next request when the last reply arrived) or `open`
    /// (requests are due at `target_rate`, latency counted from when each was due).
    pub load: String,
    /// Open loop: the rate asked for, ops per second over all clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_rate: Option<f64>,
    pub ops_per_request: u64,
    pub rounds: u32,
    pub slices_per_round: u32,
    pub slice_ms: u64,
    pub warmup_ms: u64,
    /// Requests completed in the measured slices.
    pub requests: u64,
    /// Operations per second over every measured slice (all operations over all their time).
    pub ops_per_sec: f64,
    /// Where a repeat run of this build on this machine is expected to land (from the spread of
    /// the rounds); `None` with fewer than 3 rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_per_sec_repeat: Option<Interval>,
    /// Latency percentiles of every measured request, from the merged HDR histogram.
    pub latency: Latency,
    /// As `ops_per_sec_repeat`, for the 99th percentile of latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_repeat: Option<Interval>,
    /// Operations per second of each round (all its slices), in round order: what paired
    /// comparisons pair.
    #[serde(default)]
    pub round_ops_per_sec: Vec<f64>,
    /// The 99th percentile of latency of each round, in round order.
    #[serde(default)]
    pub round_p99_ns: Vec<f64>,
    /// Every measured slice, round after round.
    pub slices: Vec<LoadSlice>,
    /// The latency distribution as (percentile, nanoseconds) points, for percentile plots:
    /// HdrHistogram's percentile ticks, denser towards the tail.
    pub percentiles: Vec<(f64, f64)>,
    /// Present when this build was measured in alternating slices with other builds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<LoadPairing>,
}

/// A two-sided interval.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
    /// Nominal coverage, e.g. 0.95.
    pub level: f64,
}

/// Latency percentiles in nanoseconds.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Latency {
    pub mean_ns: f64,
    pub p50_ns: f64,
    pub p90_ns: f64,
    pub p99_ns: f64,
    pub p999_ns: f64,
    pub max_ns: f64,
}

/// One measured time slice under load.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct LoadSlice {
    /// 0-based round the slice belongs to.
    pub round: u32,
    pub requests: u64,
    pub ops_per_sec: f64,
    pub p99_ns: f64,
}

/// How the builds of an A/B comparison or a variant matrix took turns under load.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LoadPairing {
    /// Shared by every build of one measuring session: builds with the same id pair slice by
    /// slice.
    pub session: String,
    /// The builds took turns slice by slice through a token ring, every build's server up the
    /// whole time, the first build alternating between rounds.
    pub lockstep: bool,
    /// The code layout each round ran (a link-order seed), in round order; empty when layouts
    /// were not varied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_layouts: Vec<u64>,
}
