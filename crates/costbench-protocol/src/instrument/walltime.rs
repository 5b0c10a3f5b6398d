//! Wall time's messages: the `walltime` mode's result file ([`WalltimeResult`], the samples of
//! each measured body and the clock that took them) and the `lockstep` capability (builds of one
//! scenario sampled in turns). Wire format only, as the whole crate: the sampling is the
//! library's, the statistics the runner's.

use crate::version::Versioned;
use serde::{Deserialize, Serialize};

/// The child understands `walltime --lockstep RFD,WFD`.
pub const CAPABILITY_LOCKSTEP: &str = "lockstep";

/// Clock that produced a set of wall-time samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// `std::time::Instant` (CLOCK_MONOTONIC): elapsed time of a batch of iterations.
    Monotonic,
    /// CLOCK_THREAD_CPUTIME_ID of the party's thread: the CPU time one party spent, excluding the
    /// time it waited for its peers. Used for the parties of a multi-party scenario on Unix; off
    /// Unix (Windows) parties are sampled with `Monotonic`, waits included.
    ThreadCpu,
}

/// Samples of one measured body (one party, or the whole scenario).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WalltimeSamples {
    /// Party name, or `None` for a single-process scenario.
    pub party: Option<String>,
    /// Clock used for every sample.
    pub clock: Clock,
    /// Iterations of the measured body in each sample (every sample has the same batch size).
    pub iterations_per_sample: u64,
    /// Nanoseconds each sample took, for `iterations_per_sample` iterations.
    pub sample_ns: Vec<u64>,
    /// Iterations run before sampling began, to warm caches, branch predictors and allocators.
    pub warmup_iterations: u64,
    /// Nanoseconds the clock itself costs per reading, measured by the child before sampling.
    pub clock_overhead_ns: f64,
}

/// What `BIN --costbench-child walltime` writes to its result file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WalltimeResult {
    /// [`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION) of the child.
    pub protocol: u32,
    /// Scenario name.
    pub scenario: String,
    /// One entry for a single-process scenario, one per party for a multi-party one.
    pub measurements: Vec<WalltimeSamples>,
}

impl Versioned for WalltimeResult {
    fn protocol(&self) -> u32 {
        self.protocol
    }
}
