//! rustls ci-bench's `icounts.csv` (`name,count`): the instruction counts of another harness,
//! which `costbench import` records as this instrument's figure (each row one scenario whose
//! whole run is one op). Pure parsing: the caller reads the file.

use crate::instrument::import::{CiBenchFile, Rows};
use anyhow::{bail, Context, Result};
use costbench_record::instrument::Instrument;
use costbench_record::model::Icount;

/// The file and how its rows become instruction counts.
pub const FILE: CiBenchFile = CiBenchFile {
    instrument: Instrument::Icount,
    names: &["icounts.csv"],
    read,
};

/// Parses `name,count` rows; `file` names the file in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<(String, u64)>> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Some((name, count)) = line.rsplit_once(',') else {
            bail!("{file}:{}: expected `name,count`, found {line:?}", n + 1);
        };
        let count: u64 = count.trim().parse().with_context(|| {
            format!(
                "{file}:{}: the count {count:?} is not a whole number",
                n + 1
            )
        })?;
        if name.is_empty() {
            bail!("{file}:{}: empty scenario name", n + 1);
        }
        rows.push((name.to_string(), count));
    }
    Ok(rows)
}

/// Each row's count as the whole run's instruction count, one op.
fn read(text: &str, file: &str, rows: &mut Rows) -> Result<()> {
    for (name, count) in parse(text, file)? {
        rows.row(&name).icount = Some(Icount {
            ir: count,
            ir_per_op: count as f64,
            callgrind_out: String::new(),
            placement: None,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_rows_name_file_and_line() {
        let e = parse("a,1\nb,x\n", "icounts.csv").unwrap_err();
        assert_eq!(
            format!("{e:#}").split(':').take(2).collect::<Vec<_>>(),
            ["icounts.csv", "2"]
        );
        let e = parse("a,1\ntruncated", "icounts.csv").unwrap_err();
        assert!(e.to_string().starts_with("icounts.csv:2:"), "{e}");
    }
}
