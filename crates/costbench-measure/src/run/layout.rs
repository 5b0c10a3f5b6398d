//! Code layouts for interleaved wall time: the bench binary relinked into another layout for
//! every round of every side, so that where the linker happened to put a hot loop (which moves
//! wall time by tens of percent with identical instructions) is part of the round-to-round
//! spread `compare` judges a change against, not a bias of one side.
//!
//! Two kinds of layout ([`LayoutMode`]): `shift` (the default) puts a padding section of 16 to
//! 4,080 bytes in front of the program's code, moving every function by the same multiple of 16
//! bytes, as a pull request moves the code after the function it edits; `shuffle` has lld put
//! every input section in a random order (`--shuffle-sections`), a far larger change than a pull
//! request makes, under which most of the built-in suite's scenarios spread by more than 5 %
//! (docs/accuracy.md).
//!
//! This module owns reading the link command rustc printed when it linked the bench target
//! (`--print link-args`, stored beside the executable by `cargo::build_with` as `EXE.link-args`),
//! parsing it, deciding whether it can be varied (only lld shuffles sections), which seed each
//! (side, round) runs, and relinking lazily into a `layouts/` cache beside the build. It does not
//! decide how many rounds run or judge anything.

use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// How each round's code layout differs from the build as cargo linked it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutMode {
    /// Every function moved by the same seed-chosen multiple of 16 bytes (a padding section in
    /// front of the code): the alignment changes a pull request causes downstream of its edit.
    Shift,
    /// Every input section in a seed-chosen random order (lld's `--shuffle-sections`).
    Shuffle,
    /// Every round runs the build as cargo linked it.
    Off,
}

impl LayoutMode {
    /// The mode's name, as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            LayoutMode::Shift => "shift",
            LayoutMode::Shuffle => "shuffle",
            LayoutMode::Off => "off",
        }
    }
}

/// The global symbol of the padding section (a `--undefined` root, so `--gc-sections` keeps it).
const PAD_SYMBOL: &str = "__costbench_layout_pad";

/// Bytes of padding in front of the code for `seed`: a multiple of 16 (functions are 16-byte
/// aligned, so every function moves as a whole) from 16 to 4,080, spread over a page by a
/// SplitMix64 step of the seed.
pub fn pad_bytes(seed: u64) -> usize {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    16 * (1 + (z % 255) as usize)
}

/// A relocatable ELF object for `arch` holding one executable section of `bytes` bytes of `int3`
/// with the global symbol [`PAD_SYMBOL`].
fn pad_object(arch: object::Architecture, bytes: usize) -> Result<Vec<u8>> {
    use object::write::{Object, Symbol, SymbolSection};
    use object::{BinaryFormat, Endianness, SectionKind, SymbolFlags, SymbolKind, SymbolScope};
    let mut obj = Object::new(BinaryFormat::Elf, arch, Endianness::Little);
    let section = obj.add_section(
        Vec::new(),
        b".text.costbench_layout_pad".to_vec(),
        SectionKind::Text,
    );
    let value = obj.append_section_data(section, &vec![0xcc; bytes], 16);
    obj.add_symbol(Symbol {
        name: PAD_SYMBOL.as_bytes().to_vec(),
        value,
        size: bytes as u64,
        kind: SymbolKind::Text,
        scope: SymbolScope::Linkage,
        weak: false,
        section: SymbolSection::Section(section),
        flags: SymbolFlags::None,
    });
    obj.write()
        .map_err(|e| anyhow::anyhow!("cannot write a padding object: {e}"))
}

/// Suffix of the file beside the executable that holds rustc's printed link command.
pub const LINK_ARGS_SUFFIX: &str = ".link-args";

/// The file beside `exe` that holds the command rustc linked it with.
pub fn link_args_path(exe: &Path) -> PathBuf {
    let mut name = exe.file_name().unwrap_or_default().to_os_string();
    name.push(LINK_ARGS_SUFFIX);
    exe.with_file_name(name)
}

/// The link seed of round `round` of side `side` out of `sides`: distinct for every (side,
/// round) and never 0 (lld takes seed 0 as "pick one at random", which could not be recorded).
/// Every scenario's round `round` of that side runs the same layout, so a layout is built once.
pub fn seed(side: usize, round: u32, sides: usize) -> u64 {
    1 + u64::from(round) * sides as u64 + side as u64
}

