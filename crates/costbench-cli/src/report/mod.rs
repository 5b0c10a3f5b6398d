//! Reports: pure functions from run records (and Miri reports) to text.

pub mod bmf;
pub mod counters;
pub mod history;
pub mod html;
pub mod markdown;
pub mod miri;
pub mod terminal;
