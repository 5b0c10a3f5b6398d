//! Valgrind's instruments: the instruction count (callgrind's `Ir` total), the census joined
//! with the per-instruction counts of the same run, cache and branch simulation (callgrind) and
//! DHAT's heap totals. Pure: callers read the output files.

use super::super::child::Outcome;
use super::{ended_well, failure, tool_text, Measured, Tool};
use crate::measure::{cache, callgrind, dhat};
use anyhow::{Context, Result};
use costbench_record::model::{self, Failure, Icount};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The instruction count of one party from callgrind's output `text` (read from `path`) for a
/// scenario of `ops` operations; `rel` is where the output is kept, relative to the results
/// directory.
pub(in crate::run) fn icount(
    outcome: &Outcome,
    timeout: Duration,
    ops: u64,
    path: &Path,
    text: std::io::Result<String>,
    rel: String,
) -> Result<Icount, Failure> {
    ended_well("icount", outcome, timeout)?;
    let ir = tool_text("callgrind", path, text)
        .and_then(|t| {
            callgrind::total_ir(&t)
                .with_context(|| format!("in callgrind output {}", path.display()))
        })
        .map_err(|e| failure("icount", outcome, "no-measurement", format!("{e:#}")))?;
    Ok(Icount {
        ir,
        ir_per_op: ir as f64 / ops as f64,
        callgrind_out: rel,
        placement: None,
    })
}

/// The `cache` or `dhat` figures of one party from the tool's output `text` (read from `path`).
pub(in crate::run) fn tool(
    tool: Tool,
    outcome: &Outcome,
    timeout: Duration,
    ops: u64,
    path: &Path,
    text: std::io::Result<String>,
    rel: String,
) -> Result<Measured, Failure> {
    let inst = tool.name();
    ended_well(inst, outcome, timeout)?;
    let no = |m: String| failure(inst, outcome, "no-measurement", m);
    match tool {
        Tool::Cache => {
            let totals = tool_text("callgrind", path, text)
                .and_then(|t| {
                    callgrind::totals(&t)
                        .with_context(|| format!("in callgrind output {}", path.display()))
                })
                .map_err(|e| no(format!("{e:#}")))?;
            cache::figures(&totals, ops, rel)
                .map(Measured::Cache)
                .ok_or_else(|| no("callgrind reported no cache or branch events".into()))
        }
        Tool::Dhat => {
            let (tb, tbk, gb, gbk) = tool_text("DHAT", path, text)
                .and_then(|t| {
                    dhat::totals(&t).with_context(|| format!("in DHAT output {}", path.display()))
                })
                .map_err(|e| no(format!("{e:#}")))?;
            Ok(Measured::Dhat(model::Dhat {
                total_bytes: tb,
                total_blocks: tbk,
                peak_bytes: gb,
                peak_blocks: gbk,
                dhat_out: rel,
            }))
        }
    }
}

/// The static census of a scenario binary and how to recognise it in callgrind's output.
pub(in crate::run) struct CensusJoin {
    guards: crate::census::StaticCensus,
    /// The binary's path as given to valgrind, and canonical: callgrind names objects by the
    /// path they were mapped from.
    exe: PathBuf,
    canonical: Option<PathBuf>,
}

impl CensusJoin {
    pub(in crate::run) fn new(guards: crate::census::StaticCensus, exe: &Path) -> CensusJoin {
        CensusJoin {
            guards,
            exe: exe.to_path_buf(),
            canonical: exe.canonicalize().ok(),
        }
    }

    fn is_binary(&self, ob: &str) -> bool {
        let ob = Path::new(ob);
        ob == self.exe || self.canonical.as_deref() == Some(ob)
    }

