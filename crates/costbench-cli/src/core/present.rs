//! The presentation two commands share: a variant matrix (`variants`, and `merge` of a sharded
//! variants session), so that neither command imports the other.

use crate::exit;
use anyhow::Result;
use costbench_judge::variants::Matrix;
use costbench_record::model::{RunRecord, VariantSplit};
use costbench_report::render::Format;
use costbench_report::render::MatrixView;
use std::path::Path;

/// Writes `root/matrix.json`, prints the matrix as `format` asks (with a line on where the
/// results are, and what a shard leaves to `merge`), lists failures under `quiet`, and returns
/// the exit code: a failure when a scenario failed or a variant did not build.
pub(crate) fn present(
    matrix: &Matrix,
    records: &[RunRecord],
    root: &Path,
    format: Format,
    quiet: bool,
) -> Result<i32> {
    let footer = format!("results: {}\n", root.display());
    crate::output::Sink::new(crate::output::stdout(format, quiet))
        .file(root.join("matrix.json"), Format::Json, None)
        .emit(&MatrixView {
            matrix,
            footer: &footer,
        })?;
    if let Some(s) = &matrix.shard {
        if !quiet {
            let has_base = records.iter().any(|r| r.variant == s.baseline);
            let whole = matches!(s.split, VariantSplit::WholeVariants { .. });
            eprintln!(
                "shard {}/{}: {}; join the {} shards' directories with `costbench merge` for the whole matrix",
                s.index,
                s.count,
                match (whole, has_base) {
                    (true, true) => "whole variants, with the baseline",
                    (true, false) =>
                        "whole variants; the baseline is another shard's, so no ratios here",
                    (false, _) => "every variant, a share of the scenarios",
                },
                s.count
            );
        }
    }
    let failed_scenarios = records.iter().any(|r| r.failed().next().is_some());
    if quiet {
        for r in records {
            for s in r.failed() {
                for f in &s.failures {
                    eprintln!(
                        "FAILED {} in variant {} ({}, {}): {}",
                        s.id, r.variant, f.instrument, f.kind, f.message
                    );
                }
            }
        }
    }
    Ok(
        if failed_scenarios || matrix.build_failures().next().is_some() {
            exit::FAILURE
        } else {
            exit::OK
        },
    )
}
