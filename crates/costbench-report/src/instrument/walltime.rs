//! The walltime instrument's slice of the reports: the threshold `compare`'s table says its
//! unchanged rows were within. Its other rows are still written by the renderers themselves
//! (`counters`, `html::scenario`, `terminal`), as before the slices.

use super::Slice;

/// Its slice: the wall-time threshold the rows were held against (paired, history's or the default) in `compare`'s summary of unchanged rows.
pub(super) const SLICE: Slice = Slice {
    within: Some(|c| c.walltime_threshold()),
    ..Slice::NONE
};
