//! The data of a comparison: its options and their defaults, instruments, verdicts, rows, the
//! function changes behind a row, and [`Comparison`] itself with the accessors reports need.
//! Plain data and serde (re-exported from `compare`, so `crate::compare::Row` is this `Row`):
//! deciding verdicts lives in the instruments' slices (`crate::instrument`), matching runs in
//! `compare`, and nothing here reads files.

pub use super::presence::Presence;
pub(crate) use crate::instrument::walltime::bootstrap::RatioCi;
use crate::instrument::walltime::family;
use anyhow::{bail, Result};
use costbench_record::instrument::Figure;
use costbench_record::model::RunRecord;
use serde::Serialize;
use std::collections::HashSet;
use std::fmt;

/// How to decide significance. The defaults are the `DEFAULT_*` constants (`Default` is the
/// slices', `crate::instrument`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CompareOptions {
    /// Instruction-count changes at or below this (percent) are negligible.
    pub icount_threshold_pct: f64,
    /// Wall-time changes at or below this (percent) are negligible, whatever the interval says.
    pub walltime_threshold_pct: f64,
    /// The same for wall time measured in interleaved rounds with the other side, judged paired.
    pub paired_walltime_threshold_pct: f64,
    /// The same for figures under load (throughput, p99 latency), judged paired round by round.
    pub load_threshold_pct: f64,
    /// Confidence level of the paired interval, in (0, 1).
    pub paired_confidence: f64,
    /// Bootstrap resamples for the wall-time confidence interval.
    pub resamples: usize,
    /// Confidence level of the interval, in (0, 1).
    pub confidence: f64,
    /// Seed of the bootstrap's generator.
    pub seed: u64,
    /// How the paired wall-time rows share the family error rate.
    pub error_control: family::ErrorControl,
    /// The chance (Holm) or expected share (FDR) of false alarms among a comparison's paired
    /// wall-time rows, in (0, 1); unused with [`family::ErrorControl::None`], where each row is
    /// judged at `1 - paired_confidence`.
    pub family_alpha: f64,
}

impl CompareOptions {
    /// Checks values that would make the comparison meaningless (for options from the command
    /// line).
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("icount threshold", self.icount_threshold_pct),
            ("walltime threshold", self.walltime_threshold_pct),
            ("load threshold", self.load_threshold_pct),
            (
                "paired walltime threshold",
                self.paired_walltime_threshold_pct,
            ),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                bail!("{name} must be a percentage of at least 0, not {v}");
            }
        }
        if self.resamples < 100 {
            bail!(
                "at least 100 bootstrap resamples are needed for a confidence interval, not {}",
                self.resamples
            );
        }
        if !(self.paired_confidence > 0.0 && self.paired_confidence < 1.0) {
            bail!(
                "paired confidence must be between 0 and 1 (e.g. 0.99), not {}",
                self.paired_confidence
            );
        }
        if !(self.family_alpha > 0.0 && self.family_alpha < 1.0) {
            bail!(
                "family error rate must be between 0 and 1 (e.g. 0.05), not {}",
                self.family_alpha
            );
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            bail!(
                "confidence must be between 0 and 1 (e.g. 0.95), not {}",
                self.confidence
            );
        }
        Ok(())
    }
}

/// What a comparison concluded about one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Significantly more per op.
    Regression,
    /// Significantly less per op.
    Improvement,
    /// Negligible: within the threshold (resolved: the interval lies inside it).
    Unchanged,
    /// The measurement cannot tell whether the change is beyond the threshold (its interval
    /// straddles it), or the figures cannot be judged at all (wall time of two separate runs
    /// without a history of their noise). Never gated, never "unchanged".
    Unresolved,
    /// A change explained by placement of code or data, not by the code's work: the same
    /// instructions with the time moved, or an instruction-count change within the spread that
    /// shifted heap and stack placements show. Reported, not gated.
    Placement,
}

