//! Where instruction counts keep callgrind's output of a measured id in an output directory
//! (their registry entry's `kept`): for the measuring phase that writes it, `merge`, which
//! copies it from each shard, and `advise`, which reads it.

use crate::instrument::Instrument;
use crate::output::OutputDir;
use std::path::PathBuf;

impl OutputDir {
    /// Where the callgrind output for `id` is kept: (full path, path relative to the root). The
    /// directory is made by [`prepare`](Self::prepare).
    pub fn callgrind_paths(&self, id: &str) -> (PathBuf, String) {
        self.kept_paths(Instrument::Icount, id)
            .expect("icount keeps its files")
    }
}
