//! The static census of a binary: which checks survived optimisation in it. How many of them
//! ran per op in a measured body is the instrument's ([`super::parse`]).
//!
//! `crate::elf` loads the ELF image and resolves callees (direct, PLT, GOT); `disasm` decodes a
//! function with `iced-x86`; `classify` names the kind of a panic entry point (it and the
//! census's data types live in the record crate's slice, `costbench_record::instrument::census`);
//! `guards` finds the conditional branches whose failing side only panics; the report crate's
//! slice prints. This module ties them together and attributes each guard to source lines
//! through the DWARF line tables and inline records (`addr2line`).
//! Nothing here spawns processes: `run/` runs callgrind and hands the output over.

use anyhow::{Context, Result};
use costbench_record::instrument::census::classify::Kind;
use costbench_record::instrument::census::{Frame, Guard, StaticCensus};
use super::{disasm, guards};
use crate::elf;
use std::borrow::Cow;
use std::path::Path;

/// How the errors of the binary reader (`crate::elf`) name what reads a binary here.
pub(crate) const READER: &str = "the census";

// The census's plain data (schema, guards, frames, kinds) lives in the record crate, so that
// the report crate renders it without depending on this one.

/// The crate a demangled function name belongs to: the first path segment, looking inside
/// `<Type as Trait>` to the first path it names. Names without a path (C functions) are `?`.
pub fn crate_of(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            if name[i..].starts_with("::") {
                return name[start..i].to_string();
            }
        } else {
            i += 1;
        }
    }
    "?".into()
}

/// Attributes each guard to the crate whose source holds it: the innermost frame of its inline
/// chain whose file lies in one of `crates` (name, and a library's folder or another target's
/// root file, the longest match winning) names the crate; a guard with no such frame keeps
/// the crate of its enclosing function. So a check in your library's function that was inlined
/// into a bench closure (enclosing symbol: the bench target's crate) counts as your library's,
/// and so does a std check (range slicing) inlined into your code, which ends its chain at
/// your line.
pub fn attribute(census: &mut StaticCensus, crates: &[(String, std::path::PathBuf)]) {
    let owner = |file: &str| -> Option<&str> {
        let file = Path::new(file);
        crates
            .iter()
            .filter(|(_, p)| file == p || file.starts_with(p))
            .max_by_key(|(_, p)| p.as_os_str().len())
            .map(|(name, _)| name.as_str())
    };
    for g in &mut census.guards {
        if let Some(name) = g
            .inline_chain
            .iter()
            .find_map(|f| f.file.as_deref().and_then(owner))
        {
            g.krate = name.to_string();
        }
    }
}

/// Reads the binary at `path` and finds every guard in it.
pub fn analyse(path: &Path) -> Result<StaticCensus> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let image = elf::Image::parse(&data, path, READER)?;
    let raws: Vec<Vec<disasm::Raw>> = image
        .functions
        .iter()
        .map(|f| disasm::decode(&image, f))
        .collect();
    let diverging = diverging_functions(&image.functions, &raws);
    let found: Vec<(usize, guards::FoundGuard)> = raws
        .iter()
        .enumerate()
        .flat_map(|(fi, raw)| {
            guards::find(&disasm::lower(raw, &diverging))
                .into_iter()
                .map(move |g| (fi, g))
        })
        .collect();
    let lines = Lines::load(&image.file)
        .with_context(|| format!("cannot read the debug info of {}", path.display()))?;
    let mut guards: Vec<Guard> = found
        .into_iter()
        .map(|(fi, g)| {
            let f = &image.functions[fi];
            let chain = lines.frames(g.addr);
            Guard {
                address: g.addr,
                kind: g.kind,
                function: f.name.clone(),
                krate: crate_of(&f.name),
                file: chain.first().and_then(|c| c.file.clone()),
                line: chain.first().and_then(|c| c.line),
                inline_chain: chain,
            }
        })
        .collect();
    guards.sort_by_key(|g| g.address);
    Ok(StaticCensus {
        binary: path.to_path_buf(),
        functions_scanned: image.functions.len(),
        guards,
    })
}

/// Functions that panic on every path (`fn fail() -> ! { panic!(..) }`, and std's own
/// wrappers around the panic entry points), with the kind they panic with: a call to one is a
/// failing side like a call to a panic entry point. Found by iterating to a fixpoint, since a
/// function can diverge by calling another that does; only the callers of a newly found one are
/// looked at again.
fn diverging_functions(
    functions: &[elf::Function],
    raws: &[Vec<disasm::Raw>],
) -> std::collections::HashMap<u64, Kind> {
    use std::collections::HashMap;
    let index: HashMap<u64, usize> = functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.addr, i))
        .collect();
    let mut callers: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, raw) in raws.iter().enumerate() {
        for callee in disasm::unnamed_exits(raw) {
            if index.contains_key(&callee) {
                callers.entry(callee).or_default().push(i);
            }
        }
    }
    let mut diverging = HashMap::new();
    let mut work: Vec<usize> = (0..functions.len()).rev().collect();
    let mut queued = vec![true; functions.len()];
    while let Some(i) = work.pop() {
        queued[i] = false;
        let addr = functions[i].addr;
        if diverging.contains_key(&addr) {
            continue;
        }
        if let Some(kind) = guards::analyse(&disasm::lower(&raws[i], &diverging)).diverges {
            diverging.insert(addr, kind);
            for &c in callers.get(&addr).into_iter().flatten() {
                if !queued[c] {
                    queued[c] = true;
                    work.push(c);
                }
            }
        }
    }
    diverging
}

