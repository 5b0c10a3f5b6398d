//! The crate's own tests, run on the scratch copy with a candidate applied: a change that
//! compiles and breaks what the crate tests is reported as such and never measured. What to
//! spawn (`cargo test` on the package, cargo's default test targets: library, binaries,
//! integration tests, examples built, doc tests; never the benches) and how to read its outcome.

use crate::cargo::{BenchTarget, CargoFlags};
use anyhow::{Context, Result};
use std::time::Instant;

/// Build directory (`TARGET/costbench/build/NAME`) the tests compile in, shared by the unchanged
/// copy and every candidate (only the edited crate is compiled again).
pub const TEST_BUILD: &str = "advise-test";

/// How a test run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TestRun {
    /// Whether every test passed (cargo exited 0).
    pub passed: bool,
    /// What cargo printed last (errors, failed tests), at most 40 lines.
    pub tail: String,
    /// Seconds it took, build included.
    pub seconds: f64,
}

/// Runs `cargo test` on `target`'s package (its features as `flags` give them).
pub fn run(target: &BenchTarget, flags: &CargoFlags) -> Result<TestRun> {
    let started = Instant::now();
    let out = super::cargo_on_package(&["test", "--quiet"], target, flags, TEST_BUILD)
        .current_dir(&target.package_dir)
        .output()
        .context("cannot run `cargo test` on advise's scratch copy")?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(TestRun {
        passed: out.status.success(),
        tail: tail(&text, 40),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The last `n` non-empty lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tail_keeps_the_last_lines() {
        assert_eq!(super::tail("a\n\nb\nc\n", 2), "b\nc");
        assert_eq!(super::tail("a\n", 5), "a");
    }
}
