//! Memory's slice of the judge: the process's max RSS, exact in kind but judged against a
//! threshold of its own (its allocation figures are exact counts, judged as instruction counts
//! are: [`icount`](super::icount)), and its figures a budget limits.
//!
//! Pure.

use super::{Judging, Outcome};
use costbench_record::model::budget::BudgetFigure;
use costbench_record::model::ScenarioResult;

/// Threshold for max RSS, in percent: RSS moves by whole pages and with the loader's and
/// allocator's arenas, so a few percent is noise.
pub const RSS_THRESHOLD_PCT: f64 = 5.0;

/// How max RSS is judged (`Judged::Rss`): as an exact figure, against [`RSS_THRESHOLD_PCT`];
/// history's floor 1 %.
pub(super) const JUDGING: Judging = Judging {
    threshold_pct: |_| RSS_THRESHOLD_PCT,
    history_floor_pct: 1.0,
    history_at_least_largest: false,
    short_history: None,
    judge: |p| Outcome::Judged(super::icount::exact(p)),
    setup: None,
};

/// Its budget figures (`allocations`, `bytes`, `peak-heap`): allocations and bytes allocated per
/// op, and the peak of live heap bytes.
pub(super) fn budget_value(r: &ScenarioResult, figure: BudgetFigure) -> Option<f64> {
    let alloc = r
        .counters
        .memory
        .as_ref()
        .and_then(|m| m.allocations.as_ref())?;
    match figure {
        BudgetFigure::Allocations => Some(alloc.allocs_per_op),
        BudgetFigure::Bytes => Some(alloc.bytes_allocated_per_op),
        BudgetFigure::PeakHeap => Some(alloc.peak_live_bytes as f64),
        _ => None,
    }
}