impl Verdict {
    /// A regression or an improvement: what the gate acts on.
    pub fn is_significant(self) -> bool {
        matches!(self, Verdict::Regression | Verdict::Improvement)
    }

    /// The verdict's name, as in JSON and the reports.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Regression => "regression",
            Verdict::Improvement => "improvement",
            Verdict::Unchanged => "unchanged",
            Verdict::Unresolved => "unresolved",
            Verdict::Placement => "placement",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which run something was seen in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Only in the baseline.
    Baseline,
    /// Only in the candidate.
    Candidate,
    /// In both runs.
    Both,
}

impl Side {
    /// The side's name, as in JSON and the reports.
    pub fn name(self) -> &'static str {
        match self {
            Side::Baseline => "baseline",
            Side::Candidate => "candidate",
            Side::Both => "both",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One measured id under one instrument, present and successful in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The measured id.
    pub id: String,
    /// The figure compared.
    pub instrument: Figure,
    /// What one op is (the candidate's `unit`; see `note` when it changed).
    pub unit: String,
    /// Per-op figure of the baseline (Ir, or median ns).
    pub base: f64,
    /// Per-op figure of the candidate.
    pub cand: f64,
    /// `100 * (cand - base) / base`; +inf when only the candidate is non-zero.
    pub change_pct: f64,
    /// The threshold the change was held against (for wall time of separate runs without
    /// history, which is not judged, `--walltime-threshold`, for reference).
    pub threshold_pct: f64,
    /// Wall time only: interval of `cand / base` (`None` with too few samples): the paired
    /// signed-rank interval when `paired_rounds` is set, else a bootstrap of the two medians.
    pub ci: Option<RatioCi>,
    /// Wall time measured in interleaved rounds: how many rounds were paired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired_rounds: Option<usize>,
    /// Paired wall time: the exact signed-rank p-value of "no change", multiplied by the
    /// measuring session's looks at its interval (capped at 1): what the family's error control
    /// compared with the row's rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// Paired wall time: the smallest change (percent) these rounds would flag nine times in ten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_detectable_pct: Option<f64>,
    /// Paired wall time whose rounds each ran their own code layout: the rounds' robust spread
    /// (1.4826 × MAD of the per-round log ratios), in percent: how much layout (and noise) moves
    /// this scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread_pct: Option<f64>,
    /// What the comparison concluded.
    pub verdict: Verdict,
    /// Why the verdict, in a few words: "within 0.2 % threshold".
    pub reason: String,
    /// What backs the verdict: "exact instruction counts", "paired over 24 rounds, code layout
    /// varied every round, 35 rows judged together (Holm)", "separate runs: between-run noise from 28
    /// consecutive changes of history".
    pub evidence: String,
    /// Set when the scenario's setup changed between the runs (ops, unit, clock).
    pub note: Option<String>,
}

/// An instrument that failed for an id in one or both runs; that instrument is not compared for
/// the id (other instruments still are).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedEntry {
    /// The measured id.
    pub id: String,
    /// The run (or runs) in which the instrument failed.
    pub side: Side,
    /// The instrument that failed, as the run record names it.
    pub instrument: String,
    /// `panicked`, `timed-out`, ... (from the run record).
    pub kind: String,
    /// First line of the failure message (untrusted text).
    pub message: String,
}

/// A scenario whose definition or measurement setup differs between the runs. Per-op figures are
/// still compared, but may not mean the same thing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetupChange {
    /// The measured id.
    pub id: String,
    /// "ops 1000 → 2000", "unit bytes → lookups", "clock monotonic → thread-cpu".
    pub changes: Vec<String>,
}

/// An instrument measured for an id in one run only (asked for in one run, skipped in the other).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotCompared {
    /// The measured id.
    pub id: String,
    /// The figure measured in one run only.
    pub instrument: Figure,
    /// The run that has the figure.
    pub measured_in: Side,
}

