//! Reading the census of one measured body: per-instruction execution counts from callgrind
//! output written with `--dump-instr=yes`, joined with the binary's guards. Pure: text in,
//! figures out.
//!
//! The format's traps (positions absolute, relative or the same; the targets on `calls=` lines
//! not moving the base; the cost line after `calls=` being the call's inclusive cost, not the
//! call instruction's own; object names compressed and shared with `cob=`) are handled by
//! `instrument::callgrind::format`. Three traps are this reader's own: `jump=`/`jcnd=` lines appear
//! only for jumps that were taken, so execution counts come from each instruction's own cost
//! line; addresses are per object file (the program and ld.so overlap), so only lines under the
//! wanted `ob=` count; and one address can appear in several blocks and functions, so counts are
//! summed.

use super::super::callgrind::format::{Reader, Record};
use super::super::shape::{Output, Parser};
use super::CensusJoin;
use anyhow::{anyhow, bail, Context, Result};
use costbench_record::instrument::census::classify::Kind;
use costbench_record::instrument::census::{Guard, StaticCensus, TOP_SITES};
use costbench_record::instrument::Instrument;
use costbench_record::model::{self, Failure};
use std::collections::HashMap;

/// Executions per instruction address of one object file.
pub type Counts = HashMap<u64, u64>;

/// Sums the `Ir` cost of every instruction of the object whose name satisfies `wanted`.
/// Ir per instruction is how often it executed: callgrind charges one Ir per execution.
pub fn instruction_counts(text: &str, wanted: impl Fn(&str) -> bool) -> Result<Counts> {
    let mut counts = Counts::new();
    let mut reader = Reader::new(text);
    let mut ir_col: Option<usize> = None;
    let mut in_wanted = false;
    while let Some(record) = reader.read()? {
        match record {
            Record::Header {
                key: "events",
                value,
            } => {
                ir_col = reader.event_index("Ir");
                if ir_col.is_none() {
                    bail!("line {}: no Ir event in `events:{value}`", reader.line_no());
                }
            }
            Record::Object => in_wanted = wanted(reader.object().unwrap_or_default()),
            Record::Cost(line) => {
                let Some(addr) = line.instr else {
                    bail!("line {}: cost lines before `positions: instr line`; was callgrind run with --dump-instr=yes?", line.line_no);
                };
                if line.call || !in_wanted {
                    continue;
                }
                let col = ir_col
                    .ok_or_else(|| anyhow!("line {}: cost line before `events:`", line.line_no))?;
                let ir = line.event(col)?;
                if ir > 0 {
                    let count = counts.entry(addr).or_default();
                    // A damaged file must not panic the run (nor wrap into a plausible count).
                    *count = count.checked_add(ir).with_context(|| {
                        format!(
                            "line {}: counts add up to more than 64 bits: a damaged file",
                            line.line_no
                        )
                    })?;
                }
            }
            _ => {}
        }
    }
    if ir_col.is_none() {
        bail!("no `events:` line: not a callgrind output file");
    }
    Ok(counts)
}

/// Joins callgrind's per-address counts of one measured body with the binary's guards.
pub fn join(census: &StaticCensus, counts: &Counts, ops: u64) -> model::Census {
    let per_op = |n: u64| n as f64 / ops.max(1) as f64;
    let executed: Vec<(&Guard, u64)> = census
        .guards
        .iter()
        .filter_map(|g| counts.get(&g.address).map(|&n| (g, n)))
        .filter(|&(_, n)| n > 0)
        .collect();
    let by_kind = Kind::ALL
        .iter()
        .map(|&k| {
            let (checks, sites) = executed
                .iter()
                .filter(|(g, _)| g.kind == k)
                .fold((0u64, 0usize), |(c, s), (_, n)| (c + n, s + 1));
            model::CensusKind {
                kind: k.as_str().into(),
                checks,
                checks_per_op: per_op(checks),
                sites,
            }
        })
        .collect();
    let checks: u64 = executed.iter().map(|(_, n)| n).sum();
    let sites = executed.len();
    let top_sites = sites_of(executed, ops, TOP_SITES);
    model::Census {
        checks,
        checks_per_op: per_op(checks),
        sites,
        by_kind,
        top_sites,
    }
}

