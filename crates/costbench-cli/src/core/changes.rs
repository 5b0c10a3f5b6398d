//! Watching a branch, the part `history changes` and `history dashboard` share: which runs of
//! the history are read (the branch checked out unless told), the change points and drift the
//! judge finds in them (`costbench_judge::changes`), each change point's note (narrowed to its
//! commit or not, acknowledged in costbench.toml, new since `--since`, explained by the
//! functions that moved where both commits' profiles were kept by `history backfill`).
//!
//! Printing and exit codes are the commands'.

use super::paths::Paths;
use crate::args::ChangesArgs;
use anyhow::{Context, Result};
use costbench_judge::changes::config::HistoryConfig;
use costbench_judge::changes::{self, ChangeReport, Method};
use costbench_measure::run::backfill as git;
use costbench_record::history::{MergedOrigin, Metric, Timeline, TimelineRun};
use costbench_report::changes::ChangeNote;
use costbench_store::{Location, RunQuery};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A branch's history, judged.
pub(crate) struct Judged {
    pub timeline: Timeline,
    pub report: ChangeReport,
    pub notes: Vec<ChangeNote>,
    /// What drift is measured from, for people.
    pub reference: Option<String>,
    /// The branch read (`None`: every run).
    pub branch: Option<String>,
}

/// Where watching a branch reads from: the database, the repository (for revisions) and its
/// costbench.toml, and where backfilled profiles are kept.
pub(crate) struct Watch {
    pub history: Location,
    pub root: Option<PathBuf>,
    pub config: HistoryConfig,
    pub paths: Option<Paths>,
}

impl Watch {
    /// The database `db` names (else the default of `manifest`'s target directory), the
    /// workspace of `manifest` if there is one, and its costbench.toml's `[history]`.
    pub(crate) fn open(db: Option<&Path>, manifest: Option<&Path>) -> Result<Watch> {
        let workspace = costbench_measure::cargo::workspace(manifest);
        let (root, paths) = match (&workspace, db) {
            (Ok((root, target)), _) => (Some(root.clone()), Some(Paths::under(target))),
            // With --db, a CI job may read a shared history outside any crate.
            (Err(_), Some(_)) => (None, None),
            (Err(e), None) => anyhow::bail!(
                "no history database given (--db) and no crate here to find the default one: {e:#}"
            ),
        };
        let history = match (db, &paths) {
            (Some(db), _) => Location::parse(db),
            (None, Some(p)) => super::history::location(None, p),
            (None, None) => unreachable!("without --db a crate was found, or we returned"),
        };
        let config = match &root {
            Some(r) => costbench_measure::config::Config::load(r)?.history,
            None => HistoryConfig::default(),
        };
        if !history.exists() {
            costbench_record::bad_input!(
                "no history database at {history}: `costbench run` or `costbench history backfill` records runs there (or pass --db)"
            );
        }
        Ok(Watch {
            history,
            root,
            config,
            paths,
        })
    }

    fn repo(&self, what: &str) -> Result<&Path> {
        match &self.root {
            Some(r) => Ok(r),
            None => costbench_record::bad_input!(
                "{what} names a revision, which needs the crate's git repository: run it there (or --manifest-path)"
            ),
        }
    }

