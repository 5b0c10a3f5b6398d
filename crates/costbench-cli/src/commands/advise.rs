//! `costbench advise`: candidate changes of the user's crate, each measured alone against the
//! unchanged code on the user's scenarios, in four steps:
//! 1. finding: the build choices of `variants`' `build-choices` preset, and clippy's
//!    machine-applicable suggestions (`costbench_measure::advise::clippy`) on a scratch copy of
//!    the sources (`advise::tree`; the user's checkout is never written to);
//! 2. the build choices measured as `variants` measures them (plan, build, measure, matrix),
//!    each variant turned into a candidate (`costbench_judge::advice::build_choices`);
//! 3. each source change applied alone to the copy, built, and measured paired with the
//!    unchanged copy's build (`run::measure_sides` with two sides, as `check --baseline-rev`
//!    measures), judged by `compare::compare_with` (`advice::measured`); one that does not
//!    compile is reported as such, never measured;
//! 4. the advice written (`advice.json`, atomically, and `--markdown FILE`) and printed.
//!
//! Nothing is recorded in the history: the candidates' runs are not the project's.

use crate::args::{AdviseCmd, CandidateKind};
use crate::core::session::Session;
use crate::exit::usage;
use crate::output::Sink;
use anyhow::{Context, Result};
use costbench_judge::advice::{self, Advice, Candidate, Change, Verdict};
use costbench_measure::advise::{clippy, tree, BASE_BUILD, CANDIDATE_BUILD};
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
    let mut cmd = a.measure.into_command(a.list, json)?;
    cmd.measure.rounds = rounds;
    cmd.measure.placement_runs = a.placement_runs;
    cmd.record_history = false;
    let mut session = Session::open(cmd)?;
    session.target.single("advise")?;
    let root = session.output_dir(|p| p.advise());
    costbench_record::output::OutputDir::prepare(&root)?;
    let (build, source) = match a.only {
        None => (true, true),
        Some(CandidateKind::Build) => (true, false),
        Some(CandidateKind::Clippy) => (false, true),
    };
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
    let found = if source {
        find_suggestions(&session)?
    } else {
        None
    };
    if a.list {
        if build {
            doc.candidates.extend(listed_build_choices()?);
        }
        if let Some((tree, suggestions)) = &found {
            for s in suggestions {
                let id = format!("c{}", doc.candidates.len() + 1);
                doc.candidates
                    .push(unmeasured(id, clippy_change(tree, s)?, ""));
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

    // 2. Build choices, as `variants --preset build-choices` measures them.
    if build {
        let vopts = costbench_measure::variants::VariantOptions {
            variants: Vec::new(),
            preset: Some("build-choices".into()),
            baseline: None,
            build_jobs: 1,
        };
        let measured = session.measure_variants(&vopts, root.join("build-choices"))?;
        note_scenarios(&mut doc, &measured.records);
        doc.candidates
            .extend(advice::build_choices(&measured.matrix));
        // The source changes pair their own two sides, the unchanged copy first.
        session.cmd.measure.rounds.baseline_side = 0;
    }

    // 3. Source changes, each alone.
    if let Some((tree, suggestions)) = &found {
        let budget = a.max_candidates.unwrap_or(usize::MAX);
        measure_suggestions(&session, tree, suggestions, budget, &root, &opts, &mut doc)?;
    }
    if source && build {
        doc.notes.push(
            "source changes come from clippy only: the idioms no linter flags (unbuffered writes \
             in a loop, a Regex where a string method would do, the default hasher on a hot \
             path) and the ranking of executed bounds checks are not looked for yet"
                .into(),
        );
    }
    emit(
        &doc,
        &root,
        a.format,
        a.markdown.as_deref(),
        session.cmd.quiet,
    )
}

/// The scratch copy and clippy's machine-applicable suggestions on it, or `None` when clippy
/// suggested nothing.
fn find_suggestions(session: &Session) -> Result<Option<(tree::Tree, Vec<clippy::Suggestion>)>> {
    session.status("Copying", "the sources to advise's scratch tree");
    let tree = tree::prepare(&session.target)?;
    let mut lints = clippy::perf_group()?;
    for l in clippy::IDIOM_LINTS {
        if !lints.iter().any(|x| x == l) {
            lints.push(l.to_string());
        }
    }
    session.status(
        "Checking",
        format!(
            "package {} with clippy ({} lints: the perf group and the slow idioms)",
            session.target.package,
            lints.len()
        ),
    );
    let json = clippy::run(&tree.target, &session.cmd.measure.cargo, &lints)?;
    let suggestions = clippy::parse(&json, &lints);
    session.status(
        "Found",
        format!(
            "{} machine-applicable suggestion{}",
            suggestions.len(),
            if suggestions.len() == 1 { "" } else { "s" }
        ),
    );
    Ok(Some((tree, suggestions)))
}

/// The build choices of the preset, not measured (`--list`).
fn listed_build_choices() -> Result<Vec<Candidate>> {
    let variants = costbench_measure::variants::presets::preset("build-choices")?;
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
        binary_bytes: None,
        build_seconds: None,
        error: None,
    }
}

/// What a suggestion changes, with its diff against the copy as it is.
fn clippy_change(tree: &tree::Tree, s: &clippy::Suggestion) -> Result<Change> {
    Ok(Change::Clippy {
        lint: s.lint.clone(),
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

/// Builds the unchanged copy once, then each suggestion (up to `budget`) applied alone, measured
/// paired with it and judged; candidates are appended to `doc` as `c1`, `c2`, ...
fn measure_suggestions(
    session: &Session,
    tree: &tree::Tree,
    suggestions: &[clippy::Suggestion],
    budget: usize,
    root: &Path,
    opts: &costbench_judge::compare::CompareOptions,
    doc: &mut Advice,
) -> Result<()> {
    if suggestions.is_empty() {
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
    for (k, s) in suggestions.iter().enumerate() {
        let id = format!("c{}", k + 1);
        let change = clippy_change(tree, s)?;
        if k >= budget {
            doc.candidates.push(unmeasured(
                id,
                change,
                &format!("beyond --max-candidates {budget}"),
            ));
            continue;
        }
        session.status(
            "Applying",
            format!("{id}: {} at {}:{}", s.lint, s.file, s.line),
        );
        let built = {
            // The files are put back as soon as the candidate is built: measuring reads only
            // the executable.
            let _applied = tree.apply(&s.replacements)?;
            costbench_measure::cargo::build_timed(&tree.target, CANDIDATE_BUILD, flags, true, align)
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
        let dir = root.join("clippy").join(&id);
        let side = |label: &str, exe, build| SideSpec {
            label: label.into(),
            exe,
            output_dir: dir.join(label),
            target: None,
            build: Some(build),
            others: Vec::new(),
        };
        let mut records = costbench_measure::run::measure_sides(
            &session.cmd.measure,
            &tree.target,
            vec![
                side("base", base_exe.clone(), base_build.clone()),
                side("candidate", cand_exe, cand_build),
            ],
        )?;
        let cand = records.pop().expect("two sides");
        let base = records.pop().expect("two sides");
        note_scenarios(doc, std::slice::from_ref(&base));
        let cmp = costbench_judge::compare::compare_with(
            &base,
            &cand,
            opts,
            &costbench_judge::compare::noise::HistoricThresholds::default(),
        );
        let c = advice::measured(id, change, &cmp);
        session.status(
            "Measured",
            format!("{}: {} ({})", c.id, c.verdict.words(), c.reason),
        );
        doc.candidates.push(c);
    }
    Ok(())
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
