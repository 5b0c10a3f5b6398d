//! The report's charts, as plain SVG generated here: a distribution of samples (box plot with
//! every sample as a dot), a history line chart with its significance band, a heat map of
//! ratios, latency percentile lines of service scenarios under load, the differential flame
//! graph of a flagged scenario's call paths, and the log-log plot of a family of sized
//! scenarios with its fitted curve, one file each, on the
//! scale and axis they share (`scale`). No plotting library: the charts are simple, and plain
//! SVG keeps the binary small and the page free of scripts and fonts from elsewhere.
//!
//! Every chart's root `<svg>` carries `data-chart` (its kind) and `data-series` (how many series
//! it draws): stable hooks for tests and for readers' own scripts. Text passes through
//! [`escape`](super::escape::escape); numbers are written by this module.

mod distribution;
mod flame;
mod heatmap;
mod history;
mod loglog;
mod percentiles;
mod scale;

pub use distribution::{distribution, Distribution};
pub use flame::{flame, Flame, FLAME_W, MIN_PX};
pub use heatmap::{heatmap, Cell};
pub use history::{history, HistoryPoint};
pub use loglog::{loglog, LogLogSeries};
pub use percentiles::{percentiles, PercentileLine};
