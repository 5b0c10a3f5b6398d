//! `costbench variants` (and `costbench run --variant ...`): plan and build every variant
//! (`variants::plan` and `Plan::build`), measure the builds and record each variant's run in
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
    let plan =
        costbench_measure::variants::plan(&mut session.cmd.measure, &vopts, &session.target)?;
    let root = session.output_dir(|p| p.variants());
    session.say_choice();
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
