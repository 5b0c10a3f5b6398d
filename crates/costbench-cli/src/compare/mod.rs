//! Comparison of two runs (`costbench compare BASE CAND`): reading a run record back
//! ([`load_run`]), matching measured ids across the runs, and deciding per instrument whether a
//! per-op change is a regression, an improvement or noise ([`compare`]).
//!
//! Pure: [`load_run`] only reads one file, and everything else is a function of its inputs. No
//! processes, no clocks, no unseeded randomness: the same two records always give the same
//! [`Comparison`], confidence intervals included. Rendering lives in [`terminal`] (plain text) and
//! `report::markdown` (PR comments).

pub mod bootstrap;
pub mod family;
pub mod functions;
pub mod noise;
pub mod paired;
pub mod placement;
mod text;

#[cfg(test)]
pub(crate) mod testing;

pub use bootstrap::RatioCi;
pub use text::terminal;
pub(crate) use text::{clean, is_format_control};

use crate::model::{Failure, RunRecord, ScenarioResult, SCHEMA, SCHEMA_VERSION};
use crate::report::terminal::{fmt_ir, fmt_ns};
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
    /// The threshold the change was held against.
    pub threshold_pct: f64,
    /// Wall time only: interval of `cand / base` (`None` with too few samples): the paired
    /// signed-rank interval when `paired_rounds` is set, else a bootstrap of the two medians.
    pub ci: Option<RatioCi>,
    /// Wall time measured in interleaved rounds: how many rounds were paired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired_rounds: Option<usize>,
    pub verdict: Verdict,
    /// Why the verdict, in a few words: "within 0.2 % threshold".
    pub reason: String,
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

