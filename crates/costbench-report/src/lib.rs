//! Reports of costbench: pure functions from run records ([`terminal`], [`counters`],
//! [`bmf`]), comparisons and the gate's verdict ([`comparison`], [`markdown`],
//! [`check`], the functions behind a change in [`movers`] and the machine code
//! in [`asm`], JUnit XML in [`junit`], GitHub Actions' workflow commands in [`github`]), history
//! ([`history`]), the variant matrix ([`variants`]), Miri's report
//! ([`miri`]) and the advice of `advise` ([`advice`]) to text, and the self-contained HTML page
//! ([`html`]). Each instrument's rows in those reports are its slice's (`instrument`, one
//! module per instrument of the registry), which the renderers loop over. [`render`] is the output
//! layer over them: the registry of formats, one renderer per format with a hook per document,
//! and the documents the runner prints and writes. [`table`] aligns terminal tables; [`escape`] keeps recorded
//! strings from breaking the terminal; [`style`] colours terminal text when the caller asks for
//! it.
//!
//! Every function here takes `costbench-record`'s model and `costbench-judge`'s verdicts and
//! returns a `String` (or a JSON value). Nothing here reads files, spawns processes, reads
//! clocks, parses command lines or prints: gathering the inputs (output directories, history,
//! the binaries read) and writing the text out is the runner's job. The CSV files of an
//! output directory are the record crate's, below the measuring crate that writes them during a
//! run.

#![warn(missing_docs)]

pub mod advice;
pub mod asm;
pub mod backfill;
pub mod bmf;
pub mod budget;
pub mod changes;
pub mod check;
pub mod comparison;
pub mod counters;
pub mod dashboard;
pub mod escape;
pub mod github;
pub mod history;
pub mod html;
mod instrument;
pub mod junit;
pub mod markdown;
pub mod miri;
pub mod movers;
pub mod render;
pub mod style;
pub mod table;
pub mod terminal;
pub mod variants;
