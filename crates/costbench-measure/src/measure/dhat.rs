//! Valgrind's DHAT: the command line and the reading of its JSON output into total and peak
//! heap bytes and blocks (the figures rustls's ci-bench keeps in `memory.csv`).
//!
//! DHAT cannot be switched on around one function, so its figures cover the scenario's whole
//! process: start-up, setup and the body. They complement the counting allocator's body-only
//! figures and need no change to the bench binary.

use crate::measure::callgrind::Valgrind;
use anyhow::{anyhow, Context, Result};
use serde::Deserialize;
use std::path::Path;
use std::process::Command;

/// `valgrind --tool=dhat` running `exe args`, writing its JSON to `out_file` (no `%` in it).
pub fn command(valgrind: &Valgrind, out_file: &Path, exe: &Path, args: &[String]) -> Command {
    debug_assert!(!out_file.to_string_lossy().contains('%'));
    let mut cmd = Command::new(&valgrind.path);
    cmd.arg("--tool=dhat")
        .arg(format!("--dhat-out-file={}", out_file.display()))
        .arg("--quiet")
        .arg(exe)
        .args(args);
    cmd
}

#[derive(Debug, Deserialize)]
struct DhatFile {
    #[serde(rename = "dhatFileVersion")]
    version: u32,
    mode: Option<String>,
    pps: Vec<ProgramPoint>,
}

/// One allocation site. `tb`/`tbk`: total bytes and blocks allocated there; `gb`/`gbk`: bytes
/// and blocks live there at the global peak (t-gmax).
#[derive(Debug, Deserialize)]
struct ProgramPoint {
    tb: u64,
    tbk: u64,
    #[serde(default)]
    gb: u64,
    #[serde(default)]
    gbk: u64,
}

/// Totals of a DHAT JSON output: (total bytes, total blocks, peak bytes, peak blocks).
pub fn totals(json: &str) -> Result<(u64, u64, u64, u64)> {
    let f: DhatFile = serde_json::from_str(json).context("not DHAT JSON output")?;
    if f.version != 2 {
        return Err(anyhow!(
            "DHAT file version {} (costbench reads version 2, valgrind 3.15 and later)",
            f.version
        ));
    }
    if let Some(m) = f.mode.as_deref() {
        if m != "heap" {
            return Err(anyhow!("DHAT ran in {m:?} mode, not heap profiling"));
        }
    }
    // Checked: a damaged file's counts must not panic the run (nor wrap into a plausible total).
    f.pps
        .iter()
        .try_fold((0u64, 0u64, 0u64, 0u64), |(a, b, c, d), p| {
            Some((
                a.checked_add(p.tb)?,
                b.checked_add(p.tbk)?,
                c.checked_add(p.gb)?,
                d.checked_add(p.gbk)?,
            ))
        })
        .ok_or_else(|| anyhow!("DHAT's totals overflow 64 bits: a damaged file"))
}

/// Reads DHAT's output file.
pub fn read_totals(path: &Path) -> Result<(u64, u64, u64, u64)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read DHAT output {}", path.display()))?;
    totals(&text).with_context(|| format!("in DHAT output {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real DHAT (valgrind 3.19) output of the selftest's `memory/exact` scenario.
    const FIXTURE: &str = include_str!("../../testdata/dhat-memory-exact.json");

    #[test]
    fn real_output_sums_sites() {
        let (tb, tbk, gb, gbk) = totals(FIXTURE).unwrap();
        // The body allocates 100 boxes of 1000 bytes and 100 vectors of 500 bytes, each grown
        // to 1500 (DHAT counts a realloc as a new block). Start-up and setup allocate more, so
        // these are lower bounds, and the peak is below the total.
        assert!(tbk >= 300 && tb >= 300_000, "{tb} {tbk}");
        assert_eq!((tb, tbk, gb, gbk), (306_790, 348, 5354, 36));
        assert!(gb <= tb && gbk <= tbk && gb > 0);
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(totals("{}").is_err());
        assert!(totals(r#"{"dhatFileVersion":1,"pps":[]}"#).is_err());
        assert!(totals(r#"{"dhatFileVersion":2,"mode":"copy","pps":[]}"#).is_err());
        assert_eq!(
            totals(r#"{"dhatFileVersion":2,"mode":"heap","pps":[{"tb":5,"tbk":1,"gb":5,"gbk":1},{"tb":3,"tbk":2}]}"#)
                .unwrap(),
            (8, 3, 5, 1)
        );
        // Sums that overflow are an error, not a panic (found reading the parser for the fuzz
        // target `dhat`).
        let e = totals(&format!(
            r#"{{"dhatFileVersion":2,"pps":[{{"tb":{},"tbk":1}},{{"tb":1,"tbk":1}}]}}"#,
            u64::MAX
        ))
        .unwrap_err();
        assert!(e.to_string().contains("overflow"), "{e}");
    }
}
