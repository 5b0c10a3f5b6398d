//! Reading per-instruction execution counts from callgrind output written with
//! `--dump-instr=yes`. Pure: text in, counts out.
//!
//! The format's traps (positions absolute, relative or the same; the targets on `calls=` lines
//! not moving the base; the cost line after `calls=` being the call's inclusive cost, not the
//! call instruction's own; object names compressed and shared with `cob=`) are handled by
//! `measure::callgrind::format`. Three traps are this reader's own: `jump=`/`jcnd=` lines appear
//! only for jumps that were taken, so execution counts come from each instruction's own cost
//! line; addresses are per object file (the program and ld.so overlap), so only lines under the
//! wanted `ob=` count; and one address can appear in several blocks and functions, so counts are
//! summed.

use crate::measure::callgrind::format::{Reader, Record};
use anyhow::{anyhow, bail, Context, Result};
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
            crate::measure::callgrind::total_ir(INDIRECT).unwrap()
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
}
