//! Reading per-instruction execution counts from callgrind output written with
//! `--dump-instr=yes`. Pure: text in, counts out.
//!
//! The traps (see the callgrind format documentation): positions are absolute (`0x…`), relative
//! to the previous cost line (`+N`, `-N`) or the same (`*`); the positions on a `calls=` line name
//! the callee and do not move the base, while the cost line after it is the call's inclusive cost
//! (it moves the base but is not the instruction's own cost); `jump=`/`jcnd=` lines appear only for
//! jumps that were taken, so execution counts come from each instruction's own cost line;
//! addresses are per object file (the program and ld.so overlap), so only lines under the wanted
//! `ob=` count; and one address can appear in several blocks and functions, so counts are summed.

use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashMap;

/// Executions per instruction address of one object file.
pub type Counts = HashMap<u64, u64>;

/// Sums the `Ir` cost of every instruction of the object whose name satisfies `wanted`.
/// Ir per instruction is how often it executed: callgrind charges one Ir per execution.
pub fn instruction_counts(text: &str, wanted: impl Fn(&str) -> bool) -> Result<Counts> {
    let mut counts = Counts::new();
    let mut ir_col: Option<usize> = None;
    let mut positions_instr = false;
    let mut names: HashMap<String, String> = HashMap::new();
    let mut in_wanted = false;
    let mut last_addr: u64 = 0;
    let mut last_line: i64 = 0;
    let mut after_calls = false;
    for (n, line) in text.lines().enumerate() {
        let lineno = n + 1;
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let first = line.as_bytes()[0];
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            let mut fields = line.split_ascii_whitespace();
            if !positions_instr {
                bail!("line {lineno}: cost lines before `positions: instr line`; was callgrind run with --dump-instr=yes?");
            }
            let addr = position(fields.next().unwrap_or(""), last_addr)
                .with_context(|| format!("line {lineno}: bad instruction position"))?;
            let l = fields.next().unwrap_or("*");
            let new_line = if l == "*" {
                last_line
            } else {
                position(l, last_line as u64)
                    .map(|v| v as i64)
                    .unwrap_or(last_line)
            };
            last_addr = addr;
            last_line = new_line;
            let calls = std::mem::replace(&mut after_calls, false);
            if calls || !in_wanted {
                continue;
            }
            let col = ir_col.ok_or_else(|| anyhow!("line {lineno}: cost line before `events:`"))?;
            let ir: u64 = match fields.nth(col) {
                Some(v) => v
                    .parse()
                    .with_context(|| format!("line {lineno}: bad cost {v:?}"))?,
                None => 0,
            };
            if ir > 0 {
                *counts.entry(addr).or_default() += ir;
            }
            continue;
        }
        let Some((key, value)) = line.split_once(['=', ':']) else {
            continue;
        };
        match key {
            "positions" => {
                let p: Vec<&str> = value.split_whitespace().collect();
                positions_instr = p.first() == Some(&"instr");
            }
            "events" => {
                ir_col = value.split_whitespace().position(|e| e == "Ir");
                if ir_col.is_none() {
                    bail!("line {lineno}: no Ir event in `events:{value}`");
                }
            }
            "ob" => {
                let name = compressed_name(&mut names, value.trim());
                in_wanted = wanted(&name);
            }
            // `cob=` names a callee's object; it shares the object name table with `ob=`, so a
            // name first defined there is later referred to by number alone.
            "cob" => {
                compressed_name(&mut names, value.trim());
            }
            "calls" => after_calls = true,
            _ => {}
        }
    }
    if ir_col.is_none() {
        bail!("no `events:` line: not a callgrind output file");
    }
    Ok(counts)
}

/// A position field: `0x…` absolute, `+N`/`-N` relative to `last`, `*` same, or decimal absolute.
fn position(field: &str, last: u64) -> Result<u64> {
    if field == "*" {
        return Ok(last);
    }
    if let Some(h) = field.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).map_err(|e| anyhow!("{field:?}: {e}"));
    }
    let parse = |s: &str| -> Result<u64> {
        if let Some(h) = s.strip_prefix("0x") {
            u64::from_str_radix(h, 16).map_err(|e| anyhow!("{field:?}: {e}"))
        } else {
            s.parse().map_err(|e| anyhow!("{field:?}: {e}"))
        }
    };
    if let Some(d) = field.strip_prefix('+') {
        return Ok(last.wrapping_add(parse(d)?));
    }
    if let Some(d) = field.strip_prefix('-') {
        return Ok(last.wrapping_sub(parse(d)?));
    }
    parse(field)
}

/// Resolves callgrind's compression of object names: `(id) name` defines, `(id)` refers back.
fn compressed_name(names: &mut HashMap<String, String>, value: &str) -> String {
    if let Some(rest) = value.strip_prefix('(') {
        if let Some((id, name)) = rest.split_once(')') {
            let key = id.to_string();
            let name = name.trim();
            if name.is_empty() {
                return names.get(&key).cloned().unwrap_or_default();
            }
            names.insert(key, name.to_string());
            return name.to_string();
        }
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
