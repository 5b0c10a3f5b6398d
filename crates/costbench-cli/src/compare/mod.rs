//! Comparison of two runs (`costbench compare BASE CAND`): reading a run record back
//! ([`load_run`]), matching measured ids across the runs, and deciding per instrument whether a
//! per-op change is a regression, an improvement, unchanged, unresolved (the measurement cannot
//! tell) or a placement effect ([`compare`]), with the evidence behind each verdict. Wall-time
//! verdicts, which need every row at once, live in `judge`.
//!
//! Pure: [`load_run`] only reads one file, and everything else is a function of its inputs. No
//! processes, no clocks, no unseeded randomness: the same two records always give the same
//! [`Comparison`], confidence intervals included. Rendering lives in `report::comparison` (plain
//! text) and `report::markdown` (PR comments).

pub mod bootstrap;
pub mod family;
pub mod functions;
mod judge;
pub mod noise;
pub mod paired;
pub mod placement;

#[cfg(test)]
pub(crate) mod testing;

pub use bootstrap::RatioCi;

use crate::fmt::{fmt_ir, fmt_ns, fmt_threshold};
use crate::model::{Failure, RunRecord, ScenarioResult, SCHEMA, SCHEMA_VERSION};
use anyhow::{bail, Context as _, Result};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

/// Instruction counts repeat exactly for deterministic code on one machine and toolchain, so any
/// real change shows. 0.2 % is what rustls first chose for its CI (rustls/rustls#1404) and sits
/// well above the drift of its deterministic scenarios (single instructions in 10^8,
/// rustls/rustls#2483), but code with non-deterministic work (RSA key validation in aws-lc,
/// rejection sampling) drifted up to 1.7 % on doc-only changes (rustls/rustls#1645): such suites
/// need a larger threshold, hence the option.
pub const DEFAULT_ICOUNT_THRESHOLD_PCT: f64 = 0.2;
/// Wall time on shared machines moves by a few percent between runs of the same binary (CPU
/// frequency, neighbours, layout); rustls measured its walltime noise just below 5 %
/// (rustls/rustls#1487). A confidence interval alone would flag such shifts between two
/// processes as "significant", so both tests must pass.
pub const DEFAULT_WALLTIME_THRESHOLD_PCT: f64 = 5.0;
/// Wall time measured in interleaved rounds (`costbench check --baseline-rev`, build variants)
/// is free of the drift between runs, so a smaller change is still real: the paired interval
/// decides, and this floor keeps changes too small to matter (or to trust on a shared machine)
/// out of the report. Chosen from the A/A and power measurements in `docs/accuracy.md`.
pub const DEFAULT_PAIRED_WALLTIME_THRESHOLD_PCT: f64 = 3.0;
/// Confidence of the paired interval. Ten rounds at 99 % need every round but three of the 55
/// Walsh averages on one side of 1: measured on this VM, 1 false alarm in 350 A/A comparisons
/// and 14 of 15 +5 % changes found (95 %: 7 in 350 and the same power).
pub const DEFAULT_PAIRED_CONFIDENCE: f64 = 0.99;
/// The chance that a whole check of an unchanged pull request flags any paired wall-time row
/// (Holm): one false failure in twenty checks, whatever the suite's size.
pub const DEFAULT_FAMILY_ALPHA: f64 = 0.05;
/// Enough resamples for stable 2.5 % and 97.5 % percentiles (50 resamples beyond each bound).
pub const DEFAULT_RESAMPLES: usize = 2000;
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Fixed, so that a comparison is reproducible. Every row starts from this seed, so a row's
/// interval does not depend on which other scenarios the runs contain.
pub const DEFAULT_SEED: u64 = 0x636f_7374_6265_6e63; // "costbenc"
/// Below this many samples on either side the bootstrap of a median says little, and wall-time
/// changes are not judged.
pub const MIN_WALLTIME_SAMPLES: usize = 5;

