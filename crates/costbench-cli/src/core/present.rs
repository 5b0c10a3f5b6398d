//! The presentations two commands share: a variant matrix (`variants`, and `merge` of a sharded
//! variants session) and the list of scenarios (`run --list`, `variants --list`), so that
//! neither command imports the other.

use super::session::Session;
use crate::exit;
use anyhow::Result;
use costbench_judge::variants::Matrix;
use costbench_measure::run::Binary;
use costbench_protocol::ScenarioInfo;
use costbench_record::model::{RunRecord, VariantSplit};
use costbench_record::selection::select;
use costbench_report::render::Format;
use costbench_report::render::MatrixView;
use std::path::Path;

/// Writes `root/matrix.json`, prints the matrix as `format` asks (with a line on where the
/// results are, and what a shard leaves to `merge`), lists failures under `quiet`, and returns
/// the exit code: 3 when a variant broke a budget or has an instrument's finding that fails (not
/// accepted; listed on stderr, the accepted ones too), else a failure when a
/// scenario failed or a variant did not build.
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
    // The matrix has no place for budgets: each variant's broken ones on stderr, whatever
    // --quiet says, since they decide the exit code.
    let mut broken = false;
    for r in records {
        for b in r.broken_budgets() {
            broken = true;
            eprintln!(
                "BUDGET in variant {}: {}",
                r.variant,
                costbench_report::budget::line(b)
            );
        }
        for f in r.failing_findings() {
            broken = true;
            eprintln!(
                "{} in variant {}: {}: {}",
                f.spec().label.to_ascii_uppercase(),
                r.variant,
                f.id,
                f.line
            );
        }
        for f in r.accepted_findings() {
            eprintln!(
                "{} ACCEPTED in variant {}: {}: {}",
                f.spec().label.to_ascii_uppercase(),
                r.variant,
                f.id,
                f.line
            );
        }
        for c in r.broken_complexity() {
            broken = true;
            eprintln!(
                "COMPLEXITY in variant {}: {}: {} ({})",
                r.variant, c.family, c.message, c.source
            );
        }
    }
    Ok(if broken {
        exit::REGRESSION
    } else if failed_scenarios || matrix.build_failures().next().is_some() {
        exit::FAILURE
    } else {
        exit::OK
    })
}

/// `--list` (of `run` and `variants`): builds the bench target (the plain build: a variant's
/// features may add scenarios, which it does not list) and prints one line per selected scenario (name, ops,
/// unit, parties); with `--shard`, this job's scenarios, so that a CI matrix can show its split.
pub(crate) fn list(session: &Session) -> Result<i32> {
    let opts = &session.cmd.measure;
    let (exe, others, _) = session.build_all_timed()?;
    let mut bin = Binary::new(exe, session.target.package_dir.clone())
        .with_others(&session.target.bench, others);
    let listing = bin.list(opts.timeout)?;
    let mut selected = vec![select(&listing, opts.filter.as_ref())?];
    if let Some(plan) = &opts.shard {
        costbench_measure::run::sharding::apply(plan, &["default".into()], &mut selected);
    }
    for s in &selected[0] {
        println!("{}", list_line(s));
    }
    Ok(exit::OK)
}

/// One line of `--list`.
fn list_line(s: &ScenarioInfo) -> String {
    let parties = if s.parties.is_empty() {
        String::new()
    } else {
        format!("  parties: {}", s.parties.join(", "))
    };
    format!("{}  ({} {}){parties}", s.name, s.ops, s.unit)
}

/// A warning on stderr for each entry of costbench.toml that accepts findings and matched no
/// finding of `record` although its instrument checked its ids (`variant` names the variant's
/// run): like an unfulfilled expectation, said, never failing.
pub(crate) fn warn_stale_allowances(
    record: &RunRecord,
    allowances: &costbench_judge::instrument::Allowances,
    variant: Option<&str>,
) {
    let within = variant
        .map(|v| format!(" in variant {v}"))
        .unwrap_or_default();
    for w in allowances.stale_warnings(record) {
        eprintln!("warning{within}: {w}");
    }
}
