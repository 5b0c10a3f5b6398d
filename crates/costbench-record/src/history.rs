//! What the history of runs hands back, as plain data: a run's summary ([`RunSummary`]), the
//! metrics a series can follow ([`Metric`]: each of a measured id recorded by one instrument of
//! [`crate::instrument`], whose descriptor lists it, and the run's own, the bench binary's size
//! and build time, recorded under the id `bench:NAME`) and one value of a series
//! ([`SeriesPoint`]).
//!
//! Data only: keeping and querying history is `costbench-store`'s job, judging it
//! `costbench-judge`'s and rendering it `costbench-report`'s.

use crate::model::{RunRecord, ScenarioResult};

/// One run, as a store lists it (`costbench-store`'s `Store::runs`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// The run's id (a timestamp plus random bits).
    pub run_id: String,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// The commit the suite was built from, if it was in a git repository.
    pub commit: Option<String>,
    /// The branch checked out, if any.
    pub branch: Option<String>,
    /// Whether the work tree had uncommitted changes.
    pub dirty: bool,
    /// The build variant measured (`release` unless `costbench variants` chose one).
    pub variant: String,
    /// The package that holds the bench target.
    pub package: String,
    /// The bench target.
    pub bench: String,
    /// How many scenario results the run holds.
    pub scenarios: usize,
    /// How many of its results failed (under any instrument).
    pub failures: usize,
    /// Why the run did not finish (`killed`, `interrupted`, ...); `None` when it finished. Only
    /// runs recorded before costbench refused unfinished ones can have it.
    pub unfinished: Option<String>,
}

/// A metric of one measured id (instructions per op, median wall time per op ...), or of the
/// run's bench binary (its size, its build time: [`Metric::RUN`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Instructions per op.
    Icount,
    /// Median wall time per op, ns.
    Walltime,
    /// Wall time against the previous measured commit, measured paired (`history backfill`):
    /// the ratio where the paired test resolved a change, 1 where it resolved none.
    WalltimeStep,
    /// Simulated estimated cycles per op.
    Cycles,
    /// Bytes allocated per op.
    AllocBytes,
    /// Allocations per op.
    Allocs,
    /// Peak live heap bytes of one run of the body.
    PeakBytes,
    /// The process's max RSS, KiB.
    MaxRss,
    /// Bytes the bench binary loads (`text + data`), under the id `bench:NAME`.
    BinarySize,
    /// Seconds costbench's build of the bench binary took, under the id `bench:NAME`.
    BuildSeconds,
}

impl Metric {
    /// Every metric, in the order of the instruments that record them, then the run's own
    /// (`--metric` lists them so).
    pub const ALL: [Metric; 10] = [
        Metric::Icount,
        Metric::Walltime,
        Metric::WalltimeStep,
        Metric::Cycles,
        Metric::AllocBytes,
        Metric::Allocs,
        Metric::PeakBytes,
        Metric::MaxRss,
        Metric::BinarySize,
        Metric::BuildSeconds,
    ];

    /// The metrics of the run's bench binary rather than of a measured id: one value per run,
    /// recorded under [`Metric::run_id`].
    pub const RUN: [Metric; 2] = [Metric::BinarySize, Metric::BuildSeconds];

    /// The id a run's own metrics are recorded under: `bench:NAME`, as the binary-size budget
    /// names the bench target.
    pub fn run_id(run: &RunRecord) -> String {
        format!("bench:{}", run.suite.bench)
    }

    /// Its value in `run`, for the run's own metrics ([`Metric::RUN`]) when the run recorded it.
    pub fn of_run(self, run: &RunRecord) -> Option<f64> {
        match self {
            Metric::BinarySize => run.binary.as_ref().map(|b| b.total as f64),
            Metric::BuildSeconds => run.build.as_ref().map(|b| b.seconds),
            _ => None,
        }
    }