/// How to decide significance. The defaults are the `DEFAULT_*` constants.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CompareOptions {
    /// Instruction-count changes at or below this (percent) are negligible.
    pub icount_threshold_pct: f64,
    /// Wall-time changes at or below this (percent) are negligible, whatever the interval says.
    pub walltime_threshold_pct: f64,
    /// The same for wall time measured in interleaved rounds with the other side, judged paired.
    pub paired_walltime_threshold_pct: f64,
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

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            icount_threshold_pct: DEFAULT_ICOUNT_THRESHOLD_PCT,
            walltime_threshold_pct: DEFAULT_WALLTIME_THRESHOLD_PCT,
            paired_walltime_threshold_pct: DEFAULT_PAIRED_WALLTIME_THRESHOLD_PCT,
            paired_confidence: DEFAULT_PAIRED_CONFIDENCE,
            resamples: DEFAULT_RESAMPLES,
            confidence: DEFAULT_CONFIDENCE,
            seed: DEFAULT_SEED,
            error_control: family::ErrorControl::Holm,
            family_alpha: DEFAULT_FAMILY_ALPHA,
        }
    }
}

impl CompareOptions {
    /// Checks values that would make the comparison meaningless (for options from the command
    /// line).
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("icount threshold", self.icount_threshold_pct),
            ("walltime threshold", self.walltime_threshold_pct),
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

/// What was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Instrument {
    /// Instructions per op (`Icount::ir_per_op`).
    Icount,
    /// Median wall time per op (`Walltime::ns_per_op.median`).
    Walltime,
    /// Simulated estimated cycles per op (`CacheSim::per_op["EstimatedCycles"]`): as exact as
    /// instruction counts, judged with the same threshold.
    Cache,
    /// Bytes allocated per op (`Allocations::bytes_allocated_per_op`): exact with the system
    /// allocator, judged with the instruction-count threshold.
    Memory,
    /// The process's max RSS in KiB (not per op): judged against [`RSS_THRESHOLD_PCT`].
    Rss,
}

/// Threshold for max RSS, in percent: RSS moves by whole pages and with the loader's and
/// allocator's arenas, so a few percent is noise.
pub const RSS_THRESHOLD_PCT: f64 = 5.0;

impl Instrument {
    pub const ALL: [Instrument; 5] = [
        Instrument::Icount,
        Instrument::Walltime,
        Instrument::Cache,
        Instrument::Memory,
        Instrument::Rss,
    ];

    /// The name used in run records and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Instrument::Icount => "icount",
            Instrument::Walltime => "walltime",
            Instrument::Cache => "cache",
            Instrument::Memory => "memory",
            Instrument::Rss => "rss",
        }
    }

    /// The name of the instrument whose failure makes this figure incomparable.
    fn source(self) -> &'static str {
        match self {
            Instrument::Rss => "memory",
            i => i.name(),
        }
    }

    /// A heading for reports.
    pub fn title(self) -> &'static str {
        match self {
            Instrument::Icount => "Instruction counts",
            Instrument::Walltime => "Wall time",
            Instrument::Cache => "Estimated cycles (simulated)",
            Instrument::Memory => "Bytes allocated",
            Instrument::Rss => "Max RSS (process)",
        }
    }

    /// A per-op figure with its unit: "2003 Ir", "12.35 ns".
    pub fn fmt_value(self, v: f64) -> String {
        match self {
            Instrument::Icount => format!("{} Ir", fmt_ir(v)),
            Instrument::Walltime => fmt_ns(v),
            Instrument::Cache => format!("{} cyc (sim)", fmt_ir(v)),
            Instrument::Memory => format!("{} B", fmt_ir(v)),
            Instrument::Rss => format!("{v:.0} KiB"),
        }
    }

    pub fn per_op(self, r: &ScenarioResult) -> Option<f64> {
        match self {
            Instrument::Icount => r.icount.as_ref().map(|i| i.ir_per_op),
            Instrument::Walltime => r.walltime.as_ref().map(|w| w.ns_per_op.median),
            Instrument::Cache => r
                .counters
                .cache
                .as_ref()
                .and_then(|c| c.per_op.get("EstimatedCycles").copied()),
            Instrument::Memory => r
                .counters
                .memory
                .as_ref()
                .and_then(|m| m.allocations.as_ref())
                .map(|a| a.bytes_allocated_per_op),
            Instrument::Rss => r.counters.memory.as_ref().map(|m| m.max_rss_kib as f64),
        }
    }
}

