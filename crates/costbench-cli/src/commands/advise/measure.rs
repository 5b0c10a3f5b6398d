//! `advise`'s source changes measured: the unchanged copy built, tested and profiled once, then
//! each change applied alone to the copy, built, tested, and measured paired with the unchanged
//! copy on the scenarios that execute it (`advise::reach`), then judged.

use super::checks::{hot_checks, miri_check};
use super::{plural, source_change, unmeasured, Ids, NO_REWRITE};
use crate::core::session::Session;
use anyhow::{Context, Result};
use costbench_judge::advice::{self, Advice, Verdict};
use costbench_measure::advise::{crate_tests, tree, Suggestion, BASE_BUILD, CANDIDATE_BUILD};
use costbench_measure::run::SideSpec;
use std::path::Path;

/// How the source changes are measured: how many, whether the crate's tests vet each first,
/// where their runs go, how they are judged.
pub(super) struct Plan<'a> {
    pub(super) budget: usize,
    pub(super) tests: bool,
    pub(super) all_scenarios: bool,
    pub(super) checks: usize,
    pub(super) root: &'a Path,
    pub(super) opts: &'a costbench_judge::compare::CompareOptions,
}

/// Builds the unchanged copy once (and runs the crate's tests on it), then each suggestion (up
/// to the budget) applied alone: built, tested, measured paired with the unchanged copy and
/// judged. Candidates are appended to `doc` with their ids (`c1`, `i1`, ...).
pub(super) fn measure_suggestions(
    session: &Session,
    tree: &tree::Tree,
    suggestions: &[Suggestion],
    plan: &Plan<'_>,
    doc: &mut Advice,
) -> Result<()> {
    if suggestions.is_empty() && plan.checks == 0 {
        return Ok(());
    }
    let flags = &session.cmd.measure.cargo;
    let quiet = session.cmd.quiet;
    let align = session.cmd.measure.code_align;
    // The candidates' build directory starts from the unchanged copy's compiled dependencies.
    let seeded = costbench_measure::run::bisect::seed_build(
        &tree.target,
        costbench_measure::cargo::DEFAULT_BUILD,
        BASE_BUILD,
    )?;
    if seeded > 0 {
        tree.touch()?;
    }
    session.status("Building", "the unchanged copy of the sources");
    // Every bench target of the session (issue 41), in each build.
    let (base_exe, base_others, base_build) =
        costbench_measure::cargo::build_all_timed(&tree.target, BASE_BUILD, flags, quiet, align)
            .context("the unchanged copy of the sources does not build")?;
    session.check_filter(&base_exe, &base_others)?;
    let unchanged = (base_exe.as_path(), base_others.as_slice(), &base_build);
    costbench_measure::run::bisect::seed_build(&tree.target, BASE_BUILD, CANDIDATE_BUILD)?;
    // The crate's tests must pass unchanged for a failure with a candidate to mean anything.
    let mut tests = plan.tests;
    if tests {
        session.status("Testing", "the unchanged copy with the crate's own tests");
        let t = crate_tests::run(&tree.target, flags)?;
        if !t.passed {
            tests = false;
            doc.notes.push(format!(
                "the crate's own tests fail on the unchanged code ({:.0} s), so no candidate was \
                 tested before it was measured: {}",
                t.seconds,
                t.tail.lines().last().unwrap_or("")
            ));
        }
    } else {
        doc.notes.push(
            "--no-tests: the source changes were measured without running the crate's tests".into(),
        );
    }
    let profiled = profile_unchanged(session, tree, unchanged, plan.root)?;
    if doc.scenarios.is_empty() {
        doc.scenarios = profiled.ids.clone();
    }
    let checks = if plan.checks > 0 {
        session.status(
            "Counting",
            "the bounds checks the unchanged copy executes (census)",
        );
        let census = measure_unchanged(
            session,
            tree,
            unchanged,
            costbench_record::instrument::Instrument::Census,
            &plan.root.join("source").join("census"),
        )?;
        hot_checks(tree, &census, plan.checks, doc)?
    } else {
        Vec::new()
    };
    let mut miri_missing = false;
    let mut ids = Ids::default();
    let mut measured = 0;
    for s in suggestions.iter().chain(&checks) {
        let id = ids.next(s);
        let change = source_change(tree, s)?;
        let executed_by = profiled.executed_by(tree, s)?;
        if s.replacements.is_empty() {
            let share = match executed_by.first() {
                Some(top) => format!(
                    "; the code it is in is {:.1} % of {}'s instructions",
                    top.percent, top.id
                ),
                None => "; no scenario executes the code it is in".into(),
            };
            let mut c = unmeasured(id, change, &format!("{NO_REWRITE}{share}"));
            c.verdict = Verdict::NoRewrite;
            c.executed_by = executed_by;
            doc.candidates.push(c);
            continue;
        }
        if measured >= plan.budget {
            let why = format!("beyond --max-candidates {}", plan.budget);
            doc.candidates.push(unmeasured(id, change, &why));
            continue;
        }
        measured += 1;
        session.status(
            "Applying",
            format!("{id}: {} at {}:{}", s.rule, s.file, s.line),
        );
        let (built, tested) = {
            // The files are put back as soon as the candidate is built and tested: measuring
            // reads only the executable.
            let _applied = tree.apply(&s.replacements)?;
            let built = costbench_measure::cargo::build_all_timed(
                &tree.target,
                CANDIDATE_BUILD,
                flags,
                true,
                align,
            );
            let tested = match (&built, tests) {
                (Ok(_), true) => Some(crate_tests::run(&tree.target, flags)?),
                _ => None,
            };
            (built, tested)
        };
        let (cand_exe, cand_others, cand_build) = match built {
            Ok(b) => b,
            Err(e) => {
                let mut c = unmeasured(id, change, "the change does not compile: never measured");
                c.verdict = Verdict::BuildFailed;
                c.error = Some(format!("{e:#}"));
                doc.candidates.push(c);
                continue;
            }
        };
        let where_ = if s.function.is_empty() {
            format!("{}:{}-{}", s.file, s.lines.0, s.lines.1)
        } else {
            format!("`{}`, {}:{}-{}", s.function, s.file, s.lines.0, s.lines.1)
        };
        let tested = match tested {
            Some(t) if t.passed && s.rule.starts_with("check::") && !miri_missing => {
                miri_check(session, tree, &executed_by, &mut miri_missing, doc)?.or(Some(t))
            }
            other => other,
        };
        if let Some(t) = tested.filter(|t| !t.passed) {
            let why = if t.tail.starts_with("costbench miri:") {
                "the change compiles and passes the crate's tests, but Miri finds a problem with \
                 it: never measured"
            } else {
                "the change compiles but the crate's own tests fail with it: never measured"
            };
            let mut c = unmeasured(id, change, why);
            c.verdict = Verdict::TestsFailed;
            c.error = Some(t.tail);
            doc.candidates.push(c);
            continue;
        }
        if executed_by.is_empty() {
            let mut c = unmeasured(
                id,
                change,
                &format!(
                    "no scenario executes the code it changes ({where_}): it can change none of \
                     their work, so it was built{} and not measured",
                    if tests { ", tested" } else { "" }
                ),
            );
            c.verdict = Verdict::NoMeasurableEffect;
            doc.candidates.push(c);
            continue;
        }
        let mut opts = session.cmd.measure.clone();
        if !plan.all_scenarios {
            let ids: Vec<String> = executed_by.iter().map(|e| regex::escape(&e.id)).collect();
            opts.filter = Some(
                regex::Regex::new(&format!("^(?:{})$", ids.join("|")))
                    .expect("escaped ids make a valid pattern"),
            );
        }
        let dir = plan.root.join("source").join(&id);
        let side = |label: &str, exe, others, build| SideSpec {
            label: label.into(),
            exe,
            output_dir: dir.join(label),
            target: None,
            build: Some(build),
            others,
        };
        let mut records = costbench_measure::run::measure_sides(
            &opts,
            &tree.target,
            vec![
                side(
                    "base",
                    base_exe.clone(),
                    base_others.clone(),
                    base_build.clone(),
                ),
                side("candidate", cand_exe, cand_others, cand_build),
            ],
        )?;
        let cand = records.pop().expect("two sides");
        let base = records.pop().expect("two sides");
        let cmp = costbench_judge::compare::compare_with(
            &base,
            &cand,
            plan.opts,
            &costbench_judge::compare::noise::HistoricThresholds::default(),
        );
        let mut c = advice::measured(id, change, &cmp);
        if !plan.all_scenarios {
            c.reason += &format!(
                "; measured on the {} that execute{} the code it changes ({where_})",
                plural(executed_by.len(), "scenario"),
                if executed_by.len() == 1 { "s" } else { "" }
            );
        }
        c.executed_by = executed_by;
        session.status(
            "Measured",
            format!("{}: {} ({})", c.id, c.verdict.words(), c.reason),
        );
        doc.candidates.push(c);
    }
    Ok(())
}

