//! A function's machine code from a binary that was measured, as a
//! [`Listing`]: decoded with `iced-x86` (Intel syntax), with each
//! instruction's source line from the DWARF line tables and its executions from the run's
//! callgrind per-instruction counts, and its text normalised so that two builds of the same code
//! read alike: branch targets inside the function become labels numbered in address order
//! (`.L3`: an instruction added before them does not renumber them), calls and jumps out name
//! the function they reach, and data addresses read `DATA` (a GOT slot names what it holds).
//!
//! Reads the binary and nothing else; the counts come from the caller
//! (`instrument::census::parse::instruction_counts`). Diffing two listings is the judge's
//! (`compare::asm`).

use crate::elf::{Function, Image};
use crate::instrument::census::parse::Counts;
// Its errors of the binary name the census, whose run gives the counts (`READER`).
use crate::instrument::census::{Lines, READER};
use anyhow::{bail, Context, Result};
use costbench_record::asm::{AsmInsn, Listing};
use iced_x86::{
    Decoder, DecoderOptions, FlowControl, Formatter, Instruction, IntelFormatter, OpKind,
    SymbolResolver, SymbolResult,
};
use std::collections::HashMap;
use std::path::Path;

/// The listing of `function` in the binary at `path`: the function of that demangled name, or,
/// failing that, the one function whose name contains it (an error names the candidates when
/// several do). `counts` are the run's executions per address (`None`: unknown); source files
/// under `root` are named relative to it.
pub fn listing(
    path: &Path,
    function: &str,
    counts: Option<&Counts>,
    root: Option<&Path>,
) -> Result<Listing> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let image = Image::parse(&data, path, READER)?;
    let f = find(&image.functions, function, counts)
        .with_context(|| format!("in {}", path.display()))?;
    let lines = Lines::load(&image.file)
        .with_context(|| format!("cannot read the debug info of {}", path.display()))?;
    Ok(disassemble(&image, f, &lines, counts, root))
}

/// The binary a kept callgrind output measured and its executions per address (`None` when the
/// output has no per-instruction counts: written without `--dump-instr=yes`).
pub fn measured(callgrind_out: &Path) -> Result<(std::path::PathBuf, Option<Counts>)> {
    use crate::instrument::census::{parse::instruction_counts, sites::measured_binary};
    let text = std::fs::read_to_string(callgrind_out)
        .with_context(|| format!("cannot read callgrind output {}", callgrind_out.display()))?;
    let binary = measured_binary(&text)
        .with_context(|| format!("{} names no measured program", callgrind_out.display()))?;
    let per_instruction = text
        .lines()
        .find_map(|l| l.strip_prefix("positions:"))
        .is_some_and(|p| p.split_whitespace().any(|w| w == "instr"));
    if !per_instruction {
        return Ok((binary, None));
    }
    let canonical = binary.canonicalize().ok();
    let counts = instruction_counts(&text, |ob| {
        Path::new(ob) == binary || canonical.as_deref() == Some(Path::new(ob))
    })
    .with_context(|| format!("in callgrind output {}", callgrind_out.display()))?;
    Ok((binary, Some(counts)))
}

/// The listing of `function` as scenario `id` of `run` ran it: from the binary its kept
/// callgrind output (in the run's directory `dir`) names, with that output's executions, and
/// the ops the run counted. Source files under `root` are named relative to it. With `exact`,
/// only a function of exactly that name (a profile's: `None` when the binary has none, as for
/// the C library's functions, which live in another object); otherwise as [`listing`] finds it.
pub fn measured_listing(
    run: &costbench_record::model::RunRecord,
    dir: Option<&Path>,
    id: &str,
    function: &str,
    root: Option<&Path>,
    exact: bool,
) -> Result<Option<(Listing, u64)>> {
    let r = run
        .results
        .iter()
        .find(|r| r.id == id)
        .context("no result")?;
    let ic = r.icount.as_ref().context("no instruction count")?;
    let dir = dir.context("the run was loaded from history, which keeps no callgrind output")?;
    let (binary, counts) = measured(&dir.join(&ic.callgrind_out))?;
    let data =
        std::fs::read(&binary).with_context(|| format!("cannot read {}", binary.display()))?;
    let image = Image::parse(&data, &binary, READER)?;
    let f = if exact {
        let Some(f) = image
            .functions
            .iter()
            .filter(|f| f.name == function)
            .max_by_key(|f| executed(f, counts.as_ref()))
        else {
            return Ok(None);
        };
        f
    } else {
        find(&image.functions, function, counts.as_ref())
            .with_context(|| format!("in {}", binary.display()))?
    };
    let lines = Lines::load(&image.file)
        .with_context(|| format!("cannot read the debug info of {}", binary.display()))?;
    Ok(Some((
        disassemble(&image, f, &lines, counts.as_ref(), root),
        r.ops,
    )))
}