impl fmt::Display for Instrument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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
    Baseline,
    Candidate,
    Both,
}

impl Side {
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
    pub id: String,
    pub instrument: Instrument,
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
    pub verdict: Verdict,
    /// Why the verdict, in a few words: "within 0.2 % threshold".
    pub reason: String,
    /// What backs the verdict: "exact instruction counts", "paired over 24 rounds, code layout
    /// varied every round, Holm over 35 rows", "separate runs: between-run noise from 28
    /// consecutive changes of history".
    pub evidence: String,
    /// Set when the scenario's setup changed between the runs (ops, unit, clock).
    pub note: Option<String>,
}

/// An instrument that failed for an id in one or both runs; that instrument is not compared for
/// the id (other instruments still are).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedEntry {
    pub id: String,
    pub side: Side,
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
    pub id: String,
    /// "ops 1000 → 2000", "unit bytes → lookups", "clock monotonic → thread-cpu".
    pub changes: Vec<String>,
}

/// An instrument measured for an id in one run only (asked for in one run, skipped in the other).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotCompared {
    pub id: String,
    pub instrument: Instrument,
    /// The run that has the figure.
    pub measured_in: Side,
}

/// Enough about a run to tell the reader what was compared with what.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunLabel {
    pub run_id: String,
    pub variant: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub dirty: bool,
}

impl RunLabel {
    fn of(run: &RunRecord) -> Self {
        let git = run.environment.git.as_ref();
        RunLabel {
            run_id: run.run_id.clone(),
            variant: run.variant.clone(),
            commit: git.map(|g| g.commit.clone()),
            branch: git.and_then(|g| g.branch.clone()),
            dirty: git.is_some_and(|g| g.dirty),
        }
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

/// The outcome of [`compare`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// [`COMPARISON_SCHEMA`].
    pub schema: &'static str,
    /// [`COMPARISON_SCHEMA_VERSION`].
    pub schema_version: u32,
    pub base: RunLabel,
    pub cand: RunLabel,
    pub options: CompareOptions,
    /// One per (id, instrument) compared, in the baseline's order, icount before walltime.
    pub rows: Vec<Row>,
    /// Ids of the baseline absent from the candidate, in the baseline's order.
    pub missing_in_cand: Vec<String>,
    /// Ids of the candidate absent from the baseline, in the candidate's order.
    pub new_in_cand: Vec<String>,
    pub failed: Vec<FailedEntry>,
    pub setup_changes: Vec<SetupChange>,
    pub not_compared: Vec<NotCompared>,
    /// For significant instruction-count changes: the functions that moved most (filled by
    /// [`functions::attach`], which reads the callgrind outputs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<functions::FunctionChanges>,
}

impl Comparison {
    /// The wall-time threshold the rows were held against, for summaries: the paired one when
    /// rows were judged paired, "history's per scenario" when separate runs were judged against
    /// thresholds from history, else the separate-run default.
    pub fn walltime_threshold(&self) -> String {
        let wall = || {
            self.rows
                .iter()
                .filter(|r| r.instrument == Instrument::Walltime)
        };
        if wall().any(|r| r.paired_rounds.is_some()) {
            fmt_threshold(self.options.paired_walltime_threshold_pct)
        } else if wall().any(|r| r.evidence.starts_with(judge::HISTORY_EVIDENCE)) {
            "history's threshold per scenario".into()
        } else {
            fmt_threshold(self.options.walltime_threshold_pct)
        }
    }

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
        s
    }