/// A command as Rust's `Debug` for `std::process::Command` prints it (what rustc's
/// `--print link-args` writes): `cd "DIR" && `, `env -i`/`env -u KEY`, `KEY="value"`
/// assignments, then the program and its arguments, each in Rust string quoting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkLine {
    /// Directory the linker runs in; `None` for the current one.
    pub cwd: Option<PathBuf>,
    /// Whether the linker's environment starts empty.
    pub env_clear: bool,
    /// Variables removed from the linker's environment.
    pub env_remove: Vec<OsString>,
    /// Variables set in the linker's environment.
    pub env: Vec<(OsString, OsString)>,
    /// The program to run.
    pub program: OsString,
    /// Arguments after the program.
    pub args: Vec<OsString>,
}

/// How the linker is driven, which decides how lld's options are passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// A C compiler driver told to use lld (`-fuse-ld=lld`, rustc's default on x86_64 Linux).
    CcLld,
    /// lld itself (`rust-lld`, `ld.lld`).
    Lld,
}

impl LinkLine {
    /// Parses one printed command.
    pub fn parse(line: &str) -> Result<LinkLine> {
        let mut p = Tokens {
            s: line.trim().as_bytes(),
            i: 0,
        };
        let mut out = LinkLine {
            cwd: None,
            env_clear: false,
            env_remove: Vec::new(),
            env: Vec::new(),
            program: OsString::new(),
            args: Vec::new(),
        };
        if p.eat_word("cd") {
            out.cwd = Some(PathBuf::from(p.quoted()?));
            if !p.eat_word("&&") {
                bail!("expected `&&` after the link command's directory");
            }
        }
        if p.eat_word("env") {
            if p.eat_word("-i") {
                out.env_clear = true;
            }
            while p.eat_word("-u") {
                out.env_remove.push(p.bare()?.into());
            }
        }
        // KEY="value" assignments until the first quoted token (or `[program]`).
        loop {
            p.skip_space();
            match p.peek() {
                Some(b'"') | Some(b'[') => break,
                Some(_) => {
                    let key = p.until(b'=')?;
                    out.env.push((key.into(), p.quoted()?));
                }
                None => bail!("the link command has no program"),
            }
        }
        let mut program = None;
        if p.peek() == Some(b'[') {
            p.i += 1;
            program = Some(p.quoted()?);
            if p.peek() != Some(b']') {
                bail!("expected `]` after the link command's program");
            }
            p.i += 1;
        }
        let mut args = Vec::new();
        loop {
            p.skip_space();
            if p.peek().is_none() {
                break;
            }
            args.push(p.quoted()?);
        }
        if args.is_empty() {
            bail!("the link command has no program");
        }
        let arg0 = args.remove(0);
        out.program = program.unwrap_or(arg0);
        out.args = args;
        Ok(out)
    }

    /// The output file (`-o PATH`).
    pub fn output(&self) -> Option<&OsString> {
        self.args
            .iter()
            .position(|a| a == "-o")
            .and_then(|i| self.args.get(i + 1))
    }

    /// Whether this links with lld, and how; `None` for any other linker.
    pub fn flavor(&self) -> Option<Flavor> {
        let name = Path::new(&self.program)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if matches!(name.as_str(), "rust-lld" | "ld.lld" | "lld") {
            return Some(Flavor::Lld);
        }
        // The last -fuse-ld wins, as in the driver.
        let fuse = self
            .args
            .iter()
            .filter_map(|a| a.to_str()?.strip_prefix("-fuse-ld="))
            .next_back();
        match fuse {
            Some(l) if l == "lld" || l.ends_with("/ld.lld") || l.ends_with("/rust-lld") => {
                Some(Flavor::CcLld)
            }
            _ => None,
        }
    }