/// DWARF line tables and inline records of a binary, for naming source lines.
pub(crate) struct Lines<'a> {
    ctx: Option<addr2line::Context<gimli::EndianSlice<'a, gimli::RunTimeEndian>>>,
}

impl<'a> Lines<'a> {
    pub(crate) fn load(file: &'a object::File<'a>) -> Result<Lines<'a>> {
        use object::{Object, ObjectSection};
        if file.section_by_name(".debug_line").is_none() {
            // Without line tables the census still counts; it just cannot name lines.
            return Ok(Lines { ctx: None });
        }
        // Plain sections borrow from the file; compressed ones are decompressed once and leaked,
        // which is fine for a census that runs once per process.
        let load = |id: gimli::SectionId| -> std::result::Result<&'a [u8], gimli::Error> {
            Ok(match file.section_by_name(id.name()) {
                Some(s) => match s.uncompressed_data() {
                    Ok(Cow::Borrowed(b)) => b,
                    Ok(Cow::Owned(v)) => Box::leak(v.into_boxed_slice()),
                    Err(_) => &[],
                },
                None => &[],
            })
        };
        let endian = if object::Object::is_little_endian(file) {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let dwarf = gimli::Dwarf::load(|id| load(id).map(|b| gimli::EndianSlice::new(b, endian)))?;
        Ok(Lines {
            ctx: Some(addr2line::Context::from_dwarf(dwarf)?),
        })
    }

    /// Source frames at `addr`, innermost first; empty when the debug info does not say.
    pub(crate) fn frames(&self, addr: u64) -> Vec<Frame> {
        let Some(ctx) = &self.ctx else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let Ok(mut it) = ctx.find_frames(addr).skip_all_loads() else {
            return out;
        };
        while let Ok(Some(f)) = it.next() {
            out.push(Frame {
                function: f
                    .function
                    .as_ref()
                    .and_then(|n| n.raw_name().ok())
                    .map(|n| elf::demangle(&n)),
                file: f.location.as_ref().and_then(|l| l.file).map(str::to_string),
                line: f.location.as_ref().and_then(|l| l.line),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_names() {
        assert_eq!(crate_of("core::panicking::panic_fmt"), "core");
        assert_eq!(
            crate_of("<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop"),
            "alloc"
        );
        assert_eq!(crate_of("<&T as core::fmt::Debug>::fmt"), "core");
        assert_eq!(crate_of("my_crate::f::{{closure}}"), "my_crate");
        assert_eq!(crate_of("memcpy"), "?");
    }

    /// Issue 29: a check of the user's library inlined into a bench closure is the library's;
    /// one in the bench file stays the bench's; std's own stay std's.
    #[test]
    fn guards_are_attributed_to_the_crate_whose_source_holds_them() {
        let frame = |function: &str, file: &str| Frame {
            function: Some(function.into()),
            file: Some(file.into()),
            line: Some(3),
        };
        let guard = |function: &str, chain: Vec<Frame>| Guard {
            address: 0,
            kind: Kind::SliceIndex,
            function: function.into(),
            krate: crate_of(function),
            file: None,
            line: None,
            inline_chain: chain,
        };
        let closure = "costs::main::{{closure}}";
        let mut c = StaticCensus {
            binary: "b".into(),
            functions_scanned: 3,
            guards: vec![
                guard(
                    closure,
                    vec![
                        frame("mylib::lookup", "/w/src/table.rs"),
                        frame(closure, "/w/benches/costs.rs"),
                    ],
                ),
                guard(
                    closure,
                    vec![
                        frame(
                            "core::slice::index",
                            "/rustc/abc/library/core/src/slice/index.rs",
                        ),
                        frame(closure, "/w/benches/costs.rs"),
                    ],
                ),
                guard(
                    "costbench::perf::measure",
                    vec![frame(
                        "costbench::perf::measure",
                        "/r/costbench/src/perf.rs",
                    )],
                ),
            ],
        };
        let crates = [
            ("mylib".to_string(), "/w/src".into()),
            ("costs".to_string(), "/w/benches/costs.rs".into()),
        ];
        attribute(&mut c, &crates);
        let krates: Vec<&str> = c.guards.iter().map(|g| g.krate.as_str()).collect();
        assert_eq!(krates, ["mylib", "costs", "costbench"]);
    }
}
