//! The judge's slices of the instruments: one module per instrument that has something to judge
//! of its own, named like its folder in the registry (`costbench_record::for_each_instrument!`):
//! how the rows of each kind of compared figure are judged (`Judging`, chosen by the kind the
//! figure's spec in the record crate names, `Judged`): exact counts and instruction counts'
//! placement verdicts ([`icount`]), max RSS ([`memory`]), wall time's paired and separate-run
//! statistics ([`walltime`]) and figures under load ([`throughput`]); constant time's findings
//! accepted by costbench.toml ([`consttime`]) and the census's diff of the checks two runs
//! executed ([`census`]), which explains a comparison's changes. The comparison (`compare`)
//! asks these hooks and names no instrument; nothing else in this crate names an instrument's
//! findings.
//!
//! What the slices share with the layers ([`Allowances`]): the entries of costbench.toml that
//! accept an instrument's findings, which findings of a run they accept, and which entries
//! matched none. The layers hold them and call these hooks, naming no instrument. The sections
//! of costbench.toml the slices own are declared into the file's type by
//! [`with_instrument_sections!`](crate::with_instrument_sections!) and read by them, with the
//! lines their entries start on:
//!
//! ```toml
//! [[constant-time.allow]] # a reviewed constant-time finding: reported, not failing
//! scenario = "leak/*"     # glob over measured ids; default "*"
//! at = "benches/ct.rs:27" # FILE:LINE, FILE or a function name (see consttime)
//! kind = "address"        # optional: only "branch" or only "address" findings there
//! why = "reviewed: ..."   # required, shown in every report
//! ```

pub mod census;
pub mod consttime;
pub mod icount;
pub mod memory;
pub mod throughput;
pub mod walltime;

use crate::compare::judge::{Judgement, Pair};
use crate::compare::types::{CompareOptions, Row};
use costbench_record::history::Metric;
use costbench_record::instrument::{Figure, Instrument, Judged};
use costbench_record::model::budget::BudgetFigure;
use costbench_record::model::{RunRecord, ScenarioResult};

/// How the rows of one kind of compared figure are judged: the hooks the comparison calls for
/// each row whose figure's spec names that kind ([`judging`]).
pub(crate) struct Judging {
    /// The threshold of its figures where history has not learned one, from the options.
    pub threshold_pct: fn(&CompareOptions) -> f64,
    /// The lowest threshold history can set for its figures, percent (`compare::noise`).
    pub history_floor_pct: f64,
    /// Whether a threshold history learns for its figures is at least the largest change
    /// between consecutive runs its window shows, beside Q3 + 3·IQR.
    pub history_at_least_largest: bool,
    /// The threshold (percent) of a history series of its figures too short to learn one, and
    /// where it came from, where that is not the options' default (`compare::noise::series`).
    pub short_history: Option<(f64, &'static str)>,
    /// Judges one row: its verdict, or one the second pass over the paired rows decides.
    pub judge: fn(&Pair<'_>) -> Outcome,
    /// A change of a scenario's setup between the two runs that concerns its figures alone
    /// ("clock monotonic → thread-cpu"): said among the comparison's setup changes and in its
    /// rows' notes.
    pub setup: Option<fn(&ScenarioResult, &ScenarioResult) -> Option<String>>,
}

/// What judging one row gave.
pub(crate) enum Outcome {
    /// Its verdict.
    Judged(Judgement),
    /// Rounds of a session paired with the other side: unresolved until the second pass over
    /// every paired row of the comparison ([`finish`]) judges them together.
    Paired(Judgement, walltime::rounds::Rounds),
}

/// How figures of `kind` are judged.
pub(crate) fn judging(kind: Judged) -> &'static Judging {
    match kind {
        Judged::Exact => &icount::JUDGING,
        Judged::Rss => &memory::JUDGING,
        Judged::Walltime => &walltime::JUDGING,
        Judged::UnderLoad => &throughput::JUDGING,
    }
}

/// The kinds of judging, in the order their setup changes are said.
const KINDS: [Judged; 4] = [
    Judged::Exact,
    Judged::Rss,
    Judged::Walltime,
    Judged::UnderLoad,
];

/// The changes of a scenario's setup between `b` and `c` that concern one kind of figure
/// ([`Judging::setup`]), each with the kind it concerns.
pub(crate) fn setup_changes(b: &ScenarioResult, c: &ScenarioResult) -> Vec<(Judged, String)> {
    KINDS
        .into_iter()
        .filter_map(|k| Some((k, judging(k).setup?(b, c)?)))
        .collect()
}

/// The last passes over a comparison's rows, once every row has been judged: the paired rows
/// together (`pending`: each one's index and rounds; the family's error control needs them
/// all), then the placement verdicts of times whose instructions did not move.
pub(crate) fn finish(
    rows: &mut [Row],
    pending: &[(usize, walltime::rounds::Rounds)],
    opts: &CompareOptions,
) {
    walltime::rounds::judge_paired(rows, pending, opts);
    icount::placement::mark_placement(rows, &[]);
}

/// The per-run difference at or below which two values of an exact series are one level, in
/// the metric's unit per run (`changes::Options::exact_tolerance`'s default): what its slice
/// allows (instruction counts, the harness residual), else none.
pub(crate) fn exact_tolerance(metric: Metric) -> f64 {
    icount::exact_tolerance(metric).unwrap_or(0.0)
}

/// The series a series of paired steps stands for (`history changes` judges the steps, not the
/// medians they pair), if `steps` is one: its slice says.
pub(crate) fn stands_for(steps: Metric) -> Option<Metric> {
    walltime::stands_for(steps)
}

/// A budget figure of one measured id, as the slice of the instrument that measures it
/// (`BudgetFigure::instrument`) reads it; `None` when the run did not measure it.
pub(crate) fn budget_value(r: &ScenarioResult, figure: BudgetFigure) -> Option<f64> {
    match Instrument::from_name(figure.instrument()?)? {
        Instrument::Icount => icount::budget_value(r),
        Instrument::Memory => memory::budget_value(r, figure),
        Instrument::Census => census::budget_value(r),
        _ => None,
    }
}

/// The ids whose changes a comparison explains (functions that moved, the census's checks,
/// machine code), in its rows' order: those whose instruction counts changed significantly or
/// with placement ([`icount::explained`]).
pub(crate) fn explained(cmp: &crate::compare::types::Comparison) -> Vec<String> {
    icount::explained(cmp)
}

/// The defaults and fixed thresholds of a comparison's options, each the slice's that judges
/// the figures they are for (and says why they are what they are); re-exported as
/// `compare::DEFAULT_*`, where the command line reads them.
pub mod defaults {
    pub use super::icount::DEFAULT_ICOUNT_THRESHOLD_PCT;
    pub use super::memory::RSS_THRESHOLD_PCT;
    pub use super::throughput::DEFAULT_LOAD_THRESHOLD_PCT;
    pub use super::walltime::{
        DEFAULT_CONFIDENCE, DEFAULT_FAMILY_ALPHA, DEFAULT_PAIRED_CONFIDENCE,
        DEFAULT_PAIRED_WALLTIME_THRESHOLD_PCT, DEFAULT_RESAMPLES, DEFAULT_SEED,
        DEFAULT_WALLTIME_THRESHOLD_PCT, MIN_WALLTIME_SAMPLES,
    };
}

/// The options' defaults ([`defaults`]).
impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            icount_threshold_pct: icount::DEFAULT_ICOUNT_THRESHOLD_PCT,
            walltime_threshold_pct: walltime::DEFAULT_WALLTIME_THRESHOLD_PCT,
            paired_walltime_threshold_pct: walltime::DEFAULT_PAIRED_WALLTIME_THRESHOLD_PCT,
            load_threshold_pct: throughput::DEFAULT_LOAD_THRESHOLD_PCT,
            paired_confidence: walltime::DEFAULT_PAIRED_CONFIDENCE,
            resamples: walltime::DEFAULT_RESAMPLES,
            confidence: walltime::DEFAULT_CONFIDENCE,
            seed: walltime::DEFAULT_SEED,
            error_control: walltime::family::ErrorControl::Holm,
            family_alpha: walltime::DEFAULT_FAMILY_ALPHA,
        }
    }
}