/// The unchanged copy measured once under callgrind, to read from each scenario's profile
/// whether it executes the code a change touches (`advise::reach`).
struct Profiled {
    dir: costbench_record::output::OutputDir,
    ids: Vec<String>,
}

impl Profiled {
    /// The scenarios that execute `s`'s lines, the largest share first.
    fn executed_by(&self, tree: &tree::Tree, s: &Suggestion) -> Result<Vec<advice::Share>> {
        let file = tree.target.workspace_root.join(&s.file);
        let file = file.to_string_lossy();
        let mut out = Vec::new();
        for id in &self.ids {
            let (path, _) = self.dir.callgrind_paths(id);
            let (a, b) = (u64::from(s.lines.0), u64::from(s.lines.1));
            let r = costbench_measure::advise::reach::reach_file(&path, &file, a, b)?;
            if r.ir > 0 {
                out.push(advice::Share {
                    id: id.clone(),
                    percent: r.percent(),
                });
            }
        }
        out.sort_by(|x, y| y.percent.total_cmp(&x.percent));
        Ok(out)
    }
}

/// The unchanged copy measured once, alone, with `instrument` only, into `dir`: the profile
/// that says which scenarios execute each change, and the census that ranks the checks.
fn measure_unchanged(
    session: &Session,
    tree: &tree::Tree,
    (exe, others, build): Unchanged<'_>,
    instrument: costbench_record::instrument::Instrument,
    dir: &Path,
) -> Result<Vec<costbench_record::model::RunRecord>> {
    let mut opts = session.cmd.measure.clone();
    opts.instruments = costbench_record::instrument::InstrumentSet::of(instrument);
    opts.placement_runs = 0;
    costbench_measure::run::measure_sides(
        &opts,
        &tree.target,
        vec![SideSpec {
            // The folder's name, as each side is labelled by its directory.
            label: dir
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            exe: exe.to_path_buf(),
            output_dir: dir.to_path_buf(),
            target: None,
            build: Some(build.clone()),
            others: others.to_vec(),
        }],
    )
}

/// The unchanged copy's build: the first bench target's executable, the others' builds, and
/// how the build went.
type Unchanged<'a> = (
    &'a Path,
    &'a [costbench_measure::cargo::BuiltBench],
    &'a costbench_record::model::BuildInfo,
);

fn profile_unchanged(
    session: &Session,
    tree: &tree::Tree,
    unchanged: Unchanged<'_>,
    root: &Path,
) -> Result<Profiled> {
    session.status(
        "Profiling",
        "the unchanged copy (instruction counts: which scenarios execute each change)",
    );
    let dir = root.join("source").join("unchanged");
    let records = measure_unchanged(
        session,
        tree,
        unchanged,
        costbench_record::instrument::Instrument::Icount,
        &dir,
    )?;
    let ids = records
        .first()
        .map(|r| r.results.iter().map(|x| x.id.clone()).collect())
        .unwrap_or_default();
    Ok(Profiled {
        dir: costbench_record::output::OutputDir::prepare(&dir)?,
        ids,
    })
}
