//! `costbench advise`: candidate changes of the user's crate, each measured alone against the
//! unchanged code on the user's scenarios, in four steps:
//! 1. finding: the build choices of `variants`' `advice` preset, clippy's
//!    machine-applicable suggestions (`costbench_measure::advise::clippy`) and the slow idioms
//!    no linter flags (`advise::idioms`) on a scratch copy of the sources (`advise::tree`; the
//!    user's checkout is never written to);
//! 2. the build choices measured as `variants` measures them (plan, build, measure, matrix),
//!    each variant turned into a candidate (`costbench_judge::advice::build_choices`);
//! 3. each source change applied alone to the copy, built, the crate's own tests run on it,
//!    and measured paired with the unchanged copy's build (`run::measure_sides` with two sides,
//!    as `check --baseline-rev` measures), judged by `compare::compare_with`
//!    (`advice::measured`); one that does not compile or fails the tests is reported as such,
//!    never measured, and an idiom with no safe rewrite is reported with no claimed saving;
//! 4. the advice written (`advice.json`, atomically, and `--markdown FILE`) and printed.
//!
//! Nothing is recorded in the history: the candidates' runs are not the project's.
//! `--apply ID` is the one path that writes to the user's tree: the diff of a candidate the last
//! advise measured (from its `advice.json`), checked against the files first.

use crate::args::{AdviseCmd, CandidateKind};
use crate::core::session::Session;
use crate::exit::usage;
use crate::output::Sink;
use anyhow::{Context, Result};
use costbench_judge::advice::{self, Advice, Candidate, Change, Verdict};
use costbench_measure::advise::{
    clippy, crate_tests, idioms, tree, Suggestion, BASE_BUILD, CANDIDATE_BUILD,
};
use costbench_measure::run::SideSpec;
use costbench_report::render::{AdviceView, Format};
use std::path::Path;

pub(super) fn advise(a: AdviseCmd) -> Result<i32> {
    if a.max_candidates == Some(0) {
        usage!("--max-candidates must be at least 1 (use --only build for no source change)");
    }
    let opts = costbench_judge::compare::CompareOptions::default();
    let rounds = a
        .rounds
        .rounds(opts.paired_walltime_threshold_pct, opts.family_alpha)?;
    let json = a.format == Format::Json;
    if let Some(id) = a.apply.clone() {
        let cmd = a.measure.into_command(true, json)?;
        let session = Session::open(cmd)?;
        return apply(&session, &id);
    }
    let mut cmd = a.measure.into_command(a.list, json)?;
    cmd.measure.rounds = rounds;
    cmd.measure.placement_runs = a.placement_runs;
    cmd.record_history = false;
    let mut session = Session::open(cmd)?;
    let root = session.output_dir(|p| p.advise());
    costbench_record::output::OutputDir::prepare(&root)?;
    let only = |k: CandidateKind| a.only.is_none() || a.only == Some(k);
    let (build, lints, idioms) = (
        only(CandidateKind::Build),
        only(CandidateKind::Clippy),
        only(CandidateKind::Idioms),
    );
    let mut doc = Advice::new(&session.target.package, !a.list);
    doc.instruments = session
        .cmd
        .measure
        .instruments
        .names()
        .iter()
        .map(ToString::to_string)
        .collect();

    // 1. Finding: clippy first, so that a crate it cannot check fails before any build.
    let found = if lints || idioms {
        Some(find_suggestions(&session, lints, idioms, &mut doc)?)
    } else {
        None
    };
    if a.list {
        if build {
            doc.candidates.extend(listed_build_choices()?);
        }
        if let Some((tree, suggestions)) = &found {
            let mut ids = Ids::default();
            for s in suggestions {
                let mut c = unmeasured(ids.next(s), source_change(tree, s)?, "");
                if s.replacements.is_empty() {
                    c.verdict = Verdict::NoRewrite;
                    c.reason = NO_REWRITE.into();
                }
                doc.candidates.push(c);
            }
        }
        return emit(
            &doc,
            &root,
            a.format,
            a.markdown.as_deref(),
            session.cmd.quiet,
        );
    }

    // 2. Build choices, as `variants --preset advice` measures them.
    if build {
        let vopts = costbench_measure::variants::VariantOptions {
            variants: Vec::new(),
            preset: Some("advice".into()),
            baseline: None,
            build_jobs: 1,
            lenient: true,
        };
        let measured = session.measure_variants(&vopts, root.join("build-choices"))?;
        for why in &measured.left_out {
            doc.notes.push(format!(
                "a build choice this package cannot take, left out: {why}"
            ));
        }
        note_scenarios(&mut doc, &measured.records);
        doc.candidates
            .extend(advice::build_choices(&measured.matrix));
        // The source changes pair their own two sides, the unchanged copy first.
        session.cmd.measure.rounds.baseline_side = 0;
    }

    // 3. Source changes, each alone.
    if let Some((tree, suggestions)) = &found {
        let budget = a.max_candidates.unwrap_or(usize::MAX);
        let plan = Plan {
            budget,
            tests: !a.no_tests,
            all_scenarios: a.all_scenarios,
            checks: if idioms { a.checks } else { 0 },
            root: &root,
            opts: &opts,
        };
        measure_suggestions(&session, tree, suggestions, &plan, &mut doc)?;
    }
    emit(
        &doc,
        &root,
        a.format,
        a.markdown.as_deref(),
        session.cmd.quiet,
    )
}

