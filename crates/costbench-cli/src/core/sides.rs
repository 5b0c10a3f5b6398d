//! The runs a command compares: loading a run named on the command line (a directory, its
//! run.json, or a run id in history), thresholds learnt from a branch's history, and judging two
//! runs with the functions that moved most. Shared by `compare`, `check`, `export` and `report`.
//!
//! Pure of printing: what is judged is returned, and the commands present it.

use super::history::database;
use anyhow::{bail, Context, Result};
use costbench_record::instrument::Figure;
use costbench_record::model::RunRecord;
use std::path::{Path, PathBuf};

/// A run named on the command line: a directory or run.json if that path exists, else a run id
/// in the history database.
/// Returns the record and, for a directory, the directory (where its callgrind outputs are).
pub(crate) fn load_side(
    what: &str,
    spec: &str,
    db: Option<&Path>,
    manifest: Option<&Path>,
) -> Result<(RunRecord, Option<PathBuf>)> {
    let path = Path::new(spec);
    if !path.exists() {
        // Neither a directory nor a run id is a name that does not exist: a usage error (exit
        // 2), whereas a history that cannot be read stays a failure (issue 41).
        let db = database(db, manifest).with_context(|| {
            format!("{what} {spec:?} is not a directory, so it must be a run id from history")
        })?;
        let looked = match std::env::current_dir() {
            Ok(cwd) if path.is_relative() => format!(" (looked in {})", cwd.display()),
            _ => String::new(),
        };
        if !db.exists() {
            costbench_record::bad_input!(
                "{what} {spec:?}: no such directory{looked}, and no history database at {db} to \
                 look it up as a run id; name a run's output directory (the folder holding \
                 run.json that `costbench run` printed), or a run id that `costbench history` \
                 lists (with --db if the history is elsewhere)"
            );
        }
        return db.open()?.load(spec).map(|r| (r, None)).with_context(|| {
            format!("{what} {spec:?}: no such directory{looked}, so it was looked up as a run id")
        });
    }
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    };
    costbench_record::output::load_run(path)
        .map(|r| (r, Some(dir)))
        .with_context(|| format!("{what} {spec}"))
}

/// Compares `base` with `cand` and attaches, to every significant instruction-count row, the
/// functions whose own cost changed and (when both runs counted them) the bounds and overflow
/// checks that appeared, disappeared or changed, read from the callgrind outputs kept in the runs'
/// directories and the binaries they name;
/// `sources` (`check --baseline-rev`) says which source files the pull request changed.
pub(crate) fn judge_sides(
    (base, base_dir): (&RunRecord, Option<&std::path::Path>),
    (cand, cand_dir): (&RunRecord, Option<&std::path::Path>),
    opts: &costbench_judge::compare::CompareOptions,
    historic: &costbench_judge::compare::noise::HistoricThresholds,
    sources: Option<&costbench_measure::run::baseline::SourceDiff>,
) -> costbench_judge::compare::Comparison {
    // The profiles first, then judging: the judge works on what it is given.
    let mut profiles = costbench_measure::instrument::icount::profile::load_changed(
        base, base_dir, cand, cand_dir,
    );
    let mut cmp = costbench_judge::compare::compare_with(base, cand, opts, historic);
    let unchanged = sources.map(|s| move |file: &str| s.unchanged(file));
    costbench_judge::compare::functions::attach(
        &mut cmp,
        |id| {
            profiles
                .remove(id)
                .unwrap_or_else(|| Err(format!("no callgrind profile was read for {id}")))
        },
        unchanged
            .as_ref()
            .map(|f| f as costbench_judge::compare::functions::Unchanged),
    );
    let roots = sources.map(|s| s.roots());
    attach_explanations(
        &mut cmp,
        (base, base_dir, roots.map(|r| r.1)),
        (cand, cand_dir, roots.map(|r| r.0)),
    );
    cmp
}

