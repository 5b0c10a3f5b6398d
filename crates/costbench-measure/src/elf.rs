//! Loading a binary: ELF sections, function symbols, and how calls reach their callees
//! (directly, through the PLT, or through a GOT slot filled by a dynamic relocation).
//!
//! Owns no analysis: it answers "what bytes are at this address", "which function starts here"
//! and "which function does this GOT slot or PLT stub lead to". An instrument that reads the
//! binary it measured (in its folder), `asm` (a function's machine code) and
//! `size` (code by crate) read binaries through it; it names no instrument.

use anyhow::{bail, Context, Result};
use object::{Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationFlags};
use std::collections::HashMap;

/// A function of the binary, from its symbol table.
#[derive(Debug, Clone)]
pub struct Function {
    /// Address of the function's first byte.
    pub addr: u64,
    /// Size of the function in bytes.
    pub size: u64,
    /// Demangled, without the hash.
    pub name: String,
}

/// A loaded x86-64 ELF image.
#[derive(Debug)]
pub struct Image<'data> {
    /// The parsed object file.
    pub file: object::File<'data>,
    /// Functions with a size, sorted by address, one per address.
    pub functions: Vec<Function>,
    /// Demangled names of every function symbol by address (aliases: the first seen).
    names: HashMap<u64, String>,
    /// What each GOT slot holds at run time, when a relocation or the file says.
    got: HashMap<u64, Slot>,
    /// PLT sections: address range and bytes.
    plt: Vec<(u64, &'data [u8])>,
    /// Executable sections: address and bytes.
    text: Vec<(u64, &'data [u8])>,
}

#[derive(Debug, Clone)]
enum Slot {
    Addr(u64),
    Named(String),
}

/// Demangles a Rust symbol without its hash; other names are returned as they are.
pub fn demangle(raw: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(raw))
}

impl<'data> Image<'data> {
    /// Parses `data` (the bytes of the file at `path`, named in errors) for `reader` (what
    /// reads it, as the errors say what cannot be read: an instrument's `READER`).
    pub fn parse(data: &'data [u8], path: &std::path::Path, reader: &str) -> Result<Image<'data>> {
        let file = object::File::parse(data).with_context(|| {
            format!(
                "{} is not an object file costbench can read",
                path.display()
            )
        })?;
        if file.format() != object::BinaryFormat::Elf {
            bail!(
                "{} is a {:?} file; {reader} reads ELF binaries (Linux) only",
                path.display(),
                file.format()
            );
        }
        if file.architecture() != object::Architecture::X86_64 {
            bail!(
                "{} is built for {:?}; {reader} decodes x86-64 machine code only so far \
                 (run it on an x86_64 build of the same code)",
                path.display(),
                file.architecture()
            );
        }
        let mut text = Vec::new();
        let mut plt = Vec::new();
        for s in file.sections() {
            let name = s.name().unwrap_or("");
            let exec = matches!(
                s.flags(),
                object::SectionFlags::Elf { sh_flags, .. } if sh_flags.0 & object::elf::SHF_EXECINSTR.0 != 0
            );
            if !exec || s.size() == 0 {
                continue;
            }
            let Ok(bytes) = s.data() else { continue };
            if name.starts_with(".plt") {
                plt.push((s.address(), bytes));
            } else {
                text.push((s.address(), bytes));
            }
        }
        let mut names = HashMap::new();
        let mut functions: Vec<Function> = Vec::new();
        for sym in file.symbols().chain(file.dynamic_symbols()) {
            if sym.kind() != object::SymbolKind::Text || sym.is_undefined() {
                continue;
            }
            let Ok(raw) = sym.name() else { continue };
            let addr = sym.address();
            if names.contains_key(&addr) {
                continue;
            }
            let name = demangle(raw);
            names.insert(addr, name.clone());
            if sym.size() > 0 {
                functions.push(Function {
                    addr,
                    size: sym.size(),
                    name,
                });
            }
        }
        if functions.is_empty() {
            bail!(
                "{} has no function symbols (stripped?); {reader} needs the symbol table: \
                 build with `strip = \"none\"` (costbench's own builds keep it)",
                path.display()
            );
        }
        functions.sort_by_key(|f| f.addr);
        functions.dedup_by_key(|f| f.addr);
        let mut image = Image {
            file,
            functions,
            names,
            got: HashMap::new(),
            plt,
            text,
        };
        image.got = image.read_got();
        Ok(image)
    }

    /// GOT slots filled by dynamic relocations: `R_X86_64_RELATIVE` (the addend is the
    /// address, as for calls to functions of the same PIE binary), `GLOB_DAT`/`JUMP_SLOT`/`64`
    /// (a symbol, by name when it is imported).
    fn read_got(&self) -> HashMap<u64, Slot> {
        use object::elf::{R_X86_64_64, R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT, R_X86_64_RELATIVE};
        let mut got = HashMap::new();
        let Some(relocs) = self.file.dynamic_relocations() else {
            return got;
        };
        let dynsym = self.file.dynamic_symbol_table();
        for (offset, r) in relocs {
            let RelocationFlags::Elf { r_type } = r.flags() else {
                continue;
            };
            let slot = match r_type {
                R_X86_64_RELATIVE => Slot::Addr(r.addend() as u64),
                R_X86_64_GLOB_DAT | R_X86_64_JUMP_SLOT | R_X86_64_64 => {
                    let object::RelocationTarget::Symbol(idx) = r.target() else {
                        continue;
                    };
                    let Some(sym) = dynsym.as_ref().and_then(|t| t.symbol_by_index(idx).ok())
                    else {
                        continue;
                    };
                    if !sym.is_undefined() && sym.address() != 0 {
                        Slot::Addr(sym.address())
                    } else {
                        match sym.name() {
                            Ok(n) => Slot::Named(demangle(n)),
                            Err(_) => continue,
                        }
                    }
                }
                _ => continue,
            };
            got.insert(offset, slot);
        }
        got
    }

    /// The executable bytes of `[addr, addr + size)`, if one section holds them.
    pub fn code(&self, addr: u64, size: u64) -> Option<&'data [u8]> {
        self.text.iter().find_map(|&(start, bytes)| {
            let off = addr.checked_sub(start)?;
            let end = off.checked_add(size)?;
            (end <= bytes.len() as u64).then(|| &bytes[off as usize..end as usize])
        })
    }

