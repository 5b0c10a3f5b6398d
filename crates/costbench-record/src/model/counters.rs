//! The counter instruments' figures for one measured id: callgrind's cache and branch
//! simulation (`cache`), hardware counters (`perf`) and allocation counts and peak RSS
//! (`memory`), the typed fields of `Counters` (beside the registry of instruments, which
//! gathers every instrument's typed figure). Plain serde types; the instruments that fill them
//! live in `costbench-measure`.

#![warn(missing_docs)]

use serde::{Deserialize, Serialize};

/// The events of [`CacheSim`] that the counters table and `counters.csv` show: (event key,
/// label), in display order.
pub const CACHE_ROWS: &[(&str, &str)] = &[
    ("Ir", "instructions"),
    ("Dr", "data reads"),
    ("Dw", "data writes"),
    ("I1mr", "I1 misses"),
    ("D1mr", "D1 read misses"),
    ("D1mw", "D1 write misses"),
    ("ILmr", "LL instr misses"),
    ("DLmr", "LL read misses"),
    ("DLmw", "LL write misses"),
    ("Bc", "cond. branches"),
    ("Bcm", "cond. mispredicts"),
    ("Bi", "indirect branches"),
    ("Bim", "indirect mispredicts"),
    ("L1hits", "L1 hits"),
    ("LLhits", "LL hits"),
    ("RAMhits", "RAM accesses"),
    ("EstimatedCycles", "est. cycles"),
];

/// Simulated counters of one run of the body (valgrind's cache and branch model, not the host's
/// caches): the raw events and the derived figures, totals and per op.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheSim {
    /// Always `true`: a reminder in the record that these figures come from a model.
    pub simulated: bool,
    /// Callgrind's events for the run (`Ir`, `Dr`, `Dw`, `I1mr`, `D1mr`, `D1mw`, `ILmr`, `DLmr`,
    /// `DLmw`, `Bc`, `Bcm`, `Bi`, `Bim`) and the derived `L1hits`, `LLhits`, `RAMhits`,
    /// `EstimatedCycles`.
    pub totals: std::collections::BTreeMap<String, u64>,
    /// `totals` divided by the scenario's ops.
    pub per_op: std::collections::BTreeMap<String, f64>,
    /// Callgrind's output for this id, relative to the output directory.
    pub callgrind_out: String,
}

/// Hardware counters of one run of the body, scaled for multiplexing.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Perf {
    /// The counters read, in the order they were asked for.
    pub counters: Vec<PerfCounter>,
    /// instructions / cycles, when both were counted.
    pub ipc: Option<f64>,
    /// Counters the kernel refused, with its reason.
    pub unavailable: Vec<String>,
}

/// One hardware counter of one run of the body.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PerfCounter {
    /// The event's name (`instructions`, `cycles`, `branch-misses` ...).
    pub name: String,
    /// What the counter read.
    pub raw: u64,
    /// Nanoseconds the counter was enabled.
    pub time_enabled_ns: u64,
    /// Nanoseconds the counter was actually counting (less than enabled when multiplexed).
    pub time_running_ns: u64,
    /// `raw × time_enabled / time_running`: the estimate for the whole run when the kernel
    /// multiplexed the counter (equal to `raw` when it ran all the time).
    pub scaled: f64,
    /// `scaled` divided by the scenario's ops.
    pub per_op: f64,
    /// `time_running / time_enabled` (1 when not multiplexed).
    pub running_fraction: f64,
}

/// Memory figures of one run of the body.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Memory {
    /// Global allocator of the bench binary (`system`, `mimalloc`, `jemalloc`, or `the binary's
    /// own` when the costbench library installed none).
    pub allocator: String,
    /// Allocation counts, when the binary counts allocations.
    pub allocations: Option<Allocations>,
    /// Why `allocations` is missing and how to enable it.
    pub not_counted: Option<String>,
    /// Peak resident set size of the scenario's process (start-up and setup included), KiB.
    pub max_rss_kib: u64,
}

/// The allocator calls of one run of the body, totals and per op.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Allocations {
    /// Successful `alloc` and `alloc_zeroed` calls.
    pub allocs: u64,
    /// `dealloc` calls.
    pub deallocs: u64,
    /// Successful `realloc` calls.
    pub reallocs: u64,
    /// Bytes requested by allocations, plus what reallocations grew by (requested sizes, not
    /// what the allocator rounds them up to).
    pub bytes_allocated: u64,
    /// Peak of live heap bytes above the level at the start of the body (for the whole run,
    /// not per op).
    pub peak_live_bytes: u64,
    /// `allocs` divided by the scenario's ops.
    pub allocs_per_op: f64,
    /// `deallocs` divided by the scenario's ops.
    pub deallocs_per_op: f64,
    /// `reallocs` divided by the scenario's ops.
    pub reallocs_per_op: f64,
    /// `bytes_allocated` divided by the scenario's ops.
    pub bytes_allocated_per_op: f64,
}
