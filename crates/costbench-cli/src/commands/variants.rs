//! `costbench variants` (and `costbench run --variant ...`): plan and build every variant
//! (`variants::plan` and `Plan::build`; with `--filter`, the baseline first, to check the filter
//! before the other builds), measure the builds and record each variant's run in
//! history (`Session::measure_and_record`), compute the matrix (`Builds::finish`), then present
//! it (`core::present::present`): send it to the sink (`matrix.json`, stdout as `--format`
//! asks), list failures under `--quiet`, and choose the exit code.

use crate::args::RunArgs;
use crate::core::present::present;
use crate::core::session::Session;
use anyhow::Result;

pub(super) fn variants(args: RunArgs) -> Result<i32> {
    let format = args.format;
    let (cmd, vopts) = args.variant_options()?;
    costbench_measure::variants::validate(&vopts)?;
    let mut session = Session::open(cmd)?;
    if session.cmd.measure.list_only {
        return crate::core::present::list(&session);
    }
    let mut plan =
        costbench_measure::variants::plan(&mut session.cmd.measure, &vopts, &session.target)?;
    let root = session.output_dir(|p| p.variants());
    session.say_choice();
    if session.cmd.measure.filter.is_some() {
        // A --filter that selects no scenario is a usage error to say before the builds it
        // would waste (issue 41), and only a built binary lists the scenarios. The baseline
        // variant is built first, alone, and listed: a build the session needs anyway, so the
        // check costs no extra build (only the overlap of that one build with the others under
        // --parallel-builds). Run's own build cannot stand in for it: it may be missing or
        // stale (a scenario added since), and rebuilding it would be a build the variants may
        // not need. The output directory is checked first, as before any build.
        costbench_record::output::OutputDir::prepare(&root)?;
        if let Some(exe) = plan.build_first(&session.cmd.measure, &session.target) {
            session.check_filter(&exe)?;
        }
    }
    let builds = plan.build(&mut session.cmd.measure, &session.target, root)?;
    let sides = builds.sides();
    let records = if sides.is_empty() {
        Vec::new()
    } else {
        session.measure_and_record(sides)?
    };
    let measured = builds.finish(records)?;
    for r in &measured.records {
        crate::core::present::warn_stale_allowances(
            r,
            &session.cmd.measure.ct_allow,
            Some(&r.variant),
        );
    }
    present(
        &measured.matrix,
        &measured.records,
        &measured.root,
        format,
        session.cmd.quiet,
    )
}
