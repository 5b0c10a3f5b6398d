//! costbench's measuring layer: everything that spawns a process or reads a clock.
//!
//! `cargo` builds bench targets and finds manifests; `run` schedules scenarios and supervises
//! every child (one supervisor, `run::child`), interleaving the two builds of a paired check;
//! `measure` owns the instruments, one module each of one shape (what to spawn, how to read what
//! it wrote: callgrind, DHAT, perf, wall time, the cache simulation); `census` finds the bounds
//! and overflow checks left in a binary and joins them with callgrind's per-instruction counts;
//! `miri` runs scenarios under Miri and reads its verdicts; `variants` builds one suite under
//! several build choices; `config` reads `costbench.toml`; `environment` describes the machine.
//!
//! It stands on `costbench-record` (what a run is) and `costbench-judge` (the paired-interval
//! rules that decide when adaptive measurement may stop), and knows nothing of the command line,
//! of history or of reports: it returns records, and the caller decides what to print and store.
//! Its only output of its own is progress and warnings on stderr.

pub mod build_output;
pub mod cargo;
pub mod census;
pub mod config;
pub mod environment;
pub mod measure;
pub mod miri;
pub mod run;
pub mod terminal;
pub mod variants;
