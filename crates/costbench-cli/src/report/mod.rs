//! Reports: pure functions from run records, comparisons and Miri reports to text.

pub mod bmf;
pub mod census;
pub mod check;
pub mod comparison;
pub mod counters;
pub mod escape;
pub mod history;
pub mod html;
pub mod markdown;
pub mod miri;
pub mod table;
pub mod terminal;
pub mod variants;
