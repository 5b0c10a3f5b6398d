//! Reports: `costbench-report`'s renderers under the paths this crate has always used
//! (`crate::report::terminal`, `crate::report::html`, ...), plus the variant matrix's text.
//!
//! `variants` stays here until the matrix it renders ([`crate::variants::matrix`], whose
//! columns carry `variants::spec`'s parsed settings) moves below the runner.

pub use costbench_report::*;

pub mod variants;
