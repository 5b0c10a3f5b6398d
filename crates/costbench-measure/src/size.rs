//! The size of a bench binary ([`BinarySize`]): its loaded sections by kind, read from the ELF
//! section headers, and the crates whose functions take the most code, read from the symbol
//! table (demangled as [`crate::elf`] names every function).
//!
//! Owns reading sizes only: which budget limits them is `costbench-judge`'s, how they are shown
//! the reports'.

use anyhow::{Context, Result};
use costbench_record::model::budget::{BinarySize, CrateSize};
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};
use std::collections::HashMap;
use std::path::Path;

/// How many crates [`BinarySize::top_crates`] keeps.
pub const TOP_CRATES: usize = 10;

/// Reads the size of the binary at `path`.
pub fn measure(path: &Path) -> Result<BinarySize> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    of_bytes(&data).with_context(|| format!("cannot read the sections of {}", path.display()))
}

/// [`measure`] of the bytes of a binary.
pub fn of_bytes(data: &[u8]) -> Result<BinarySize> {
    let file = object::File::parse(data)?;
    let (mut text, mut data_bytes, mut bss) = (0u64, 0u64, 0u64);
    for s in file.sections() {
        // Only what the loader maps: debug info, symbol tables and notes take room in the
        // file but are not part of the program.
        let loaded = match s.flags() {
            object::SectionFlags::Elf { sh_flags, .. } => {
                sh_flags.0 & object::elf::SHF_ALLOC.0 != 0
            }
            _ => !matches!(
                s.kind(),
                SectionKind::Debug | SectionKind::Metadata | SectionKind::Other
            ),
        };
        if !loaded {
            continue;
        }
        match s.kind() {
            SectionKind::Text => text += s.size(),
            SectionKind::UninitializedData | SectionKind::UninitializedTls => bss += s.size(),
            _ => data_bytes += s.size(),
        }
    }
    let mut by_crate: HashMap<String, u64> = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for sym in file.symbols() {
        if sym.kind() != SymbolKind::Text || sym.size() == 0 || !seen.insert(sym.address()) {
            continue;
        }
        let name = sym.name().unwrap_or("");
        *by_crate.entry(crate_of(name)).or_default() += sym.size();
    }
    let mut top_crates: Vec<CrateSize> = by_crate
        .into_iter()
        .map(|(krate, bytes)| CrateSize { krate, bytes })
        .collect();
    top_crates.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.krate.cmp(&b.krate)));
    top_crates.truncate(TOP_CRATES);
    Ok(BinarySize {
        text,
        data: data_bytes,
        bss,
        total: text + data_bytes,
        file: data.len() as u64,
        top_crates,
    })
}

/// The crate a (mangled) symbol belongs to: the first path segment of its demangled name,
/// looking inside `<T as Trait>` to the type's crate; `[other]` for a name with no path (C
/// functions, the runtime's own symbols).
pub fn crate_of(raw: &str) -> String {
    let name = crate::elf::demangle(raw);
    let name = name.trim_start_matches('<').trim_start_matches('&');
    let name = name.strip_prefix("mut ").unwrap_or(name);
    match name.split_once("::") {
        Some((krate, _))
            if !krate.is_empty()
                && krate.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            krate.to_string()
        }
        _ => "[other]".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crates_of_symbols() {
        for (raw, want) in [
            ("_ZN4core3fmt5write17h0123456789abcdefE", "core"),
            (
                "_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h0123456789abcdefE",
                "alloc",
            ),
            ("memcpy", "[other]"),
            ("_start", "[other]"),
        ] {
            assert_eq!(crate_of(raw), want, "{raw}");
        }
    }

    /// This test's own executable: a real ELF binary with std in it.
    #[test]
    fn the_test_binary_has_code_data_and_std() {
        let exe = std::env::current_exe().unwrap();
        let s = measure(&exe).unwrap();
        assert!(s.text > 100_000, "{s:?}");
        assert!(s.data > 0, "{s:?}");
        assert_eq!(s.total, s.text + s.data);
        assert!(
            s.file > s.total,
            "debug info is in the file, not the total: {s:?}"
        );
        assert!(s.top_crates.len() <= TOP_CRATES && !s.top_crates.is_empty());
        assert!(s.top_crates.windows(2).all(|w| w[0].bytes >= w[1].bytes));
        assert!(
            s.top_crates
                .iter()
                .any(|c| c.krate == "core" || c.krate == "std"),
            "{s:?}"
        );
    }
}