/// The outcome of [`compare`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
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
    /// The wall-time threshold most rows were held against: the paired one when rows were
    /// judged paired (summaries name it).
    pub fn walltime_threshold_pct(&self) -> f64 {
        if self.rows.iter().any(|r| r.paired_rounds.is_some()) {
            self.options.paired_walltime_threshold_pct
        } else {
            self.options.walltime_threshold_pct
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

    /// "2 regressions, 1 improvement, 97 unchanged" (rows, i.e. id × instrument).
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

/// "+0.50 %", "-12.34 %", "+inf %".
pub fn fmt_change(pct: f64) -> String {
    if pct.is_infinite() {
        return format!("{}inf %", if pct > 0.0 { "+" } else { "-" });
    }
    format!("{pct:+.2} %")
}

/// "0.2 %", "5 %": thresholds as given, without trailing zeros.
pub fn fmt_threshold(pct: f64) -> String {
    // Thresholds from history are arbitrary reals: three significant digits say all they mean.
    let digits = if pct == 0.0 || !pct.is_finite() {
        0
    } else {
        (2 - pct.abs().log10().floor() as i32).max(0) as usize
    };
    let s = format!("{pct:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s} %")
}

/// "95 %", "97.5 %": a confidence level as a percentage, without the float noise of `0.9 * 100`.
pub fn fmt_confidence(level: f64) -> String {
    format!("{} %", (level * 1000.0).round() / 10.0)
}

/// "[0.982, 1.031]".
pub fn fmt_ci(ci: &RatioCi) -> String {
    format!("[{:.3}, {:.3}]", ci.low, ci.high)
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
fn change_pct(base: f64, cand: f64) -> f64 {
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

fn direction(change_pct: f64) -> Verdict {
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

/// Per-op samples of one side: each sample's per-iteration time divided by the ops per iteration.
fn per_op_samples(r: &ScenarioResult) -> Vec<f64> {
    let ops = r.ops.max(1) as f64;
    r.walltime.as_ref().map_or_else(Vec::new, |w| {
        w.iteration_ns.iter().map(|ns| ns / ops).collect()
    })
}

/// Per-round log ratios `ln(cand / base)` of two sides measured in the same interleaved
/// session (`None` when they were not): the ratio of each round's fastest sample. Interference
/// from other processes only ever adds time, so the least disturbed sample of a round is the
/// steadiest estimate of the code's own speed; with the sides taking turns sample by sample
/// (lockstep), both rounds' fastest samples were taken within the same few milliseconds.
///
/// Chosen by measurement (docs/accuracy.md): on this project's 2-core VM under heavy load, the
/// median of each round's sample-pair ratios flagged as many A/A comparisons but found a +5 %
/// change in 11 of 15 checks; round minimums found it in 14 of 15.
fn paired_log_ratios(b: &ScenarioResult, c: &ScenarioResult) -> Option<Vec<f64>> {
    let (bp, cp) = (
        b.walltime.as_ref()?.paired.as_ref()?,
        c.walltime.as_ref()?.paired.as_ref()?,
    );
    if bp.session != cp.session {
        return None;
    }
    let (br, cr) = (&bp.round_min_ns_per_op, &cp.round_min_ns_per_op);
    (br.len() == cr.len()).then(|| {
        br.iter()
            .zip(cr)
            .filter_map(|(b, c)| paired::log_ratio(*b, *c))
            .collect()
    })
}

/// A wall-time verdict: change (percent), interval, rounds paired, verdict, reason.
type WalltimeJudgement = (f64, Option<RatioCi>, Option<usize>, Verdict, String);

fn judge_walltime(
    b: &ScenarioResult,
    c: &ScenarioResult,
    base: f64,
    cand: f64,
    threshold: Threshold,
    opts: &CompareOptions,
) -> WalltimeJudgement {
    if let Some(d) = paired_log_ratios(b, c) {
        // Paired: the history's thresholds (learned from separate runs, drift included) do not
        // apply to a comparison that cancels drift.
        let t = Threshold {
            pct: opts.paired_walltime_threshold_pct,
            from_history: false,
        };
        if let Some((est, ci)) = paired::log_ratio_ci(&d, opts.paired_confidence) {
            let change = (est - 1.0) * 100.0;
            let (verdict, reason) =
                judge_interval(change, &ci, t, &format!("paired over {} rounds", d.len()));
            return (change, Some(ci), Some(d.len()), verdict, reason);
        }
    }
    let change = change_pct(base, cand);
    let (bs, cs) = (per_op_samples(b), per_op_samples(c));
    if bs.len() < MIN_WALLTIME_SAMPLES || cs.len() < MIN_WALLTIME_SAMPLES {
        let reason = format!(
            "too few samples to judge ({} and {}, need {MIN_WALLTIME_SAMPLES} each)",
            bs.len(),
            cs.len()
        );
        return (change, None, None, Verdict::Unchanged, reason);
    }
    let ci = bootstrap::ratio_of_medians_ci(&bs, &cs, opts.resamples, opts.confidence, opts.seed);
    let (verdict, reason) = judge_interval(change, &ci, threshold, "CI");
    (change, Some(ci), None, verdict, reason)
}

/// Significant when the change is beyond the threshold *and* the interval of the ratio excludes 1
/// on the side of the change: a median that moved up while the bulk of the evidence moved down is
/// not a clear regression.
fn judge_interval(
    change: f64,
    ci: &RatioCi,
    threshold: Threshold,
    what: &str,
) -> (Verdict, String) {
    let t = threshold.describe();
    let clear = (change > 0.0 && ci.low > 1.0) || (change < 0.0 && ci.high < 1.0);
    let ci_text = fmt_ci(ci);
    if change.abs() <= threshold.pct {
        (Verdict::Unchanged, format!("within {t} threshold ({what})"))
    } else if !clear {
        let why = if ci.contains_one() {
            "includes 1"
        } else {
            "contradicts the change"
        };
        (Verdict::Unchanged, format!("{what}: ratio {ci_text} {why}"))
    } else {
        (
            direction(change),
            format!("beyond {t} threshold; {what}: ratio {ci_text} excludes 1"),
        )
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
/// - icount: significant when the change is beyond `icount_threshold_pct`.
/// - walltime: significant when the change of medians is beyond `walltime_threshold_pct` *and*
///   the bootstrap interval of the ratio of medians excludes 1 on the side of the change.
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
            let (change_pct, threshold_pct, ci, paired_rounds, verdict, reason) = match inst {
                Instrument::Icount | Instrument::Cache | Instrument::Memory | Instrument::Rss => {
                    let t = threshold(&b.id, inst);
                    let (ch, v, r) = judge_icount(bv, cv, t);
                    // A count change with data-placement runs on both sides is judged against
                    // their spread (compare/placement.rs).
                    let (v, r) = match placement::judge(b, c, t.pct) {
                        Some(j) if inst == Instrument::Icount && v.is_significant() => j,
                        _ => (v, r),
                    };
                    (ch, t.pct, None, None, v, r)
                }
                Instrument::Walltime => {
                    notes.extend(clock.as_deref());
                    let t = threshold(&b.id, inst);
                    let (ch, ci, rounds, v, r) = judge_walltime(b, c, bv, cv, t, opts);
                    let t = if rounds.is_some() {
                        opts.paired_walltime_threshold_pct
                    } else {
                        t.pct
                    };
                    (ch, t, ci, rounds, v, r)
                }
            };
            out.rows.push(Row {
                id: b.id.clone(),
                instrument: inst,
                unit: c.unit.clone(),
                base: bv,
                cand: cv,
                change_pct,
                threshold_pct,
                ci,
                paired_rounds,
                verdict,
                reason,
                note: (!notes.is_empty()).then(|| notes.join("; ")),
            });
        }
    }
    let mut seen = HashSet::new();
    for c in &cand.results {
        if !base_ids.contains_key(c.id.as_str()) && seen.insert(c.id.as_str()) {
            out.new_in_cand.push(c.id.clone());
            push_failures(&mut out.failed, c, Side::Candidate);
        }
    }
    out
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
mod tests {
    use super::testing::*;
    use super::*;

    fn opts() -> CompareOptions {
        CompareOptions::default()
    }

    fn only_row(c: &Comparison, inst: Instrument) -> &Row {
        let rows: Vec<&Row> = c.rows.iter().filter(|r| r.instrument == inst).collect();
        assert_eq!(rows.len(), 1, "{:#?}", c.rows);
        rows[0]
    }

    #[test]
    fn memory_and_simulated_cycles_are_compared() {
        use crate::model::{Allocations, CacheSim, Memory};
        let side = |bytes: f64, cycles: f64, rss: u64| {
            let mut r = scenario("s");
            r.counters.memory = Some(Memory {
                allocator: "system".into(),
                allocations: Some(Allocations {
                    allocs: 1,
                    deallocs: 1,
                    reallocs: 0,
                    bytes_allocated: bytes as u64,
                    peak_live_bytes: bytes as u64,
                    allocs_per_op: 1.0,
                    deallocs_per_op: 1.0,
                    reallocs_per_op: 0.0,
                    bytes_allocated_per_op: bytes,
                }),
                not_counted: None,
                max_rss_kib: rss,
            });
            r.counters.cache = Some(CacheSim {
                simulated: true,
                totals: Default::default(),
                per_op: [("EstimatedCycles".to_string(), cycles)].into(),
                callgrind_out: String::new(),
            });
            r
        };
        let base = record("b", vec![side(1000.0, 500.0, 2000)]);
        let cand = record("c", vec![side(1100.0, 500.0, 2040)]);
        let cmp = compare(&base, &cand, &opts());
        let mem = only_row(&cmp, Instrument::Memory);
        assert_eq!(mem.verdict, Verdict::Regression);
        assert_eq!(mem.change_pct, 10.0);
        assert_eq!(
            only_row(&cmp, Instrument::Cache).verdict,
            Verdict::Unchanged
        );
        // 2 % more RSS is within its 5 % threshold.
        let rss = only_row(&cmp, Instrument::Rss);
        assert_eq!((rss.verdict, rss.threshold_pct), (Verdict::Unchanged, 5.0));
        assert_eq!(Instrument::Memory.fmt_value(2500.0), "2500 B");
    }

    #[test]
    fn icount_change_against_threshold() {
        use Verdict::*;
        // (baseline Ir/op, candidate Ir/op, threshold %, change %, verdict, reason)
        let cases = [
            (
                1000.0,
                1005.0,
                0.2,
                0.5,
                Regression,
                "beyond 0.2 % threshold",
            ),
            (
                1000.0,
                995.0,
                0.2,
                -0.5,
                Improvement,
                "beyond 0.2 % threshold",
            ),
            (
                1000.0,
                1001.0,
                0.2,
                0.1,
                Unchanged,
                "within 0.2 % threshold",
            ),
            (
                1000.0,
                999.0,
                0.2,
                -0.1,
                Unchanged,
                "within 0.2 % threshold",
            ),
            // Exactly at the threshold is not beyond it.
            (
                1000.0,
                1002.0,
                0.2,
                0.2,
                Unchanged,
                "within 0.2 % threshold",
            ),
            (
                1000.0,
                1000.0,
                0.2,
                0.0,
                Unchanged,
                "within 0.2 % threshold",
            ),
            (
                1000.0,
                1001.0,
                0.05,
                0.1,
                Regression,
                "beyond 0.05 % threshold",
            ),
            (1000.0, 1010.0, 2.0, 1.0, Unchanged, "within 2 % threshold"),
            (0.0, 0.0, 0.2, 0.0, Unchanged, "within 0.2 % threshold"),
            (
                0.0,
                3.0,
                0.2,
                f64::INFINITY,
                Regression,
                "beyond 0.2 % threshold",
            ),
        ];
        for (b, c, threshold, change, verdict, reason) in cases {
            let base = record("b", vec![with_icount(scenario("s"), b)]);
            let cand = record("c", vec![with_icount(scenario("s"), c)]);
            let o = CompareOptions {
                icount_threshold_pct: threshold,
                ..opts()
            };
            let cmp = compare(&base, &cand, &o);
            let row = only_row(&cmp, Instrument::Icount);
            let case = format!("{b} -> {c} at {threshold} %");
            assert_eq!(row.change_pct, change, "{case}");
            assert_eq!(row.verdict, verdict, "{case}");
            assert_eq!(row.reason, reason, "{case}");
            assert_eq!(row.threshold_pct, threshold, "{case}");
            assert_eq!((row.base, row.cand, row.ci), (b, c, None), "{case}");
            assert_eq!(cmp.has_regression(), verdict == Regression, "{case}");
        }
    }

    #[test]
    fn walltime_needs_both_threshold_and_interval() {
        use Verdict::*;
        struct Case {
            what: &'static str,
            base: Vec<f64>,
            cand: Vec<f64>,
            threshold: f64,
            verdict: Verdict,
            reason: &'static str,
        }
        let same = |seed| noisy(100.0, 0.10, 100, seed);
        let cases = [
            Case {
                what: "same distribution, ±10 % noise",
                base: same(1),
                cand: same(2),
                threshold: 5.0,
                verdict: Unchanged,
                reason: "within 5 % threshold",
            },
            Case {
                what: "same distribution, interval alone decides",
                base: same(3),
                cand: same(4),
                threshold: 0.0,
                verdict: Unchanged,
                reason: "includes 1",
            },
            Case {
                what: "+20 % with the same noise",
                base: same(5),
                cand: noisy(120.0, 0.10, 100, 6),
                threshold: 5.0,
                verdict: Regression,
                reason: "excludes 1",
            },
            Case {
                what: "-20 % with the same noise",
                base: same(7),
                cand: noisy(80.0, 0.10, 100, 8),
                threshold: 5.0,
                verdict: Improvement,
                reason: "excludes 1",
            },
            Case {
                what: "+3 %, clear but below the noise threshold",
                base: noisy(100.0, 0.005, 100, 9),
                cand: noisy(103.0, 0.005, 100, 10),
                threshold: 5.0,
                verdict: Unchanged,
                reason: "within 5 % threshold",
            },
            Case {
                what: "+10 % hidden in ±60 % noise",
                base: noisy(100.0, 0.6, 10, 11),
                cand: noisy(110.0, 0.6, 10, 12),
                threshold: 5.0,
                verdict: Unchanged,
                reason: "includes 1",
            },
            Case {
                what: "too few samples",
                base: vec![100.0; 3],
                cand: vec![150.0; 3],
                threshold: 5.0,
                verdict: Unchanged,
                reason: "too few samples to judge (3 and 3, need 5 each)",
            },
        ];
        for case in cases {
            let base = record("b", vec![with_walltime(scenario("s"), &case.base)]);
            let cand = record("c", vec![with_walltime(scenario("s"), &case.cand)]);
            let o = CompareOptions {
                walltime_threshold_pct: case.threshold,
                ..opts()
            };
            let cmp = compare(&base, &cand, &o);
            let row = only_row(&cmp, Instrument::Walltime);
            assert_eq!(row.verdict, case.verdict, "{}: {row:#?}", case.what);
            assert!(row.reason.contains(case.reason), "{}: {row:#?}", case.what);
            let (bm, cm) = (summarize_median(&case.base), summarize_median(&case.cand));
            assert_eq!((row.base, row.cand), (bm, cm), "{}", case.what);
            assert_eq!(row.ci.is_some(), case.base.len() >= MIN_WALLTIME_SAMPLES);
            if let Some(ci) = row.ci {
                assert!(ci.low <= ci.high, "{}", case.what);
                assert_eq!(ci.level, 0.95);
            }
        }
    }

    fn summarize_median(v: &[f64]) -> f64 {
        crate::stats::summarize(v).median
    }

    #[test]
    fn clear_small_shift_has_an_interval_excluding_one() {
        // The +3 % case above is held back by the threshold alone, not by the interval.
        let base = record(
            "b",
            vec![with_walltime(scenario("s"), &noisy(100.0, 0.005, 100, 9))],
        );
        let cand = record(
            "c",
            vec![with_walltime(scenario("s"), &noisy(103.0, 0.005, 100, 10))],
        );
        let cmp = compare(&base, &cand, &opts());
        let ci = only_row(&cmp, Instrument::Walltime).ci.expect("interval");
        assert!(ci.low > 1.02 && ci.high < 1.04, "{ci:?}");
    }

    /// Two sides of one lockstep session: `base` and `cand` per-op samples, rounds of `n`.
    fn lockstep_pair(base: &[f64], cand: &[f64], n: usize) -> (RunRecord, RunRecord) {
        let side = |run: &str, v: &[f64], mins: Vec<f64>| {
            let mut r = with_walltime(scenario("s"), v);
            let w = r.walltime.as_mut().unwrap();
            w.paired = Some(crate::model::Paired {
                session: "session".into(),
                round_medians_ns_per_op: vec![],
                round_min_ns_per_op: mins,
                round_samples: vec![n; v.len() / n],
                lockstep: true,
                round_layouts: vec![],
                layout_note: None,
                looks: None,
            });
            record(run, vec![r])
        };
        let mins = |v: &[f64]| {
            v.chunks(n)
                .map(|c| c.iter().copied().fold(f64::MAX, f64::min))
                .collect()
        };
        (side("b", base, mins(base)), side("c", cand, mins(cand)))
    }

    #[test]
    fn paired_rounds_compare_each_rounds_fastest_sample() {
        // 8 rounds of 5 samples drifting by up to 60 % between rounds; load bursts (x3) hit
        // both sides' samples at the same moments and a few hit one side only (x2); the
        // candidate is 4 % slower: the rounds' fastest samples see exactly that.
        let mut base = Vec::new();
        let mut cand = Vec::new();
        for k in 0..40 {
            let drift = 1.0 + 0.3 * ((k / 5) % 3) as f64;
            let shared = if k % 7 == 3 { 3.0 } else { 1.0 };
            let own = if k % 11 == 5 { 2.0 } else { 1.0 };
            base.push(10.0 * drift * shared * own);
            cand.push(10.4 * drift * shared * if k % 13 == 8 { 2.0 } else { 1.0 });
        }
        let (b, c) = lockstep_pair(&base, &cand, 5);
        let cmp = compare(&b, &c, &CompareOptions::default());
        let row = &cmp.rows[0];
        assert_eq!(row.paired_rounds, Some(8));
        assert!((row.change_pct - 4.0).abs() < 0.01, "{row:?}");
        assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
        // Sides that took turns process by process are paired the same way.
        let (mut b, mut c) = lockstep_pair(&base, &cand, 5);
        for r in [&mut b, &mut c] {
            r.results[0]
                .walltime
                .as_mut()
                .unwrap()
                .paired
                .as_mut()
                .unwrap()
                .lockstep = false;
        }
        let row = &compare(&b, &c, &CompareOptions::default()).rows[0];
        assert!((row.change_pct - 4.0).abs() < 0.01, "{row:?}");
        // Another session: not paired, judged by the bootstrap.
        let (b, mut c) = lockstep_pair(&base, &cand, 5);
        c.results[0]
            .walltime
            .as_mut()
            .unwrap()
            .paired
            .as_mut()
            .unwrap()
            .session = "other".into();
        assert_eq!(
            compare(&b, &c, &CompareOptions::default()).rows[0].paired_rounds,
            None
        );
    }

    #[test]
    fn per_op_samples_divide_by_ops() {
        // 10 ops per iteration: 1000 ns per iteration is 100 ns per op.
        let r = with_walltime(with_ops(scenario("s"), 10, "lookups"), &[100.0, 110.0]);
        assert_eq!(
            r.walltime.as_ref().unwrap().iteration_ns,
            vec![1000.0, 1100.0]
        );
        assert_eq!(per_op_samples(&r), vec![100.0, 110.0]);
    }

    #[test]
    fn bootstrap_is_deterministic_and_independent_of_other_rows() {
        let b = with_walltime(scenario("s"), &noisy(100.0, 0.1, 60, 1));
        let c = with_walltime(scenario("s"), &noisy(104.0, 0.1, 60, 2));
        let other_b = with_walltime(scenario("other"), &noisy(10.0, 0.3, 80, 3));
        let other_c = with_walltime(scenario("other"), &noisy(11.0, 0.3, 80, 4));
        let alone = compare(
            &record("b", vec![b.clone()]),
            &record("c", vec![c.clone()]),
            &opts(),
        );
        let again = compare(
            &record("b", vec![b.clone()]),
            &record("c", vec![c.clone()]),
            &opts(),
        );
        assert_eq!(alone, again);
        let with_others = compare(
            &record("b", vec![other_b, b]),
            &record("c", vec![c, other_c]),
            &opts(),
        );
        let ci = |cmp: &Comparison| {
            cmp.rows
                .iter()
                .find(|r| r.id == "s")
                .and_then(|r| r.ci)
                .expect("interval")
        };
        assert_eq!(ci(&alone), ci(&with_others));
        // A different seed gives a (slightly) different interval: the seed is really used.
        let reseeded = compare(
            &record(
                "b",
                vec![with_walltime(scenario("s"), &noisy(100.0, 0.1, 60, 1))],
            ),
            &record(
                "c",
                vec![with_walltime(scenario("s"), &noisy(104.0, 0.1, 60, 2))],
            ),
            &CompareOptions { seed: 1, ..opts() },
        );
        assert_ne!(ci(&alone), ci(&reseeded));
    }

    #[test]
    fn missing_new_and_failed_are_listed_apart() {
        let base = record(
            "b",
            vec![
                with_icount(scenario("kept"), 100.0),
                with_icount(scenario("dropped"), 100.0),
                with_failure(scenario("broke"), "icount", "panicked"),
                with_failure(scenario("always_broken"), "walltime", "timed-out"),
                // Walltime failed, icount fine: icount is still compared.
                with_failure(with_icount(scenario("half"), 100.0), "walltime", "crashed"),
                with_failure(scenario("gone_broken"), "icount", "crashed"),
            ],
        );
        let cand = record(
            "c",
            vec![
                with_icount(scenario("kept"), 100.0),
                with_icount(scenario("fresh"), 1.0),
                with_failure(scenario("broke"), "icount", "timed-out"),
                with_failure(scenario("always_broken"), "walltime", "timed-out"),
                with_walltime(
                    with_icount(scenario("half"), 200.0),
                    &noisy(1.0, 0.1, 20, 1),
                ),
                with_failure(scenario("fresh_broken"), "icount", "misuse"),
            ],
        );
        let cmp = compare(&base, &cand, &opts());
        assert_eq!(cmp.missing_in_cand, ["dropped", "gone_broken"]);
        assert_eq!(cmp.new_in_cand, ["fresh", "fresh_broken"]);
        let failed: Vec<(&str, Side, &str, &str)> = cmp
            .failed
            .iter()
            .map(|f| {
                (
                    f.id.as_str(),
                    f.side,
                    f.instrument.as_str(),
                    f.kind.as_str(),
                )
            })
            .collect();
        assert_eq!(
            failed,
            [
                ("broke", Side::Baseline, "icount", "panicked"),
                ("broke", Side::Candidate, "icount", "timed-out"),
                ("always_broken", Side::Both, "walltime", "timed-out"),
                ("half", Side::Baseline, "walltime", "crashed"),
                ("gone_broken", Side::Baseline, "icount", "crashed"),
                ("fresh_broken", Side::Candidate, "icount", "misuse"),
            ]
        );
        assert_eq!(cmp.failed[0].message, "icount panicked", "first line only");
        let rows: Vec<(&str, Instrument, Verdict)> = cmp
            .rows
            .iter()
            .map(|r| (r.id.as_str(), r.instrument, r.verdict))
            .collect();
        assert_eq!(
            rows,
            [
                ("kept", Instrument::Icount, Verdict::Unchanged),
                ("half", Instrument::Icount, Verdict::Regression),
            ]
        );
        // A failed instrument is listed as failed, not as "measured in one run only".
        assert_eq!(cmp.not_compared, []);
        assert!(cmp.has_regression() && cmp.has_failures());
        assert_eq!(
            cmp.summary(),
            "1 regression, 0 improvements, 1 unchanged, 5 failed, \
             2 missing in candidate, 2 new in candidate"
        );
    }

    #[test]
    fn changed_ops_unit_or_clock_are_flagged_and_still_compared() {
        let samples = noisy(10.0, 0.1, 20, 1);
        let base = record(
            "b",
            vec![
                with_walltime(
                    with_icount(with_ops(scenario("resized"), 100, "bytes"), 5.0),
                    &samples,
                ),
                with_walltime(with_icount(scenario("reclocked"), 5.0), &samples),
                with_icount(scenario("steady"), 5.0),
            ],
        );
        let mut reclocked = with_walltime(with_icount(scenario("reclocked"), 5.0), &samples);
        reclocked.walltime.as_mut().unwrap().clock = "thread-cpu".into();
        let cand = record(
            "c",
            vec![
                with_walltime(
                    with_icount(with_ops(scenario("resized"), 200, "lookups"), 5.0),
                    &samples,
                ),
                reclocked,
                with_icount(scenario("steady"), 5.0),
            ],
        );
        let cmp = compare(&base, &cand, &opts());
        assert_eq!(
            cmp.setup_changes,
            [
                SetupChange {
                    id: "resized".into(),
                    changes: vec!["ops 100 → 200".into(), "unit bytes → lookups".into()],
                },
                SetupChange {
                    id: "reclocked".into(),
                    changes: vec!["clock monotonic → thread-cpu".into()],
                },
            ]
        );
        let notes: Vec<(&str, Instrument, Option<&str>, &str)> = cmp
            .rows
            .iter()
            .map(|r| {
                (
                    r.id.as_str(),
                    r.instrument,
                    r.note.as_deref(),
                    r.unit.as_str(),
                )
            })
            .collect();
        let resized = Some("ops 100 → 200; unit bytes → lookups");
        assert_eq!(
            notes,
            [
                ("resized", Instrument::Icount, resized, "lookups"),
                ("resized", Instrument::Walltime, resized, "lookups"),
                ("reclocked", Instrument::Icount, None, "op"),
                (
                    "reclocked",
                    Instrument::Walltime,
                    Some("clock monotonic → thread-cpu"),
                    "op"
                ),
                ("steady", Instrument::Icount, None, "op"),
            ]
        );
    }

    #[test]
    fn instrument_in_one_run_only_is_not_compared() {
        let base = record(
            "b",
            vec![with_walltime(
                with_icount(scenario("x"), 10.0),
                &noisy(5.0, 0.1, 20, 1),
            )],
        );
        let cand = record("c", vec![with_icount(scenario("x"), 10.0)]);
        let cmp = compare(&base, &cand, &opts());
        assert_eq!(cmp.rows.len(), 1);
        assert_eq!(
            cmp.not_compared,
            [NotCompared {
                id: "x".into(),
                instrument: Instrument::Walltime,
                measured_in: Side::Baseline,
            }]
        );
    }

    #[test]
    fn duplicate_ids_first_wins() {
        let base = record(
            "b",
            vec![
                with_icount(scenario("x"), 10.0),
                with_icount(scenario("x"), 99.0),
            ],
        );
        let cand = record("c", vec![with_icount(scenario("x"), 10.0)]);
        let cmp = compare(&base, &cand, &opts());
        assert_eq!(cmp.rows.len(), 1);
        assert_eq!(cmp.rows[0].base, 10.0);
    }

    #[test]
    fn rows_sort_significant_first_then_by_size() {
        let ids = [("a", 1001.0), ("b", 1100.0), ("c", 950.0), ("d", 999.5)];
        let base = record(
            "b",
            ids.iter()
                .map(|(id, _)| with_icount(scenario(id), 1000.0))
                .collect(),
        );
        let cand = record(
            "c",
            ids.iter()
                .map(|(id, v)| with_icount(scenario(id), *v))
                .collect(),
        );
        let cmp = compare(&base, &cand, &opts());
        let order: Vec<&str> = cmp
            .sorted_rows(Instrument::Icount)
            .iter()
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(order, ["b", "c", "a", "d"]);
        assert_eq!(cmp.sorted_rows(Instrument::Walltime), Vec::<&Row>::new());
        assert_eq!(cmp.summary(), "1 regression, 1 improvement, 2 unchanged");
        assert!(cmp.has_regression());
    }

    #[test]
    fn improvements_alone_are_not_regressions() {
        let base = record("b", vec![with_icount(scenario("x"), 10.0)]);
        let cand = record("c", vec![with_icount(scenario("x"), 5.0)]);
        let cmp = compare(&base, &cand, &opts());
        assert_eq!(cmp.count(Verdict::Improvement), 1);
        assert!(!cmp.has_regression() && !cmp.has_failures());
    }

    #[test]
    fn option_validation() {
        assert!(opts().validate().is_ok());
        let bad = [
            CompareOptions {
                icount_threshold_pct: -1.0,
                ..opts()
            },
            CompareOptions {
                walltime_threshold_pct: f64::NAN,
                ..opts()
            },
            CompareOptions {
                resamples: 10,
                ..opts()
            },
            CompareOptions {
                confidence: 1.0,
                ..opts()
            },
            CompareOptions {
                confidence: 95.0,
                ..opts()
            },
        ];
        for o in bad {
            assert!(o.validate().is_err(), "{o:?}");
        }
    }

    #[test]
    fn formatting_helpers() {
        assert_eq!(fmt_change(0.5), "+0.50 %");
        assert_eq!(fmt_change(-12.345), "-12.35 %");
        assert_eq!(fmt_change(f64::INFINITY), "+inf %");
        assert_eq!(fmt_threshold(0.2), "0.2 %");
        assert_eq!(fmt_threshold(5.0), "5 %");
        assert_eq!(fmt_confidence(0.95), "95 %");
        assert_eq!(fmt_confidence(0.9), "90 %");
        assert_eq!(fmt_confidence(0.975), "97.5 %");
        assert_eq!(Instrument::Icount.fmt_value(2003.0), "2003 Ir");
        assert_eq!(Instrument::Walltime.fmt_value(12.345), "12.35 ns");
    }

    /// Writes `content` (if any) as `run.json` in a fresh directory and loads it.
    fn load(content: Option<&str>) -> (tempfile::TempDir, Result<RunRecord>) {
        let dir = tempfile::tempdir().expect("tempdir");
        if let Some(c) = content {
            std::fs::write(dir.path().join("run.json"), c).expect("write run.json");
        }
        let r = load_run(dir.path());
        (dir, r)
    }

    #[test]
    fn load_run_reads_what_the_runner_writes() {
        let run = record("b", vec![with_icount(scenario("x"), 10.0)]);
        let json = serde_json::to_string_pretty(&run).unwrap();
        let (dir, loaded) = load(Some(&json));
        assert_eq!(loaded.unwrap(), run);
        // The file itself may be named instead of its directory.
        let file = dir.path().join("run.json");
        assert_eq!(load_run(&file).unwrap(), run);
        // Loading does not touch the input.
        assert_eq!(std::fs::read_to_string(&file).unwrap(), json);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn load_run_errors_name_the_file_and_the_problem() {
        let valid = serde_json::to_value(record("b", vec![])).unwrap();
        let with = |key: &str, v: serde_json::Value| {
            let mut j = valid.clone();
            j[key] = v;
            j.to_string()
        };
        let without = |key: &str| {
            let mut j = valid.clone();
            j.as_object_mut().unwrap().remove(key);
            j.to_string()
        };
        let newer = {
            // A newer record may also have changed fields: the version is what is reported.
            let mut j = valid.clone();
            j["schema_version"] = 99.into();
            j.as_object_mut().unwrap().remove("results");
            j.to_string()
        };
        // (run.json content, or none; fragments the error must contain)
        let cases: Vec<(Option<String>, Vec<&str>)> = vec![
            (
                None,
                vec!["not a costbench output directory: no run.json in "],
            ),
            (
                Some("{\n  \"schema\": \"costbench-run\",\n  oops".into()),
                vec!["run.json is not valid JSON", "line 3 column 3"],
            ),
            (Some(String::new()), vec!["is not valid JSON", "EOF"]),
            (
                Some("[1, 2]".into()),
                vec!["run.json is not a costbench run record", "line 1 column"],
            ),
            (
                Some(with("schema", "criterion".into())),
                vec![
                    "not a costbench run record (schema \"criterion\", expected \"costbench-run\")",
                ],
            ),
            (
                Some(without("schema")),
                vec!["not a costbench run record (no \"schema\" field)"],
            ),
            (
                Some(newer),
                vec![
                    "run.json was written by a newer costbench (schema version 99); \
                     this costbench reads up to 1",
                ],
            ),
            (
                Some(with("schema_version", 0.into())),
                vec!["unknown schema version 0"],
            ),
            (
                Some(without("schema_version")),
                vec!["no \"schema_version\" field"],
            ),
            (
                Some(without("results")),
                vec![
                    "run.json is not a valid costbench run record",
                    "missing field `results`",
                ],
            ),
        ];
        for (content, wants) in cases {
            let (dir, r) = load(content.as_deref());
            let err = format!("{:#}", r.expect_err("must fail"));
            for want in wants {
                assert!(err.contains(want), "{err:?} lacks {want:?}");
            }
            let named = dir.path().display().to_string();
            assert!(err.contains(&named), "{err:?} does not name {named}");
        }
        // A directory that does not exist at all reads the same as one without run.json.
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("nope");
        let err = format!("{:#}", load_run(&gone).unwrap_err());
        assert!(
            err.contains("no run.json in") && err.contains("nope"),
            "{err}"
        );
    }
}
