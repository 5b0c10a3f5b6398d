//! Whether a run finished, and what happened to each of its rows (issue 33): the run record's
//! `completion` and each result's `state`. A run writes its record after every figure, so a
//! record read back may be one that a killed run left behind; these say so, for every reader.
//!
//! Both are derived from the figures, the failures and the run's end when a record does not
//! carry them (schema version 1: a run finished when `finished_at` is set and it was not
//! interrupted), and written out explicitly by [`RunRecord::settled`]. This module decides
//! nothing about what a command does with an unfinished run: that is each command's.

use super::{RunRecord, ScenarioResult};
use serde::{Deserialize, Serialize};

/// Whether a run measured everything it set out to, and if not, why it stopped.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Completion {
    /// Every row of the run was measured, failed or skipped, and the run wrote its end.
    pub finished: bool,
    /// Why the run stopped early; absent when it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<StopReason>,
    /// What stopped it, for people; absent when it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The error of a command that refuses a run that did not finish (a shard to merge, a run to
/// import, a side of `check`): the command line asked for something that would take a partial
/// run for a whole one, so the CLI ends it as a usage error. The message says what to do.
#[derive(Debug)]
pub struct Unfinished(pub String);

impl std::fmt::Display for Unfinished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unfinished {}

/// Why a run did not finish.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The record is one the run wrote while still measuring, and nothing after it: the process
    /// was killed (SIGKILL, the out-of-memory killer, a lost CI runner, a job timeout's final
    /// kill) or is still running.
    Killed,
    /// Stopped by Ctrl-C (SIGINT).
    Interrupted,
    /// Stopped by SIGTERM: what a CI job's cancel or timeout sends first.
    Terminated,
    /// A result file could not be written: the file system is full (or a file size limit).
    OutOfSpace,
    /// The run ended on an error of its own before measuring everything.
    Failed,
    /// Put together by `costbench merge --allow-unfinished` from shards of which some did not
    /// finish.
    UnfinishedShards,
}

impl StopReason {
    /// The reason as `run.json` spells it: `killed`, `out-of-space`, ...
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Killed => "killed",
            StopReason::Interrupted => "interrupted",
            StopReason::Terminated => "terminated",
            StopReason::OutOfSpace => "out-of-space",
            StopReason::Failed => "failed",
            StopReason::UnfinishedShards => "unfinished-shards",
        }
    }
}

impl Completion {
    /// A run that finished.
    pub fn finished() -> Completion {
        Completion {
            finished: true,
            why: None,
            detail: None,
        }
    }

    /// A run that stopped early for `why`, as `detail` tells.
    pub fn stopped(why: StopReason, detail: impl Into<String>) -> Completion {
        Completion {
            finished: false,
            why: Some(why),
            detail: Some(detail.into()),
        }
    }

    /// "killed: the run stopped ..." for people; "finished" when it did.
    pub fn describe(&self) -> String {
        match (&self.why, &self.detail) {
            (_, _) if self.finished => "finished".into(),
            (Some(w), Some(d)) => format!("{}: {d}", w.name()),
            (Some(w), None) => w.name().into(),
            (None, _) => "unfinished".into(),
        }
    }
}

/// What happened to one row of a run.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RowState {
    /// Every instrument of the run that applies to the row gave a figure.
    Measured,
    /// Every applying instrument gave a figure or a failure, at least one a failure (the row's
    /// `failures` say why).
    Failed,
    /// No instrument of the run applies to the row (`state_reason` says why).
    Skipped,
    /// Some applying instrument has neither a figure nor a failure: the run stopped before it
    /// got there (`state_reason` says which instruments, and why the run stopped).
    NotReached,
}

impl RowState {
    /// The state as `run.json` spells it.
    pub fn name(self) -> &'static str {
        match self {
            RowState::Measured => "measured",
            RowState::Failed => "failed",
            RowState::Skipped => "skipped",
            RowState::NotReached => "not-reached",
        }
    }
}

