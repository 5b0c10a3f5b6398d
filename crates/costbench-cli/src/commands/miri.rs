//! `costbench miri`: check the selected scenarios under Miri (`miri::run`), print the report
//! (JSON, the table, or only the problems under `--quiet`) and choose the exit code: 1 when
//! undefined behaviour is found, a scenario fails, or Miri is not installed.

use crate::args::MiriCmd;
use crate::exit;
use anyhow::Result;

pub(super) fn miri(m: MiriCmd) -> Result<i32> {
    let opts = m.options()?;
    let (json, quiet) = (opts.json, opts.quiet);
    let report = match costbench_measure::miri::run(opts) {
        Ok(report) => report,
        // Not an error of the run: the message is the whole answer, without "error:".
        Err(e) => match e.downcast_ref::<costbench_measure::miri::NotInstalled>() {
            Some(missing) => {
                eprintln!("{missing}");
                return Ok(exit::FAILURE);
            }
            None => return Err(e),
        },
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("a Miri report always serialises")
        );
    } else if !quiet {
        print!("{}", costbench_report::miri::table(&report));
    } else {
        for r in report.results.iter().filter(|r| r.finding.is_problem()) {
            eprintln!("{}", costbench_report::miri::one_line(r));
        }
    }
    Ok(if report.has_problems() {
        exit::FAILURE
    } else {
        exit::OK
    })
}