    /// The census of one measured id from its callgrind output `text` (written with
    /// `--dump-instr=yes`, read from `path`) for a body of `ops` operations.
    pub(in crate::run) fn measure(
        &self,
        path: &Path,
        text: std::io::Result<String>,
        ops: u64,
    ) -> Result<model::Census> {
        let text = text.with_context(|| format!("cannot read {}", path.display()))?;
        let counts = crate::census::dynamic::instruction_counts(&text, |ob| self.is_binary(ob))
            .with_context(|| format!("in callgrind output {}", path.display()))?;
        Ok(crate::census::join(&self.guards, &counts, ops))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    /// Recorded callgrind output of a sort, and of a run with cache and branch simulation.
    const SORT: &str = include_str!("../../measure/callgrind/testdata/sort.callgrind.out");
    const CACHE_SIM: &str = include_str!("../../../testdata/callgrind-cache-sim.out");
    /// DHAT's JSON for a body that allocates an exactly known amount.
    const DHAT: &str = include_str!("../../../testdata/dhat-memory-exact.json");
    /// Callgrind 3.19 output (`--dump-instr=yes`) of the census fixtures' `index/indirect`
    /// scenario: 1000 indices, one bounds check each, the check's `jae` at 0x2a917.
    const INDIRECT: &str = include_str!("../../census/testdata/indirect.callgrind.out");

    #[test]
    fn icount_reads_the_ir_total_and_divides_by_ops() {
        let expected = callgrind::total_ir(SORT).unwrap();
        let i = icount(
            &ok(),
            TIMEOUT,
            4,
            path(),
            text(SORT),
            "callgrind/s.out".into(),
        )
        .unwrap();
        assert_eq!(i.ir, expected);
        assert_eq!(i.ir_per_op, expected as f64 / 4.0);
        assert_eq!(i.callgrind_out, "callgrind/s.out");
        assert!(i.placement.is_none());
    }

    #[test]
    fn icount_of_a_failed_child_is_its_ending() {
        let f = icount(&exited(101), TIMEOUT, 1, path(), text(SORT), String::new()).unwrap_err();
        assert_eq!(
            (f.instrument.as_str(), f.kind.as_str()),
            ("icount", "panicked")
        );
        assert_eq!(f.stderr_tail, "last lines");
        let f = icount(&timed_out(), TIMEOUT, 1, path(), text(SORT), String::new()).unwrap_err();
        assert_eq!(f.kind, "timed-out");
        assert_eq!(f.message, "killed after 7 s (change with --timeout)");
    }

    #[test]
    fn icount_names_the_file_it_could_not_read_or_parse() {
        let f = icount(&ok(), TIMEOUT, 1, path(), missing(), String::new()).unwrap_err();
        assert_eq!(f.kind, "no-measurement");
        assert_eq!(f.message, "cannot read callgrind output out/.tmp: gone");
        let f = icount(
            &ok(),
            TIMEOUT,
            1,
            path(),
            text("events: Dr\n"),
            String::new(),
        );
        let m = f.unwrap_err().message;
        assert!(m.starts_with("in callgrind output out/.tmp: "), "{m}");
    }

    #[test]
    fn cache_reads_the_simulated_events() {
        let Ok(Measured::Cache(c)) = tool(
            Tool::Cache,
            &ok(),
            TIMEOUT,
            1,
            path(),
            text(CACHE_SIM),
            "cache/s.out".into(),
        ) else {
            panic!("cache figures expected")
        };
        let expected = cache::figures(
            &callgrind::totals(CACHE_SIM).unwrap(),
            1,
            "cache/s.out".into(),
        );
        assert_eq!(Some(c), expected);
    }

    #[test]
    fn cache_without_simulated_events_is_no_measurement() {
        // A plain icount run has Ir only: nothing to derive cache figures from.
        let Err(f) = tool(
            Tool::Cache,
            &ok(),
            TIMEOUT,
            1,
            path(),
            text(SORT),
            String::new(),
        ) else {
            panic!("failure expected")
        };
        assert_eq!(
            (f.instrument.as_str(), f.kind.as_str()),
            ("cache", "no-measurement")
        );
        assert_eq!(f.message, "callgrind reported no cache or branch events");
    }

    #[test]
    fn dhat_sums_the_program_points() {
        let Ok(Measured::Dhat(d)) = tool(
            Tool::Dhat,
            &ok(),
            TIMEOUT,
            1,
            path(),
            text(DHAT),
            "dhat/s.json".into(),
        ) else {
            panic!("dhat figures expected")
        };
        let (tb, tbk, gb, gbk) = dhat::totals(DHAT).unwrap();
        assert_eq!(
            (d.total_bytes, d.total_blocks, d.peak_bytes, d.peak_blocks),
            (tb, tbk, gb, gbk)
        );
        assert_eq!(d.dhat_out, "dhat/s.json");
        let Err(f) = tool(
            Tool::Dhat,
            &ok(),
            TIMEOUT,
            1,
            path(),
            missing(),
            String::new(),
        ) else {
            panic!("failure expected")
        };
        assert_eq!(f.message, "cannot read DHAT output out/.tmp: gone");
        let Err(f) = tool(
            Tool::Dhat,
            &ok(),
            TIMEOUT,
            1,
            path(),
            text("{}"),
            String::new(),
        ) else {
            panic!("failure expected")
        };
        assert!(
            f.message
                .starts_with("in DHAT output out/.tmp: not DHAT JSON output"),
            "{}",
            f.message
        );
    }

    fn census_of_indirect(exe: &str) -> CensusJoin {
        let guard = crate::census::Guard {
            address: 0x2a917,
            kind: crate::census::classify::Kind::SliceIndex,
            function: "census::sum_indirect".into(),
            krate: "census".into(),
            file: Some("src/lib.rs".into()),
            line: Some(7),
            inline_chain: vec![],
        };
        let guards = crate::census::StaticCensus {
            binary: exe.into(),
            functions_scanned: 1,
            guards: vec![guard],
        };
        CensusJoin::new(guards, Path::new(exe))
    }

    #[test]
    fn the_census_counts_the_guards_of_the_measured_binary_only() {
        let exe =
            "/build/costbench/target/costbench/build/default/release/deps/census-a037f5e5504b6ea1";
        let c = census_of_indirect(exe)
            .measure(path(), text(INDIRECT), 1000)
            .unwrap();
        assert_eq!((c.checks, c.sites, c.checks_per_op), (1000, 1, 1.0));
        // The same output joined with another binary: its guard never ran there.
        let other = census_of_indirect("/elsewhere/census").measure(path(), text(INDIRECT), 1000);
        assert_eq!(other.unwrap().checks, 0);
        let e = census_of_indirect(exe)
            .measure(path(), missing(), 1)
            .unwrap_err();
        assert_eq!(format!("{e:#}"), "cannot read out/.tmp: gone");
    }
}
