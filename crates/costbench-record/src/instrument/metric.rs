//! The series of the history of runs ([`Metric`]): each of a measured id recorded by one
//! instrument, described by its instrument's slice ([`MetricSpec`], `Slice::metrics`), and the
//! run's own, the bench binary's size and build time ([`Metric::RUN`], described here),
//! recorded under the id `bench:NAME`.
//!
//! The variants of [`Metric`] are the registry's (each entry lists its instrument's); a new
//! series edits neither this file nor a match.

use super::Metric;
use crate::fmt::thousands;
use crate::model::{RunRecord, ScenarioResult};

/// What a series is, as its instrument's slice (or, for the run's own, this module) says it.
#[derive(Debug)]
pub struct MetricSpec {
    /// The metric described (its variant, from the registry's entry).
    pub metric: Metric,
    /// Its name in the database.
    pub name: &'static str,
    /// Its value of `--metric`.
    pub arg: &'static str,
    /// The line `--metric` shows for it.
    pub help: &'static str,
    /// Its value in a result, if the result measured it (`None` for the run's own metrics).
    pub per_op: fn(&ScenarioResult) -> Option<f64>,
    /// What a value of it is, in `history series`' heading ("Ir/op").
    pub title: &'static str,
    /// What a value of it is, in the caption of its chart in the HTML report.
    pub chart_title: &'static str,
    /// What a value of it is counted in, on the dashboard ("Ir/op", "KiB").
    pub unit: &'static str,
    /// A value of it, as `history series` and its chart show it.
    pub fmt_value: fn(f64) -> String,
    /// A value of it with its unit, as change detection's reports show it ("2,003 Ir").
    pub with_unit: fn(f64) -> String,
    /// How a series of it steps, which picks how change detection judges it.
    pub steps: Steps,
}

/// How a series steps from run to run, which picks how change detection judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Steps {
    /// Exact values: a step is a change where it leaves the tolerance.
    Exact,
    /// Values scatter run to run: a step is a change where a t-test says so.
    Scattered,
    /// Each value is a ratio to the previous measured commit, from a paired session.
    Paired,
}

/// The run's own metrics, which no instrument records.
const RUN_SPECS: [MetricSpec; 2] = [
    MetricSpec {
        metric: Metric::BinarySize,
        title: "bench binary bytes (text + data)",
        chart_title: "bench binary bytes (text + data)",
        unit: "B",
        fmt_value: |v| thousands(v as u64),
        with_unit: |v| format!("{} B", thousands(v as u64)),
        steps: Steps::Exact,
        name: "binary_size",
        arg: "binary-size",
        help: "Bytes the bench binary loads, text + data (--scenario bench:NAME)",
        per_op: |_| None,
    },
    MetricSpec {
        metric: Metric::BuildSeconds,
        title: "bench binary build time, s",
        chart_title: "bench binary build time",
        unit: "s",
        fmt_value: |v| format!("{v:.1} s"),
        with_unit: |v| format!("{v:.1} s"),
        steps: Steps::Scattered,
        name: "build_seconds",
        arg: "build-time",
        help: "Seconds the bench binary's build took (--scenario bench:NAME)",
        per_op: |_| None,
    },
];

impl Metric {
    /// The metrics of the run's bench binary rather than of a measured id: one value per run,
    /// recorded under [`Metric::run_id`].
    pub const RUN: [Metric; 2] = [Metric::BinarySize, Metric::BuildSeconds];

    /// What describes it: its instrument's slice, or this module for the run's own.
    pub fn spec(self) -> &'static MetricSpec {
        let specs: &'static [MetricSpec] = match self.instrument() {
            Some(i) => i.slice().metrics,
            None => &RUN_SPECS,
        };
        specs
            .iter()
            .find(|s| s.metric == self)
            .expect("every metric is described by its instrument's slice")
    }

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
        self.spec().name
    }

    /// The metric's value of `--metric`.
    pub fn arg(self) -> &'static str {
        self.spec().arg
    }

    /// The line `--metric` shows for it.
    pub fn help(self) -> &'static str {
        self.spec().help
    }

    /// The metric whose value of `--metric` is `arg`.
    pub fn from_arg(arg: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.arg() == arg)
    }

    /// Its value in `r`, if `r` measured it: where it sits in a result (`None` for the run's
    /// own metrics, [`Metric::of_run`]'s).
    pub fn per_op(self, r: &ScenarioResult) -> Option<f64> {
        (self.spec().per_op)(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrument::memory::testing::with_memory;
    use crate::testing::{scenario, with_icount};

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
