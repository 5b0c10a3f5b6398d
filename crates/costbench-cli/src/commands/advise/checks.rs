//! `advise`'s bounds checks: the census of the unchanged copy ranks the package's own index
//! checks by executions per op, the hottest become candidates (`advise::unchecked`), and each is
//! run under `costbench miri` besides the crate's tests.

use crate::core::session::Session;
use anyhow::{Context, Result};
use costbench_judge::advice::{self, Advice};
use costbench_measure::advise::{crate_tests, tree, Suggestion};
use std::path::Path;

/// The bounds checks of the package's own code, ranked by executions per op in `census` (the
/// unchanged copy's), the `n` most executed each as a candidate: its line's index
/// expressions made unchecked (`advise::unchecked`).
pub(super) fn hot_checks(
    tree: &tree::Tree,
    census: &[costbench_record::model::RunRecord],
    n: usize,
    doc: &mut Advice,
) -> Result<Vec<Suggestion>> {
    let ws = &tree.target.workspace_root;
    let src = tree.target.package_dir.join("src");
    // (file relative to the workspace, line) -> (most executions per op, in which scenario).
    let mut hot: Vec<((String, u32), (f64, String))> = Vec::new();
    for r in census.iter().flat_map(|r| &r.results) {
        let Some(census) = &r.census else { continue };
        for site in &census.top_sites {
            if site.kind != "slice-index" && site.kind != "slice-range" {
                continue;
            }
            // The check's own line, else the first caller it was inlined into, in the
            // package's sources.
            let frames = std::iter::once((site.file.as_deref(), site.line)).chain(
                site.inline_chain
                    .iter()
                    .map(|f| (f.file.as_deref(), f.line)),
            );
            let Some((file, line)) = frames
                .filter_map(|(f, l)| Some((Path::new(f?), l?)))
                .find(|(f, _)| f.starts_with(&src))
            else {
                continue;
            };
            let rel = file
                .strip_prefix(ws)
                .unwrap_or(file)
                .to_string_lossy()
                .replace('\\', "/");
            let key = (rel, line);
            match hot.iter_mut().find(|(k, _)| *k == key) {
                Some((_, (n, id))) if site.per_op > *n => {
                    *n = site.per_op;
                    id.clone_from(&r.id);
                }
                Some(_) => {}
                None => hot.push((key, (site.per_op, r.id.clone()))),
            }
        }
    }
    hot.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0));
    let total = hot.len();
    let mut out = Vec::new();
    for ((file, line), (per_op, id)) in hot.into_iter().take(n) {
        let text = std::fs::read_to_string(ws.join(&file))
            .with_context(|| format!("cannot read {file} in advise's scratch tree"))?;
        let replacements = costbench_measure::advise::unchecked::rewrite(&file, &text, line);
        let mut s = Suggestion {
            rule: "check::bounds".into(),
            message: format!(
                "the bounds check at {file}:{line} runs {per_op:.1} times per op ({id}): indexed \
                 with get_unchecked instead, the upper bound of what removing it saves; sound \
                 only where the index is always in bounds"
            ),
            replacements,
            file,
            line,
            function: String::new(),
            lines: (line, line),
        };
        s.locate(ws)?;
        out.push(s);
    }
    doc.notes.push(format!(
        "{} bounds-check site{} of the package's code executed; the {} most executed measured \
         as candidates k1.. (--checks)",
        total,
        if total == 1 { "" } else { "s" },
        out.len()
    ));
    Ok(out)
}

/// `costbench miri` on the scratch copy with an unchecked index applied, on the scenarios that
/// execute it: `Some` failed run when Miri finds anything, `None` when all are clean or Miri
/// is not installed (said once in the notes).
pub(super) fn miri_check(
    session: &Session,
    tree: &tree::Tree,
    executed_by: &[advice::Share],
    missing: &mut bool,
    doc: &mut Advice,
) -> Result<Option<crate_tests::TestRun>> {
    let ids: Vec<String> = executed_by.iter().map(|e| regex::escape(&e.id)).collect();
    session.status("Checking", "the unchecked index under Miri");
    let started = std::time::Instant::now();
    let report = costbench_measure::miri::run(costbench_measure::miri::MiriOptions {
        manifest_path: Some(tree.target.manifest_path.clone()),
        package: Some(tree.target.package.clone()),
        // The package's bench targets of the session: Miri names their ids as the profile did.
        bench: tree
            .target
            .all()
            .filter(|t| t.package == tree.target.package)
            .map(|t| t.bench.clone())
            .collect(),
        filter: Some(
            regex::Regex::new(&format!("^(?:{})$", ids.join("|")))
                .expect("escaped ids make a valid pattern"),
        ),
        cargo: session.cmd.measure.cargo.clone(),
        timeout: std::time::Duration::from_secs(600),
        json: true,
        quiet: true,
    });
    let report = match report {
        Ok(r) => r,
        Err(e)
            if e.downcast_ref::<costbench_measure::miri::NotInstalled>()
                .is_some() =>
        {
            *missing = true;
            doc.notes.push(format!(
                "the unchecked indexes were vetted by the crate's tests only, not by Miri: {e}"
            ));
            return Ok(None);
        }
        Err(e) => return Err(e.context("costbench miri on advise's scratch copy")),
    };
    let found: Vec<String> = report
        .results
        .iter()
        .filter(|r| r.finding.is_problem())
        .map(|r| format!("{}: {} ({:?})", r.scenario, r.finding.verdict(), r.finding))
        .collect();
    Ok((!found.is_empty()).then(|| crate_tests::TestRun {
        passed: false,
        tail: format!("costbench miri: {}", found.join("; ")),
        seconds: started.elapsed().as_secs_f64(),
    }))
}
