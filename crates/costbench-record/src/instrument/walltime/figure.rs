//! Wall time's figure in the run record: the key `walltime` of a result, its samples and their
//! statistics ([`Walltime`]), the rounds of an interleaved session with other builds
//! ([`Paired`]), and a watched branch's step against the previous measured commit ([`Step`]).
//! Plain serde types, apart from the slice (`super`) so that the record's types can hold it
//! without importing the functions over results; the statistics' type is `stats`'s, which
//! imports nothing of the record either.

// As in the record's other types (`model`), some fields carry no doc comment yet; the book
// lists what `run.json` holds (docs/reference/output.md).
#![allow(missing_docs)]

use crate::stats::Summary;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Walltime {
    /// `monotonic` (elapsed time of a batch) or `thread-cpu` (a party's own CPU time).
    pub clock: String,
    pub samples: usize,
    pub iterations_per_sample: u64,
    pub warmup_iterations: u64,
    pub clock_overhead_ns: f64,
    /// Statistics of the per-op time of each sample, in nanoseconds.
    pub ns_per_op: Summary,
    /// Per-iteration nanoseconds of each sample (one iteration = one run of the body).
    pub iteration_ns: Vec<f64>,
    /// Present when this side was measured in interleaved rounds with other sides (a paired A/B
    /// comparison or build variants): the pairing and each round's median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
    /// Set by `history backfill`: this commit's wall time against the previous measured commit
    /// of the branch, measured in interleaved rounds with that commit's kept binary and judged
    /// as `check` judges paired wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<Step>,
}

/// A commit's wall time against the previous measured commit of its branch (its parent when
/// every commit is measured), from one interleaved session of the two binaries.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Step {
    /// The commit measured against (full id).
    pub against: String,
    /// This commit's per-op time over that commit's: the paired estimate.
    pub ratio: f64,
    /// The ratio's interval at the rate the session's error control gave this id.
    pub low: f64,
    /// Upper bound of that interval.
    pub high: f64,
    /// What `check` would conclude: `regression`, `improvement`, `unchanged`, `unresolved` or
    /// `placement` (the time moved while the instruction count did not).
    pub verdict: String,
    /// Where `verdict` is a regression or an improvement: the verdict of a second interleaved
    /// session of the two binaries on fresh rounds, which must say the same for the step to
    /// count (a watched branch makes many comparisons; one session's error rate is per check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<String>,
}

impl Step {
    /// A regression or an improvement that the paired test resolved beyond the threshold, and
    /// the confirming session resolved the same way.
    pub fn resolved(&self) -> bool {
        matches!(self.verdict.as_str(), "regression" | "improvement")
            && self.confirmation.as_deref() == Some(self.verdict.as_str())
    }
}

/// Wall time measured in rounds interleaved with other builds of the same suite. Round `k` of
/// every side ran back to back, so their ratio is free of the drift between rounds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Paired {
    /// Shared by every side of one interleaved session; sides with the same id pair round by round.
    pub session: String,
    /// Median nanoseconds per op of each round, in round order.
    pub round_medians_ns_per_op: Vec<f64>,
    /// Fastest sample's nanoseconds per op of each round, in round order: what `compare` pairs.
    /// On a shared machine interference only ever adds time, so the least disturbed sample of a
    /// round is the steadiest estimate of the code's own speed.
    pub round_min_ns_per_op: Vec<f64>,
    /// Samples each round took, in round order: `iteration_ns` holds the rounds one after another.
    #[serde(default)]
    pub round_samples: Vec<usize>,
    /// The sides took turns sample by sample (a token ring), so sample `i` of round `k` of
    /// every side ran within a millisecond of each other; otherwise they took turns process by
    /// process. Provenance: `compare` pairs the rounds' fastest samples either way.
    #[serde(default)]
    pub lockstep: bool,
    /// The code layout each round ran (a link-order seed, 0 for the build as cargo linked it), in
    /// round order; empty when layouts were not varied. Every round of every side runs a layout
    /// of its own, so layout effects are part of the round-to-round spread that `compare` judges
    /// a change against, not a bias of one side.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_layouts: Vec<u64>,
    /// Why code layouts were not varied (when `round_layouts` is empty and they could not be).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_note: Option<String>,
    /// How many times the measuring session looked at the interval to decide whether to add
    /// rounds (adaptive measurement): `compare` spends its error rate over this many looks.
    /// 1 (a fixed number of rounds) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub looks: Option<u32>,
}
