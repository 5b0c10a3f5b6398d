//! `costbench census`: build the bench targets (or take `--binary`), find the bounds and overflow
//! checks left in each (`census::analyse`), attribute each to the crate whose source holds it,
//! keep those `--functions` selects (by default the workspace's own crates) and print them. With
//! several bench targets (issue 41: every one that depends on costbench, as `cargo bench` runs
//! them all), one census per target's binary, in cargo's order: the census reads one binary.

use crate::args::CensusCmd;
use crate::options::regex_option;
use crate::output::Sink;
use anyhow::Result;
use costbench_report::render::CensusView;
use costbench_report::render::Format;
use std::collections::BTreeSet;

pub(super) fn census(c: CensusCmd) -> Result<i32> {
    let filter = regex_option("--functions", c.functions.as_deref())?;
    let binaries = match &c.binary {
        Some(p) => {
            if !p.is_file() {
                crate::exit::usage!("--binary {}: no such file", p.display());
            }
            vec![(p.clone(), std::env::current_dir().ok(), None)]
        }
        None => {
            let flags = c.target.cargo.flags()?;
            let (target, _) = costbench_measure::cargo::resolve_buildable(
                c.target.manifest_path.as_deref(),
                c.target.package.as_deref(),
                &c.target.bench,
                &flags,
            )?;
            if let (Some(note), false) = (target.choice_note(), c.format == Format::Json) {
                costbench_measure::terminal::status("Selected", note);
            }
            let mut binaries = Vec::new();
            for t in target.all() {
                let exe = costbench_measure::cargo::build(
                    t,
                    costbench_measure::cargo::DEFAULT_BUILD,
                    &flags,
                    c.format == Format::Json,
                    costbench_measure::cargo::CodeAlign::default(),
                )?;
                binaries.push((
                    exe,
                    Some(t.workspace_root.clone()),
                    Some(t.workspace_crates.clone()),
                ));
            }
            binaries
        }
    };
    for (exe, base, crates) in binaries {
        print_census(
            &c,
            filter.as_ref(),
            &exe,
            base.as_deref(),
            crates.as_deref(),
        )?;
    }
    Ok(crate::exit::OK)
}

/// The census of the binary `exe`, its guards attributed to `crates` (the workspace's, when
/// costbench built it) and kept as `--functions` and `--all-crates` say, sent to the sink.
fn print_census(
    c: &CensusCmd,
    filter: Option<&regex::Regex>,
    exe: &std::path::Path,
    base: Option<&std::path::Path>,
    crates: Option<&[(String, std::path::PathBuf)]>,
) -> Result<()> {
    let mut census = costbench_measure::instrument::census::analyse(exe)?;
    if let Some(crates) = crates {
        costbench_measure::instrument::census::attribute(&mut census, crates);
    }
    // Without a filter, the workspace's own crates: the user's checks, not std's and the
    // harness's hundreds.
    let own: Option<BTreeSet<&str>> = match (crates, filter, c.all_crates) {
        (Some(crates), None, false) => Some(crates.iter().map(|(n, _)| n.as_str()).collect()),
        _ => None,
    };
    let guards: Vec<&costbench_record::instrument::census::Guard> = census
        .guards
        .iter()
        .filter(|g| {
            filter.is_none_or(|f| f.is_match(&g.function) || f.is_match(&g.krate))
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
        base,
        scope: scope.as_deref(),
    };
    Sink::new(Some(c.format)).emit(&view)?;
    Ok(())
}
