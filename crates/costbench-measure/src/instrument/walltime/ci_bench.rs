//! rustls ci-bench's wall-time CSV (`name,ns_1,...,ns_N`, written as `walltime.csv` or
//! `walltimes.csv`): the samples of another harness, which `costbench import` records as this
//! instrument's figure (each row one scenario whose whole run is one op, each sample one run).
//! Pure parsing: the caller reads the file.

use crate::instrument::import::{CiBenchFile, Rows};
use anyhow::{bail, Context, Result};
use costbench_record::instrument::Instrument;
use costbench_record::model::Walltime;

/// The file (either name) and how its rows become wall-time figures.
pub const FILE: CiBenchFile = CiBenchFile {
    instrument: Instrument::Walltime,
    names: &["walltime.csv", "walltimes.csv"],
    read,
};

/// Parses `name,ns_1,...,ns_N` rows; `file` names the file in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<(String, Vec<f64>)>> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split(',');
        let name = fields.next().unwrap_or_default();
        if name.is_empty() {
            bail!("{file}:{}: empty scenario name", n + 1);
        }
        let values = fields
            .map(|f| {
                f.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .with_context(|| {
                        format!("{file}:{}: {f:?} is not a duration in nanoseconds", n + 1)
                    })
            })
            .collect::<Result<Vec<f64>>>()?;
        if values.is_empty() {
            bail!("{file}:{}: {name:?} has no samples", n + 1);
        }
        rows.push((name.to_string(), values));
    }
    Ok(rows)
}

/// Each row's samples as one-iteration samples of a monotonic clock, one op per run.
fn read(text: &str, file: &str, rows: &mut Rows) -> Result<()> {
    for (name, ns) in parse(text, file)? {
        rows.row(&name).walltime = Some(Walltime {
            clock: "monotonic".into(),
            samples: ns.len(),
            iterations_per_sample: 1,
            warmup_iterations: 0,
            clock_overhead_ns: 0.0,
            ns_per_op: costbench_record::stats::summarize(&ns),
            iteration_ns: ns,
            paired: None,
            step: None,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_rows_name_file_and_line() {
        let e = parse("a,1,2\nb,3,\n", "w.csv").unwrap_err();
        assert!(format!("{e:#}").starts_with("w.csv:2:"), "{e:#}");
        let e = parse("a\n", "w.csv").unwrap_err();
        assert!(e.to_string().contains("no samples"), "{e}");
    }
}
