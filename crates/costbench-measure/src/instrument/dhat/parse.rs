//! Reading DHAT's JSON output into total and peak heap bytes and blocks. Pure.

use super::super::shape::{Output, Parser};
use super::Dhat;
use anyhow::{anyhow, Context, Result};
use costbench_record::instrument::Instrument;
use costbench_record::model::Failure;
use serde::Deserialize;

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

impl Parser for Dhat {
    const INSTRUMENT: Instrument = Instrument::Dhat;
    type Figure = costbench_record::instrument::dhat::Dhat;

    fn parse(&self, out: Output<'_>) -> Result<costbench_record::instrument::dhat::Dhat, Failure> {
        out.ended_well(Self::INSTRUMENT)?;
        let (tb, tbk, gb, gbk) = out
            .text("DHAT")
            .and_then(|t| {
                totals(&t).with_context(|| format!("in DHAT output {}", out.path.display()))
            })
            .map_err(|e| out.failure(Self::INSTRUMENT, "no-measurement", format!("{e:#}")))?;
        Ok(costbench_record::instrument::dhat::Dhat {
            total_bytes: tb,
            total_blocks: tbk,
            peak_bytes: gb,
            peak_blocks: gbk,
            dhat_out: out.kept_as,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shape::testing::*;
    use super::*;

    /// Real DHAT (valgrind 3.19) output of the selftest's `memory/exact` scenario.
    const FIXTURE: &str = include_str!("testdata/dhat-memory-exact.json");

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

    #[test]
    fn dhat_sums_the_program_points() {
        let ok = ok();
        let mut out = file(&ok, 1, FIXTURE);
        out.kept_as = "dhat/s.json".into();
        let d = Dhat.parse(out).unwrap();
        let (tb, tbk, gb, gbk) = totals(FIXTURE).unwrap();
        assert_eq!(
            (d.total_bytes, d.total_blocks, d.peak_bytes, d.peak_blocks),
            (tb, tbk, gb, gbk)
        );
        assert_eq!(d.dhat_out, "dhat/s.json");
        let f = Dhat.parse(output(&ok, 1, missing())).unwrap_err();
        assert_eq!(f.message, "cannot read DHAT output out/.tmp: gone");
        let f = Dhat.parse(file(&ok, 1, "{}")).unwrap_err();
        assert!(
            f.message
                .starts_with("in DHAT output out/.tmp: not DHAT JSON output"),
            "{}",
            f.message
        );
    }
}
