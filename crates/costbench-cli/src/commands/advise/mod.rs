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
//!
//! This module finds and emits; `measure` measures the source changes, `checks` ranks and
//! vets the hottest bounds checks, `apply` writes one candidate into the user's tree.

mod apply;
mod checks;
mod measure;

use crate::args::{AdviseCmd, CandidateKind};
use crate::core::session::Session;
use crate::exit::usage;
use crate::output::Sink;
use anyhow::Result;
use costbench_judge::advice::{self, Advice, Candidate, Change, Verdict};
use costbench_measure::advise::{clippy, idioms, tree, Suggestion};
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
        return apply::apply(&session, &id);
    }
    let mut cmd = a.measure.into_command(a.list, json)?;
    cmd.measure.rounds = rounds;
    cmd.measure.placement_runs = a.placement_runs;
    cmd.record_history = false;
    let mut session = Session::open(cmd)?;
    let root = session.output_dir(|p| p.advise());
    costbench_record::output::OutputDir::prepare(&root)?;
    let only = |k: CandidateKind| a.only.is_empty() || a.only.contains(&k);
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
        let plan = measure::Plan {
            budget,
            tests: !a.no_tests,
            all_scenarios: a.all_scenarios,
            checks: if idioms { a.checks } else { 0 },
            root: &root,
            opts: &opts,
        };
        measure::measure_suggestions(&session, tree, suggestions, &plan, &mut doc)?;
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

pub(super) fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Candidate ids: `c1`, `c2`, ... for clippy's suggestions, `i1`, `i2`, ... for the idioms,
/// `k1`, `k2`, ... for the hottest bounds checks.
#[derive(Default)]
pub(super) struct Ids {
    clippy: usize,
    idioms: usize,
    checks: usize,
}

impl Ids {
    pub(super) fn next(&mut self, s: &Suggestion) -> String {
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
pub(super) const NO_REWRITE: &str =
    "found, not rewritten: no rewrite is mechanical and safe here, so \
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

pub(super) fn unmeasured(id: String, change: Change, why: &str) -> Candidate {
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
pub(super) fn source_change(tree: &tree::Tree, s: &Suggestion) -> Result<Change> {
    Ok(Change::Source {
        rule: s.rule.clone(),
        message: s.message.clone(),
        file: s.file.clone(),
        line: s.line,
        diff: tree.diff(&s.replacements)?,
    })
}

/// The scenarios measured, from the first record that has any.
pub(super) fn note_scenarios(doc: &mut Advice, records: &[costbench_record::model::RunRecord]) {
    if doc.scenarios.is_empty() {
        if let Some(r) = records.first() {
            doc.scenarios = r.results.iter().map(|x| x.id.clone()).collect();
        }
    }
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
