//! `costbench census`: build the bench target (or take `--binary`), find the bounds and overflow
//! checks left in it (`census::analyse`), attribute each to the crate whose source holds it,
//! keep those `--functions` selects (by default the workspace's own crates) and print them.

use crate::args::CensusCmd;
use crate::options::regex_option;
use crate::output::Sink;
use anyhow::Result;
use costbench_report::render::CensusView;
use costbench_report::render::Format;
use std::collections::BTreeSet;

pub(super) fn census(c: CensusCmd) -> Result<i32> {
    let filter = regex_option("--functions", c.functions.as_deref())?;
    let (exe, base, crates) = match c.binary {
        Some(p) => {
            if !p.is_file() {
                crate::exit::usage!("--binary {}: no such file", p.display());
            }
            (p, std::env::current_dir().ok(), None)
        }
        None => {
            let (target, _) = costbench_measure::cargo::resolve_buildable(
                c.target.manifest_path.as_deref(),
                c.target.package.as_deref(),
                &c.target.bench,
                &c.target.cargo.flags()?,
            )?;
            target.single("census")?;
            if let (Some(note), false) = (target.choice_note(), c.format == Format::Json) {
                costbench_measure::terminal::status("Selected", note);
            }
            let exe = costbench_measure::cargo::build(
                &target,
                costbench_measure::cargo::DEFAULT_BUILD,
                &c.target.cargo.flags()?,
                c.format == Format::Json,
                costbench_measure::cargo::CodeAlign::default(),
            )?;
            (
                exe,
                Some(target.workspace_root),
                Some(target.workspace_crates),
            )
        }
    };
    let mut census = costbench_measure::census::analyse(&exe)?;
    if let Some(crates) = &crates {
        costbench_measure::census::attribute(&mut census, crates);
    }
    // Without a filter, the workspace's own crates: the user's checks, not std's and the
    // harness's hundreds.
    let own: Option<BTreeSet<&str>> = match (&crates, &filter, c.all_crates) {
        (Some(crates), None, false) => Some(crates.iter().map(|(n, _)| n.as_str()).collect()),
        _ => None,
    };
    let guards: Vec<&costbench_record::census::Guard> = census
        .guards
        .iter()
        .filter(|g| {
            filter
                .as_ref()
                .is_none_or(|f| f.is_match(&g.function) || f.is_match(&g.krate))
                && own.as_ref().is_none_or(|o| o.contains(g.krate.as_str()))
        })
        .collect();
    let scope = own.map(|_| {
        format!(
            "(only the workspace's own crates; {} more guards are in std, dependencies and \
             costbench's harness: --all-crates shows them)",
            census.guards.len() - guards.len()
        )
    });
    let view = CensusView {
        census: &census,
        guards: &guards,
        base: base.as_deref(),
        scope: scope.as_deref(),
    };
    Sink::new(Some(c.format)).emit(&view)?;
    Ok(crate::exit::OK)
}