    /// The command that links the same objects into `out` with lld's section order shuffled by
    /// `seed`, without debug information (layout binaries only run wall time).
    pub fn relink_command(
        &self,
        mode: LayoutMode,
        seed: u64,
        pad: Option<&Path>,
        out: &Path,
    ) -> Result<Command> {
        let Some(flavor) = self.flavor() else {
            bail!("{}", NOT_LLD);
        };
        let Some(o) = self.args.iter().position(|a| a == "-o") else {
            bail!("the link command has no `-o OUTPUT`");
        };
        let mut args = self.args.clone();
        args[o + 1] = out.as_os_str().to_owned();
        let mut extra = vec!["--strip-debug".to_string()];
        match (mode, pad) {
            (LayoutMode::Shuffle, _) => extra.push(format!("--shuffle-sections=*={seed}")),
            (LayoutMode::Shift, Some(pad)) => {
                // In front of the first object of the program's own (after the C runtime's start
                // files, which the compiler driver adds itself), so that all of its code moves.
                let first = args
                    .iter()
                    .position(|a| a.to_string_lossy().ends_with(".o"))
                    .unwrap_or(0);
                args.insert(first, pad.as_os_str().to_owned());
                extra.push(format!("--undefined={PAD_SYMBOL}"));
            }
            (LayoutMode::Shift, None) => bail!("a shifted layout needs its padding object"),
            (LayoutMode::Off, _) => bail!("layouts are off"),
        }
        for e in extra {
            args.push(match flavor {
                Flavor::CcLld => format!("-Wl,{e}").into(),
                Flavor::Lld => e.into(),
            });
        }
        let mut cmd = Command::new(&self.program);
        cmd.args(args);
        if let Some(d) = &self.cwd {
            cmd.current_dir(d);
        }
        if self.env_clear {
            cmd.env_clear();
        }
        for k in &self.env_remove {
            cmd.env_remove(k);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        Ok(cmd)
    }
}

/// Why layouts are off with another linker.
pub const NOT_LLD: &str = "the linker is not lld: code layouts not varied";

/// Relinks `link` into `out` in layout `seed` of `mode` (see [`LinkLine::relink_command`]); a
/// shifted layout's padding object is written beside `out` and removed after.
pub fn relink(
    link: &LinkLine,
    mode: LayoutMode,
    arch: object::Architecture,
    seed: u64,
    out: &Path,
) -> Result<()> {
    let pad = match mode {
        LayoutMode::Shift => {
            let mut name = out.as_os_str().to_owned();
            name.push(".pad.o");
            let path = PathBuf::from(name);
            std::fs::write(&path, pad_object(arch, pad_bytes(seed))?)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Some(path)
        }
        LayoutMode::Shuffle | LayoutMode::Off => None,
    };
    let result = relink_with(link, mode, seed, pad.as_deref(), out);
    if let Some(p) = pad {
        let _ = std::fs::remove_file(p);
    }
    result
}

fn relink_with(
    link: &LinkLine,
    mode: LayoutMode,
    seed: u64,
    pad: Option<&Path>,
    out: &Path,
) -> Result<()> {
    let mut cmd = link.relink_command(mode, seed, pad, out)?;
    let res = cmd
        .output()
        .with_context(|| format!("cannot run the linker {:?}", link.program))?;
    if !res.status.success() {
        bail!(
            "relinking with seed {seed} failed ({}):\n{}",
            res.status,
            String::from_utf8_lossy(&res.stderr).trim_end()
        );
    }
    Ok(())
}

struct Tokens<'a> {
    s: &'a [u8],
    i: usize,
}

impl Tokens<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_space(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }

    /// Consumes the bare word `w` if it is next (followed by a space or the end).
    fn eat_word(&mut self, w: &str) -> bool {
        self.skip_space();
        let end = self.i + w.len();
        if self.s.get(self.i..end) == Some(w.as_bytes())
            && matches!(self.s.get(end), None | Some(b' '))
        {
            self.i = end;
            true
        } else {
            false
        }
    }

    fn bare(&mut self) -> Result<String> {
        self.skip_space();
        let start = self.i;
        while self.peek().is_some_and(|c| c != b' ') {
            self.i += 1;
        }
        if start == self.i {
            bail!("expected a word in the link command");
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// The bytes up to `end` (consumed, not included).
    fn until(&mut self, end: u8) -> Result<String> {
        let start = self.i;
        while let Some(c) = self.peek() {
            if c == end {
                self.i += 1;
                return Ok(String::from_utf8_lossy(&self.s[start..self.i - 1]).into_owned());
            }
            if c == b' ' || c == b'"' {
                break;
            }
            self.i += 1;
        }
        bail!(
            "expected `KEY=\"value\"` at byte {start} of the link command, found {:?}",
            String::from_utf8_lossy(&self.s[start..self.i.min(self.s.len())])
        )
    }

    /// One string in Rust `Debug` quoting (`\"`, `\\`, `\n`, `\u{..}`, and `\xNN` for the bytes
    /// of an `OsStr` that are not UTF-8).
    fn quoted(&mut self) -> Result<OsString> {
        self.skip_space();
        if self.peek() != Some(b'"') {
            bail!(
                "expected a quoted string at byte {} of the link command",
                self.i
            );
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                bail!("unterminated string in the link command");
            };
            self.i += 1;
            match c {
                b'"' => return Ok(OsString::from_vec(out)),
                b'\\' => {
                    let Some(e) = self.peek() else {
                        bail!("unterminated escape in the link command");
                    };
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'0' => out.push(0),
                        b'\\' | b'"' | b'\'' => out.push(e),
                        b'x' => {
                            let h = self
                                .s
                                .get(self.i..self.i + 2)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u8::from_str_radix(h, 16).ok())
                                .context("bad \\x escape in the link command")?;
                            self.i += 2;
                            out.push(h);
                        }
                        b'u' => {
                            let rest = &self.s[self.i..];
                            let close = rest
                                .iter()
                                .position(|&b| b == b'}')
                                .filter(|_| rest.first() == Some(&b'{'))
                                .context("bad \\u escape in the link command")?;
                            let ch = std::str::from_utf8(&rest[1..close])
                                .ok()
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .and_then(char::from_u32)
                                .context("bad \\u escape in the link command")?;
                            self.i += close + 1;
                            out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                        other => {
                            bail!("unknown escape \\{} in the link command", char::from(other))
                        }
                    }
                }
                _ => out.push(c),
            }
        }
    }
}

