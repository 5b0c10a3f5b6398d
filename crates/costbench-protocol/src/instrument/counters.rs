//! The result file of the modes that count in process around one run of the body (`memory`
//! and `perf`): [`CountersResult`], one message for both, holding the figures of the mode
//! that ran (its types are in that mode's module).

use super::memory::MemoryCounts;
use super::perf::PerfCounts;
use crate::version::Versioned;
use serde::{Deserialize, Serialize};

/// What `BIN --costbench-child memory|perf` writes to its result file: the figures of one
/// process (one party of a multi-party scenario runs in its own process, as under callgrind).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountersResult {
    /// [`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION) of the child.
    pub protocol: u32,
    /// Scenario name.
    pub scenario: String,
    /// Party name, or `None` for a single-process scenario.
    pub party: Option<String>,
    /// Present in `memory` mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryCounts>,
    /// Present in `perf` mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perf: Option<PerfCounts>,
}

impl Versioned for CountersResult {
    fn protocol(&self) -> u32 {
        self.protocol
    }
}
