//! Per-function costs from a callgrind output file: each function's self cost (what its own
//! instructions cost) and inclusive cost (self plus its calls), for the first event (`Ir`).
//! Pure parsing; the format is valgrind's "callgrind format" (docs/cl-format.html in valgrind):
//!
//! - `fn=(ID) NAME` starts a function's cost lines; `fn=(ID)` refers to a name given before
//!   (name compression); `fl=`, `fi=`, `fe=` and `ob=` change only the file or object.
//! - A cost line is `POSITIONS COSTS...`; each position is absolute (`123`, `0x1f`), relative to
//!   the previous line (`+3`, `-2`) or the same (`*`). Missing trailing costs are zero.
//! - `cfn=` names the callee of the next `calls=COUNT TARGET` line, and the cost line right after
//!   `calls=` is the call's *inclusive* cost: it belongs to the caller's inclusive cost only.
//! - `jump=` and `jcnd=` (with `--collect-jumps=yes`) are followed by nothing of their own.
//!
//! Only functions that ran inside the measured region have self costs: callgrind counts nothing
//! outside it, so the callers that lead to the region (`main`, `lang_start`) show only
//! inclusive costs.

use crate::model::RunRecord;
use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::path::Path;

/// Costs of one function, in the first event of the file (instructions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FunctionCost {
    pub self_cost: u64,
    pub inclusive: u64,
}

/// Every function of a profile by name (functions of the same name in several objects are
/// summed: they cannot be told apart across two builds anyway).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    pub functions: HashMap<String, FunctionCost>,
    /// Calls into each function by name (the `calls=COUNT` lines after `cfn=`): how often it was
    /// entered, whatever its callers.
    pub calls: HashMap<String, u64>,
    /// Sum of every self cost: the file's total.
    pub total: u64,
}

/// Reads and parses the callgrind output at `path`.
pub fn read(path: &Path) -> Result<Profile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read callgrind output {}", path.display()))?;
    parse(&text).with_context(|| format!("in callgrind output {}", path.display()))
}

/// The profile of scenario `id` in `run`, with the ops it counted, read from the callgrind
/// output the run kept in its output directory `dir` (`None` for a run loaded from history, which
/// keeps none). The error says why there is none, for the comparison's "unavailable" note.
pub fn load(run: &RunRecord, dir: Option<&Path>, id: &str) -> Result<(Profile, u64), String> {
    let r = run.results.iter().find(|r| r.id == id).ok_or("no result")?;
    let ic = r.icount.as_ref().ok_or("no instruction count")?;
    let dir = dir.ok_or("the run was loaded from history, which keeps no callgrind output")?;
    read(&dir.join(&ic.callgrind_out))
        .map(|p| (p, r.ops))
        .map_err(|e| format!("{e:#}"))
}

