//! Throughput's options: how a service scenario is put under load ([`LoadOptions`]), as the
//! command line validated them. Plain values; the measuring options hold them
//! (`run::RunOptions::load`) and `run` re-exports them.

use std::time::Duration;

/// How the throughput instrument puts a service scenario under load (`--clients`, `--rate`,
/// `--load-rounds`, `--slices`, `--slice-ms`, `--load-warmup-ms`).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadOptions {
    /// Each number of concurrent clients to measure, one row each.
    pub clients: Vec<u32>,
    /// Open loop at this many ops per second over all clients; `None` is a closed loop.
    pub rate: Option<f64>,
    /// Rounds per build: a fresh server and load process each.
    pub rounds: u32,
    /// Measured slices per round.
    pub slices: u32,
    /// Length of one measured slice.
    pub slice: Duration,
    /// Unmeasured load before a round's first slice.
    pub warmup: Duration,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            clients: vec![4],
            rate: None,
            rounds: 10,
            slices: 40,
            slice: Duration::from_millis(25),
            warmup: Duration::from_millis(200),
        }
    }
}