/// One side's relinkable build.
#[derive(Debug)]
struct Side {
    link: LinkLine,
    /// Where its layouts go.
    dir: PathBuf,
    stem: String,
    /// When the link command was written: layouts older than this are of an earlier build.
    stamp: SystemTime,
    /// The executable's architecture, for a padding object.
    arch: object::Architecture,
}

/// The code layouts of every side of one interleaved session: on for all sides or for none
/// (with a note saying why), so that every side's rounds carry the same kind of spread.
#[derive(Debug)]
pub struct Layouts {
    mode: LayoutMode,
    sides: Vec<Side>,
    count: usize,
    note: Option<String>,
    /// Layouts relinked so far, and the time that took.
    relinked: std::cell::Cell<(u32, std::time::Duration)>,
}

impl Layouts {
    /// Layouts for the executables of every side (in side order). Off, with `note` saying why,
    /// when `fixed` (the user's `--fixed-layout`) or when any side cannot be relinked.
    pub fn prepare(exes: &[&Path], mode: LayoutMode) -> Layouts {
        let off = |note: String| Layouts {
            mode: LayoutMode::Off,
            sides: Vec::new(),
            count: exes.len(),
            note: Some(note),
            relinked: Default::default(),
        };
        if mode == LayoutMode::Off {
            return off("--layouts off: code layouts not varied".into());
        }
        let mut sides = Vec::new();
        for exe in exes {
            match Self::side(exe) {
                Ok(s) => sides.push(s),
                Err(e) => return off(format!("{e:#}")),
            }
        }
        Layouts {
            mode,
            sides,
            count: exes.len(),
            note: None,
            relinked: Default::default(),
        }
    }

    /// How many layouts this session relinked (the others were cached), and in how long.
    pub fn relinked(&self) -> (u32, std::time::Duration) {
        self.relinked.get()
    }

    fn side(exe: &Path) -> Result<Side> {
        let file = link_args_path(exe);
        let text = std::fs::read_to_string(&file).map_err(|_| {
            anyhow::anyhow!(
                "no link command recorded beside {} (rustc prints it only when it links): code \
                 layouts not varied",
                exe.display()
            )
        })?;
        let stamp = std::fs::metadata(&file)
            .and_then(|m| m.modified())
            .with_context(|| format!("cannot read the time of {}", file.display()))?;
        let link = LinkLine::parse(&text)
            .with_context(|| format!("cannot parse the link command in {}", file.display()))?;
        if link.flavor().is_none() {
            bail!("{NOT_LLD}");
        }
        if link.output().map(Path::new) != Some(exe) {
            bail!(
                "the link command in {} is for another executable: code layouts not varied",
                file.display()
            );
        }
        // `deps/EXE` -> `layouts/`, beside `deps/` in the build directory.
        let dir = exe
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."))
            .join("layouts");
        let arch = {
            use object::Object as _;
            let data =
                std::fs::read(exe).with_context(|| format!("cannot read {}", exe.display()))?;
            object::File::parse(&*data)
                .with_context(|| format!("{} is not an executable object can read", exe.display()))?
                .architecture()
        };
        Ok(Side {
            arch,
            link,
            dir,
            stem: exe
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            stamp,
        })
    }

