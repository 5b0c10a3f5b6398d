//! `costbench.toml`'s `[history]` table: the drift budget and its reference, and the change
//! points a maintainer acknowledged (reviewed and meant), which are still reported but no longer
//! fail `history changes`.
//!
//! ```toml
//! [history]
//! drift-budget = 5.0          # percent: a series that moved more since the reference fails
//! drift-reference = "v1.0"    # a tag, branch or commit, or a date (YYYY-MM-DD)
//!
//! [[history.acknowledge]]
//! commit = "3f2a9c1"          # the change point's commit (a prefix of its id, 7+ characters)
//! scenario = "parse/*"        # glob over measured ids; default "*"
//! metric = "icount"           # optional: only this metric's change points
//! why = "new validation, meant: +4 % per parse"
//! ```

use super::ChangePoint;
use costbench_record::history::{Metric, Timeline};
use serde::Deserialize;

/// The `[history]` table.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HistoryConfig {
    /// The drift budget, percent (none: drift is reported, never failed).
    pub drift_budget: Option<f64>,
    /// Where drift is measured from: a revision or a date; the oldest run when absent.
    pub drift_reference: Option<String>,
    /// Acknowledged change points.
    #[serde(default)]
    pub acknowledge: Vec<Acknowledge>,
}

/// One acknowledged change point (or several: every series its globs match at the commit).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Acknowledge {
    /// The commit: its full id or a prefix of at least 7 hex digits.
    pub commit: String,
    /// Glob over measured ids.
    #[serde(default = "every")]
    pub scenario: String,
    /// Only this metric (its `--metric` name or its database name).
    pub metric: Option<String>,
    /// Why the change is meant; required, shown wherever the change point is.
    pub why: String,
}

fn every() -> String {
    "*".into()
}

impl HistoryConfig {
    /// Refuses a negative or non-finite budget and bad acknowledgements, naming the entry.
    pub fn validate(&self) -> anyhow::Result<()> {
        if let Some(b) = self.drift_budget {
            if !b.is_finite() || b < 0.0 {
                anyhow::bail!("[history] drift-budget must be a percentage of 0 or more, not {b}");
            }
        }
        for (i, a) in self.acknowledge.iter().enumerate() {
            let n = i + 1;
            let hex = a.commit.chars().all(|c| c.is_ascii_hexdigit());
            if a.commit.len() < 7 || !hex {
                anyhow::bail!(
                    "[[history.acknowledge]] number {n}: commit {:?} is not a commit id (7 to 40 hex digits)",
                    a.commit
                );
            }
            if a.why.trim().is_empty() {
                anyhow::bail!(
                    "[[history.acknowledge]] number {n}: `why` must say why the change is meant"
                );
            }
            if let Some(m) = &a.metric {
                if metric_named(m).is_none() {
                    let names: Vec<&str> = Metric::ALL.iter().map(|m| m.arg()).collect();
                    anyhow::bail!(
                        "[[history.acknowledge]] number {n}: unknown metric {m:?} (one of {})",
                        names.join(", ")
                    );
                }
            }
        }
        Ok(())
    }

    /// The entry acknowledging `change` of `timeline`, if any.
    pub fn acknowledged<'a>(
        &'a self,
        timeline: &Timeline,
        change: &ChangePoint,
    ) -> Option<&'a Acknowledge> {
        let series = &timeline.series[change.series];
        let commit = timeline.runs[change.run].commit.as_deref()?;
        self.acknowledge.iter().find(|a| {
            commit.starts_with(&a.commit.to_ascii_lowercase())
                && crate::glob::glob_match(&a.scenario, &series.id)
                && a.metric
                    .as_deref()
                    .and_then(metric_named)
                    .is_none_or(|m| m == series.metric)
        })
    }
}

/// The metric `name` names: its `--metric` value or its name in the database.
fn metric_named(name: &str) -> Option<Metric> {
    Metric::from_arg(name).or_else(|| Metric::ALL.into_iter().find(|m| m.as_str() == name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::history::{TimelineRun, TimelineSeries};

    fn timeline() -> Timeline {
        let run = |i: usize| TimelineRun {
            run_id: format!("r{i}"),
            started_at: String::new(),
            commit: Some(format!("{i}abcdef0123456789")),
            parent: None,
            position: Some(i as u64),
            author_date: None,
            subject: None,
            machine: "m".into(),
            variant: "default".into(),
            carried_from: None,
        };
        Timeline {
            runs: (0..3).map(run).collect(),
            series: vec![TimelineSeries {
                id: "parse/small".into(),
                metric: Metric::Icount,
                machine: "m".into(),
                variant: "default".into(),
                points: vec![(0, 1.0), (1, 2.0), (2, 2.0)],
                ops: 1,
            }],
        }
    }

    fn change() -> ChangePoint {
        ChangePoint {
            series: 0,
            run: 1,
            previous_run: 0,
            before: 1.0,
            after: 2.0,
            change_pct: 100.0,
            method: super::super::Method::Exact,
            p_value: None,
            confirmed: true,
        }
    }

    #[test]
    fn acknowledgements_match_commit_prefix_scenario_and_metric() {
        let t = timeline();
        let parse = |s: &str| -> HistoryConfig {
            let c: HistoryConfig = toml::from_str(s).unwrap();
            c.validate().unwrap();
            c
        };
        let c = parse("[[acknowledge]]\ncommit = \"1abcdef\"\nwhy = \"meant\"\n");
        assert_eq!(c.acknowledged(&t, &change()).unwrap().why, "meant");
        for miss in [
            "commit = \"2abcdef\"\nwhy = \"x\"",
            "commit = \"1abcdef\"\nscenario = \"other/*\"\nwhy = \"x\"",
            "commit = \"1abcdef\"\nmetric = \"walltime\"\nwhy = \"x\"",
        ] {
            let c = parse(&format!("[[acknowledge]]\n{miss}\n"));
            assert!(c.acknowledged(&t, &change()).is_none(), "{miss}");
        }
        let c = parse("[[acknowledge]]\ncommit = \"1ABCDEF\"\nscenario = \"parse/*\"\nmetric = \"icount\"\nwhy = \"x\"\n");
        assert!(c.acknowledged(&t, &change()).is_some());
    }

    #[test]
    fn bad_entries_are_refused_by_name() {
        for (bad, needle) in [
            ("drift-budget = -1.0", "drift-budget"),
            (
                "[[acknowledge]]\ncommit = \"abc\"\nwhy = \"x\"",
                "not a commit id",
            ),
            (
                "[[acknowledge]]\ncommit = \"abcdefg\"\nwhy = \"x\"",
                "not a commit id",
            ),
            ("[[acknowledge]]\ncommit = \"abcdef0\"\nwhy = \" \"", "why"),
            (
                "[[acknowledge]]\ncommit = \"abcdef0\"\nmetric = \"speed\"\nwhy = \"x\"",
                "unknown metric",
            ),
        ] {
            let c: HistoryConfig = toml::from_str(bad).unwrap();
            let e = c.validate().unwrap_err().to_string();
            assert!(e.contains(needle), "{bad}: {e}");
        }
        assert!(toml::from_str::<HistoryConfig>("drift-budge = 1.0").is_err());
    }
}