/// An instrument that was asked for but could not run (valgrind missing, say): none of its
/// figures were compared, which a summary must say rather than claim them unchanged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotMeasured {
    /// The instrument, as `--instrument` names it.
    pub instrument: String,
    /// The run that lacks it (`Both` when neither has it).
    pub missing_in: Side,
    /// Why it could not run, as the run recorded it (the candidate's reason when both lack it).
    pub reason: String,
}

impl NotMeasured {
    /// "icount was not measured in the candidate: valgrind not found ...".
    pub fn sentence(&self) -> String {
        let where_ = match self.missing_in {
            Side::Both => "in either run".to_string(),
            side => format!("in the {}", side.name()),
        };
        format!(
            "{} was not measured {where_}: {}",
            self.instrument,
            self.reason.trim_end_matches('.')
        )
    }
}

/// A side of a comparison whose run did not finish (killed, interrupted, out of space): every
/// report says it before anything else, since the rows it lacks are not measured, not gone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnfinishedSide {
    /// Which run did not finish: the baseline or the candidate.
    pub side: Side,
    /// Why (`killed`, `interrupted`, `terminated`, `out-of-space`, ...).
    pub why: String,
    /// One line for people: "baseline: run R did not finish (killed: ...); 8 of 21 rows not
    /// reached".
    pub note: String,
    /// The ids of its rows that were not reached, in record order.
    pub not_reached: Vec<String>,
}

impl UnfinishedSide {
    /// The side's note when `run`, the `side` of a comparison, did not finish.
    pub fn of(run: &RunRecord, side: Side) -> Option<UnfinishedSide> {
        let note = run.unfinished_note()?;
        Some(UnfinishedSide {
            side,
            why: run
                .completion()
                .why
                .map_or("unfinished", |w| w.name())
                .to_string(),
            note: format!("{side}: {note}"),
            not_reached: run.not_reached().into_iter().map(String::from).collect(),
        })
    }
}

/// Enough about a run to tell the reader what was compared with what.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunLabel {
    /// The run's id.
    pub run_id: String,
    /// The build variant measured.
    pub variant: String,
    /// The commit the suite was built from, if known.
    pub commit: Option<String>,
    /// The branch checked out, if any.
    pub branch: Option<String>,
    /// Whether the work tree had uncommitted changes (shown as `+` after the commit).
    pub dirty: bool,
    /// Bytes the run's bench binary loads (`text + data`), when the run recorded its size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary_bytes: Option<u64>,
    /// How costbench's build of the run's bench binary went, when the run recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<costbench_record::model::BuildInfo>,
}

impl RunLabel {
    pub(super) fn of(run: &RunRecord) -> Self {
        let git = run.environment.git.as_ref();
        RunLabel {
            run_id: run.run_id.clone(),
            variant: run.variant.clone(),
            commit: git.map(|g| g.commit.clone()),
            branch: git.and_then(|g| g.branch.clone()),
            dirty: git.is_some_and(|g| g.dirty),
            binary_bytes: run.binary.as_ref().map(|b| b.total),
            build: run.build.clone(),
        }
    }

