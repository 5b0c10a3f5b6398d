//! Memory's slice of the judge: the process's max RSS, exact in kind but judged against a
//! threshold of its own (its allocation figures are exact counts, judged as instruction counts
//! are: [`icount`](super::icount)).
//!
//! Pure.

use super::{Judging, Outcome};

/// Threshold for max RSS, in percent: RSS moves by whole pages and with the loader's and
/// allocator's arenas, so a few percent is noise.
pub const RSS_THRESHOLD_PCT: f64 = 5.0;

/// How max RSS is judged (`Judged::Rss`): as an exact figure, against [`RSS_THRESHOLD_PCT`];
/// history's floor 1 %.
pub(super) const JUDGING: Judging = Judging {
    threshold_pct: |_| RSS_THRESHOLD_PCT,
    history_floor_pct: 1.0,
    history_at_least_largest: false,
    judge: |p| Outcome::Judged(super::icount::exact(p)),
    setup: None,
};
