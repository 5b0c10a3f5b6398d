//! The shape of what an instrument's slice says of its history series in the HTML report's
//! gathering (`core::page`): the threshold a series too short to learn one from is judged
//! against, where it is not the comparison's default (`ShortHistory`). The page asks the
//! slices' list (`super::SHORT_HISTORY`) and names no instrument.

use costbench_record::instrument::Figure;

/// The threshold of a history series of one figure when the series is too short to learn one.
pub(crate) struct ShortHistory {
    /// The figure whose series it judges.
    pub figure: Figure,
    /// The threshold, percent (infinite: nothing crosses it).
    pub threshold_pct: f64,
    /// Where it came from, as the page says it.
    pub from: &'static str,
}
