//! The costbench run record and the files of an output directory: the model every other layer
//! of the runner reads and writes.
//!
//! It owns the vocabulary of instruments, one enum with one descriptor each from which the
//! others derive ([`instrument`]), the serde documents and their schemas ([`model`]: the run record, scenario ids,
//! per-op figures, Miri's report; [`profile`]: a callgrind profile's per-function costs; [`asm`]: a function's machine code with
//! its executions), the
//! descriptive summary of a figure's samples ([`stats`]), the spelling of numbers
//! shared by verdicts and reports ([`fmt`]), which listed scenarios a filter selects
//! ([`selection`]), which shard of a sharded run measures which scenario ([`shard`]), how
//! the shards' output directories become one run ([`merge`]), the plain data of the history of runs
//! ([`history`]) and of a build variant ([`variant`]), and the output directory: writing `run.json` and its CSV files atomically
//! and reading `run.json` back with its schema checks ([`output`]) with the CSV tables of the run
//! record ([`csv`]), which the measuring crate rewrites after every scenario.
//!
//! [`error::BadInput`] marks an error in what the caller asked for, which the command line
//! reports as a usage error.
//! A hidden hook for the reliability tests kills the process at named points ([`fault`]).
//!
//! It must stay data: serde, files of the output directory, pure functions. No processes, no
//! clocks, no terminal, no statistics beyond the summary of one sample set (judging lives in
//! `costbench-judge`), and no dependency on any costbench crate but the protocol.
//!
//! With the `testing` feature, `testing` builds run records in code for the tests of this
//! crate and of the crates above it.

#![warn(missing_docs)]

pub mod asm;
pub mod csv;
pub mod error;
#[doc(hidden)]
pub mod fault;
pub mod fmt;
pub mod history;
pub mod instrument;
pub mod merge;
pub mod model;
pub mod output;
pub mod profile;
pub mod selection;
pub mod shard;
pub mod stats;
pub mod variant;

#[cfg(any(test, feature = "testing"))]
pub mod testing;
