//! Reports: pure functions from run records to text.

pub mod terminal;