/// Executions of `f`'s instructions in `counts`.
fn executed(f: &Function, counts: Option<&Counts>) -> u64 {
    counts.map_or(0, |c| {
        c.iter()
            .filter(|(a, _)| (f.addr..f.addr + f.size).contains(*a))
            .map(|(_, n)| n)
            .sum()
    })
}

/// The function named `name`, else the one whose name contains it. Several functions of one
/// name (monomorphised copies whose demangled names agree): the one that executed most.
fn find<'f>(
    functions: &'f [Function],
    name: &str,
    counts: Option<&Counts>,
) -> Result<&'f Function> {
    let ran = |f: &Function| executed(f, counts);
    let exact: Vec<&Function> = functions.iter().filter(|f| f.name == name).collect();
    if let Some(f) = exact
        .iter()
        .copied()
        .max_by_key(|f| (ran(f), std::cmp::Reverse(f.addr)))
    {
        return Ok(f);
    }
    let mut like: Vec<&Function> = functions.iter().filter(|f| f.name.contains(name)).collect();
    like.sort_by(|a, b| a.name.cmp(&b.name));
    like.dedup_by(|a, b| a.name == b.name);
    match like.len() {
        0 => bail!("no function named {name:?} or containing it"),
        1 => Ok(like[0]),
        n => {
            let names: Vec<&str> = like.iter().take(8).map(|f| f.name.as_str()).collect();
            bail!(
                "{n} functions contain {name:?}: {}{}; give the whole name",
                names.join(", "),
                if n > names.len() { ", ..." } else { "" }
            )
        }
    }
}

/// Names for the addresses an instruction mentions, prepared for one function.
struct Names(HashMap<u64, String>);

impl SymbolResolver for Names {
    fn symbol(
        &mut self,
        instruction: &Instruction,
        operand: u32,
        _instruction_operand: Option<u32>,
        address: u64,
        _address_size: u32,
    ) -> Option<SymbolResult<'_>> {
        // Immediates are values, not addresses, even when they happen to equal one.
        if matches!(
            instruction.op_kind(operand),
            OpKind::Immediate8
                | OpKind::Immediate16
                | OpKind::Immediate32
                | OpKind::Immediate64
                | OpKind::Immediate8to16
                | OpKind::Immediate8to32
                | OpKind::Immediate8to64
                | OpKind::Immediate32to64
        ) {
            return None;
        }
        self.0
            .get(&address)
            .map(|s| SymbolResult::with_string(address, s.clone()))
    }
}

fn decode(image: &Image<'_>, f: &Function) -> Vec<Instruction> {
    let Some(bytes) = image.code(f.addr, f.size) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut dec = Decoder::with_ip(64, bytes, f.addr, DecoderOptions::NONE);
    while dec.can_decode() {
        let i = dec.decode();
        if i.is_invalid() {
            break;
        }
        out.push(i);
    }
    out
}