    /// Reads and judges the history as `args` says; change points at or before `since` (a
    /// revision) do not fail; at most `explain` change points are explained.
    pub(crate) fn judge(
        &self,
        args: &ChangesArgs,
        since: Option<&str>,
        explain: usize,
    ) -> Result<Judged> {
        let branch = if args.all_branches {
            None
        } else {
            args.branch
                .clone()
                .or_else(|| self.root.as_deref().and_then(git::current_branch))
        };
        let filter = args
            .filter
            .as_deref()
            .map(|f| {
                regex::Regex::new(f).map_err(|e| {
                    costbench_record::error::bad_input(format!(
                        "--filter {f:?} is not a regular expression: {e}"
                    ))
                })
            })
            .transpose()?;
        if !(args.alpha > 0.0 && args.alpha < 1.0) {
            costbench_record::bad_input!("--alpha must be between 0 and 1, not {}", args.alpha);
        }
        if args.min_segment < 2 {
            costbench_record::bad_input!("--min-segment must be at least 2");
        }
        let since_position = since
            .map(|rev| {
                let repo = self.repo("--since")?;
                let sha = git::resolve(repo, rev, "--since")?;
                git::position(repo, &sha)
            })
            .transpose()?;
        let store = self.history.open()?;
        let mut timeline = store
            .timeline(&RunQuery {
                branch: branch.clone(),
                variant: args.variant.clone(),
                limit: None,
            })
            .with_context(|| format!("cannot read the history in {}", self.history))?;
        if timeline.runs.is_empty() {
            // Not an error (a new history, a branch not measured yet), but never silent.
            eprintln!(
                "note: no runs{} in {}: `costbench history backfill` or `costbench run` records them{}",
                branch
                    .as_deref()
                    .map_or(String::new(), |b| format!(" of branch {b:?}")),
                self.history,
                if branch.is_some() {
                    " (--all-branches reads every branch)"
                } else {
                    ""
                }
            );
        }
        timeline.series.retain(|s| {
            (args.metrics.is_empty() || args.metrics.contains(&s.metric))
                && filter.as_ref().is_none_or(|f| f.is_match(&s.id))
        });
        let opts = changes::Options {
            alpha: args.alpha,
            min_segment: args.min_segment,
            min_change_pct: args.min_change,
            ..changes::Options::default()
        };
        let found = changes::detect(&timeline, &opts);
        let budget = args.drift_budget.or(self.config.drift_budget);
        if let Some(b) = budget {
            if !b.is_finite() || b < 0.0 {
                costbench_record::bad_input!(
                    "--drift-budget must be a percentage of 0 or more, not {b}"
                );
            }
        }
        let reference_spec = args
            .reference
            .clone()
            .or_else(|| self.config.drift_reference.clone());
        let (reference_run, reference) = match &reference_spec {
            Some(spec) => {
                let (index, label) = self.reference(&timeline, spec)?;
                (Some(index), Some(label))
            }
            None => (None, None),
        };
        let drift = if budget.is_some() || reference_run.is_some() {
            changes::drift(
                &timeline,
                reference_run.unwrap_or(0),
                budget.unwrap_or(f64::INFINITY),
                5,
            )
        } else {
            Vec::new()
        };
        // Each merge's answers are read once, however many of its series changed.
        let mut merged: HashMap<String, Vec<MergedOrigin>> = HashMap::new();
        let mut notes: Vec<ChangeNote> = found
            .iter()
            .map(|c| {
                let run = &timeline.runs[c.run];
                let prev = &timeline.runs[c.previous_run];
                let exact_commit = run.parent.is_some() && run.parent == prev.commit;
                let acknowledged = self
                    .config
                    .acknowledged(&timeline, c)
                    .map(|a| a.why.clone());
                let new = since_position.is_none_or(|s| run.position.is_none_or(|p| p > s));
                ChangeNote {
                    exact_commit,
                    fails: new && acknowledged.is_none(),
                    acknowledged,
                    explanation: None,
                    merged: exact_commit
                        .then(|| self.merged_origin(&mut merged, &timeline, c))
                        .flatten(),
                }
            })
            .collect();
        // The largest exact changes first: their profiles are read, the rest say how to get it.
        let mut order: Vec<usize> = (0..found.len())
            .filter(|&i| {
                found[i].method == Method::Exact
                    && timeline.series[found[i].series].metric == Metric::Icount
            })
            .collect();
        order.sort_by(|&a, &b| {
            found[b]
                .change_pct
                .abs()
                .total_cmp(&found[a].change_pct.abs())
        });
        // Change points of one pair of runs (a commit moves many series) are explained by
        // judging that pair once.
        let mut explained: HashMap<(usize, usize), Explained> = HashMap::new();
        for &i in order.iter().take(explain) {
            let c = &found[i];
            let pair = explained
                .entry((c.previous_run, c.run))
                .or_insert_with(|| self.explain(&*store, &timeline, c.previous_run, c.run));
            let id = &timeline.series[c.series].id;
            notes[i].explanation = match pair {
                Explained::Missing(why) => Some(why.clone()),
                Explained::Unreadable => None,
                Explained::Ids(by_id) => Some(by_id.get(id).cloned().unwrap_or_else(|| {
                    "(the profiles show no function whose own cost moved)".into()
                })),
            };
        }
        Ok(Judged {
            timeline,
            report: ChangeReport {
                changes: found,
                drift,
            },
            notes,
            reference,
            branch,
        })
    }

