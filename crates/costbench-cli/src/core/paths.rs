//! The default paths under the target directory (`TARGET_DIR/costbench/...`) where a command
//! writes when no option names a place. Every default of the command line is computed here and
//! nowhere else; the library crates take the paths as arguments. The directory they all lie in,
//! `TARGET_DIR/costbench`, is named once, by `cargo::costbench_dir`, beside the measuring crate's
//! own scratch there (builds, worktrees, caches).

use anyhow::Result;
use std::path::{Path, PathBuf};

/// `TARGET_DIR/costbench` and what lies under it.
#[derive(Debug, Clone)]
pub(crate) struct Paths {
    root: PathBuf,
}

impl Paths {
    /// The paths under the target directory `target_directory`.
    pub(crate) fn under(target_directory: &Path) -> Paths {
        Paths {
            root: costbench_measure::cargo::costbench_dir(target_directory),
        }
    }

    /// The paths under the target directory of the crate or workspace of `manifest_path` (the
    /// nearest Cargo.toml when `None`), found through cargo.
    pub(crate) fn of_manifest(manifest_path: Option<&Path>) -> Result<Paths> {
        let dir = costbench_measure::cargo::target_directory(manifest_path)?;
        Ok(Paths::under(&dir))
    }

    /// `run`'s and `check`'s candidate output directory.
    pub(crate) fn results(&self) -> PathBuf {
        self.root.join("results")
    }

    /// The root of `check --baseline-rev`'s two sides (`baseline/` and `candidate/`).
    pub(crate) fn check(&self) -> PathBuf {
        self.root.join("check")
    }

    /// The root of a variants session (one directory per variant).
    pub(crate) fn variants(&self) -> PathBuf {
        self.root.join("variants")
    }

    /// `advise`'s results: `advice.json`, the build choices' runs (`build-choices/NAME`) and each
    /// source change's pair (`clippy/ID/base`, `clippy/ID/candidate`).
    pub(crate) fn advise(&self) -> PathBuf {
        self.root.join("advise")
    }

    /// `history backfill`'s kept results: one directory per measured commit, whose callgrind
    /// profiles explain its change points.
    pub(crate) fn backfill(&self) -> PathBuf {
        self.root.join("backfill")
    }

    /// `history dashboard`'s site.
    pub(crate) fn dashboard(&self) -> PathBuf {
        self.root.join("dashboard")
    }

    /// `bisect`'s output: one directory per measured commit.
    pub(crate) fn bisect(&self) -> PathBuf {
        self.root.join("bisect")
    }

    /// `report`'s page.
    pub(crate) fn report(&self) -> PathBuf {
        self.root.join("report.html")
    }

    /// `merge`'s output.
    pub(crate) fn merged(&self) -> PathBuf {
        self.root.join("merged")
    }

    /// The history database used when `--db` is not given.
    pub(crate) fn history(&self) -> PathBuf {
        self.root.join("history.sqlite")
    }
}
