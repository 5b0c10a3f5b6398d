//! `costbench advise`: finding candidate changes of the user's crate and preparing each to be
//! measured alone. Build choices are `variants`' (its `build-choices` preset); this module owns
//! the source changes:
//!
//! - `tree`: the scratch copy of the user's sources the changes are applied in (the user's
//!   checkout is never written to), with a guard that puts a file back after its candidate;
//! - `clippy`: what to spawn (`cargo clippy --message-format=json` with the `perf` group and
//!   the lints of the classic slow idioms) and how to read it (the machine-applicable
//!   suggestions);
//! - `idioms`: the slow idioms no linter flags, found by reading the sources (`syn`) and
//!   rewritten where the rewrite is mechanical;
//! - `crate_tests`: the crate's own tests, run on the copy with a candidate applied;
//! - `reach`: which scenarios execute the code a change touches, from the unchanged copy's
//!   callgrind profiles, and its share of their cost;
//! - `unchecked`: a hot bounds check removed (`get_unchecked`), the upper bound of its cost;
//! - `edit`: a suggestion's replacements applied to a file's text and shown as a unified diff
//!   (pure).
//!
//! Measuring and judging are the caller's: it builds the unchanged copy and each candidate
//! (`cargo::build_timed`), measures the two as a paired pair (`run::measure_sides`), and judges
//! them (`costbench_judge::compare`, then `costbench_judge::advice`).

pub mod clippy;
pub mod crate_tests;
pub mod edit;
pub mod idioms;
pub mod reach;
pub mod tree;
pub mod unchecked;

use edit::Replacement;

/// `cargo ARGS` on `target`'s package (its manifest, its package, the features and lock flags of
/// `flags`), building into `TARGET/costbench/build/BUILD`, a build directory of advise's own:
/// how advise runs the crate's tests and clippy.
fn cargo_on_package(
    args: &[&str],
    target: &crate::cargo::BenchTarget,
    flags: &crate::cargo::CargoFlags,
    build: &str,
) -> std::process::Command {
    let mut cmd = crate::cargo::cargo_for(None);
    cmd.args(args)
        .arg("--manifest-path")
        .arg(&target.manifest_path)
        .args(["--package", &target.package_spec])
        .args(flags.feature_args())
        .args(flags.lock.args())
        .env(
            "CARGO_TARGET_DIR",
            target.costbench_dir().join("build").join(build),
        );
    cmd
}

/// One source change to measure alone: a suggestion clippy marked `MachineApplicable`, or the
/// rewrite of an idiom (`idioms`). One with no replacements is a finding that cannot be
/// rewritten safely: reported, never built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// Where it comes from: the lint (`clippy::NAME`) or the idiom (`idiom::NAME`).
    pub rule: String,
    /// What was found and what the change does.
    pub message: String,
    /// The replacements that make the change (for clippy, all of the diagnostic's, as `cargo
    /// fix` applies them, in the order clippy gave them).
    pub replacements: Vec<Replacement>,
    /// The file (relative to the workspace root) and line (1-based) of the finding.
    pub file: String,
    /// See `file`.
    pub line: u32,
    /// The function it is in, where known (`parse`, `Parser::parse`); empty otherwise.
    pub function: String,
    /// The lines (first, last) of the code a scenario must execute for the change to matter:
    /// the function's, or the whole file's for a change of the whole file ([`Suggestion::locate`]).
    pub lines: (u32, u32),
}

impl Suggestion {
    /// Fills in [`function`](Self::function) and [`lines`](Self::lines) from the file as it is
    /// in the copy whose workspace root is `root`: the innermost function around the line, else
    /// the whole file.
    pub fn locate(&mut self, root: &std::path::Path) -> anyhow::Result<()> {
        let path = root.join(&self.file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        // A change of the whole file (the hasher's) matters wherever the file's code runs.
        let whole_file = self.rule == format!("idiom::{}", idioms::Idiom::DefaultHasher.name());
        match idioms::enclosing(&text, self.line).filter(|_| self.line > 0 && !whole_file) {
            Some((name, a, b)) => {
                if self.function.is_empty() {
                    self.function = name;
                }
                self.lines = (a, b);
            }
            None => {
                let n = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
                self.lines = (1, n.max(1));
            }
        }
        Ok(())
    }
}

impl From<idioms::Finding> for Suggestion {
    fn from(f: idioms::Finding) -> Suggestion {
        Suggestion {
            rule: format!("idiom::{}", f.idiom.name()),
            message: f.message,
            replacements: f.replacements,
            file: f.file,
            line: f.line,
            function: f.function,
            lines: (f.line, f.line),
        }
    }
}

/// Build directory (`TARGET/costbench/build/NAME`) of the unchanged copy.
pub const BASE_BUILD: &str = "advise-base";
/// Build directory of each candidate in turn (one at a time: a candidate is measured before the
/// next is built).
pub const CANDIDATE_BUILD: &str = "advise-candidate";
