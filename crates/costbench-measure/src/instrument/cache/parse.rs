//! Reading the cache simulation: callgrind's totals with its cache and branch events, and the
//! figures derived from them (hits per level, the estimated-cycles model). Pure.
//!
//! These figures come from valgrind's model of a two-level cache and of simple branch
//! predictors, not from the host's hardware, and every report labels them "simulated".

use super::super::callgrind;
use super::super::shape::{Output, Parser};
use super::Cache;
use anyhow::Context;
use costbench_record::instrument::Instrument;
use costbench_record::instrument::cache::CacheSim;
use costbench_record::model::Failure;
use std::collections::BTreeMap;

/// The events callgrind reports with both simulations on, in its order.
pub const EVENTS: &[&str] = &[
    "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
];

/// Cycles charged per L1 hit, last-level hit and RAM access by the estimate (iai-callgrind's
/// weights: a rough model of a desktop CPU; it ignores pipelining, prefetching and
/// mispredictions, so it ranks code by memory behaviour rather than predicting time).
pub const L1_CYCLES: u64 = 1;
/// Cycles charged per last-level hit (see [`L1_CYCLES`]).
pub const LL_CYCLES: u64 = 5;
/// Cycles charged per RAM access (see [`L1_CYCLES`]).
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

impl Parser for Cache {
    const INSTRUMENT: Instrument = Instrument::Cache;
    type Figure = CacheSim;

    fn parse(&self, out: Output<'_>) -> Result<CacheSim, Failure> {
        out.ended_well(Self::INSTRUMENT)?;
        let no = |m: String| out.failure(Self::INSTRUMENT, "no-measurement", m);
        let totals = out
            .text("callgrind")
            .and_then(|t| {
                callgrind::totals(&t)
                    .with_context(|| format!("in callgrind output {}", out.path.display()))
            })
            .map_err(|e| no(format!("{e:#}")))?;
        figures(&totals, out.ops, out.kept_as.clone())
            .ok_or_else(|| no("callgrind reported no cache or branch events".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shape::testing::*;
    use super::*;
    use callgrind::totals;

    /// Real callgrind 3.19 output of the selftest's `calibrate/1000` scenario with
    /// `--cache-sim=yes --branch-sim=yes`.
    const FIXTURE: &str = include_str!("testdata/callgrind-cache-sim.out");
    /// A plain icount run's output: Ir only.
    const SORT: &str = include_str!("../icount/testdata/sort.callgrind.out");

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

    #[test]
    fn cache_reads_the_simulated_events() {
        let ok = ok();
        let mut out = file(&ok, 1, FIXTURE);
        out.kept_as = "cache/s.out".into();
        let c = Cache.parse(out).unwrap();
        let expected = figures(&totals(FIXTURE).unwrap(), 1, "cache/s.out".into());
        assert_eq!(Some(c), expected);
    }

    #[test]
    fn cache_without_simulated_events_is_no_measurement() {
        // A plain icount run has Ir only: nothing to derive cache figures from.
        let ok = ok();
        let f = Cache.parse(file(&ok, 1, SORT)).unwrap_err();
        assert_eq!(
            (f.instrument.as_str(), f.kind.as_str()),
            ("cache", "no-measurement")
        );
        assert_eq!(f.message, "callgrind reported no cache or branch events");
    }
}