/// What explains the change of exact counts between two runs of two commits, as text, for
/// each measured id that changed: the functions whose own cost changed, the checks that moved
/// and the machine code of the largest movers, as `check` shows them. The two runs are judged
/// once, whichever ids are then shown. `bisect` prints it for the commit it found, `history
/// changes` for each change point (one piece of code for both).
pub(crate) fn explain_change(
    before: (&RunRecord, &Path),
    after: (&RunRecord, &Path),
) -> std::collections::BTreeMap<String, String> {
    // Any change of an exact count is the one being explained, however small.
    let opts = costbench_judge::compare::CompareOptions {
        icount_threshold_pct: 0.0,
        ..costbench_judge::compare::CompareOptions::default()
    };
    let cmp = judge_sides(
        (before.0, Some(before.1)),
        (after.0, Some(after.1)),
        &opts,
        &costbench_judge::compare::noise::HistoricThresholds::default(),
        None,
    );
    let mut by_id = std::collections::BTreeMap::<String, String>::new();
    for f in &cmp.functions {
        costbench_report::movers::terminal(by_id.entry(f.id.clone()).or_default(), f);
    }
    for (id, text) in costbench_report::comparison::explained(&cmp) {
        by_id.entry(id).or_default().push_str(&text);
    }
    for a in &cmp.asm {
        costbench_report::asm::terminal(
            by_id.entry(a.id.clone()).or_default(),
            std::slice::from_ref(a),
        );
    }
    by_id
}

/// Attaches what explains each change whose functions `cmp` lists: the checks that moved (when
/// both runs counted them) and the machine code of the largest movers, read first from the
/// callgrind outputs in the runs' directories and the binaries they name; source files under a
/// side's checkout (when known) are named relative to it.
pub(crate) fn attach_explanations(
    cmp: &mut costbench_judge::compare::Comparison,
    (base, base_dir, base_root): (&RunRecord, Option<&Path>, Option<&Path>),
    (cand, cand_dir, cand_root): (&RunRecord, Option<&Path>, Option<&Path>),
) {
    use costbench_measure::explain::{read, Side};
    let evidence = read(
        cmp,
        Side {
            run: base,
            dir: base_dir,
            root: base_root,
        },
        Side {
            run: cand,
            dir: cand_dir,
            root: cand_root,
        },
    );
    costbench_judge::compare::explain::attach_evidence(cmp, evidence);
}

/// Per-id thresholds from the history of `branch` (runs of `base`'s variant) in the database at
/// `path`.
pub(crate) fn learn_thresholds(
    path: &costbench_store::Location,
    branch: &str,
    window: usize,
    base: &RunRecord,
) -> Result<costbench_judge::compare::noise::HistoricThresholds> {
    use costbench_store::RunQuery;
    if !path.exists() {
        bail!("no history database at {path} to learn thresholds from");
    }
    let store = path.open()?;
    let q = RunQuery {
        branch: Some(branch.to_string()),
        variant: Some(base.variant.clone()),
        limit: Some(window),
    };
    let mut historic = costbench_judge::compare::noise::HistoricThresholds::default();
    // Runs that did not finish (recorded by a costbench from before they were refused) are no
    // evidence of noise: their points are left out.
    let unfinished: std::collections::HashSet<String> = store
        .runs(&q)?
        .into_iter()
        .filter(|r| r.unfinished.is_some())
        .map(|r| r.run_id)
        .collect();
    for r in &base.results {
        for (inst, metric) in Figure::ALL
            .into_iter()
            .filter_map(|i| Some((i, i.history()?)))
        {
            let series: Vec<f64> = store
                .series(&r.id, metric, &q)?
                .iter()
                .filter(|p| !unfinished.contains(&p.run_id))
                .map(|p| p.per_op)
                .collect();
            historic.learn(&r.id, inst, &series);
        }
    }
    if historic.is_empty() {
        eprintln!(
            "note: no scenario has {} consecutive runs on branch {branch:?} yet; default thresholds apply",
            costbench_judge::compare::noise::MIN_CHANGES + 1
        );
    }
    Ok(historic)
}
