//! What the instruments under callgrind (icount, census, cache) share: finding valgrind, the
//! command line that counts only the measured body, the library that pins getrandom, reading
//! the totals back, and ([`format`](mod@format)) the one reader of callgrind's output format.
//!
//! Collection is off at start and toggled on only inside `costbench_measured_region` (the
//! library's trampoline around the body), so neither process start-up nor setup is counted and
//! nothing needs subtracting. The runner also disables ASLR and clears the environment, the two
//! outside inputs that move counts from run to run.

pub mod format;

use anyhow::{anyhow, bail, Context, Result};
use costbench_protocol::MEASURED_REGION_SYMBOL;
use format::Line;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A usable valgrind installation.
#[derive(Debug, Clone)]
pub struct Valgrind {
    /// Path of the `valgrind` executable.
    pub path: PathBuf,
    /// Valgrind's version, as `valgrind --version` prints it.
    pub version: String,
}

impl Valgrind {
    /// `valgrind TOOL_ARGS --OUT_FLAG=OUT_FILE exe args`: one party under a valgrind tool,
    /// writing the tool's output to `out_file` (no `%` in it, which valgrind would expand).
    /// Every instrument under valgrind starts its children through this.
    pub fn command<I, S>(
        &self,
        tool_args: I,
        out_flag: &str,
        out_file: &Path,
        exe: &Path,
        args: &[String],
    ) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        debug_assert!(!out_file.to_string_lossy().contains('%'));
        let mut cmd = Command::new(&self.path);
        cmd.args(tool_args)
            .arg(format!("--{out_flag}={}", out_file.display()))
            .arg(exe)
            .args(args);
        cmd
    }
}

/// How to get valgrind, for every message that says it is missing.
pub const INSTALL_HINT: &str =
    "install it with `apt-get install valgrind` (Debian/Ubuntu; `dnf install valgrind` on Fedora)";

/// Environment variable naming the valgrind executable to use instead of the one on PATH.
pub const VALGRIND_ENV: &str = "COSTBENCH_VALGRIND";

/// Finds valgrind (`$COSTBENCH_VALGRIND`, else on PATH) and checks that it runs.
pub fn detect() -> std::result::Result<Valgrind, String> {
    let path = match std::env::var_os(VALGRIND_ENV) {
        Some(p) if !Path::new(&p).is_file() => {
            return Err(format!(
                "valgrind not found at {} (from {VALGRIND_ENV}): fix the variable, or unset it and {INSTALL_HINT}",
                Path::new(&p).display()
            ))
        }
        Some(p) => PathBuf::from(p),
        None => find_on_path("valgrind").ok_or_else(|| {
            format!("valgrind is not installed (not found on PATH): {INSTALL_HINT}")
        })?,
    };
    let out = Command::new(&path).arg("--version").output().map_err(|e| {
        format!(
            "valgrind at {} does not run ({e}): {INSTALL_HINT}",
            path.display()
        )
    })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !version.starts_with("valgrind") {
        return Err(format!(
            "{} --version did not answer like valgrind: {INSTALL_HINT}",
            path.display()
        ));
    }
    Ok(Valgrind { path, version })
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `valgrind --tool=callgrind ...` running `exe args`, writing its profile to `out_file`;
/// `tool_args` are added to callgrind's own (the cache instrument adds its simulations).
///
/// `out_file` must not contain `%`: valgrind expands `%p`-style codes in it.
pub fn command(
    valgrind: &Valgrind,
    tool_args: &[&str],
    out_file: &Path,
    exe: &Path,
    args: &[String],
) -> Command {
    let toggle = format!("--toggle-collect={MEASURED_REGION_SYMBOL}");
    let own = ["--collect-atstart=no", toggle.as_str(), "--quiet"];
    let all = std::iter::once(&"--tool=callgrind")
        .chain(tool_args)
        .chain(&own);
    valgrind.command(all, "callgrind-out-file", out_file, exe, args)
}

/// Source of the library that pins getrandom: see the file's comment.
const FIXRANDOM_C: &str = include_str!("fixrandom.c");

/// Builds (once, cached under `cache_dir`) the shared library that makes `getrandom` return a
/// fixed sequence in scenario processes, with the system C compiler (`cc`, which Rust needs for
/// linking anyway). Returns why not when it cannot: counts of code seeded from getrandom (such as
/// std's `HashMap`) may then drift a little from run to run.
pub fn fixed_random_library(cache_dir: &Path) -> std::result::Result<PathBuf, String> {
    use std::hash::{Hash, Hasher};
    // A content hash in the name: a changed source never reuses a stale library. DefaultHasher
    // with its fixed keys is stable enough for a cache key.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    FIXRANDOM_C.hash(&mut h);
    let lib = cache_dir.join(format!("libcostbench_fixrandom-{:016x}.so", h.finish()));
    if lib.is_file() {
        return Ok(lib);
    }
    std::fs::create_dir_all(cache_dir)
        .map_err(|e| format!("cannot create {}: {e}", cache_dir.display()))?;
    let src = tempfile::Builder::new()
        .suffix(".c")
        .tempfile_in(cache_dir)
        .map_err(|e| format!("cannot write in {}: {e}", cache_dir.display()))?;
    std::fs::write(src.path(), FIXRANDOM_C).map_err(|e| e.to_string())?;
    let tmp_lib = src.path().with_extension("so");
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let out = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&tmp_lib)
        .arg(src.path())
        // dlsym, for the interposed syscall() to reach libc's (in libc itself since glibc 2.34).
        .arg("-ldl")
        .output()
        .map_err(|e| format!("cannot run the C compiler {:?}: {e}", cc))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp_lib);
        return Err(format!(
            "the C compiler failed to build the getrandom shim: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    std::fs::rename(&tmp_lib, &lib).map_err(|e| format!("cannot keep {}: {e}", lib.display()))?;
    Ok(lib)
}

/// Reads the total instruction count (`Ir`) from a callgrind output file.
pub fn read_ir(path: &Path) -> Result<u64> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read callgrind output {}", path.display()))?;
    total_ir(&text).with_context(|| format!("in callgrind output {}", path.display()))
}