    /// The metric's name in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Icount => "icount",
            Metric::Walltime => "walltime",
            Metric::WalltimeStep => "walltime_step",
            Metric::Cycles => "cache_cycles",
            Metric::AllocBytes => "alloc_bytes",
            Metric::Allocs => "allocs",
            Metric::PeakBytes => "peak_bytes",
            Metric::MaxRss => "max_rss_kib",
            Metric::BinarySize => "binary_size",
            Metric::BuildSeconds => "build_seconds",
        }
    }

    /// The metric's value of `--metric`.
    pub fn arg(self) -> &'static str {
        match self {
            Metric::Icount => "icount",
            Metric::Walltime => "walltime",
            Metric::WalltimeStep => "walltime-step",
            Metric::Cycles => "cycles",
            Metric::AllocBytes => "alloc-bytes",
            Metric::Allocs => "allocs",
            Metric::PeakBytes => "peak-bytes",
            Metric::MaxRss => "max-rss",
            Metric::BinarySize => "binary-size",
            Metric::BuildSeconds => "build-time",
        }
    }

    /// The line `--metric` shows for it.
    pub fn help(self) -> &'static str {
        match self {
            Metric::Icount => "Instructions per op",
            Metric::Walltime => "Median wall time per op",
            Metric::WalltimeStep => {
                "Wall time over the previous measured commit's, paired (history backfill): 1 where no change was resolved"
            }
            Metric::Cycles => "Simulated estimated cycles per op (--instrument cache)",
            Metric::AllocBytes => "Bytes allocated per op (--instrument memory)",
            Metric::Allocs => "Allocations per op (--instrument memory)",
            Metric::PeakBytes => {
                "Peak live heap bytes of one run of the body (--instrument memory)"
            }
            Metric::MaxRss => "The scenario process's max RSS in KiB (--instrument memory)",
            Metric::BinarySize => {
                "Bytes the bench binary loads, text + data (--scenario bench:NAME)"
            }
            Metric::BuildSeconds => "Seconds the bench binary's build took (--scenario bench:NAME)",
        }
    }

    /// The metric whose value of `--metric` is `arg`.
    pub fn from_arg(arg: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.arg() == arg)
    }

    /// Its value in `r`, if `r` measured it: where it sits in a result (`None` for the run's
    /// own metrics, [`Metric::of_run`]'s).
    pub fn per_op(self, r: &ScenarioResult) -> Option<f64> {
        let c = &r.counters;
        let allocations = c.memory.as_ref().and_then(|m| m.allocations.as_ref());
        match self {
            Metric::Icount => r.icount.as_ref().map(|i| i.ir_per_op),
            Metric::Walltime => r.walltime.as_ref().map(|w| w.ns_per_op.median),
            Metric::WalltimeStep => r.walltime.as_ref().and_then(|w| w.step.as_ref()).map(|s| {
                if s.resolved() {
                    s.ratio
                } else {
                    1.0
                }
            }),
            Metric::Cycles => c
                .cache
                .as_ref()
                .and_then(|c| c.per_op.get("EstimatedCycles").copied()),
            Metric::AllocBytes => allocations.map(|a| a.bytes_allocated_per_op),
            Metric::Allocs => allocations.map(|a| a.allocs_per_op),
            Metric::PeakBytes => allocations.map(|a| a.peak_live_bytes as f64),
            Metric::MaxRss => c.memory.as_ref().map(|m| m.max_rss_kib as f64),
            Metric::BinarySize | Metric::BuildSeconds => None,
        }
    }
}

/// Which commits of a merged branch made a change that a series shows at the merge commit:
/// `history backfill --narrow` bisects the branch's commits (from where it forked to its tip)
/// and keeps the answer beside the merge's results, where `history changes` reads it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MergedOrigin {
    /// The measured id.
    pub id: String,
    /// The metric's name in the database (`icount`, ...).
    pub metric: String,
    /// Where the merged branch forked from main's line (full id).
    pub base: String,
    /// The merged branch's tip (the merge's second parent).
    pub tip: String,
    /// Every commit of the branch whose value differs from its parent's, oldest first; empty
    /// when the tip has the fork point's value (the merge itself made the change, or main's
    /// side and the branch together).
    pub steps: Vec<MergedStep>,
    /// Why it could not all be told (a commit of the branch that does not build), if so.
    pub note: Option<String>,
}

/// One commit of a merged branch that changed a series' value.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MergedStep {
    /// The commit (full id).
    pub commit: String,
    /// Its subject.
    pub subject: String,
    /// The value at its parent on the branch.
    pub before: f64,
    /// The value at the commit.
    pub after: f64,
}