/// Every guard of `census` that `counts` saw executed, most executed first.
pub fn executed_sites(census: &StaticCensus, counts: &Counts, ops: u64) -> Vec<model::CensusSite> {
    let executed: Vec<(&Guard, u64)> = census
        .guards
        .iter()
        .filter_map(|g| counts.get(&g.address).map(|&n| (g, n)))
        .filter(|&(_, n)| n > 0)
        .collect();
    sites_of(executed, ops, usize::MAX)
}

/// The `limit` most executed of `executed` as the record's sites (ties: by address).
fn sites_of(mut executed: Vec<(&Guard, u64)>, ops: u64, limit: usize) -> Vec<model::CensusSite> {
    let per_op = |n: u64| n as f64 / ops.max(1) as f64;
    executed.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.address.cmp(&b.0.address)));
    executed
        .iter()
        .take(limit)
        .map(|(g, n)| model::CensusSite {
            address: format!("{:#x}", g.address),
            kind: g.kind.as_str().into(),
            function: g.function.clone(),
            file: g.file.clone(),
            line: g.line,
            inline_chain: g
                .inline_chain
                .iter()
                .map(|f| model::CensusFrame {
                    function: f.function.clone(),
                    file: f.file.clone(),
                    line: f.line,
                })
                .collect(),
            executions: *n,
            per_op: per_op(*n),
        })
        .collect()
}

impl Parser for CensusJoin {
    const INSTRUMENT: Instrument = Instrument::Census;
    type Figure = model::Census;

