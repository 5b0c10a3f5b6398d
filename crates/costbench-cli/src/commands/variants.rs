//! `costbench variants` (and `costbench run --variant ...`): build and measure every variant
//! (`variants::run`, measuring through [`super::run::measure_and_record`] so that each variant's
//! run is recorded in history), write `matrix.json`, print the matrix as `--format` asks, list
//! failures under `--quiet`, and choose the exit code.

use crate::args::{RunArgs, RunFormat};
use crate::exit;
use anyhow::Result;
use costbench_report::variants as report;

pub(super) fn variants(args: RunArgs) -> Result<i32> {
    let format = args.format;
    let (mut opts, vopts) = args.variant_options()?;
    if opts.shard.is_some() {
        let db = super::database(opts.db.clone(), opts.manifest_path.as_deref())?;
        super::shard::load_costs(&mut opts, &db)?;
    }
    let quiet = opts.quiet;
    let costbench_measure::variants::Measured {
        matrix,
        records,
        root,
    } = costbench_measure::variants::run(opts, vopts, super::run::measure_and_record)?;
    let json = serde_json::to_string_pretty(&matrix).expect("the matrix serialises");
    costbench_record::output::write_atomic(&root.join("matrix.json"), json.as_bytes())?;
    match format {
        RunFormat::Json => println!("{json}"),
        RunFormat::Markdown => print!("{}", report::markdown(&matrix)),
        RunFormat::Table if !quiet => {
            print!("{}", report::table(&matrix));
            println!("results: {}", root.display());
        }
        RunFormat::Table => {}
    }
    let failed_scenarios = records.iter().any(|r| r.failed().next().is_some());
    if quiet {
        for r in &records {
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
