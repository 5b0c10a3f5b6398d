//! Paired wall time in a backfill: each measured commit's wall time is measured in interleaved
//! rounds with the previous measured commit's kept binary (its parent when every commit is
//! measured), as `check` measures a pull request against its base, and judged as `check` judges
//! it. One run of a commit after another cannot see 5 % on a machine that drifts 10 to 25 % from
//! run to run; two binaries taking turns sample by sample can.
//!
//! The other instruments measure the commit alone first (instruction counts do not depend on
//! what else runs); then one interleaved session of the two binaries, wall time only, with the
//! code layout as cargo linked each (relinking the previous commit needs its objects, which the
//! shared build directory no longer holds). The commit's record takes this session's wall time,
//! and each id's [`Step`] says how it compares with the previous commit's: the `walltime-step`
//! series that `history changes` reads. An id whose instruction count moved beyond the
//! threshold while its time could not be resolved gets one more session (the exact figure says
//! there is something to resolve). A step the session resolves is measured again in a
//! second session on fresh rounds, and counts only when that one resolves it the same way: a
//! watched branch makes one comparison per commit and id, far more than one check, and a
//! second stage on independent rounds multiplies the false-alarm rates of the two.

use crate::instrument::pairing::{Commit, Pairing, Previous};
use anyhow::{Context, Result};
use costbench_judge::compare::{compare_with, noise::HistoricThresholds, CompareOptions};
use costbench_measure::cargo::{BenchTarget, BuiltBench};
use costbench_measure::run::layout::LayoutMode;
use costbench_measure::run::{measure_sides, RunOptions, SideSpec};
use costbench_record::instrument::{Figure, Instrument, InstrumentSet};
use costbench_record::model::{RunRecord, Step, Walltime};
use std::path::{Path, PathBuf};

/// Wall time's pairing in a backfill.
pub(crate) const PAIRING: Pairing = Pairing {
    instrument: Instrument::Walltime,
    what: "wall time",
    measure,
    carried,
};

/// Measures the commit whose kept binary is `exe` (its worktree `target`) into `dir`, as the
/// command's options `cmd` ask, with `suite`'s bench target: the other instruments alone, then
/// wall time interleaved with `previous` (into `dir/../paired`). Returns the commit's record,
/// every wall-time figure with its step.
fn measure(
    (cmd, suite): (&RunOptions, &BenchTarget),
    Commit {
        target,
        exe,
        others,
        dir,
    }: Commit<'_>,
    previous: &Previous,
) -> Result<RunRecord> {
    let asked = cmd.instruments;
    let side = |label: &str, (exe, others): (&Path, &[BuiltBench]), output_dir: PathBuf| SideSpec {
        label: label.into(),
        exe: exe.to_path_buf(),
        output_dir,
        target: Some(target.clone()),
        build: None,
        others: others.to_vec(),
    };
    let rest = asked.without(Instrument::Walltime);
    let alone = if rest == InstrumentSet::NONE {
        None
    } else {
        let mut opts = cmd.clone();
        opts.instruments = rest;
        let mut runs = measure_sides(
            &opts,
            suite,
            vec![side("default", (exe, others), dir.to_path_buf())],
        )?;
        runs.pop()
    };
    let paired = dir.parent().unwrap_or(dir).join("paired");
    // One interleaved session of the two binaries into `into`, wall time only, of the ids
    // `filter` selects (the command's filter when `None`).
    let session_of = |filter: Option<regex::Regex>, into: PathBuf| {
        let mut opts = cmd.clone();
        opts.instruments = InstrumentSet::of(Instrument::Walltime);
        opts.rounds.layouts = LayoutMode::Off;
        opts.rounds.baseline_side = 0;
        if filter.is_some() {
            opts.filter = filter;
        }
        let mut runs = measure_sides(
            &opts,
            suite,
            vec![
                side(
                    "previous",
                    (&previous.exe, &previous.others),
                    into.join("previous"),
                ),
                side("default", (exe, others), into.join("this")),
            ],
        )
        .with_context(|| {
            format!(
                "measuring wall time paired with {}",
                // Shortened as the backfill's lines shorten a commit (`core::changes::short`).
                &previous.sha[..12.min(previous.sha.len())]
            )
        })?;
        let this = runs.pop().expect("two sides measured");
        let before = runs.pop().expect("two sides measured");
        anyhow::Ok((before, this))
    };
    let (before, this) = session_of(None, paired.clone())?;
    let mut run = match alone {
        Some(mut run) => {
            take_walltime(&mut run, &this);
            run.settings.instruments = asked.names().into_iter().map(String::from).collect();
            run
        }
        None => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            this
        }
    };
    let mut base = previous.run.clone();
    take_walltime(&mut base, &before);
    let threshold_pct = CompareOptions::default().paired_walltime_threshold_pct;
    for (id, verdict) in judge(&base, &run) {
        if let Some(w) = walltime_of(&mut run, &id) {
            w.step = Some(Step {
                against: previous.sha.clone(),
                confirmation: None,
                ..verdict
            });
        }
    }
    // An id whose instruction count moved beyond the wall-time threshold but whose time this
    // session could not resolve (a burst of load widened its interval) gets one more session
    // on fresh rounds: the exact figure says there is something to resolve. Its verdict
    // replaces the first's.
    let unresolved = ids_where(&run, |r, step| {
        step.verdict == "unresolved" && count_moved(&base, r, threshold_pct)
    });
    if let Some(filter) = unresolved {
        let (before, this) = session_of(Some(filter), paired.join("retry"))?;
        let (mut base, mut again) = (previous.run.clone(), run.clone());
        take_walltime(&mut base, &before);
        take_walltime(&mut again, &this);
        for (id, retry) in judge(&base, &again) {
            if let (Some(w), Some(from)) =
                (walltime_of(&mut run, &id), walltime_of(&mut again, &id))
            {
                *w = Walltime {
                    step: Some(Step {
                        against: previous.sha.clone(),
                        ..retry
                    }),
                    ..from.clone()
                };
            }
        }
    }
    // A step resolved in this session is measured again, on fresh rounds: a watched branch
    // makes one comparison per commit and id, so a step counts only when a second session
    // resolves it the same way.
    let resolved = ids_where(&run, |_, step| {
        matches!(step.verdict.as_str(), "regression" | "improvement")
    });
    if let Some(filter) = resolved {
        let (before, this) = session_of(Some(filter), paired.join("confirm"))?;
        let (mut base, mut again) = (previous.run.clone(), run.clone());
        take_walltime(&mut base, &before);
        take_walltime(&mut again, &this);
        for (id, second) in judge(&base, &again) {
            if let Some(step) = walltime_of(&mut run, &id).and_then(|w| w.step.as_mut()) {
                step.confirmation = Some(second.verdict);
            }
        }
    }
    Ok(run)
}