/// What one `history backfill` did, commit by commit: its `--format` document
/// (`"schema": "costbench-backfill"`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BackfillSummary {
    /// `costbench-backfill`.
    pub schema: String,
    /// Bumped when a field changes meaning or goes away.
    pub schema_version: u32,
    /// The range backfilled, as given.
    pub range: String,
    /// The branch the runs were recorded under.
    pub branch: Option<String>,
    /// How many commits the range holds (on the first-parent line unless `--all-commits`).
    pub commits_in_range: usize,
    /// Every commit taken, in the order taken (the range's sample, then those `--narrow` took).
    pub commits: Vec<BackfilledCommit>,
    /// Commits of merged branches measured to find which of them made a change found at a
    /// merge (not recorded in the history).
    pub merged_branch_commits: usize,
    /// Why it stopped before the end (`--max-time`), if it did.
    pub stopped: Option<String>,
    /// Seconds the backfill took.
    pub seconds: f64,
}

/// The schema version of [`BackfillSummary`].
pub const BACKFILL_SCHEMA_VERSION: u32 = 1;

/// One commit a backfill took.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BackfilledCommit {
    /// Full id.
    pub commit: String,
    /// Its position on the first-parent line.
    pub position: u64,
    /// Its subject.
    pub subject: String,
    /// `measured`, `carried` (no build input changed since `carried_from`), `failed` (does
    /// not build: `failure`) or `recorded` (already in the history with these settings).
    pub outcome: String,
    /// Taken by `--narrow`, between two measured commits around a change.
    pub narrowing: bool,
    /// The measured commit whose figures a carried commit took.
    pub carried_from: Option<String>,
    /// The commit whose kept binary its wall time was measured paired with.
    pub paired_with: Option<String>,
    /// Why it does not build.
    pub failure: Option<String>,
}

/// One value of a series, from one run.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesPoint {
    /// The run the value is from.
    pub run_id: String,
    /// When that run started (RFC 3339, UTC).
    pub started_at: String,
    /// The commit it measured, if known.
    pub commit: Option<String>,
    /// The metric's per-op value in that run.
    pub per_op: f64,
}

/// One run of a branch's history as change detection, drift and the dashboard read it: where
/// its commit sits on the branch, which machine measured it, and whether its figures were
/// carried over from another commit's measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRun {
    /// The run's id.
    pub run_id: String,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// The commit it measured (full id), if known.
    pub commit: Option<String>,
    /// The commit's first parent, if known.
    pub parent: Option<String>,
    /// The commit's position on its first-parent line (see `model::Git::position`).
    pub position: Option<u64>,
    /// The commit's author date (RFC 3339).
    pub author_date: Option<String>,
    /// The first line of the commit's message.
    pub subject: Option<String>,
    /// The machine that measured it (`model::Host::machine`).
    pub machine: String,
    /// The build variant measured.
    pub variant: String,
    /// The commit whose measurement stands for this one (`model::Backfill::carried_from`).
    pub carried_from: Option<String>,
}

/// One series of a timeline: one id's metric on one machine and variant, in branch order.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineSeries {
    /// The measured id (a scenario, a party, or `bench:NAME` for the run's own metrics).
    pub id: String,
    /// The metric.
    pub metric: Metric,
    /// The machine (`model::Host::machine`).
    pub machine: String,
    /// The build variant.
    pub variant: String,
    /// (index into [`Timeline::runs`], per-op value), in the runs' order.
    pub points: Vec<(usize, f64)>,
    /// The most ops per run among its points: an exact figure's per-op tolerance is the
    /// harness residual divided by it.
    pub ops: u64,
}

/// Runs of a branch in the order the branch has its commits (first-parent position, then start
/// time), with every series they hold: the input of change detection and of the dashboard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// The runs, oldest commit first.
    pub runs: Vec<TimelineRun>,
    /// Every series, by id, metric, machine and variant.
    pub series: Vec<TimelineSeries>,
}