/// [`load`] for both sides of a comparison: the argument `compare::functions::attach` takes.
/// The baseline's error wins when both sides have none.
pub fn load_both(
    id: &str,
    base: &RunRecord,
    base_dir: Option<&Path>,
    cand: &RunRecord,
    cand_dir: Option<&Path>,
) -> Result<((Profile, u64), (Profile, u64)), String> {
    match (load(base, base_dir, id), load(cand, cand_dir, id)) {
        (Ok(b), Ok(c)) => Ok((b, c)),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// `(ID) NAME`, `(ID)` or `NAME`: the name, remembering compressed names in `names`.
fn name(spec: &str, names: &mut HashMap<String, String>) -> Result<String> {
    let spec = spec.trim();
    if let Some(rest) = spec.strip_prefix('(') {
        let (id, tail) = rest
            .split_once(')')
            .with_context(|| format!("unclosed name id in {spec:?}"))?;
        let tail = tail.trim();
        if tail.is_empty() {
            return names
                .get(id)
                .cloned()
                .with_context(|| format!("name id ({id}) used before it was defined"));
        }
        names.insert(id.to_string(), tail.to_string());
        return Ok(tail.to_string());
    }
    Ok(spec.to_string())
}

/// Parses the text of a callgrind output file.
pub fn parse(text: &str) -> Result<Profile> {
    let mut fn_names: HashMap<String, String> = HashMap::new();
    let mut profile = Profile::default();
    let mut current: Option<String> = None;
    let mut pending_call = false;
    let mut callee: Option<String> = None;
    let mut saw_events = false;
    let mut position_columns = 1;
    for (no, line) in text.lines().enumerate() {
        let line_no = no + 1;
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let first = line.as_bytes()[0];
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            // A cost line: positions, then costs; the first cost is the first event.
            let Some(f) = &current else {
                bail!("line {line_no}: cost line before any fn=");
            };
            let cost = match line.split_ascii_whitespace().nth(position_columns) {
                None => 0,
                Some(c) => c
                    .parse()
                    .with_context(|| format!("line {line_no}: cost {c:?} is not a number"))?,
            };
            let entry = profile.functions.entry(f.clone()).or_default();
            entry.inclusive += cost;
            if pending_call {
                pending_call = false;
            } else {
                entry.self_cost += cost;
                profile.total += cost;
            }
            continue;
        }
        let (key, value) = line.split_once('=').map_or((line, ""), |(k, v)| (k, v));
        match key {
            "fn" => {
                let n = name(value, &mut fn_names).with_context(|| format!("line {line_no}"))?;
                profile.functions.entry(n.clone()).or_default();
                current = Some(n);
                pending_call = false;
            }
            "cfn" => {
                callee =
                    Some(name(value, &mut fn_names).with_context(|| format!("line {line_no}"))?);
            }
            "calls" => {
                pending_call = true;
                let count: u64 = value
                    .split_ascii_whitespace()
                    .next()
                    .and_then(|c| c.parse().ok())
                    .with_context(|| format!("line {line_no}: no call count in {line:?}"))?;
                if let Some(c) = &callee {
                    *profile.calls.entry(c.clone()).or_default() += count;
                }
            }
            // `jump=`/`jcnd=` lines carry jump counts, not costs; a position-only line after
            // them parses as a zero cost.
            _ if line.starts_with("events:") => saw_events = true,
            _ if line.starts_with("positions:") => {
                position_columns = line["positions:".len()..]
                    .split_ascii_whitespace()
                    .count()
                    .max(1)
            }
            _ => {}
        }
    }
    if !saw_events {
        bail!("no `events:` line: not a callgrind output file");
    }
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_and_inclusive_costs() {
        let text = "\
version: 1
positions: line
events: Ir
summary: 60

ob=(1) /bin/x
fl=(1) a.rs
fn=(1) main
cfn=(2) work
calls=1 10
5 50
6 10

fn=(2)
10 30
+1 10
cfn=(3) leaf
calls=2 20
* 10

fn=(3) leaf
20 10
";
        let p = parse(text).unwrap();
        assert_eq!(p.total, 60);
        assert_eq!(
            p.functions["main"],
            FunctionCost {
                self_cost: 10,
                inclusive: 60
            }
        );
        assert_eq!(
            p.functions["work"],
            FunctionCost {
                self_cost: 40,
                inclusive: 50
            }
        );
        assert_eq!(
            p.functions["leaf"],
            FunctionCost {
                self_cost: 10,
                inclusive: 10
            }
        );
    }

    #[test]
    fn instr_positions_and_errors() {
        let text = "positions: instr line\nevents: Ir\nfn=(1) f\n0x10 3 7\n+2 * 5\n";
        let p = parse(text).unwrap();
        assert_eq!(p.functions["f"].self_cost, 12);
        assert!(parse("hello").is_err());
        let e = parse("events: Ir\nfn=(4)\n").unwrap_err();
        assert!(format!("{e:#}").contains("used before"), "{e:#}");
        let e = parse("events: Ir\n5 10\n").unwrap_err();
        assert!(format!("{e:#}").contains("before any fn="), "{e:#}");
    }

    #[test]
    fn real_output_sums_to_its_total() {
        let p = parse(include_str!("testdata/sort.callgrind.out")).unwrap();
        let summary: u64 = include_str!("testdata/sort.callgrind.out")
            .lines()
            .find_map(|l| l.strip_prefix("summary: "))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(p.total, summary);
        let top = p.functions.iter().max_by_key(|(_, c)| c.self_cost).unwrap();
        assert!(top.0.contains("sort"), "{top:?}");
    }
}
