//! Talking to cargo: find the bench target (`cargo metadata`), read the features it and its
//! dependencies offer, and build it (`cargo rustc --profile bench`, or the user's `--profile`,
//! with the user's feature and lock-file flags and a build variant's settings), returning the
//! executable's path.
//!
//! Builds go to their own target directory (`TARGET/costbench/build/VARIANT`) with debug line
//! tables forced on, so that costbench's profile settings never invalidate the user's own builds,
//! variants never rebuild each other, and callgrind can name source lines.
//!
//! The bench target itself is compiled with `-C save-temps --print link-args`: rustc keeps its
//! objects and prints the command it linked them with, which cargo passes through to stdout. The
//! command is kept beside the executable (`EXE.link-args`, see `run::layout`) so that interleaved
//! wall time can relink the same objects in other code layouts in a fraction of a second. Every
//! build uses this one invocation: the extra rustc arguments are part of cargo's fingerprint, so
//! two commands building into one directory with and without them would rebuild each other.

//!
//! `metadata` finds the target and what it offers; `build` builds it.

mod build;
mod checkout;
pub mod compat;
mod metadata;
mod required;
mod select;

pub use build::{
    build, build_all_timed, build_timed, build_with, cargo_for, BuildError, BuildSettings, Built,
    BuiltBench, CargoFlags, CodeAlign, DEFAULT_BUILD, DEFAULT_PROFILE,
};
pub use checkout::Checkout;
pub use metadata::{
    costbench_dir, dependency_features, features, target_directory, workspace, BenchTarget,
    Features, LockFlags,
};
pub use select::{resolve, resolve_buildable};
