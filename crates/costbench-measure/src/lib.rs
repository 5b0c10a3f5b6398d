//! costbench's measuring layer: everything that spawns a process or reads a clock.
//!
//! `cargo` builds bench targets and finds manifests; `run` schedules scenarios and supervises
//! every child (one supervisor, `run::child`; how a child ended is `ending`'s), interleaving the
//! two builds of a paired check; `instrument` owns the instruments, one folder each of one shape
//! (`mod.rs`: what to spawn; `parse.rs`: how to read what it wrote) and the registry that says
//! how each runs (a folder also holds what its instrument reads beforehand: the guards left in a
//! binary, say); `miri` runs scenarios under
//! Miri and reads its verdicts; `variants` builds one suite under several build choices;
//! `config` reads `costbench.toml`; `environment` describes the machine; `elf` loads a binary
//! (sections, function symbols, callees) for whatever reads one; `size` reads a bench binary's
//! size (sections, and code by crate); `advise` finds candidate source changes
//! (clippy's suggestions) and applies each in a scratch copy of the user's sources.
//!
//! It stands on `costbench-record` (what a run is) and `costbench-judge` (the paired-interval
//! rules that decide when adaptive measurement may stop), and knows nothing of the command line,
//! of history or of reports: it returns records, and the caller decides what to print and store.
//! Its only output of its own is progress and warnings on stderr.

#![warn(missing_docs)]

pub mod advise;
pub mod asm;
pub mod build_output;
pub mod cargo;
pub mod config;
pub mod elf;
pub mod ending;
pub mod environment;
pub mod explain;
pub mod instrument;
pub mod miri;
pub mod run;
pub mod size;
pub mod terminal;
pub mod variants;
