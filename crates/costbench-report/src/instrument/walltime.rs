//! The walltime instrument's slice of the reports: none yet. Its rows are still written by the
//! renderers themselves (`counters`, `html::scenario`, `terminal`), as before the slices.

use super::Slice;

/// Its slice.
pub(super) const SLICE: Slice = Slice::NONE;
