//! The icount instrument's slice of the reports: the threshold `compare`'s table says its
//! unchanged rows were within. Its other rows are still written by the renderers themselves
//! (`counters`, `html::scenario`, `terminal`), as before the slices.

use super::Slice;
use costbench_record::fmt::fmt_threshold;

/// Its slice: the instruction-count threshold in `compare`'s summary of unchanged rows.
pub(super) const SLICE: Slice = Slice {
    within: Some(|c| fmt_threshold(c.options.icount_threshold_pct)),
    ..Slice::NONE
};