    /// Whether layouts are varied.
    pub fn varied(&self) -> bool {
        !self.sides.is_empty()
    }

    /// Why they are not.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// The seeds of `side`'s first `rounds` rounds; empty when layouts are not varied.
    pub fn seeds(&self, side: usize, rounds: usize) -> Vec<u64> {
        if !self.varied() {
            return Vec::new();
        }
        (0..rounds as u32)
            .map(|k| seed(side, k, self.count))
            .collect()
    }

    /// The binary that round `round` of side `side` runs: its layout, relinked unless a current
    /// one is cached; `None` when layouts are not varied (run the build as cargo linked it).
    pub fn exe(&self, side: usize, round: u32) -> Result<Option<PathBuf>> {
        let Some(s) = self.sides.get(side) else {
            return Ok(None);
        };
        let seed = seed(side, round, self.count);
        let out = s.dir.join(format!("{}-{}{seed}", s.stem, self.mode.name()));
        let current = std::fs::metadata(&out)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= s.stamp);
        if !current {
            std::fs::create_dir_all(&s.dir)
                .with_context(|| format!("cannot create {}", s.dir.display()))?;
            // Link to a temporary name first: an interrupted link must not look current.
            let tmp = s.dir.join(format!(".{}-layout{seed}.tmp", s.stem));
            let start = std::time::Instant::now();
            relink(&s.link, self.mode, s.arch, seed, &tmp)
                .and_then(|()| {
                    std::fs::rename(&tmp, &out)
                        .with_context(|| format!("cannot write {}", out.display()))
                })
                .with_context(|| {
                    format!(
                        "cannot build code layout {seed} of {} (pass --layouts off to measure \
                         without layouts)",
                        s.stem
                    )
                })?;
            let (n, t) = self.relinked.get();
            self.relinked.set((n + 1, t + start.elapsed()));
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real line printed by rustc 1.95 for the built-in suite's bench target, with machine
    /// paths replaced by neutral ones.
    const LINE: &str = include_str!("../../testdata/link-args-rustc-1.95.txt");

    #[test]
    fn parses_a_real_link_line() {
        let l = LinkLine::parse(LINE).unwrap();
        assert_eq!(l.program, "cc");
        assert_eq!(l.cwd, None);
        let keys: Vec<_> = l.env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(keys, ["LC_ALL", "PATH", "VSLANG"]);
        assert_eq!(l.env[0].1, "C");
        assert_eq!(l.args[0], "-m64");
        assert_eq!(l.flavor(), Some(Flavor::CcLld));
        assert_eq!(
            l.output().unwrap(),
            "/build/release/deps/builtin-444e05c234963aee"
        );
        assert!(l.args.iter().any(|a| a == "-Wl,--gc-sections"));
        assert!(l.args.iter().all(|a| !a.is_empty()));
    }

    #[test]
    fn relink_replaces_the_output_and_adds_the_shuffle() {
        let l = LinkLine::parse(LINE).unwrap();
        let cmd = l
            .relink_command(LayoutMode::Shuffle, 7, None, Path::new("/tmp/out"))
            .unwrap();
        let args: Vec<_> = cmd.get_args().collect();
        let o = args.iter().position(|a| *a == "-o").unwrap();
        assert_eq!(args[o + 1], "/tmp/out");
        assert_eq!(args.iter().filter(|a| **a == "-o").count(), 1);
        let n = args.len();
        assert_eq!(args[n - 2], "-Wl,--strip-debug");
        assert_eq!(args[n - 1], "-Wl,--shuffle-sections=*=7");
        assert!(cmd
            .get_envs()
            .any(|(k, v)| k == "LC_ALL" && v == Some("C".as_ref())));
    }

    #[test]
    fn a_shift_puts_the_padding_before_the_programs_first_object() {
        let l = LinkLine::parse(LINE).unwrap();
        let pad = Path::new("/tmp/out.pad.o");
        let cmd = l
            .relink_command(LayoutMode::Shift, 7, Some(pad), Path::new("/tmp/out"))
            .unwrap();
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy()).collect();
        let p = args.iter().position(|a| a == "/tmp/out.pad.o").unwrap();
        assert!(args[p + 1].ends_with(".o"), "{}", args[p + 1]);
        assert!(!args[..p].iter().any(|a| a.ends_with(".o")), "{args:?}");
        assert_eq!(
            args.last().unwrap(),
            "-Wl,--undefined=__costbench_layout_pad"
        );
        assert!(l
            .relink_command(LayoutMode::Shift, 7, None, Path::new("o"))
            .is_err());
    }

