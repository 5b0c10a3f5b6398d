//! `costbench run`: build the bench targets (every qualifying one without `--bench`), measure
//! them into one record and record the run in history
//! (`Session::measure_and_record`), send it to the sink (stdout as `--format` and `--quiet` ask,
//! `report.html` with `--html`), and choose the exit code (3 when a budget is broken or an
//! instrument made a finding that fails).

use crate::args::RunArgs;
use crate::core::session::Session;
use crate::exit;
use anyhow::{Context, Result};
use costbench_measure::run::SideSpec;
use costbench_record::model::RunRecord;
use costbench_record::output::OutputDir;
use costbench_report::render::Format;
use costbench_report::render::RunView;

/// `costbench run` without variants: build → measure → record → `report.html` (with `--html`)
/// → print as `--format` → exit code.
pub(super) fn run(args: RunArgs) -> Result<i32> {
    let (html, format) = (args.html, args.format);
    let session = Session::open(args.run_command()?)?;
    if session.cmd.measure.list_only {
        return crate::core::present::list(&session);
    }
    let out_root = session.output_dir(|p| p.results());
    // Checked before building: a wrong output directory should not cost a build.
    OutputDir::prepare(&out_root)?;
    let (exe, others, build) = session.build_all_timed()?;
    let side = SideSpec {
        label: "default".into(),
        exe,
        output_dir: out_root.clone(),
        target: None,
        build: Some(build),
        others,
    };
    let start = std::time::Instant::now();
    session.status(
        "Measuring",
        format!(
            "bench target{} {}: {}",
            if session.target.others.is_empty() {
                ""
            } else {
                "s"
            },
            session.target.names().replace(',', ", "),
            session.cmd.measure.instruments.names().join(", ")
        ),
    );
    let record = session.measure_and_record(vec![side])?.remove(0);
    session.status(
        "Finished",
        format!(
            "{} in {:.1} s; results in {}",
            measured_count(&record),
            start.elapsed().as_secs_f64(),
            out_root.display()
        ),
    );
    const HTML_FAILED: &str = "writing the HTML report (the run's results are written)";
    let stdout = crate::output::stdout(format, session.cmd.quiet);
    let mut sink = crate::output::Sink::new(stdout);
    let mut footer = String::new();
    let gathered = if html {
        let db = session.cmd.record_history.then_some(&session.history);
        let gathered =
            crate::core::page::gather_for_run(&record, &out_root, db).context(HTML_FAILED)?;
        let path = out_root.join("report.html");
        footer = format!("report: {}\n", path.display());
        sink = sink.file(path, Format::Html, Some(HTML_FAILED.into()));
        Some(gathered)
    } else {
        None
    };
    footer += &format!("results: {}\n", out_root.display());
    let cwd = std::env::current_dir().ok();
    let view = RunView {
        record: &record,
        summaries: true,
        base: cwd.as_deref(),
        footer,
        page: gathered.as_ref().map(|g| g.page()),
    };
    sink.emit(&view)?;
    if stdout.is_none() {
        print_failures(&record);
    }
    crate::core::present::warn_stale_allowances(&record, &session.cmd.measure.allowances, None);
    Ok(exit_code(&record))
}

/// 3 when a budget is broken, a family disagrees with its declared class or an instrument made a
/// finding that fails, one costbench.toml did not accept (it wins over a failed scenario, as in
/// `check`), 1 when a scenario failed, else 0.
pub(super) fn exit_code(record: &RunRecord) -> i32 {
    if record.broken_budgets().next().is_some()
        || record.broken_complexity().next().is_some()
        || record.failing_findings().next().is_some()
    {
        exit::REGRESSION
    } else if record.failed().next().is_some() {
        exit::FAILURE
    } else {
        exit::OK
    }
}

/// "3 measured ids", or "1 measured id, 2 failed": a failed id is not counted as measured
/// (issue 29).
fn measured_count(record: &RunRecord) -> String {
    let failed = record.failed().count();
    let ok = record.results.len() - failed;
    let ids = if ok == 1 { "id" } else { "ids" };
    if failed == 0 {
        format!("{ok} measured {ids}")
    } else {
        format!("{ok} measured {ids}, {failed} failed")
    }
}

/// `--quiet`: the failed scenarios, the broken budgets and the instruments' findings (the
/// accepted ones too, with their reason) on stderr, which is all a quiet run says.
fn print_failures(record: &RunRecord) {
    for b in record.broken_budgets() {
        eprintln!("BUDGET {}", costbench_report::budget::line(b));
    }
    for f in record.failing_findings() {
        let label = f.spec().label.to_ascii_uppercase();
        eprintln!("{label} {}: {}", f.id, f.line);
    }
    for f in record.accepted_findings() {
        let label = f.spec().label.to_ascii_uppercase();
        eprintln!("{label} ACCEPTED {}: {}", f.id, f.line);
    }
    for r in record.failed() {
        for f in &r.failures {
            eprintln!(
                "FAILED {} ({}, {}): {}",
                r.id, f.instrument, f.kind, f.message
            );
        }
    }
}
