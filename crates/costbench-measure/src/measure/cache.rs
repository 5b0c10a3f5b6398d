//! Simulated counters: callgrind with its cache and branch simulation, counted only inside the
//! measured body (the same toggle as instruction counts), and the estimated-cycles model.
//!
//! These figures come from valgrind's model of a two-level cache and of simple branch
//! predictors, not from the host's hardware, and every report labels them "simulated". The
//! cache geometry is pinned (see [`TOOL_ARGS`]) rather than guessed from the host's `cpuid`,
//! so that the figures are the same on every machine: left to guess, valgrind 3.19 on this
//! project's VM takes a 48 KiB 12-way D1 and a 512 MiB 2-way last level, which no real CPU has. This module only builds arguments and turns totals into figures; `run/`
//! spawns the processes.

use costbench_record::model::CacheSim;
use std::collections::BTreeMap;

/// Callgrind options that switch the simulations on, with a fixed, common geometry: 32 KiB
/// 8-way L1 instruction and data caches and an 8 MiB 16-way last level, 64-byte lines.
pub const TOOL_ARGS: &[&str] = &[
    "--cache-sim=yes",
    "--branch-sim=yes",
    "--I1=32768,8,64",
    "--D1=32768,8,64",
    "--LL=8388608,16,64",
];

/// The events callgrind reports with both simulations on, in its order.
pub const EVENTS: &[&str] = &[
    "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
];

/// Cycles charged per L1 hit, last-level hit and RAM access by the estimate (iai-callgrind's
/// weights: a rough model of a desktop CPU; it ignores pipelining, prefetching and
/// mispredictions, so it ranks code by memory behaviour rather than predicting time).
pub const L1_CYCLES: u64 = 1;
pub const LL_CYCLES: u64 = 5;
pub const RAM_CYCLES: u64 = 35;

/// The derived figures from callgrind's totals:
///
/// - `L1hits` = (Ir + Dr + Dw) − (I1mr + D1mr + D1mw): accesses served by the first level;
/// - `RAMhits` = ILmr + DLmr + DLmw: accesses that missed the last level too;
/// - `LLhits` = (I1mr + D1mr + D1mw) − RAMhits;
/// - `EstimatedCycles` = L1hits + 5 · LLhits + 35 · RAMhits.
///
/// Returns `None` when an event of [`EVENTS`] is missing (callgrind ran without simulation).
pub fn derive(totals: &[(String, u64)]) -> Option<BTreeMap<String, u64>> {
    let get = |name: &str| totals.iter().find(|(e, _)| e == name).map(|(_, v)| *v);
    let mut out = BTreeMap::new();
    for e in EVENTS {
        out.insert((*e).to_string(), get(e)?);
    }
    let accesses = out["Ir"] + out["Dr"] + out["Dw"];
    let l1_misses = out["I1mr"] + out["D1mr"] + out["D1mw"];
    let ram = out["ILmr"] + out["DLmr"] + out["DLmw"];
    let l1_hits = accesses.saturating_sub(l1_misses);
    let ll_hits = l1_misses.saturating_sub(ram);
    out.insert("L1hits".into(), l1_hits);
    out.insert("LLhits".into(), ll_hits);
    out.insert("RAMhits".into(), ram);
    out.insert(
        "EstimatedCycles".into(),
        L1_CYCLES * l1_hits + LL_CYCLES * ll_hits + RAM_CYCLES * ram,
    );
    Some(out)
}

/// The record entry for one run of a body of `ops` operations.
pub fn figures(totals: &[(String, u64)], ops: u64, callgrind_out: String) -> Option<CacheSim> {
    let totals = derive(totals)?;
    let per_op = totals
        .iter()
        .map(|(k, v)| (k.clone(), *v as f64 / ops.max(1) as f64))
        .collect();
    Some(CacheSim {
        simulated: true,
        totals,
        per_op,
        callgrind_out,
    })
}

/// Rows of the counters table: the record's [`CACHE_ROWS`](costbench_record::model::CACHE_ROWS).
pub use costbench_record::model::CACHE_ROWS as ROWS;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::callgrind::totals;

    /// Real callgrind 3.19 output of the selftest's `calibrate/1000` scenario with
    /// `--cache-sim=yes --branch-sim=yes`.
    const FIXTURE: &str = include_str!("../../testdata/callgrind-cache-sim.out");

    #[test]
    fn real_output_parses_into_every_event() {
        let t = totals(FIXTURE).unwrap();
        let names: Vec<&str> = t.iter().map(|(e, _)| e.as_str()).collect();
        assert_eq!(names, EVENTS);
        let d = derive(&t).unwrap();
        // calibrated_loop::<1000>: 2N + 1 instructions plus the 2 of the harness, and one
        // conditional branch per iteration.
        assert_eq!(d["Ir"], 2003);
        assert_eq!(d["Bc"], 1000);
    }

    #[test]
    fn the_cycle_model_weighs_levels() {
        let t: Vec<(String, u64)> = [
            ("Ir", 1000),
            ("Dr", 300),
            ("Dw", 100),
            ("I1mr", 10),
            ("D1mr", 20),
            ("D1mw", 5),
            ("ILmr", 2),
            ("DLmr", 3),
            ("DLmw", 1),
            ("Bc", 50),
            ("Bcm", 4),
            ("Bi", 2),
            ("Bim", 1),
        ]
        .iter()
        .map(|(e, v)| (e.to_string(), *v))
        .collect();
        let d = derive(&t).unwrap();
        assert_eq!(d["L1hits"], 1400 - 35);
        assert_eq!(d["RAMhits"], 6);
        assert_eq!(d["LLhits"], 29);
        assert_eq!(d["EstimatedCycles"], 1365 + 5 * 29 + 35 * 6);
        let f = figures(&t, 10, "x".into()).unwrap();
        assert_eq!(f.per_op["Ir"], 100.0);
        assert!(f.simulated);
        // Without simulation there is nothing to derive.
        assert!(derive(&t[..1]).is_none());
    }
}
