//! Reports: pure functions from run records to text.

pub mod bmf;
pub mod counters;
pub mod history;
pub mod html;
pub mod markdown;
pub mod terminal;
