//! Reports: pure functions from run records to text.

pub mod history;
pub mod terminal;
