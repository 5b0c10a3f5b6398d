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
    pub const ALL: [Metric; 9] = [
        Metric::Icount,
        Metric::Walltime,
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