impl Timeline {
    /// Puts `runs` in branch order and builds the series from `values` (run id, measured id,
    /// metric, per-op value, ops per run, in any order): runs without a position (recorded before positions
    /// were, or outside git) come after the positioned ones, in start order. Values of runs not
    /// in `runs` are dropped.
    pub fn assemble(
        mut runs: Vec<TimelineRun>,
        values: impl IntoIterator<Item = (String, String, Metric, f64, u64)>,
    ) -> Timeline {
        runs.sort_by(|a, b| {
            (a.position.is_none(), a.position, &a.started_at).cmp(&(
                b.position.is_none(),
                b.position,
                &b.started_at,
            ))
        });
        let index: std::collections::HashMap<&str, usize> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| (r.run_id.as_str(), i))
            .collect();
        let mut by_key: std::collections::BTreeMap<
            (String, &'static str, String, String),
            TimelineSeries,
        > = std::collections::BTreeMap::new();
        for (run_id, id, metric, value, ops) in values {
            let Some(&i) = index.get(run_id.as_str()) else {
                continue;
            };
            let r = &runs[i];
            let key = (
                id.clone(),
                metric.as_str(),
                r.machine.clone(),
                r.variant.clone(),
            );
            let s = by_key.entry(key).or_insert_with(|| TimelineSeries {
                id,
                metric,
                machine: r.machine.clone(),
                variant: r.variant.clone(),
                points: Vec::new(),
                ops: 0,
            });
            s.points.push((i, value));
            s.ops = s.ops.max(ops);
        }
        let mut series: Vec<TimelineSeries> = by_key.into_values().collect();
        for s in &mut series {
            s.points.sort_by_key(|p| p.0);
        }
        Timeline { runs, series }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{scenario, with_icount, with_memory};

    /// The store indexes these: every counter series of a result, in the descriptors' order.
    #[test]
    fn counters_are_the_descriptors_series_a_result_measured() {
        let r = with_memory(with_icount(scenario("x"), 100.0), 20);
        let got: Vec<(Metric, f64)> = Metric::counters(&r);
        let ops = r.ops as f64;
        assert_eq!(
            got,
            [
                (Metric::AllocBytes, 160.0 / ops),
                (Metric::Allocs, 20.0 / ops),
                (Metric::PeakBytes, 160.0),
                (Metric::MaxRss, 2000.0),
            ]
        );
        assert_eq!(Metric::counters(&scenario("y")), []);
        assert_eq!(Metric::Icount.per_op(&r), Some(100.0));
    }

    /// A paired step is a value of the `walltime-step` series: its ratio where both sessions
    /// resolved it the same way, 1 where either did not.
    #[test]
    fn a_paired_step_counts_only_when_confirmed() {
        use crate::model::Step;
        let mut r = crate::testing::with_walltime(scenario("x"), &[10.0, 10.5]);
        assert_eq!(Metric::WalltimeStep.per_op(&r), None);
        let step = |verdict: &str, confirmation: Option<&str>| Step {
            against: "a".repeat(40),
            ratio: 1.06,
            low: 1.04,
            high: 1.08,
            verdict: verdict.into(),
            confirmation: confirmation.map(String::from),
        };
        for (verdict, confirmation, value) in [
            ("regression", Some("regression"), 1.06),
            ("regression", Some("unresolved"), 1.0),
            ("regression", None, 1.0),
            ("unresolved", None, 1.0),
            ("improvement", Some("regression"), 1.0),
        ] {
            r.walltime.as_mut().unwrap().step = Some(step(verdict, confirmation));
            assert_eq!(
                Metric::WalltimeStep.per_op(&r),
                Some(value),
                "{verdict} {confirmation:?}"
            );
        }
        assert!(Metric::counters(&r).contains(&(Metric::WalltimeStep, 1.0)));
    }

    /// Issue 28: the bench binary's size and build time are series of the run, under
    /// `bench:NAME`; a run without them has neither.
    #[test]
    fn the_runs_own_metrics_come_from_its_binary_and_build() {
        use crate::model::budget::BinarySize;
        use crate::model::BuildInfo;
        let mut run = crate::testing::record("r", vec![scenario("x")]);
        assert_eq!(Metric::BinarySize.of_run(&run), None);
        run.binary = Some(BinarySize {
            text: 10,
            data: 5,
            bss: 1,
            total: 15,
            file: 99,
            top_crates: Vec::new(),
        });
        run.build = Some(BuildInfo {
            seconds: 2.5,
            compiled: 1,
            fresh: 0,
        });
        assert_eq!(Metric::BinarySize.of_run(&run), Some(15.0));
        assert_eq!(Metric::BuildSeconds.of_run(&run), Some(2.5));
        assert_eq!(Metric::Icount.of_run(&run), None);
        assert_eq!(Metric::run_id(&run), format!("bench:{}", run.suite.bench));
        for m in Metric::RUN {
            assert_eq!(Metric::from_arg(m.arg()), Some(m));
            assert_eq!(m.per_op(&run.results[0]), None);
        }
    }
}