    /// The bench binaries' sizes and builds of `base` and `cand`, in one line: "bench binary:
    /// 3,474,128 B → 3,515,188 B (+1.18 %); build: 230.9 s (43 units compiled) → 0.2 s (0 units
    /// compiled)"; `None` when neither run recorded either.
    pub fn binaries(base: &RunLabel, cand: &RunLabel) -> Option<String> {
        use costbench_record::fmt::{fmt_change, fmt_whole};
        let mut parts = Vec::new();
        if base.binary_bytes.is_some() || cand.binary_bytes.is_some() {
            let size = |b: Option<u64>| {
                b.map_or("–".to_string(), |b| format!("{} B", fmt_whole(b as f64)))
            };
            let change = match (base.binary_bytes, cand.binary_bytes) {
                (Some(b), Some(c)) if b > 0 => {
                    format!(" ({})", fmt_change(100.0 * (c as f64 / b as f64 - 1.0)))
                }
                _ => String::new(),
            };
            parts.push(format!(
                "bench binary: {} → {}{change}",
                size(base.binary_bytes),
                size(cand.binary_bytes)
            ));
        }
        if base.build.is_some() || cand.build.is_some() {
            let build = |b: &Option<costbench_record::model::BuildInfo>| {
                b.as_ref().map_or("–".to_string(), |b| {
                    format!("{:.1} s ({} units compiled)", b.seconds, b.compiled)
                })
            };
            parts.push(format!(
                "build: {} → {}",
                build(&base.build),
                build(&cand.build)
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// "run R (commit abcdef1234+, branch main, variant release)" without the untrusted parts
    /// escaped: callers escape for their medium.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = &self.commit {
            let short = &c[..c.char_indices().nth(10).map_or(c.len(), |(i, _)| i)];
            parts.push(format!(
                "commit {short}{}",
                if self.dirty { "+" } else { "" }
            ));
        }
        if let Some(b) = &self.branch {
            parts.push(format!("branch {b}"));
        }
        parts.push(format!("variant {}", self.variant));
        format!("run {} ({})", self.run_id, parts.join(", "))
    }
}

/// `schema` of a [`Comparison`] as JSON (`compare --format json`, and inside `check`'s JSON).
pub const COMPARISON_SCHEMA: &str = "costbench-comparison";
/// Version 2: verdicts `unresolved` and `placement`; rows carry `evidence` and, for paired wall
/// time, `p_value`, `min_detectable_pct` and `spread_pct`; options carry `error_control` and
/// `family_alpha`. (Version 1 was the same shape without these, and without a `schema` field.)
pub const COMPARISON_SCHEMA_VERSION: u32 = 2;

/// The outcome of [`compare`](super::compare).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// [`COMPARISON_SCHEMA`].
    pub schema: &'static str,
    /// [`COMPARISON_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The sides whose run did not finish, baseline first; absent from JSON when both did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unfinished: Vec<UnfinishedSide>,
    /// The baseline run.
    pub base: RunLabel,
    /// The candidate run.
    pub cand: RunLabel,
    /// The thresholds, levels and seed the comparison used.
    pub options: CompareOptions,
    /// One per (id, instrument) compared, in the baseline's order, icount before walltime.
    pub rows: Vec<Row>,
    /// Ids of the baseline absent from the candidate, in the baseline's order.
    pub missing_in_cand: Vec<String>,
    /// Ids of the candidate absent from the baseline, in the candidate's order.
    pub new_in_cand: Vec<String>,
    /// Instruments that failed for an id in either run, so not compared for it.
    pub failed: Vec<FailedEntry>,
    /// Ids whose ops, unit or clock changed between the runs.
    pub setup_changes: Vec<SetupChange>,
    /// Instruments measured for an id in one run only.
    pub not_compared: Vec<NotCompared>,
    /// Instruments asked for that could not run in one run or both (issue 29).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_measured: Vec<NotMeasured>,
    /// For significant instruction-count changes: the functions that moved most (filled by
    /// [`attach`](super::functions::attach), from the callgrind outputs the caller loads).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<FunctionChanges>,
    /// For the same changes, when both runs measured the census: the checks that appeared,
    /// disappeared or ran a different number of times per op (filled by
    /// [`explain::attach_evidence`](super::explain::attach_evidence)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub census: Vec<crate::instrument::census::CensusDiff>,
    /// The machine code of the largest movers of each explained scenario, both sides aligned
    /// (filled by [`explain::attach_evidence`](super::explain::attach_evidence)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asm: Vec<super::asm::AsmDiff>,
    /// The differential flame graph of each scenario `functions` explains (filled by
    /// [`attach`](super::functions::attach) from the same profiles). Drawn by the HTML report
    /// only: a tree of call paths is too large for the JSON document, which has the movers.
    #[serde(skip)]
    pub flames: Vec<crate::instrument::icount::flame::FlameDiff>,
}

impl Comparison {
    /// Whether any row is a significant regression: the `compare` command's exit status.
    pub fn has_regression(&self) -> bool {
        self.rows.iter().any(|r| r.verdict == Verdict::Regression)
    }

