//! `costbench miri`: check the selected scenarios under Miri (`miri::run`), send the report to
//! the sink (JSON, the table, or only the problems under `--quiet`) and choose the exit code: 1 when
//! undefined behaviour is found, a scenario fails, or Miri is not installed.

use crate::args::MiriCmd;
use crate::exit;
use crate::output::Sink;
use anyhow::Result;
use costbench_report::render::MiriView;

pub(super) fn miri(m: MiriCmd) -> Result<i32> {
    let stdout = crate::output::stdout(m.format, m.quiet);
    let opts = m.options()?;
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
    Sink::new(stdout).emit(&MiriView(&report))?;
    if stdout.is_none() {
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
