//! `costbench advise`: finding candidate changes of the user's crate and preparing each to be
//! measured alone. Build choices are `variants`' (its `build-choices` preset); this module owns
//! the source changes:
//!
//! - `tree`: the scratch copy of the user's sources the changes are applied in (the user's
//!   checkout is never written to), with a guard that puts a file back after its candidate;
//! - `clippy`: what to spawn (`cargo clippy --message-format=json` with the `perf` group and
//!   the lints of the classic slow idioms) and how to read it (the machine-applicable
//!   suggestions);
//! - `edit`: a suggestion's replacements applied to a file's text and shown as a unified diff
//!   (pure).
//!
//! Measuring and judging are the caller's: it builds the unchanged copy and each candidate
//! (`cargo::build_timed`), measures the two as a paired pair (`run::measure_sides`), and judges
//! them (`costbench_judge::compare`, then `costbench_judge::advice`).

pub mod clippy;
pub mod edit;
pub mod tree;

/// Build directory (`TARGET/costbench/build/NAME`) of the unchanged copy.
pub const BASE_BUILD: &str = "advise-base";
/// Build directory of each candidate in turn (one at a time: a candidate is measured before the
/// next is built).
pub const CANDIDATE_BUILD: &str = "advise-candidate";