    /// Whether a scenario failed in either run (not a regression, but worth a non-zero exit).
    pub fn has_failures(&self) -> bool {
        !self.failed.is_empty()
    }

    /// Rows with `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == verdict).count()
    }

    /// "2 regressions, 1 improvement, 97 unchanged, 3 unresolved, 1 placement" (rows, i.e.
    /// id × instrument; unresolved and placement only when there are any).
    pub fn summary(&self) -> String {
        let n = |v: Verdict, one: &str, many: &str| {
            let k = self.count(v);
            format!("{k} {}", if k == 1 { one } else { many })
        };
        let mut s = format!(
            "{}, {}, {}",
            n(Verdict::Regression, "regression", "regressions"),
            n(Verdict::Improvement, "improvement", "improvements"),
            n(Verdict::Unchanged, "unchanged", "unchanged"),
        );
        for v in [Verdict::Unresolved, Verdict::Placement] {
            if self.count(v) > 0 {
                s.push_str(&format!(", {}", n(v, v.name(), v.name())));
            }
        }
        let failed: HashSet<&str> = self.failed.iter().map(|f| f.id.as_str()).collect();
        for (k, what) in [
            (failed.len(), "failed"),
            (self.missing_in_cand.len(), "missing in candidate"),
            (self.new_in_cand.len(), "new in candidate"),
        ] {
            if k > 0 {
                s.push_str(&format!(", {k} {what}"));
            }
        }
        for n in &self.not_measured {
            s.push_str(&format!(", {} not measured", n.instrument));
        }
        s
    }

    /// Rows of `instrument`, significant ones first, each group by decreasing size of change
    /// (then by id, so the order is total).
    pub fn sorted_rows(&self, instrument: Figure) -> Vec<&Row> {
        let mut rows: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| r.instrument == instrument)
            .collect();
        rows.sort_by(|a, b| {
            b.verdict
                .is_significant()
                .cmp(&a.verdict.is_significant())
                .then(b.change_pct.abs().total_cmp(&a.change_pct.abs()))
                .then_with(|| a.id.cmp(&b.id))
        });
        rows
    }
}

/// One function whose own instructions per op changed between the two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionDelta {
    /// The function's name (demangled), summed over the objects that define it.
    pub name: String,
    /// Self cost per op in the baseline, instructions.
    pub base_self: f64,
    /// Self cost per op in the candidate, instructions.
    pub cand_self: f64,
    /// Inclusive cost per op in the baseline, instructions.
    pub base_inclusive: f64,
    /// Inclusive cost per op in the candidate, instructions.
    pub cand_inclusive: f64,
    /// Calls into it per op in the baseline (0 when callgrind recorded no call into it: not
    /// run, inlined, or entered before collection started).
    #[serde(default)]
    pub base_calls: f64,
    /// Calls into it per op in the candidate (0 as for `base_calls`).
    #[serde(default)]
    pub cand_calls: f64,
    /// Its self-cost change as a share of the scenario's change (both per op; 0.25 is a
    /// quarter). Absent when the changes cancel out to none. Shares of functions moving
    /// against the scenario's change are negative, so others' can exceed 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
    /// Whether it has a cost of its own on both sides or on one only (renamed, inlined into its
    /// callers on the other side, new or removed).
    pub presence: Presence,
}

impl FunctionDelta {
    /// Candidate minus baseline self cost per op.
    pub fn self_change(&self) -> f64 {
        self.cand_self - self.base_self
    }

    /// Candidate minus baseline inclusive cost per op.
    pub fn inclusive_change(&self) -> f64 {
        self.cand_inclusive - self.base_inclusive
    }
}