/// The scratch copy, and the source changes found in it: clippy's machine-applicable
/// suggestions (when `lints`), then the idioms (when `idioms`). Files the idiom finder cannot
/// parse are named in `doc`'s notes.
fn find_suggestions(
    session: &Session,
    lints: bool,
    idioms: bool,
    doc: &mut Advice,
) -> Result<(tree::Tree, Vec<Suggestion>)> {
    session.status("Copying", "the sources to advise's scratch tree");
    let tree = tree::prepare(&session.target)?;
    let mut found = Vec::new();
    if lints {
        let mut names = clippy::perf_group()?;
        for l in clippy::IDIOM_LINTS {
            if !names.iter().any(|x| x == l) {
                names.push(l.to_string());
            }
        }
        session.status(
            "Checking",
            format!(
                "package {} with clippy ({} lints: the perf group and the slow idioms)",
                session.target.package,
                names.len()
            ),
        );
        let json = clippy::run(&tree.target, &session.cmd.measure.cargo, &names)?;
        found = clippy::parse(&json, &names);
        session.status(
            "Found",
            plural(found.len(), "machine-applicable suggestion"),
        );
    }
    if idioms {
        let t = &tree.target;
        let package_dir = t
            .package_dir
            .strip_prefix(&t.workspace_root)
            .unwrap_or(Path::new(""))
            .to_string_lossy()
            .replace('\\', "/");
        let (findings, skipped) = idioms::scan_package(&t.workspace_root, &package_dir)?;
        for s in skipped {
            doc.notes
                .push(format!("the idioms were not looked for in a file: {s}"));
        }
        session.status(
            "Found",
            format!(
                "{} (the idioms no linter flags)",
                plural(findings.len(), "slow idiom")
            ),
        );
        found.extend(findings.into_iter().map(Suggestion::from));
    }
    for s in &mut found {
        s.locate(&tree.target.workspace_root)?;
    }
    Ok((tree, found))
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Candidate ids: `c1`, `c2`, ... for clippy's suggestions, `i1`, `i2`, ... for the idioms,
/// `k1`, `k2`, ... for the hottest bounds checks.
#[derive(Default)]
struct Ids {
    clippy: usize,
    idioms: usize,
    checks: usize,
}

impl Ids {
    fn next(&mut self, s: &Suggestion) -> String {
        if s.rule.starts_with("clippy::") {
            self.clippy += 1;
            format!("c{}", self.clippy)
        } else if s.rule.starts_with("check::") {
            self.checks += 1;
            format!("k{}", self.checks)
        } else {
            self.idioms += 1;
            format!("i{}", self.idioms)
        }
    }
}

/// The reason given for an idiom found where no rewrite can be made safely.
const NO_REWRITE: &str = "found, not rewritten: no rewrite is mechanical and safe here, so \
                          nothing was measured and no saving is claimed";

/// The build choices of the preset, not measured (`--list`).
fn listed_build_choices() -> Result<Vec<Candidate>> {
    let variants = costbench_measure::variants::presets::preset("advice")?;
    Ok(variants
        .iter()
        .skip(1)
        .enumerate()
        .map(|(k, v)| {
            let on = |key: &str| v.profile_value(key) == Some("true");
            let change = Change::Build {
                variant: v.name.clone(),
                settings: v.describe(),
                safety_check: on("overflow-checks") || on("debug-assertions"),
            };
            unmeasured(format!("b{}", k + 1), change, "")
        })
        .collect())
}

fn unmeasured(id: String, change: Change, why: &str) -> Candidate {
    Candidate {
        id,
        change,
        verdict: Verdict::NotMeasured,
        reason: why.to_string(),
        effects: Vec::new(),
        executed_by: Vec::new(),
        binary_bytes: None,
        build_seconds: None,
        error: None,
    }
}

/// What a suggestion changes, with its diff against the copy as it is.
fn source_change(tree: &tree::Tree, s: &Suggestion) -> Result<Change> {
    Ok(Change::Source {
        rule: s.rule.clone(),
        message: s.message.clone(),
        file: s.file.clone(),
        line: s.line,
        diff: tree.diff(&s.replacements)?,
    })
}

/// The scenarios measured, from the first record that has any.
fn note_scenarios(doc: &mut Advice, records: &[costbench_record::model::RunRecord]) {
    if doc.scenarios.is_empty() {
        if let Some(r) = records.first() {
            doc.scenarios = r.results.iter().map(|x| x.id.clone()).collect();
        }
    }
}

/// How the source changes are measured: how many, whether the crate's tests vet each first,
/// where their runs go, how they are judged.
struct Plan<'a> {
    budget: usize,
    tests: bool,
    all_scenarios: bool,
    checks: usize,
    root: &'a Path,
    opts: &'a costbench_judge::compare::CompareOptions,
}

