//! The baseline side of a paired A/B check: a git revision of the measured workspace, checked out
//! as a detached git worktree under `TARGET/costbench/worktrees/COMMIT`, so that the user's own
//! checkout is never touched. A worktree that already holds the commit is reused, so a second
//! check against the same baseline builds nothing new.

use crate::cargo::{self, BenchTarget};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Build directory name (`TARGET/costbench/build/NAME`) of baseline checkouts.
pub const BUILD_VARIANT: &str = "baseline";

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("cannot run git: --baseline-rev needs git on PATH (apt-get install git)")?;
    if !out.status.success() {
        bail!(
            "`git {}` failed in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Checks out `rev` of the repository holding `target` and returns the bench target there: the
/// same package and bench, with the candidate's target directory (build it under another
/// variant name than the candidate: cargo names a workspace member's artifacts without its
/// path, so the two checkouts must not share a build directory).
pub fn checkout(target: &BenchTarget, rev: &str) -> Result<BenchTarget> {
    let root = &target.workspace_root;
    let sha = git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .with_context(|| {
        format!(
            "--baseline-rev {rev:?} is not a commit of the repository at {}",
            root.display()
        )
    })?;
    let top = PathBuf::from(git(root, &["rev-parse", "--show-toplevel"])?);
    let dir = target
        .target_directory
        .join("costbench")
        .join("worktrees")
        .join(&sha);
    // Cargo judges a workspace member fresh by its sources' paths relative to the workspace and
    // their mtimes, not by which checkout they are in: an old worktree of commit A, reused after
    // commit B was built in the same build directory, would look fresh and run B's binary. So a
    // worktree is reused only when its commit was also the last one built there; otherwise it is
    // checked out anew, and its new mtimes make cargo rebuild the workspace's own crates (the
    // dependencies stay cached).
    let marker = target
        .target_directory
        .join("costbench")
        .join("build")
        .join(BUILD_VARIANT)
        .join(".costbench-source");
    let last_built = std::fs::read_to_string(&marker).unwrap_or_default();
    let reusable = dir.exists()
        && last_built.trim() == sha
        && git(&dir, &["rev-parse", "HEAD"]).is_ok_and(|h| h == sha);
    if !reusable {
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("cannot remove stale worktree {}", dir.display()))?;
        }
        // Forget worktrees whose directories are gone (a cleaned target directory).
        git(&top, &["worktree", "prune"])?;
        let d = dir.to_string_lossy();
        git(&top, &["worktree", "add", "--detach", "--force", &d, &sha])
            .with_context(|| format!("cannot check out {rev} ({sha}) for the baseline"))?;
    }
    if let Some(parent) = marker.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    costbench_record::output::write_atomic(&marker, sha.as_bytes())?;
    let rel = target.manifest_path.strip_prefix(&top).with_context(|| {
        format!(
            "manifest {} is not inside the git repository {}",
            target.manifest_path.display(),
            top.display()
        )
    })?;
    let manifest = dir.join(rel);
    if !manifest.exists() {
        bail!(
            "the baseline revision {rev} ({}) has no {}: the bench target cannot be built there",
            &sha[..12.min(sha.len())],
            rel.display()
        );
    }
    let mut base = cargo::resolve(Some(&manifest), Some(&target.package), Some(&target.bench))
        .with_context(|| format!("in the baseline revision {rev}"))?;
    base.target_directory = target.target_directory.clone();
    Ok(base)
}
