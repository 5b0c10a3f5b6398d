//! Profilers criterion starts around a benchmark's samples (accepted, never started here).

use std::path::Path;

/// criterion's profiler hook. costbench never calls it: its profiles come from
/// callgrind (`callgrind/` in the output directory).
pub trait Profiler {
    /// Would start profiling the benchmark `benchmark_id`.
    fn start_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
    /// Would stop profiling it.
    fn stop_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
}