/// Builds the unchanged copy once (and runs the crate's tests on it), then each suggestion (up
/// to the budget) applied alone: built, tested, measured paired with the unchanged copy and
/// judged. Candidates are appended to `doc` with their ids (`c1`, `i1`, ...).
fn measure_suggestions(
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
    let (base_exe, base_build) =
        costbench_measure::cargo::build_timed(&tree.target, BASE_BUILD, flags, quiet, align)
            .context("the unchanged copy of the sources does not build")?;
    session.check_filter(&base_exe)?;
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
    let profiled = profile_unchanged(session, tree, (&base_exe, &base_build), plan.root)?;
    if doc.scenarios.is_empty() {
        doc.scenarios = profiled.ids.clone();
    }
    let checks = if plan.checks > 0 {
        hot_checks(session, tree, (&base_exe, &base_build), plan, doc)?
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
            let built = costbench_measure::cargo::build_timed(
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
        let (cand_exe, cand_build) = match built {
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
        let side = |label: &str, exe, build| SideSpec {
            label: label.into(),
            exe,
            output_dir: dir.join(label),
            target: None,
            build: Some(build),
        };
        let mut records = costbench_measure::run::measure_sides(
            &opts,
            &tree.target,
            vec![
                side("base", base_exe.clone(), base_build.clone()),
                side("candidate", cand_exe, cand_build),
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

fn profile_unchanged(
    session: &Session,
    tree: &tree::Tree,
    (exe, build): (&Path, &costbench_record::model::BuildInfo),
    root: &Path,
) -> Result<Profiled> {
    session.status(
        "Profiling",
        "the unchanged copy (instruction counts: which scenarios execute each change)",
    );
    let mut opts = session.cmd.measure.clone();
    opts.instruments = costbench_record::instrument::InstrumentSet::of(
        costbench_record::instrument::Instrument::Icount,
    );
    opts.placement_runs = 0;
    let dir = root.join("source").join("unchanged");
    let records = costbench_measure::run::measure_sides(
        &opts,
        &tree.target,
        vec![SideSpec {
            label: "unchanged".into(),
            exe: exe.to_path_buf(),
            output_dir: dir.clone(),
            target: None,
            build: Some(build.clone()),
        }],
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

/// The bounds checks of the package's own code, ranked by executions per op in a census of the
/// unchanged copy, the `plan.checks` most executed each as a candidate: its line's index
/// expressions made unchecked (`advise::unchecked`).
fn hot_checks(
    session: &Session,
    tree: &tree::Tree,
    (exe, build): (&Path, &costbench_record::model::BuildInfo),
    plan: &Plan<'_>,
    doc: &mut Advice,
) -> Result<Vec<Suggestion>> {
    session.status(
        "Counting",
        "the bounds checks the unchanged copy executes (census)",
    );
    let mut opts = session.cmd.measure.clone();
    opts.instruments = costbench_record::instrument::InstrumentSet::of(
        costbench_record::instrument::Instrument::Census,
    );
    opts.placement_runs = 0;
    let records = costbench_measure::run::measure_sides(
        &opts,
        &tree.target,
        vec![SideSpec {
            label: "census".into(),
            exe: exe.to_path_buf(),
            output_dir: plan.root.join("source").join("census"),
            target: None,
            build: Some(build.clone()),
        }],
    )?;
    let ws = &tree.target.workspace_root;
    let src = tree.target.package_dir.join("src");
    // (file relative to the workspace, line) -> (most executions per op, in which scenario).
    let mut hot: Vec<((String, u32), (f64, String))> = Vec::new();
    for r in records.iter().flat_map(|r| &r.results) {
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
    for ((file, line), (per_op, id)) in hot.into_iter().take(plan.checks) {
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
fn miri_check(
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
        bench: Some(tree.target.bench.clone()),
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

/// `--apply ID`: the diff of candidate `id` from the last advise's `advice.json`, applied to
/// the working tree. Every file is checked before any is written; each is written atomically.
fn apply(session: &Session, id: &str) -> Result<i32> {
    let root = session.output_dir(|p| p.advise());
    let path = root.join("advice.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => usage!(
            "--apply {id}: no advice in {} yet: run costbench advise first",
            path.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let doc: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("cannot parse {}", path.display()))?;
    let candidates = doc["candidates"].as_array().cloned().unwrap_or_default();
    let Some(c) = candidates.iter().find(|c| c["id"] == id) else {
        let ids: Vec<&str> = candidates.iter().filter_map(|c| c["id"].as_str()).collect();
        usage!(
            "--apply {id}: no candidate {id} in {} (it has: {})",
            path.display(),
            ids.join(", ")
        );
    };
    let change = &c["change"];
    if change["kind"] == "build" {
        usage!(
            "--apply {id}: {id} is a build choice ({}): set it in your Cargo.toml's [profile.bench] \
             (or [profile.release]) yourself; see costbench variants --help for what each setting means",
            change["settings"].as_str().unwrap_or("")
        );
    }
    let diff = change["diff"].as_str().unwrap_or("");
    if diff.is_empty() {
        usage!(
            "--apply {id}: {id} has no rewrite to apply ({})",
            c["reason"].as_str().unwrap_or("")
        );
    }
    let ws = &session.target.workspace_root;
    let mut writes = Vec::new();
    for file in costbench_measure::advise::edit::diff_files(diff) {
        let p = ws.join(&file);
        let old =
            std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        let new = costbench_measure::advise::edit::apply_diff(&file, &old, diff)
            .with_context(|| format!("--apply {id}: nothing was written"))?;
        writes.push((p, new));
    }
    for (p, new) in &writes {
        costbench_record::output::write_atomic(p, new.as_bytes())?;
    }
    let verdict = c["verdict"].as_str().unwrap_or("");
    session.status(
        "Applied",
        format!(
            "{id} ({}, {verdict}) to {}",
            change["rule"].as_str().unwrap_or(""),
            plural(writes.len(), "file")
        ),
    );
    Ok(crate::exit::OK)
}

/// Writes `advice.json` to `root` and `--markdown FILE` (each atomically), then prints the
/// advice as `format`.
fn emit(
    doc: &Advice,
    root: &Path,
    format: Format,
    markdown: Option<&Path>,
    quiet: bool,
) -> Result<i32> {
    let view = AdviceView(doc);
    let markdown = markdown.map(Path::to_path_buf);
    Sink::new(crate::output::stdout(format, quiet))
        .file(
            root.join("advice.json"),
            Format::Json,
            Some(format!("{}", root.join("advice.json").display())),
        )
        .flag_file("--markdown", markdown.as_ref(), Format::Markdown)
        .emit(&view)?;
    Ok(crate::exit::OK)
}
