//! `--narrow` into a merged branch: a change of an exact figure that the first-parent line
//! places at a merge commit (the run before it measured the merge's first parent) came from
//! the merged branch's commits or from the merge itself. The branch's commits, from where it
//! forked to its tip (the merge's second parent), are bisected for each such series to every
//! commit that changed its value: the fork point and the tip first, then each stretch whose ends
//! differ halved, each commit built and measured once and shared by every series (exact figures
//! only: a figure the backfill pairs, `instrument::PAIRINGS`, is not bisected). The answers are kept beside the merge's results
//! (`backfill/SHA/merged.json`), where `history changes` reads them; the branch's runs are kept
//! there too, not recorded in the history, whose series follow main's line.

use super::{short, Backfiller, Built};
use crate::core::changes::{kept_dir, merged_path};
use anyhow::{Context, Result};
use costbench_judge::changes;
use costbench_measure::run::backfill::{self as git, BranchCommit};
use costbench_measure::run::{measure_sides, SideSpec};
use costbench_record::history::{MergedOrigin, MergedStep, Metric};
use costbench_record::model::RunRecord;
use std::collections::{BTreeMap, HashMap};

/// One series that changed at a merge: its id, metric and the tolerance of its per-op values.
struct Changed {
    id: String,
    metric: Metric,
    tolerance: f64,
}

impl Backfiller<'_> {
    /// Bisects the merged branch of every merge commit at which an exact figure changed (on
    /// this machine), unless its answers are kept already. Returns how many commits of merged
    /// branches were measured.
    pub(super) fn narrow_merges(&mut self) -> Result<usize> {
        let (timeline, found) = self.exact_changes()?;
        let opts = changes::Options::default();
        let mut at: BTreeMap<String, Vec<Changed>> = BTreeMap::new();
        for c in found.into_iter().filter(|c| c.adjacent) {
            let series = &timeline.series[c.series];
            if series.id.starts_with("bench:") {
                continue;
            }
            at.entry(c.after).or_default().push(Changed {
                id: series.id.clone(),
                metric: series.metric,
                tolerance: (opts.exact_tolerance)(series.metric) / series.ops.max(1) as f64,
            });
        }
        let mut measured = 0;
        let mut runs: HashMap<String, Option<RunRecord>> = HashMap::new();
        for (merge, series) in at {
            let path = merged_path(&self.session.paths, &merge);
            if path.exists() {
                continue;
            }
            let Some((base, line)) = git::merged_branch(&self.root, &merge)? else {
                continue;
            };
            self.session.status(
                "Narrowing",
                format!(
                    "into the {} commits merged at {}",
                    line.len(),
                    short(&merge)
                ),
            );
            // Index 0 is the fork point, 1..=n the branch's commits.
            let commits: Vec<BranchCommit> = std::iter::once(base).chain(line).collect();
            let mut origins = Vec::new();
            for s in &series {
                let mut value = |k: usize, this: &mut Self| -> Result<Option<f64>> {
                    let c = &commits[k];
                    if !runs.contains_key(&c.sha) {
                        let kept = kept_dir(&this.session.paths, &c.sha)
                            .join("run.json")
                            .exists();
                        let run = this.off_line(c)?;
                        measured += usize::from(run.is_some() && !kept);
                        runs.insert(c.sha.clone(), run);
                    }
                    Ok(runs[&c.sha]
                        .as_ref()
                        .and_then(|r| per_op(r, &s.id, s.metric)))
                };
                let n = commits.len() - 1;
                let mut origin = MergedOrigin {
                    id: s.id.clone(),
                    metric: s.metric.as_str().into(),
                    base: commits[0].sha.clone(),
                    tip: commits[n].sha.clone(),
                    steps: Vec::new(),
                    note: None,
                };
                let same = |a: f64, b: f64| (a - b).abs() <= s.tolerance.max(a.abs() * 1e-12);
                // Every commit whose value differs from its parent's: a stretch whose ends
                // differ is halved until each step is between neighbours (a stretch whose ends
                // agree is taken to have none, as `git bisect` takes it).
                let mut open = vec![(0, n)];
                while let Some((lo, hi)) = open.pop() {
                    let (Some(a), Some(b)) = (value(lo, self)?, value(hi, self)?) else {
                        let missing = if value(lo, self)?.is_none() { lo } else { hi };
                        origin.note = Some(format!(
                            "{} does not build or does not measure this id: a change between {} and {} is not placed",
                            short(&commits[missing].sha),
                            short(&commits[lo].sha),
                            short(&commits[hi].sha)
                        ));
                        continue;
                    };
                    if same(a, b) {
                        continue;
                    }
                    if hi - lo == 1 {
                        origin.steps.push(MergedStep {
                            commit: commits[hi].sha.clone(),
                            subject: commits[hi].subject.clone(),
                            before: a,
                            after: b,
                        });
                        continue;
                    }
                    let mid = (lo + hi) / 2;
                    open.push((mid, hi));
                    open.push((lo, mid));
                }
                origin
                    .steps
                    .sort_by_key(|st| commits.iter().position(|c| c.sha == st.commit));
                origins.push(origin);
            }
            let json = serde_json::to_vec_pretty(&origins).expect("plain data serialises");
            costbench_record::output::write_atomic(&path, &json)?;
        }
        Ok(measured)
    }

    /// A commit off the first-parent line, built and measured (exact figures only) into its kept
    /// directory, or read from there; `None` when it does not build. Not recorded in the
    /// history.
    fn off_line(&mut self, c: &BranchCommit) -> Result<Option<RunRecord>> {
        let dir = kept_dir(&self.session.paths, &c.sha);
        if let Ok(run) = costbench_record::output::load_run(&dir) {
            return Ok(Some(run));
        }
        let label = format!("{} {}", short(&c.sha), c.subject);
        let Built { target, kept, .. } = match self.build(c, &label)? {
            Ok(built) => built,
            Err(why) => {
                eprintln!("warning: {label} does not build: {why}");
                return Ok(None);
            }
        };
        self.session.status("Measuring", &label);
        let mut opts = self.session.cmd.measure.clone();
        // A paired figure means something only beside the previous commit's, measured in the
        // same session: a commit off the line is measured alone.
        for p in crate::instrument::PAIRINGS {
            opts.instruments = opts.instruments.without(p.instrument);
        }
        if opts.instruments == costbench_record::instrument::InstrumentSet::NONE {
            return Ok(None);
        }
        let side = SideSpec {
            label: "default".into(),
            exe: kept,
            output_dir: dir.clone(),
            target: Some(target),
            build: None,
            others: Vec::new(),
        };
        let mut run = measure_sides(&opts, &self.session.target, vec![side])
            .with_context(|| format!("measuring {label}"))?
            .pop()
            .expect("one side measured");
        run.environment.git = Some(c.git(None));
        let json = serde_json::to_vec_pretty(&run).expect("a run record always serialises");
        costbench_record::output::write_atomic(&dir.join("run.json"), &json)?;
        Ok(Some(run))
    }
}

/// `metric`'s per-op value of `id` in `run`.
fn per_op(run: &RunRecord, id: &str, metric: Metric) -> Option<f64> {
    run.results
        .iter()
        .find(|r| r.id == id)
        .and_then(|r| metric.per_op(r))
}