/// The `Ir` column of the `totals:` (or `summary:`) line.
pub fn total_ir(text: &str) -> Result<u64> {
    totals(text)?
        .into_iter()
        .find(|(e, _)| e == "Ir")
        .map(|(_, v)| v)
        .ok_or_else(|| anyhow!("no Ir event in the `events:` line"))
}

/// Reads every event's total from a callgrind output file.
pub fn read_totals(path: &Path) -> Result<Vec<(String, u64)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read callgrind output {}", path.display()))?;
    totals(&text).with_context(|| format!("in callgrind output {}", path.display()))
}

/// Every event of the `events:` line with its value on the `totals:` (or `summary:`) line, in
/// the order of the `events:` line. Missing trailing fields are zero (callgrind's rule for
/// cost lines).
pub fn totals(text: &str) -> Result<Vec<(String, u64)>> {
    let mut events: Option<Vec<&str>> = None;
    let mut totals = None;
    // Header lines only: a file whose cost lines do not parse still has its totals.
    for (_, line) in format::lines(text) {
        match line {
            Line::Header {
                key: "events",
                value,
            } => events = Some(value.split_whitespace().collect()),
            Line::Header {
                key: "totals",
                value,
            } => totals = Some(value),
            Line::Header {
                key: "summary",
                value,
            } => totals = totals.or(Some(value)),
            _ => {}
        }
    }
    let events = events.ok_or_else(|| anyhow!("no `events:` line"))?;
    let Some(totals) = totals else {
        bail!("no `totals:` or `summary:` line (did the run finish?)");
    };
    let fields: Vec<&str> = totals.split_whitespace().collect();
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let field = fields.get(i).copied().unwrap_or("0");
            let v = field
                .parse()
                .map_err(|_| anyhow!("totals line has a non-numeric {e} field {field:?}"))?;
            Ok((e.to_string(), v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ir_from_totals() {
        let text =
            "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\n\nfn=(1) f\n5 2\n\ntotals: 2\n";
        assert_eq!(total_ir(text).unwrap(), 2);
        let two = "events: Dr Ir\nsummary: 7 9\n";
        assert_eq!(total_ir(two).unwrap(), 9);
        assert!(total_ir("events: Ir\n").is_err());
        assert!(total_ir("totals: 3\n").is_err());
    }
}