impl CompareOptions {
    /// The threshold of `figure` where history has not learned one: the options' threshold for
    /// the way it is judged ([`Figure::judged`]).
    pub fn threshold_pct(&self, figure: Figure) -> f64 {
        (judging(figure.judged()).threshold_pct)(self)
    }
}

/// The entries of costbench.toml that accept the instruments' findings (reviewed ones: still
/// reported, never failing), each slice's own, as the file's reader read them.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Allowances {
    /// `[[constant-time.allow]]`.
    pub consttime: Vec<consttime::Allow>,
}

impl Allowances {
    /// Marks every finding of `record` that an entry matches as accepted (after measuring);
    /// what the record accepted before stands where no entry matches.
    pub fn accept(&self, record: &mut RunRecord) {
        consttime::accept(record, &self.consttime);
    }

    /// [`accept`](Self::accept) with these entries alone deciding (`check` on a record measured
    /// earlier): an entry removed since no longer accepts.
    pub fn decide(&self, record: &mut RunRecord) {
        consttime::decide(record, &self.consttime);
    }

    /// A warning for each entry that matched no finding of `record` although its instrument
    /// checked the ids it names: like an unfulfilled expectation, said, never failing.
    pub fn stale_warnings(&self, record: &RunRecord) -> Vec<String> {
        consttime::stale(record, &self.consttime)
            .into_iter()
            .map(consttime::stale_warning)
            .collect()
    }
}

/// Declares the type of costbench.toml (`struct NAME { BEFORE } { AFTER }`) with the sections
/// the instruments' slices own between the fields `BEFORE` and `AFTER` (the order serde's errors
/// list the keys in), and two methods on it: `allowances`, the entries that accept findings
/// ([`Allowances`]), and `read_sections(text, file_name)`, which names each entry after the line
/// of `text` its table starts on and validates it (an error names the entry so).
#[macro_export]
macro_rules! with_instrument_sections {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($before:tt)* } { $($after:tt)* }) => {
        $(#[$meta])*
        $vis struct $name {
            $($before)*
            /// `[constant-time]`: the `[[constant-time.allow]]` entries, each named
            /// `costbench.toml:LINE` after the line its table starts on.
            #[serde(default, rename = "constant-time")]
            pub constant_time: $crate::instrument::consttime::ConstantTimeConfig,
            $($after)*
        }

        impl $name {
            /// The entries that accept the instruments' findings, for the run's options and the
            /// gate.
            pub fn allowances(&self) -> $crate::instrument::Allowances {
                $crate::instrument::Allowances {
                    consttime: self.constant_time.allow.clone(),
                }
            }

            /// Names each entry of the instruments' sections after the line of `text` (the file
            /// `file_name`) its table starts on, and validates it.
            fn read_sections(&mut self, text: &str, file_name: &str) -> ::anyhow::Result<()> {
                $crate::instrument::consttime::read(&mut self.constant_time, text, file_name)
            }
        }
    };
}