/// The functions that moved most in one scenario, or why they are not known.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionChanges {
    /// The measured id.
    pub id: String,
    /// The functions whose self cost per op changed most, largest change first (at most
    /// [`TOP`](super::functions::TOP)); functions whose own cost did not change (callers whose
    /// inclusive cost moved with a callee) are never listed.
    pub top: Vec<FunctionDelta>,
    /// The scenario's change in instructions per op between the two profiles: the sum of every
    /// function's self-cost change, which the shares are of.
    #[serde(default)]
    pub change: f64,
    /// Functions whose self cost changed too but that `top` leaves out, and their summed
    /// self-cost change per op.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<Omitted>,
    /// Set when the callgrind outputs could not be read (a run loaded from history keeps none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// Set when at least [`PLACEMENT_SHARE`](super::functions::PLACEMENT_SHARE) of the change is
    /// work per call that moved in placement-dependent functions entered as often on both sides
    /// ([`placement_note`](super::functions::placement_note)): "all of the change is in mem*/str*
    /// paths entered as often on both sides, whose work per call depends on data placement:
    /// __memcmp_avx2_movbe +19,306 Ir per run (+3.2 % per call, 29,007 calls on both sides)".
    /// Renderers show it as a note under the function table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_note: Option<String>,
    /// Set when functions with a cost of their own exist in one profile only, which is how a
    /// change of inlining shows (or code added or removed): "inlining or code changed:
    /// costbench_suite::proto::recv_frame is a function of its own in the candidate only (73 Ir/op
    /// self, 1 call per op); in the baseline it was inlined into its callers or not run"
    /// ([`inlining_note`](super::functions::inlining_note)). Such a change is never labelled
    /// placement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inlining_note: Option<String>,
    /// Set when that inlining change is in code the pull request did not touch (`check
    /// --baseline-rev` knows both revisions): the compiler laid out unchanged source differently
    /// because other code in the crate changed. The row is then placement, not gated
    /// ([`codegen_note`](super::functions::codegen_note)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codegen_note: Option<String>,
}

/// The functions whose self cost changed beyond those listed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Omitted {
    /// How many.
    pub functions: usize,
    /// Their summed self-cost change per op, instructions.
    pub change: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::model::budget::BinarySize;
    use costbench_record::model::BuildInfo;
    use costbench_record::testing::{record, scenario};

    /// Issue 28: `compare` and `check` say both binaries' sizes and builds when the runs
    /// recorded them, and nothing when neither did (older records).
    #[test]
    fn binaries_line_of_both_sides() {
        let mut base = record("b", vec![scenario("a")]);
        let mut cand = record("c", vec![scenario("a")]);
        assert_eq!(
            RunLabel::binaries(&RunLabel::of(&base), &RunLabel::of(&cand)),
            None
        );
        for (run, total, seconds, compiled) in [
            (&mut base, 3_474_128, 230.886, 43),
            (&mut cand, 3_515_188, 0.19, 0),
        ] {
            run.binary = Some(BinarySize {
                text: total,
                data: 0,
                bss: 0,
                total,
                file: total,
                top_crates: Vec::new(),
            });
            run.build = Some(BuildInfo {
                seconds,
                compiled,
                fresh: 43 - compiled,
            });
        }
        assert_eq!(
            RunLabel::binaries(&RunLabel::of(&base), &RunLabel::of(&cand)).as_deref(),
            Some(
                "bench binary: 3,474,128 B → 3,515,188 B (+1.18 %); build: 230.9 s (43 units \
                 compiled) → 0.2 s (0 units compiled)"
            )
        );
        cand.binary = None;
        base.build = None;
        cand.build = None;
        assert_eq!(
            RunLabel::binaries(&RunLabel::of(&base), &RunLabel::of(&cand)).as_deref(),
            Some("bench binary: 3,474,128 B → –")
        );
    }
}
