//! The `perf` instrument's figures, as the `perf` mode writes them into a
//! [`CountersResult`](super::counters::CountersResult): each hardware counter's raw reading, or
//! the kernel's refusal.

use serde::{Deserialize, Serialize};

/// Hardware counter readings around one run of the measured body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerfCounts {
    /// Counters that opened and were read.
    pub readings: Vec<PerfReading>,
    /// Counters that could not be opened, with the kernel's answer.
    pub unavailable: Vec<PerfUnavailable>,
    /// `/proc/sys/kernel/perf_event_paranoid`, when readable.
    pub paranoid: Option<i32>,
}

/// One counter's raw reading (`read_format` = value, time enabled, time running). When the
/// kernel multiplexed the counter, `time_running < time_enabled`, and the runner scales.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerfReading {
    /// `cycles`, `instructions`, `branches`, `branch-misses`, `cache-references`,
    /// `cache-misses`, `l1d-loads`, `l1d-load-misses`.
    pub counter: String,
    /// The count the kernel read, unscaled.
    pub value: u64,
    /// Nanoseconds the counter was enabled.
    pub time_enabled_ns: u64,
    /// Nanoseconds it was actually counting (less than enabled when multiplexed).
    pub time_running_ns: u64,
}

/// A counter `perf_event_open` refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerfUnavailable {
    /// The counter's name, as in [`PerfReading::counter`].
    pub counter: String,
    /// `errno` of the failed `perf_event_open`.
    pub errno: i32,
    /// The errno's text.
    pub error: String,
}