/// A filter selecting exactly the ids of `run` whose wall-time step `pick` takes; `None` when it
/// takes none.
fn ids_where(
    run: &RunRecord,
    pick: impl Fn(&costbench_record::model::ScenarioResult, &Step) -> bool,
) -> Option<regex::Regex> {
    let ids: Vec<String> = run
        .results
        .iter()
        .filter(|r| {
            r.walltime
                .as_ref()
                .and_then(|w| w.step.as_ref())
                .is_some_and(|s| pick(r, s))
        })
        .map(|r| regex::escape(&r.id))
        .collect();
    (!ids.is_empty()).then(|| {
        regex::Regex::new(&format!("^(?:{})$", ids.join("|")))
            .expect("escaped ids make a valid regex")
    })
}

/// Whether `r`'s instructions per op moved from `base`'s by more than `pct` percent.
fn count_moved(base: &RunRecord, r: &costbench_record::model::ScenarioResult, pct: f64) -> bool {
    let before = base
        .results
        .iter()
        .find(|b| b.id == r.id)
        .and_then(|b| b.icount.as_ref())
        .map(|i| i.ir_per_op);
    match (before, r.icount.as_ref().map(|i| i.ir_per_op)) {
        (Some(b), Some(a)) if b > 0.0 => (a / b - 1.0).abs() * 100.0 > pct,
        _ => false,
    }
}

/// The wall-time figure of `id` in `run`.
fn walltime_of<'a>(run: &'a mut RunRecord, id: &str) -> Option<&'a mut Walltime> {
    run.results
        .iter_mut()
        .find(|r| r.id == id)
        .and_then(|r| r.walltime.as_mut())
}

/// Sets every wall-time figure of `run` (and its wall-time failures) to `from`'s, id by id.
fn take_walltime(run: &mut RunRecord, from: &RunRecord) {
    let wall = Instrument::Walltime.name();
    for r in &mut run.results {
        r.walltime = None;
        r.failures.retain(|f| f.instrument != wall);
        if let Some(f) = from.results.iter().find(|f| f.id == r.id) {
            r.walltime = f.walltime.clone();
            r.failures
                .extend(f.failures.iter().filter(|f| f.instrument == wall).cloned());
        }
    }
}

/// Judges `run`'s wall time against `base`'s (measured in the same interleaved session) as
/// `check` does: each id's step (its commit left for the caller to name).
fn judge(base: &RunRecord, run: &RunRecord) -> Vec<(String, Step)> {
    let cmp = compare_with(
        base,
        run,
        &CompareOptions::default(),
        &HistoricThresholds::default(),
    );
    cmp.rows
        .iter()
        .filter(|r| r.instrument == Figure::Walltime)
        .map(|row| {
            let ratio = 1.0 + row.change_pct / 100.0;
            let step = Step {
                against: String::new(),
                ratio,
                low: row.ci.map_or(ratio, |c| c.low),
                high: row.ci.map_or(ratio, |c| c.high),
                verdict: row.verdict.name().to_string(),
                confirmation: None,
            };
            (row.id.clone(), step)
        })
        .collect()
}

/// The step of a commit whose figures are carried over from `from` (none of its build's files
/// changed): the same binary, so no change, by construction.
fn carried(run: &mut RunRecord, from: &str) {
    for r in &mut run.results {
        if let Some(w) = &mut r.walltime {
            w.step = Some(Step {
                against: from.to_string(),
                ratio: 1.0,
                low: 1.0,
                high: 1.0,
                verdict: "unchanged".into(),
                confirmation: None,
            });
        }
    }
}
