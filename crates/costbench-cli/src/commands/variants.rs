//! `costbench variants` (and `costbench run --variant ...`): plan, build and measure every
//! variant, each run recorded in history, and compute the matrix (`Session::measure_variants`;
//! with `--filter`, the baseline first, to check the filter before the other builds), then present
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
    let root = session.output_dir(|p| p.variants());
    let measured = session.measure_variants(&vopts, root)?;
    for r in &measured.records {
        crate::core::present::warn_stale_allowances(
            r,
            &session.cmd.measure.allowances,
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
