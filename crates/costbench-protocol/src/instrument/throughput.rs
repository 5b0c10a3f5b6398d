//! The throughput instrument's messages: the `service` capability (the `serve` and `load`
//! modes) and what a load process writes, [`LoadResult`] (its time slices, each with its
//! requests and their latencies).

use crate::version::Versioned;
use serde::{Deserialize, Serialize};

/// The child understands the `serve` and `load` modes of service scenarios.
pub const CAPABILITY_SERVICE: &str = "service";

/// What `BIN --costbench-child load` writes to its result file: the time slices one load
/// process measured against one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadResult {
    /// [`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION) of the child.
    pub protocol: u32,
    /// Scenario name.
    pub scenario: String,
    /// Client threads, one connection each.
    pub clients: u32,
    /// Open-loop target rate in requests per second (all clients together); `None` for a
    /// closed loop (each client sends its next request when the reply to the last arrived).
    pub rate: Option<f64>,
    /// Operations one request performs.
    pub ops_per_request: u64,
    /// Requests completed during the warm-up (not measured).
    pub warmup_requests: u64,
    /// The measured slices, in order.
    pub slices: Vec<LoadSlice>,
}

/// One measured time slice of a load process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadSlice {
    /// From the slice's start until every client had finished its last request of the slice.
    pub elapsed_ns: u64,
    /// Requests completed in the slice (each started in it).
    pub requests: u64,
    /// Latency of every request of the slice in nanoseconds, as an HDR histogram's recorded
    /// buckets: `(highest value equivalent to the bucket, count)`, ascending. In open loop a
    /// request's latency runs from when it was due, not from when it was sent (coordinated
    /// omission corrected).
    pub latency_ns: Vec<(u64, u64)>,
}

impl Versioned for LoadResult {
    fn protocol(&self) -> u32 {
        self.protocol
    }
}