    /// The census of one measured id from the callgrind output the icount run kept. Its child
    /// ended well (else there is no count to ride on), so a failure here is the file's alone,
    /// without the child's stderr.
    fn parse(&self, out: Output<'_>) -> Result<model::Census, Failure> {
        let census = || -> Result<model::Census> {
            let text = out.text("callgrind").map_err(|_| match &out.bytes {
                Err(e) => anyhow!("cannot read {}: {e}", out.path.display()),
                Ok(_) => anyhow!("cannot read {}: not UTF-8", out.path.display()),
            })?;
            let counts = instruction_counts(&text, |ob| self.is_binary(ob))
                .with_context(|| format!("in callgrind output {}", out.path.display()))?;
            Ok(join(self.guards(), &counts, out.ops))
        };
        census().map_err(|e| Failure {
            instrument: Self::INSTRUMENT.name().into(),
            kind: "no-measurement".into(),
            message: format!("{e:#}"),
            stderr_tail: String::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_that_overflow_are_an_error() {
        // Found writing the fuzz target `callgrind`: this sum panicked in debug builds.
        let text = format!(
            "positions: instr line\nevents: Ir\nob=(1) x\nfn=(1) f\n0x10 1 {}\n0x10 1 1\n",
            u64::MAX
        );
        let e = instruction_counts(&text, |_| true).unwrap_err();
        assert!(format!("{e:#}").contains("more than 64 bits"), "{e:#}");
    }

    /// Real callgrind 3.19 output (`--dump-instr=yes`, collection toggled on around the measured
    /// body) of the census fixtures' `index/indirect` scenario: 1000 indices, one bounds check
    /// each, the check's `jae` at 0x2a917 in `sum_indirect`.
    const INDIRECT: &str = include_str!("testdata/indirect.callgrind.out");

    #[test]
    fn counts_each_instruction_of_the_program_only() {
        let exe = |ob: &str| ob.ends_with("/census-a037f5e5504b6ea1");
        let counts = instruction_counts(INDIRECT, exe).unwrap();
        // The guard: executed once on the first pass and 999 times around the loop.
        assert_eq!(counts[&0x2a917], 1000);
        assert_eq!(counts[&0x2a910], 1000);
        assert_eq!(counts[&0x2a900], 1);
        // Call lines carry inclusive costs and are not the call instruction's own count.
        assert_eq!(counts.get(&0x39a80), Some(&1));
        // Everything counted adds up to the total, minus nothing: only the program ran.
        let total: u64 = counts.values().sum();
        assert_eq!(
            total,
            super::super::super::callgrind::total_ir(INDIRECT).unwrap()
        );
        // libc's lines are under another ob= and carry only inclusive call costs.
        let libc = instruction_counts(INDIRECT, |ob| ob.contains("libc.so")).unwrap();
        assert!(libc.is_empty(), "{libc:?}");
    }

    #[test]
    fn positions_and_compression() {
        let text = "positions: instr line\nevents: Dr Ir\nob=(2) /bin/x\nfn=(1) f\n0x10 3 5 7\n+2 +1 0 1\n* * 1 2\n-2 * 0 4\ncalls=1 0x99 1\n* * 0 1000\nob=(3) /lib/y\n0x10 1 0 50\nob=(2)\n0x20 1 0\ncob=(4) /bin/z\ncalls=1 0x5 1\n0x21 1 9\nob=(4)\n0x30 1 0 6\n";
        let c = instruction_counts(text, |o| o == "/bin/x").unwrap();
        assert_eq!(c[&0x10], 11);
        assert_eq!(c[&0x12], 3);
        assert_eq!(c.get(&0x99), None);
        assert_eq!(c.get(&0x20), None, "a missing cost is zero");
        assert_eq!(c.get(&0x21), None);
        // An object first named on a `cob=` line and entered by number.
        let z = instruction_counts(text, |o| o == "/bin/z").unwrap();
        assert_eq!(z[&0x30], 6);
        assert!(instruction_counts("events: Ir\n0x1 2 3\n", |_| true).is_err());
        assert!(instruction_counts("positions: line\n", |_| true).is_err());
    }

    fn census_of_indirect(exe: &str) -> CensusJoin {
        let guard = Guard {
            address: 0x2a917,
            kind: Kind::SliceIndex,
            function: "census::sum_indirect".into(),
            krate: "census".into(),
            file: Some("src/lib.rs".into()),
            line: Some(7),
            inline_chain: vec![],
        };
        let guards = StaticCensus {
            binary: exe.into(),
            functions_scanned: 1,
            guards: vec![guard],
        };
        CensusJoin::new(guards, std::path::Path::new(exe))
    }

    #[test]
    fn the_census_counts_the_guards_of_the_measured_binary_only() {
        use super::super::super::shape::testing::*;
        let exe =
            "/build/costbench/target/costbench/build/default/release/deps/census-a037f5e5504b6ea1";
        let ok = ok();
        let c = census_of_indirect(exe)
            .parse(file(&ok, 1000, INDIRECT))
            .unwrap();
        assert_eq!((c.checks, c.sites, c.checks_per_op), (1000, 1, 1.0));
        // The same output joined with another binary: its guard never ran there.
        let other = census_of_indirect("/elsewhere/census").parse(file(&ok, 1000, INDIRECT));
        assert_eq!(other.unwrap().checks, 0);
        let f = census_of_indirect(exe)
            .parse(output(&ok, 1, missing()))
            .unwrap_err();
        assert_eq!(f.message, "cannot read out/.tmp: gone");
        assert_eq!(
            (f.instrument.as_str(), f.stderr_tail.as_str()),
            ("census", "")
        );
    }

    fn guard(addr: u64, kind: Kind) -> Guard {
        Guard {
            address: addr,
            kind,
            function: "f".into(),
            krate: "c".into(),
            file: Some("src/lib.rs".into()),
            line: Some(3),
            inline_chain: vec![],
        }
    }

    #[test]
    fn join_counts_executions_per_kind_and_site() {
        let census = StaticCensus {
            binary: "b".into(),
            functions_scanned: 1,
            guards: vec![
                guard(0x10, Kind::SliceIndex),
                guard(0x20, Kind::SliceIndex),
                guard(0x30, Kind::Overflow),
                guard(0x40, Kind::Unwrap),
            ],
        };
        let counts: Counts = [(0x10, 600), (0x20, 400), (0x30, 1000), (0x15, 7)]
            .into_iter()
            .collect();
        let c = join(&census, &counts, 100);
        assert_eq!(c.checks, 2000);
        assert_eq!(c.checks_per_op, 20.0);
        assert_eq!(c.sites, 3);
        let idx = c.by_kind.iter().find(|k| k.kind == "slice-index").unwrap();
        assert_eq!((idx.checks, idx.sites), (1000, 2));
        let unwrap = c.by_kind.iter().find(|k| k.kind == "unwrap").unwrap();
        assert_eq!((unwrap.checks, unwrap.sites), (0, 0));
        assert_eq!(c.top_sites[0].address, "0x30");
        assert_eq!(c.top_sites[1].executions, 600);
    }
}
