//! Per-function costs from a callgrind output file: each function's self cost (what its own
//! instructions cost) and inclusive cost (self plus its calls), for the first event (`Ir`), and
//! the calls into each function; and loading the profile a run kept for one scenario.
//! The format itself (name compression, positions, `calls=` and the inclusive cost line after
//! it) is read by [`super::format`]; this module only sums what it reports.
//!
//! Only functions that ran inside the measured region have self costs: callgrind counts nothing
//! outside it, so the callers that lead to the region (`main`, `lang_start`) show only
//! inclusive costs.

use super::format::{Reader, Record};
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

/// One scenario's profile in one run, with the ops that run counted (costs per op are the
/// profile's over these).
pub type ScenarioProfile = (Profile, u64);

/// The profile of scenario `id` in `run`, with the ops it counted, read from the callgrind
/// output the run kept in its output directory `dir` (`None` for a run loaded from history, which
/// keeps none). The error says why there is none, for the comparison's "unavailable" note.
pub fn load(run: &RunRecord, dir: Option<&Path>, id: &str) -> Result<ScenarioProfile, String> {
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
) -> Result<(ScenarioProfile, ScenarioProfile), String> {
    match (load(base, base_dir, id), load(cand, cand_dir, id)) {
        (Ok(b), Ok(c)) => Ok((b, c)),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

/// Parses the text of a callgrind output file.
pub fn parse(text: &str) -> Result<Profile> {
    let mut reader = Reader::new(text);
    let mut profile = Profile::default();
    while let Some(record) = reader.read()? {
        match record {
            Record::Function => {
                let f = reader.function().expect("a fn= record names its function");
                profile.functions.entry(f.to_string()).or_default();
            }
            Record::Calls { count } => {
                if let Some(c) = reader.callee() {
                    *profile.calls.entry(c.to_string()).or_default() += count;
                }
            }
            Record::Cost(line) => {
                let Some(f) = reader.function() else {
                    bail!("line {}: cost line before any fn=", line.line_no);
                };
                // The first event: the one the profile is of.
                let cost = line.event(0)?;
                let entry = profile.functions.entry(f.to_string()).or_default();
                entry.inclusive += cost;
                // A call's cost line is the callee's inclusive cost: the caller's inclusive only.
                if !line.call {
                    entry.self_cost += cost;
                    profile.total += cost;
                }
            }
            _ => {}
        }
    }
    if reader.events().is_none() {
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