    /// Rows of `instrument`, significant ones first, each group by decreasing size of change
    /// (then by id, so the order is total).
    pub fn sorted_rows(&self, instrument: Instrument) -> Vec<&Row> {
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

/// Just enough of a record to check what it is before reading it as a [`RunRecord`], so that a
/// newer record is refused for its version rather than for a field this version does not know.
#[derive(Deserialize)]
struct Header {
    schema: Option<String>,
    schema_version: Option<u64>,
}

/// Reads the run record of the output directory `dir` (its `run.json`); `dir` may also be the
/// `run.json` file itself. Refuses files that are not run records, and records written by a newer
/// costbench. Only reads.
pub fn load_run(dir: &Path) -> Result<RunRecord> {
    let path = if dir.is_file() {
        dir.to_path_buf()
    } else {
        dir.join("run.json")
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "not a costbench output directory: no run.json in {}",
            dir.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let header: Header = serde_json::from_str(&text).map_err(|e| {
        if e.is_data() {
            anyhow::anyhow!("{} is not a costbench run record: {e}", path.display())
        } else {
            anyhow::anyhow!("{} is not valid JSON: {e}", path.display())
        }
    })?;
    match header.schema.as_deref() {
        Some(SCHEMA) => {}
        Some(other) => bail!(
            "{} is not a costbench run record (schema {other:?}, expected {SCHEMA:?})",
            path.display()
        ),
        None => bail!(
            "{} is not a costbench run record (no \"schema\" field)",
            path.display()
        ),
    }
    match header.schema_version {
        Some(v) if v > u64::from(SCHEMA_VERSION) => bail!(
            "{} was written by a newer costbench (schema version {v}); this costbench reads up to {SCHEMA_VERSION}",
            path.display()
        ),
        Some(v) if v >= 1 => {}
        Some(v) => bail!("{} has unknown schema version {v}", path.display()),
        None => bail!("{} has no \"schema_version\" field", path.display()),
    }
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a valid costbench run record", path.display()))
}

/// The first result for each id (a record should not hold duplicates; if it does, the first
/// wins, as in the run's own table).
fn by_id(run: &RunRecord) -> HashMap<&str, &ScenarioResult> {
    let mut m = HashMap::new();
    for r in &run.results {
        m.entry(r.id.as_str()).or_insert(r);
    }
    m
}

fn failed_instruments(r: &ScenarioResult) -> HashSet<&str> {
    r.failures.iter().map(|f| f.instrument.as_str()).collect()
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// `100 * (cand - base) / base`. Multiplying before dividing keeps integral inputs exact up to
/// the one rounding of the division, so 1002 vs 1000 gives the same double as the literal `0.2`:
/// a change exactly at the threshold is reliably not beyond it.
pub(super) fn change_pct(base: f64, cand: f64) -> f64 {
    if base == 0.0 {
        if cand == 0.0 {
            0.0
        } else {
            f64::INFINITY.copysign(cand)
        }
    } else {
        100.0 * (cand - base) / base
    }
}

pub(super) fn direction(change_pct: f64) -> Verdict {
    if change_pct > 0.0 {
        Verdict::Regression
    } else {
        Verdict::Improvement
    }
}

fn judge_icount(base: f64, cand: f64, threshold: Threshold) -> (f64, Verdict, String) {
    let change = change_pct(base, cand);
    let t = threshold.describe();
    if change.abs() > threshold.pct {
        (change, direction(change), format!("beyond {t} threshold"))
    } else {
        (change, Verdict::Unchanged, format!("within {t} threshold"))
    }
}

/// What differs between the two runs' setup of one id: ops and unit (both instruments), and the
/// wall-time clock (wall time only).
fn setup_notes(b: &ScenarioResult, c: &ScenarioResult) -> (Vec<String>, Option<String>) {
    let mut ops_unit = Vec::new();
    if b.ops != c.ops {
        ops_unit.push(format!("ops {} → {}", b.ops, c.ops));
    }
    if b.unit != c.unit {
        ops_unit.push(format!("unit {} → {}", b.unit, c.unit));
    }
    let clock = match (&b.walltime, &c.walltime) {
        (Some(bw), Some(cw)) if bw.clock != cw.clock => {
            Some(format!("clock {} → {}", bw.clock, cw.clock))
        }
        _ => None,
    };
    (ops_unit, clock)
}

/// Compares the per-op figures of every id measured in both runs. Pure and deterministic.
///
/// - icount (and the other exact figures): significant when the change is beyond
///   `icount_threshold_pct` (or the id's threshold from history).
/// - walltime measured in interleaved rounds: the paired signed-rank interval, at the rate the
///   family's error control gives the row, against `paired_walltime_threshold_pct`: beyond it a
///   regression or improvement, inside it unchanged, straddling it unresolved (see [`judge`]).
/// - walltime of two separate runs: unresolved unless history gave the id a threshold; then
///   significant when the change is beyond it *and* the bootstrap interval of the ratio of
///   medians excludes 1 on the side of the change.
/// - A wall-time change whose instruction count stayed within its threshold is a placement
///   effect, not a regression.
/// - An instrument that failed for an id in either run is listed in `failed` and not compared
///   for that id; its other instruments still are.
/// - Ids in one run only go to `missing_in_cand` / `new_in_cand`; an instrument measured in one
///   run only goes to `not_compared`; a change of ops, unit or clock goes to `setup_changes` and
///   into the rows' `note`.
pub fn compare(base: &RunRecord, cand: &RunRecord, opts: &CompareOptions) -> Comparison {
    compare_with(base, cand, opts, &noise::HistoricThresholds::default())
}

/// A threshold and where it came from.
#[derive(Debug, Clone, Copy)]
struct Threshold {
    pct: f64,
    from_history: bool,
}

impl Threshold {
    fn describe(self) -> String {
        if self.from_history {
            format!("{} (history)", fmt_threshold(self.pct))
        } else {
            fmt_threshold(self.pct)
        }
    }
}

/// [`compare`], with per-id thresholds measured from history where `historic` has them and the
/// options' defaults elsewhere.
pub fn compare_with(
    base: &RunRecord,
    cand: &RunRecord,
    opts: &CompareOptions,
    historic: &noise::HistoricThresholds,
) -> Comparison {
    let threshold = |id: &str, inst: Instrument| match historic.get(id, inst) {
        Some(pct) => Threshold {
            pct,
            from_history: true,
        },
        None => Threshold {
            pct: match inst {
                Instrument::Icount | Instrument::Cache | Instrument::Memory => {
                    opts.icount_threshold_pct
                }
                Instrument::Walltime => opts.walltime_threshold_pct,
                Instrument::Rss => RSS_THRESHOLD_PCT,
            },
            from_history: false,
        },
    };
    let cand_ids = by_id(cand);
    let base_ids = by_id(base);
    let mut out = Comparison {
        schema: COMPARISON_SCHEMA,
        schema_version: COMPARISON_SCHEMA_VERSION,
        base: RunLabel::of(base),
        cand: RunLabel::of(cand),
        options: *opts,
        rows: Vec::new(),
        missing_in_cand: Vec::new(),
        new_in_cand: Vec::new(),
        failed: Vec::new(),
        setup_changes: Vec::new(),
        not_compared: Vec::new(),
        functions: Vec::new(),
    };
    let mut pending = Vec::new();
    let mut seen = HashSet::new();
    for b in &base.results {
        if !seen.insert(b.id.as_str()) {
            continue;
        }
        let Some(c) = cand_ids.get(b.id.as_str()).copied() else {
            out.missing_in_cand.push(b.id.clone());
            push_failures(&mut out.failed, b, Side::Baseline);
            continue;
        };
        record_failures(&mut out.failed, b, c);
        let (ops_unit, clock) = setup_notes(b, c);
        if !ops_unit.is_empty() || clock.is_some() {
            out.setup_changes.push(SetupChange {
                id: b.id.clone(),
                changes: ops_unit.iter().chain(&clock).cloned().collect(),
            });
        }
        let (bf, cf) = (failed_instruments(b), failed_instruments(c));
        for inst in Instrument::ALL {
            if bf.contains(inst.source()) || cf.contains(inst.source()) {
                continue;
            }
            let (bv, cv) = match (inst.per_op(b), inst.per_op(c)) {
                (Some(bv), Some(cv)) => (bv, cv),
                (None, None) => continue,
                (Some(_), None) | (None, Some(_)) => {
                    out.not_compared.push(NotCompared {
                        id: b.id.clone(),
                        instrument: inst,
                        measured_in: if inst.per_op(b).is_some() {
                            Side::Baseline
                        } else {
                            Side::Candidate
                        },
                    });
                    continue;
                }
            };
            let mut notes: Vec<&str> = ops_unit.iter().map(String::as_str).collect();
            let j = match inst {
                Instrument::Icount | Instrument::Cache | Instrument::Memory | Instrument::Rss => {
                    let t = threshold(&b.id, inst);
                    let (ch, v, r) = judge_icount(bv, cv, t);
                    // A count change with data-placement runs on both sides is judged against
                    // their spread (compare/placement.rs).
                    let (v, r) = match placement::judge(b, c, t.pct) {
                        Some(j) if inst == Instrument::Icount && v.is_significant() => j,
                        _ => (v, r),
                    };
                    let mut evidence = exact_evidence(inst, &b.id, historic);
                    if let (Instrument::Icount, Some(p)) = (inst, placement::runs(b, c)) {
                        evidence.push_str(&format!("; {p} data placements per side"));
                    }
                    judge::Judgement::new(ch, t.pct, v, r, evidence)
                }
                Instrument::Walltime => {
                    notes.extend(clock.as_deref());
                    match judge::paired_rounds(b, c) {
                        // Judged in the second pass, with every other paired row.
                        Some(rounds) => {
                            let j = judge::pending_paired(&rounds, bv, cv, opts);
                            pending.push((out.rows.len(), rounds));
                            j
                        }
                        None => {
                            let learned = historic.learned(&b.id, inst);
                            judge::unpaired(b, c, bv, cv, learned, opts)
                        }
                    }
                }
            };
            out.rows.push(Row {
                id: b.id.clone(),
                instrument: inst,
                unit: c.unit.clone(),
                base: bv,
                cand: cv,
                change_pct: j.change_pct,
                threshold_pct: j.threshold_pct,
                ci: j.ci,
                paired_rounds: j.paired_rounds,
                p_value: j.p_value,
                min_detectable_pct: j.min_detectable_pct,
                spread_pct: j.spread_pct,
                verdict: j.verdict,
                reason: j.reason,
                evidence: j.evidence,
                note: (!notes.is_empty()).then(|| notes.join("; ")),
            });
        }
    }
    judge::paired_rows(&mut out.rows, &pending, opts);
    judge::mark_placement(&mut out.rows);
    let mut seen = HashSet::new();
    for c in &cand.results {
        if !base_ids.contains_key(c.id.as_str()) && seen.insert(c.id.as_str()) {
            out.new_in_cand.push(c.id.clone());
            push_failures(&mut out.failed, c, Side::Candidate);
        }
    }
    out
}

/// What backs a verdict on an exact figure.
fn exact_evidence(inst: Instrument, id: &str, historic: &noise::HistoricThresholds) -> String {
    let what = match inst {
        Instrument::Icount => "exact instruction counts",
        Instrument::Cache => "simulated cycles (exact)",
        Instrument::Memory => "exact allocation counts",
        Instrument::Rss | Instrument::Walltime => "one figure per run",
    };
    match historic.learned(id, inst) {
        Some(l) => format!("{what}; threshold from {} changes of history", l.changes),
        None => what.to_string(),
    }
}

/// Failures of an id present in one run only.
fn push_failures(out: &mut Vec<FailedEntry>, r: &ScenarioResult, side: Side) {
    for f in &r.failures {
        push_one(out, &r.id, side, f);
    }
}

/// Failures of an id present in both runs; the same failure (instrument and kind) on both sides
/// is listed once, as `Both`, with the candidate's message.
fn record_failures(out: &mut Vec<FailedEntry>, b: &ScenarioResult, c: &ScenarioResult) {
    let same = |x: &Failure, y: &Failure| x.instrument == y.instrument && x.kind == y.kind;
    for f in &b.failures {
        if !c.failures.iter().any(|g| same(f, g)) {
            push_one(out, &b.id, Side::Baseline, f);
        }
    }
    for f in &c.failures {
        let side = if b.failures.iter().any(|g| same(f, g)) {
            Side::Both
        } else {
            Side::Candidate
        };
        push_one(out, &c.id, side, f);
    }
}

fn push_one(out: &mut Vec<FailedEntry>, id: &str, side: Side, f: &Failure) {
    out.push(FailedEntry {
        id: id.to_string(),
        side,
        instrument: f.instrument.clone(),
        kind: f.kind.clone(),
        message: first_line(&f.message),
    });
}

#[cfg(test)]
mod tests;