impl RunRecord {
    /// Whether this run finished, and why not: the record's own `completion` when it has one,
    /// else derived as schema version 1 records are read (interrupted by its signal; finished
    /// when `finished_at` is set; otherwise the record of a run that was killed or still runs).
    pub fn completion(&self) -> Completion {
        if let Some(c) = &self.completion {
            return c.clone();
        }
        if let Some(i) = &self.interrupted {
            let why = if i.signal == "SIGTERM" {
                StopReason::Terminated
            } else {
                StopReason::Interrupted
            };
            return Completion::stopped(
                why,
                format!(
                    "stopped by {} after {} of {} scenarios",
                    i.signal, i.finished_scenarios, i.scenarios
                ),
            );
        }
        if self.finished_at.is_some() {
            return Completion::finished();
        }
        Completion::stopped(
            StopReason::Killed,
            "last written mid-run: killed (SIGKILL, out of memory, a lost runner, a job \
             timeout) or still running",
        )
    }

    /// Whether the run finished ([`completion`](Self::completion)).
    pub fn is_finished(&self) -> bool {
        self.completion().finished
    }

    /// The instruments of this run that apply to result `r`: those that measure such a row
    /// ([`ScenarioResult::measured_by`]: rows under load take the instruments under load only,
    /// the other rows every other one); instruments the run skipped (and said why) apply to none.
    fn applying<'a>(&'a self, r: &'a ScenarioResult) -> impl Iterator<Item = &'a str> + 'a {
        self.settings
            .instruments
            .iter()
            .map(String::as_str)
            .filter(move |i| r.measured_by(i))
            .filter(move |i| !self.skipped.iter().any(|s| s.instrument == *i))
    }

    /// What happened to result `r` of this run, and why when that is not in its failures.
    /// Computed from its figures and failures (a stored `state` is what the run knew when it
    /// wrote the record, which [`settled`](Self::settled) refreshes).
    pub fn row_state(&self, r: &ScenarioResult) -> (RowState, Option<String>) {
        let applying: Vec<&str> = self.applying(r).collect();
        if applying.is_empty() {
            let why = match self.under_load() {
                Some(load) => format!(
                    "no instrument of the run applies: {load} measures service scenarios only"
                ),
                None => "no instrument of the run applies to it".into(),
            };
            return (RowState::Skipped, Some(why));
        }
        let missing: Vec<&str> = applying
            .iter()
            .copied()
            .filter(|i| !r.settled_for(i))
            .collect();
        if !missing.is_empty() {
            let c = self.completion();
            let why = match c.why {
                Some(w) if !c.finished => format!("the run stopped ({})", w.name()),
                _ => "nothing recorded why".into(),
            };
            return (
                RowState::NotReached,
                Some(format!("no {} figure: {why}", missing.join(", "))),
            );
        }
        if r.failures.is_empty() {
            (RowState::Measured, None)
        } else {
            (RowState::Failed, None)
        }
    }

    /// Ids of the rows not reached ([`RowState::NotReached`]), in record order.
    pub fn not_reached(&self) -> Vec<&str> {
        self.results
            .iter()
            .filter(|r| self.row_state(r).0 == RowState::NotReached)
            .map(|r| r.id.as_str())
            .collect()
    }

    /// This record with its completion and every row's state written out, as it is saved:
    /// whoever reads the file sees what happened without recomputing it.
    pub fn settled(&self) -> RunRecord {
        let mut run = self.clone();
        run.completion = Some(self.completion());
        let states: Vec<_> = self.results.iter().map(|r| self.row_state(r)).collect();
        for (r, (state, reason)) in run.results.iter_mut().zip(states) {
            r.state = Some(state);
            r.state_reason = reason;
        }
        run
    }

    /// One line saying that this run did not finish and what that leaves out ("killed: ...; 8 of
    /// 21 rows not reached"), or `None` when it finished: what every report says first.
    pub fn unfinished_note(&self) -> Option<String> {
        let c = self.completion();
        if c.finished {
            return None;
        }
        let missing = self.not_reached().len();
        Some(format!(
            "run {} did not finish ({}); {missing} of {} rows not reached",
            self.run_id,
            c.describe(),
            self.results.len()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{record, scenario, with_failure, with_icount};

    /// Issue 40: one answer to "does this row have its figure". A row of an instrument that
    /// has no typed field (a registry-only one, as docs/extending.md adds) is measured when its
    /// figure is in `figures`, and not reached when it is not, for the row's state and for the
    /// count of finished scenarios alike.
    #[test]
    fn a_registry_only_instruments_row_is_read_one_way() {
        let mut run = record("r", vec![scenario("a"), scenario("b")]);
        run.settings.instruments = vec!["toy".into()];
        run.results[0]
            .counters
            .figures
            .insert("toy".into(), crate::model::FigureValue::Count(7));
        assert!(run.results[0].has_figure("toy"));
        assert!(!run.results[1].has_figure("toy"));
        assert_eq!(run.row_state(&run.results[0]).0, RowState::Measured);
        assert_eq!(run.row_state(&run.results[1]).0, RowState::NotReached);
        assert_eq!(run.finished_scenarios(), (1, 2));
        run.results[1] = with_failure(run.results[1].clone(), "toy", "crashed");
        assert_eq!(run.row_state(&run.results[1]).0, RowState::Failed);
        assert_eq!(run.finished_scenarios(), (2, 2));
    }

    #[test]
    fn version_1_records_finish_when_they_wrote_their_end() {
        let mut run = record("r", vec![with_icount(scenario("a"), 1.0)]);
        run.settings.instruments = vec!["icount".into()];
        assert!(run.is_finished());
        run.finished_at = None;
        let c = run.completion();
        assert_eq!((c.finished, c.why), (false, Some(StopReason::Killed)));
        run.interrupted = Some(crate::model::Interruption {
            signal: "SIGTERM".into(),
            finished_scenarios: 1,
            scenarios: 2,
        });
        run.finished_at = Some("2025-01-01T00:01:00Z".into());
        assert_eq!(run.completion().why, Some(StopReason::Terminated));
    }

    #[test]
    fn every_row_says_what_happened_to_it() {
        let mut run = record(
            "r",
            vec![
                with_icount(scenario("measured"), 1.0),
                with_failure(scenario("failed"), "icount", "crashed"),
                scenario("not_reached"),
            ],
        );
        run.settings.instruments = vec!["icount".into()];
        run.finished_at = None;
        let states: Vec<RowState> = run.results.iter().map(|r| run.row_state(r).0).collect();
        assert_eq!(
            states,
            [RowState::Measured, RowState::Failed, RowState::NotReached]
        );
        let (_, why) = run.row_state(&run.results[2]);
        assert_eq!(why.unwrap(), "no icount figure: the run stopped (killed)");
        assert_eq!(run.not_reached(), ["not_reached"]);
        // Throughput alone applies to no plain row: skipped, with the reason.
        run.settings.instruments = vec!["throughput".into()];
        assert_eq!(run.row_state(&run.results[0]).0, RowState::Skipped);
    }

    #[test]
    fn settled_records_write_their_state_and_read_back() {
        let mut run = record("r", vec![scenario("a")]);
        run.settings.instruments = vec!["icount".into()];
        run.finished_at = None;
        let json = serde_json::to_value(run.settled()).unwrap();
        assert_eq!(json["completion"]["finished"], false);
        assert_eq!(json["completion"]["why"], "killed");
        assert_eq!(json["results"][0]["state"], "not-reached");
        let back: RunRecord = serde_json::from_value(json).unwrap();
        assert!(!back.is_finished());
        assert!(back.unfinished_note().unwrap().contains("1 of 1 rows"));
    }
}
