//! Wall time's history series on the HTML page: a series too short to learn a threshold from
//! has none at all.

use crate::instrument::history::ShortHistory;
use costbench_record::instrument::Figure;

/// Wall time of separate runs without enough history has no threshold at all (infinite:
/// nothing crosses it), as `compare` gives it no verdict.
pub(crate) const SHORT_HISTORY: ShortHistory = ShortHistory {
    figure: Figure::Walltime,
    threshold_pct: f64::INFINITY,
    from: "history too short to judge wall time between runs",
};
