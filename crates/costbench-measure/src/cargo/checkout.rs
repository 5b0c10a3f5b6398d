//! Another checkout of a workspace's files: a baseline revision's worktree, advise's scratch copy
//! of the sources. A bench target of this checkout is found there by its manifest's place
//! relative to the top both share, its criterion and divan benches switched there as in the
//! user's checkout, and resolved there with this checkout's target directory.

use super::metadata::BenchTarget;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// A checkout at `dir` of the files below `top` (the git repository's top, or the workspace's).
#[derive(Debug, Clone, Copy)]
pub struct Checkout<'a> {
    /// The top of this checkout's files that the other one copies.
    pub top: &'a Path,
    /// Where the other checkout is.
    pub dir: &'a Path,
}

impl Checkout<'_> {
    /// Where `t`'s manifest is in the checkout (whether or not the file exists there).
    pub fn manifest(&self, t: &BenchTarget) -> Result<PathBuf> {
        let rel = t.manifest_path.strip_prefix(self.top).with_context(|| {
            format!(
                "manifest {} is not inside {}",
                t.manifest_path.display(),
                self.top.display()
            )
        })?;
        Ok(self.dir.join(rel))
    }

    /// Switches the criterion and divan benches of the checkout's workspace manifest and of the
    /// manifests of `target` and its others that exist there (each once) to costbench's
    /// compatible crates, as `compat::switch` does; returns what it switched.
    pub fn switch(&self, target: &BenchTarget) -> Result<Vec<String>> {
        let mut manifests = vec![self.manifest(target)?, self.dir.join("Cargo.toml")];
        for o in &target.others {
            let m = self.manifest(o)?;
            if m.exists() && !manifests.contains(&m) {
                manifests.push(m);
            }
        }
        super::compat::switch(&manifests)
    }

    /// `t` as cargo finds it in the checkout (its package and bench there), with `t`'s target
    /// directory: the checkout's builds go to the user's build directories.
    pub fn resolve(&self, t: &BenchTarget) -> Result<BenchTarget> {
        let mut found = super::resolve(
            Some(&self.manifest(t)?),
            Some(&t.package),
            std::slice::from_ref(&t.bench),
        )?;
        found.target_directory = t.target_directory.clone();
        Ok(found)
    }
}
