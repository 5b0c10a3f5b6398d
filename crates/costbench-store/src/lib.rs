//! The history of costbench runs behind one small interface, the [`Store`] trait, so that the
//! embedded SQLite default ([`sqlite`]) and a shared PostgreSQL server ([`postgres`]) stand in
//! for each other. [`Location`] names one of them (`--db PATH` or `--db postgres://…`) and opens
//! it; [`migrations`] keeps both schemas at the same version.
//!
//! A store keeps whole run records (self-describing, keyed by their run id, so that records
//! from many machines merge without conflicts) plus an index of per-op figures for series
//! queries. It owns the history database (a file, or costbench's schema on a server) and
//! nothing else: it never computes statistics (`costbench-judge` does that), spawns no processes
//! and prints nothing (save the test-only `pg_cluster`, which starts a throwaway server for the
//! tests of this crate and the cli); the run record it keeps is `costbench-record`'s.

#![warn(missing_docs)]

mod location;
pub mod migrations;
#[cfg(any(test, feature = "test-cluster"))]
pub mod pg_cluster;
pub mod postgres;
pub mod sqlite;
mod store;
#[cfg(test)]
mod tests;
mod url;

pub use location::Location;
pub use store::{RunQuery, Store};