fn disassemble(
    image: &Image<'_>,
    f: &Function,
    lines: &Lines<'_>,
    counts: Option<&Counts>,
    root: Option<&Path>,
) -> Listing {
    let insns = decode(image, f);
    let end = f.addr + f.size;
    let inside = |a: u64| (f.addr..end).contains(&a);
    let mut names = HashMap::new();
    // Local targets, numbered in address order.
    let mut targets: Vec<u64> = insns
        .iter()
        .filter(|i| {
            matches!(
                i.flow_control(),
                FlowControl::ConditionalBranch
                    | FlowControl::UnconditionalBranch
                    | FlowControl::Call
            ) && inside(i.near_branch_target())
        })
        .map(|i| i.near_branch_target())
        .collect();
    targets.sort_unstable();
    targets.dedup();
    for (k, t) in targets.iter().enumerate() {
        names.insert(*t, format!(".L{k}"));
    }
    for i in &insns {
        let out = |(_, name): (Option<u64>, Option<&str>)| name.unwrap_or("EXTERN").to_string();
        match i.flow_control() {
            FlowControl::ConditionalBranch
            | FlowControl::UnconditionalBranch
            | FlowControl::Call
                if !inside(i.near_branch_target()) =>
            {
                names.insert(
                    i.near_branch_target(),
                    out(image.callee_at(i.near_branch_target())),
                );
            }
            _ => {}
        }
        if i.is_ip_rel_memory_operand() {
            let slot = i.ip_rel_memory_address();
            let name = match image.callee_in_slot(slot) {
                (_, Some(n)) => format!("GOT({n})"),
                _ => image
                    .callee_at(slot)
                    .1
                    .map_or_else(|| "DATA".to_string(), str::to_string),
            };
            names.insert(slot, name);
        }
    }
    let mut fmt = IntelFormatter::with_options(Some(Box::new(Names(names))), None);
    fmt.options_mut().set_show_branch_size(false);
    fmt.options_mut().set_space_after_operand_separator(true);
    fmt.options_mut().set_rip_relative_addresses(false);
    let rel = |file: Option<String>| -> Option<String> {
        let file = file?;
        Some(
            match root.and_then(|r| Path::new(&file).strip_prefix(r).ok()) {
                Some(r) => r.to_string_lossy().into_owned(),
                None => file,
            },
        )
    };
    let insns = insns
        .iter()
        .map(|i| {
            let mut text = String::new();
            fmt.format(i, &mut text);
            let frame = lines.frames(i.ip()).into_iter().next();
            AsmInsn {
                offset: i.ip() - f.addr,
                text,
                executions: counts.and_then(|c| c.get(&i.ip()).copied()).unwrap_or(0),
                file: rel(frame.as_ref().and_then(|fr| fr.file.clone())),
                line: frame.and_then(|fr| fr.line),
            }
        })
        .collect();
    Listing {
        function: f.name.clone(),
        insns,
        counted: counts.is_some_and(|c| !c.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test binary's own code: a function found by name, decoded with its lines, and its
    /// text free of absolute addresses.
    #[test]
    fn a_function_of_this_binary_is_listed_with_its_lines() {
        let exe = std::env::current_exe().unwrap();
        let l = listing(&exe, "costbench_measure::asm::find", None, None).unwrap();
        assert_eq!(l.function, "costbench_measure::asm::find");
        assert!(!l.insns.is_empty() && !l.counted);
        assert!(l.insns.iter().any(|i| i.text.starts_with("call ")));
        assert!(
            l.insns
                .iter()
                .any(|i| i.file.as_deref().is_some_and(|f| f.ends_with("asm.rs"))),
            "{l:?}"
        );
        // Every branch inside the function names a label, never an address.
        for i in &l.insns {
            let t = &i.text;
            if t.starts_with('j') {
                let target = t.split_whitespace().nth(1).unwrap_or("");
                assert!(target.starts_with(".L") || !target.starts_with("0x"), "{t}");
            }
        }
        let e = listing(&exe, "costbench_measure::asm::", None, None).unwrap_err();
        assert!(format!("{e:#}").contains("give the whole name"), "{e:#}");
        let e = listing(&exe, "no_such_function_anywhere", None, None).unwrap_err();
        assert!(format!("{e:#}").contains("no function named"), "{e:#}");
    }
}