    /// The first run at or after the reference `spec` (a date YYYY-MM-DD, or a revision), and
    /// how to name it.
    fn reference(&self, timeline: &Timeline, spec: &str) -> Result<(usize, String)> {
        let is_date = spec.len() == 10
            && spec.as_bytes()[4] == b'-'
            && spec.as_bytes()[7] == b'-'
            && spec.chars().filter(char::is_ascii_digit).count() == 8;
        let found = if is_date {
            timeline.runs.iter().position(|r| {
                r.author_date.as_deref().unwrap_or(&r.started_at)[..10.min(r.started_at.len())]
                    >= *spec
            })
        } else {
            let repo = self.repo("the drift reference")?;
            let sha = git::resolve(repo, spec, "the drift reference")?;
            let position = git::position(repo, &sha)?;
            timeline.runs.iter().position(|r| {
                r.commit.as_deref() == Some(sha.as_str())
                    || r.position.is_some_and(|p| p >= position)
            })
        };
        match found {
            Some(i) => {
                let r = &timeline.runs[i];
                Ok((i, format!("{spec} ({})", short(r.commit.as_deref().unwrap_or("?")))))
            }
            None => costbench_record::bad_input!(
                "the drift reference {spec:?} is after every run of the history read: give an older revision or date"
            ),
        }
    }

    /// Which commit of the branch merged at `c`'s commit brought `c`, when `history backfill
    /// --narrow` bisected that branch here.
    /// (`read`: the answers of each merge read so far, by commit.)
    fn merged_origin(
        &self,
        read: &mut HashMap<String, Vec<MergedOrigin>>,
        timeline: &Timeline,
        c: &changes::ChangePoint,
    ) -> Option<MergedOrigin> {
        let sha = timeline.runs[c.run].commit.as_deref()?;
        let paths = self.paths.as_ref()?;
        let answers = read.entry(sha.to_string()).or_insert_with(|| {
            std::fs::read_to_string(merged_path(paths, sha))
                .ok()
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or_default()
        });
        let series = &timeline.series[c.series];
        answers
            .iter()
            .find(|o| o.id == series.id && o.metric == series.metric.as_str())
            .cloned()
    }

    /// What explains the changes between runs `before` and `after` of `timeline`, by id,
    /// when both commits' results (with their callgrind profiles) are kept under the backfill
    /// directory.
    fn explain(
        &self,
        store: &dyn costbench_store::Store,
        timeline: &Timeline,
        before: usize,
        after: usize,
    ) -> Explained {
        let Some(paths) = self.paths.as_ref() else {
            return Explained::Unreadable;
        };
        let dir = |r: &TimelineRun| -> Option<PathBuf> {
            let sha = r.carried_from.as_deref().or(r.commit.as_deref())?;
            let d = kept_dir(paths, sha);
            d.join("run.json").exists().then_some(d)
        };
        let (b, a) = (&timeline.runs[before], &timeline.runs[after]);
        let (Some(bd), Some(ad)) = (dir(b), dir(a)) else {
            return Explained::Missing(format!(
                "(no profiles kept for both commits here: `costbench history backfill {}^..{}` measures them and keeps them)",
                short(b.commit.as_deref().unwrap_or("?")),
                short(a.commit.as_deref().unwrap_or("?"))
            ));
        };
        let load = |d: &Path, r: &TimelineRun| {
            costbench_record::output::load_run(d).or_else(|_| store.load(&r.run_id))
        };
        match (load(&bd, b), load(&ad, a)) {
            (Ok(br), Ok(ar)) => {
                Explained::Ids(super::sides::explain_change((&br, &bd), (&ar, &ad)))
            }
            _ => Explained::Unreadable,
        }
    }
}

/// What explains the changes between two runs.
enum Explained {
    /// Their profiles are not both kept here: how to get them.
    Missing(String),
    /// Their records could not be read.
    Unreadable,
    /// The explanation of each id that changed.
    Ids(std::collections::BTreeMap<String, String>),
}

/// Where `history backfill` keeps the results of commit `sha` (its binary is in `../bin`).
pub(crate) fn kept_dir(paths: &Paths, sha: &str) -> PathBuf {
    paths.backfill().join(sha).join("run")
}

/// Where `history backfill --narrow` keeps which commits of the branch merged at `sha` brought
/// its changes.
pub(crate) fn merged_path(paths: &Paths, sha: &str) -> PathBuf {
    paths.backfill().join(sha).join("merged.json")
}

pub(crate) fn short(sha: &str) -> &str {
    &sha[..12.min(sha.len())]
}