    #[test]
    fn padding_is_a_multiple_of_16_within_a_page_and_varies_with_the_seed() {
        let pads: Vec<usize> = (1..=64).map(pad_bytes).collect();
        assert!(pads.iter().all(|p| p % 16 == 0 && (16..=4080).contains(p)));
        let mut distinct = pads.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > 50, "{} distinct of 64", distinct.len());
        // Every alignment class of a 64-byte line is reached.
        for class in [0, 16, 32, 48] {
            assert!(pads.iter().any(|p| p % 64 == class), "{class}");
        }
    }

    #[test]
    fn the_padding_object_is_an_elf_relocatable_with_its_symbol() {
        use object::{Object, ObjectSection, ObjectSymbol};
        let bytes = pad_object(object::Architecture::X86_64, 48).unwrap();
        let obj = object::File::parse(&*bytes).unwrap();
        assert_eq!(obj.kind(), object::ObjectKind::Relocatable);
        let s = obj.section_by_name(".text.costbench_layout_pad").unwrap();
        assert_eq!(s.size(), 48);
        assert!(obj
            .symbols()
            .any(|s| s.name() == Ok(PAD_SYMBOL) && s.is_global()));
    }

    #[test]
    fn quoting_prefixes_and_other_linkers() {
        let l = LinkLine::parse(
            r#"cd "/w d" && env -u RUSTC A="x\"y\\z" ["/usr/bin/rust-lld"] "rust-lld" "-o" "a\u{e9}" "\xff""#,
        )
        .unwrap();
        assert_eq!(l.cwd.as_deref(), Some(Path::new("/w d")));
        assert_eq!(l.env_remove, [OsString::from("RUSTC")]);
        assert_eq!(l.env, [("A".into(), "x\"y\\z".into())]);
        assert_eq!(l.program, "/usr/bin/rust-lld");
        assert_eq!(l.output().unwrap(), "a\u{e9}");
        assert_eq!(l.args[2], OsString::from_vec(vec![0xff]));
        assert_eq!(l.flavor(), Some(Flavor::Lld));
        let cmd = l
            .relink_command(LayoutMode::Shuffle, 3, None, Path::new("o"))
            .unwrap();
        assert!(cmd.get_args().any(|a| a == "--shuffle-sections=*=3"));

        let bfd = LinkLine::parse(r#""cc" "-fuse-ld=lld" "-fuse-ld=bfd" "-o" "x""#).unwrap();
        assert_eq!(bfd.flavor(), None);
        let e = bfd
            .relink_command(LayoutMode::Shuffle, 1, None, Path::new("o"))
            .unwrap_err();
        assert_eq!(e.to_string(), NOT_LLD);
        assert_eq!(
            LinkLine::parse(r#""cc" "-o" "x""#).unwrap().flavor(),
            None,
            "a plain cc uses the system's default linker"
        );
        for bad in [
            "",
            "A=\"1\"",
            r#""cc" "unterminated"#,
            r#""a\q""#,
            "A \"x\"",
        ] {
            assert!(LinkLine::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn seeds_are_distinct_per_side_and_round_and_never_zero() {
        let mut seen = std::collections::BTreeSet::new();
        for sides in 1..4 {
            seen.clear();
            for side in 0..sides {
                for round in 0..24 {
                    let s = seed(side, round, sides);
                    assert_ne!(s, 0);
                    assert!(seen.insert(s), "seed {s} repeats");
                }
            }
        }
        assert_eq!(seed(1, 2, 2), 6);
        let fixed = Layouts::prepare(&[Path::new("/nonexistent")], LayoutMode::Off);
        assert!(!fixed.varied());
        assert!(fixed.note().unwrap().contains("--layouts off"));
        assert!(fixed.seeds(0, 3).is_empty());
        let missing = Layouts::prepare(&[Path::new("/nonexistent/x")], LayoutMode::Shift);
        assert!(missing.note().unwrap().contains("no link command"));
    }
}