    /// The function a call to `addr` reaches, following a PLT stub to its GOT slot: its
    /// address when known (it is not, for an imported function) and its demangled name.
    pub fn callee_at(&self, addr: u64) -> (Option<u64>, Option<&str>) {
        if let Some(n) = self.names.get(&addr) {
            return (Some(addr), Some(n));
        }
        match self.plt_slot(addr) {
            Some(slot) => self.callee_in_slot(slot),
            None => (None, None),
        }
    }

    /// The function a call through the GOT slot at `slot` reaches (address, name).
    pub fn callee_in_slot(&self, slot: u64) -> (Option<u64>, Option<&str>) {
        match self.got.get(&slot) {
            Some(Slot::Addr(a)) => (Some(*a), self.names.get(a).map(String::as_str)),
            Some(Slot::Named(n)) => (None, Some(n)),
            None => {
                // A static, non-PIE binary: the slot holds the address itself.
                match self.read_u64(slot) {
                    Some(v) if self.names.contains_key(&v) => {
                        (Some(v), self.names.get(&v).map(String::as_str))
                    }
                    _ => (None, None),
                }
            }
        }
    }

    fn read_u64(&self, addr: u64) -> Option<u64> {
        self.file.sections().find_map(|s| {
            let off = addr.checked_sub(s.address())?;
            if off + 8 > s.size() {
                return None;
            }
            let d = s.data().ok()?;
            let b: [u8; 8] = d.get(off as usize..off as usize + 8)?.try_into().ok()?;
            Some(u64::from_le_bytes(b))
        })
    }

    /// The GOT slot a PLT stub at `addr` jumps through: its first `jmp [rip + X]` within the
    /// stub's 16 bytes (`.plt`: the first instruction; `.plt.sec`: after `endbr64`).
    fn plt_slot(&self, addr: u64) -> Option<u64> {
        let (start, bytes) = self
            .plt
            .iter()
            .find(|(s, b)| addr >= *s && addr < s + b.len() as u64)?;
        let off = (addr - start) as usize;
        let stub = &bytes[off..bytes.len().min(off + 16)];
        let mut dec = iced_x86::Decoder::with_ip(64, stub, addr, iced_x86::DecoderOptions::NONE);
        while dec.can_decode() {
            let i = dec.decode();
            if i.is_invalid() {
                return None;
            }
            if i.flow_control() == iced_x86::FlowControl::IndirectBranch
                && i.is_ip_rel_memory_operand()
            {
                return Some(i.ip_rel_memory_address());
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_it_cannot_read() {
        let p = std::path::Path::new("x");
        let e = Image::parse(b"not an elf file at all", p, "the reader").unwrap_err();
        assert!(format!("{e:#}").contains("not an object file"), "{e:#}");
        // A minimal ELF header for AArch64 (e_machine 183): a clear refusal, not garbage.
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2; // 64-bit
        h[5] = 1; // little endian
        h[6] = 1; // version
        h[16] = 2; // ET_EXEC
        h[18..20].copy_from_slice(&183u16.to_le_bytes());
        h[20] = 1;
        h[52..54].copy_from_slice(&64u16.to_le_bytes()); // e_ehsize
        h[58..60].copy_from_slice(&64u16.to_le_bytes()); // e_shentsize
        let e = Image::parse(&h, p, "the reader").unwrap_err();
        assert!(format!("{e:#}").contains("x86-64"), "{e:#}");
    }

    #[test]
    fn demangles_without_hash() {
        assert_eq!(
            demangle("_ZN4core9panicking18panic_bounds_check17h0123456789abcdefE"),
            "core::panicking::panic_bounds_check"
        );
        assert_eq!(demangle("memcpy"), "memcpy");
    }
}
