//! The scratch tree candidates are applied in: a copy of the user's sources as they are now
//! (committed or not) under `TARGET/costbench/advise-tree`, so that the user's checkout is never
//! written to. It is the repository's top when the workspace is in git (path dependencies
//! between its folders keep working), else the workspace root.
//!
//! The copy is kept from one `advise` to the next: a file is written only when its content
//! differs, so cargo rebuilds only what changed. Every write gives a file a new modification
//! time, never an old one, so cargo can never take a stale build for a fresh one.

use super::edit::{self, Replacement};
use crate::cargo::{self, BenchTarget};
use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The user's sources copied, with the bench target found in the copy.
#[derive(Debug)]
pub struct Tree {
    /// The copy's root (the repository's top or the workspace root, copied).
    pub root: PathBuf,
    /// The bench target in the copy, building into the user's target directory.
    pub target: BenchTarget,
}

/// The folder the copy of `target`'s sources lives in.
pub fn dir(target: &BenchTarget) -> PathBuf {
    target.costbench_dir().join("advise-tree")
}

/// The files of the user's sources, relative to `top`: git's tracked and untracked files that
/// it does not ignore (those on disk), or every file outside `target` directories and hidden
/// folders when `top` is not in git. Never anything under the target directory.
fn files(top: &Path, target_dir: &Path, in_git: bool) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if in_git {
        let o = Command::new("git")
            .arg("-C")
            .arg(top)
            .args([
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ])
            .output()
            .context("cannot run git to list the sources to copy")?;
        for rel in o.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let rel = PathBuf::from(String::from_utf8_lossy(rel).as_ref());
            if top.join(&rel).is_file() {
                out.push(rel);
            }
        }
    } else {
        walk(top, Path::new(""), &mut out)?;
    }
    let top = top.canonicalize().unwrap_or_else(|_| top.to_path_buf());
    out.retain(|f| !top.join(f).starts_with(target_dir));
    Ok(out)
}

fn walk(top: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let here = top.join(rel);
    for e in std::fs::read_dir(&here).with_context(|| format!("cannot read {}", here.display()))? {
        let e = e?;
        let name = e.file_name();
        let name_s = name.to_string_lossy();
        let path = rel.join(&name);
        let kind = e.file_type()?;
        if kind.is_dir() {
            if name_s != "target" && !name_s.starts_with('.') {
                walk(top, &path, out)?;
            }
        } else if kind.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Copies `target`'s sources to [`dir`] (only what differs; files the sources no longer have are
/// removed) and finds the bench target there.
pub fn prepare(target: &BenchTarget) -> Result<Tree> {
    let root = &target.workspace_root;
    let git_top = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let top = git_top.clone().unwrap_or_else(|| root.clone());
    let copy = dir(target);
    let target_dir = target
        .target_directory
        .canonicalize()
        .unwrap_or_else(|_| target.target_directory.clone());
    let wanted = files(&top, &target_dir, git_top.is_some())?;
    std::fs::create_dir_all(&copy).with_context(|| format!("cannot create {}", copy.display()))?;
    for rel in &wanted {
        let (from, to) = (top.join(rel), copy.join(rel));
        let data =
            std::fs::read(&from).with_context(|| format!("cannot read {}", from.display()))?;
        if std::fs::read(&to).is_ok_and(|old| old == data) {
            continue;
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&to, &data).with_context(|| format!("cannot write {}", to.display()))?;
    }
    // What the sources no longer hold goes: a deleted module must not stay compiled in.
    let keep: BTreeSet<&PathBuf> = wanted.iter().collect();
    let mut have = Vec::new();
    walk(&copy, Path::new(""), &mut have)?;
    for rel in have.iter().filter(|r| !keep.contains(r)) {
        std::fs::remove_file(copy.join(rel))
            .with_context(|| format!("cannot remove {}", copy.join(rel).display()))?;
    }
    // Benches written for criterion or divan: switched in the copy, as in a baseline worktree.
    // Every bench target of the session is found in the copy (issue 41: advise measures the
    // scenarios of them all).
    let checkout = cargo::Checkout {
        top: &top,
        dir: &copy,
    };
    let switched = checkout.switch(target)?;
    let context = "in advise's copy of the sources";
    let mut t = checkout.resolve(target).context(context)?;
    t.switched = switched;
    for o in &target.others {
        t.others.push(checkout.resolve(o).context(context)?);
    }
    Ok(Tree {
        root: copy,
        target: t,
    })
}

impl Tree {
    /// The path of `rel` (a path relative to the workspace root, as clippy names files) in the
    /// copy.
    pub fn file(&self, rel: &str) -> PathBuf {
        self.target.workspace_root.join(rel)
    }

    /// Gives every file of the copy the time now: after its build directory was seeded from
    /// another build (`run::bisect::seed_build`), whose workspace members were compiled from the
    /// user's files at some moment, cargo must compile the copy's members again rather than take
    /// those for fresh (the dependencies stay compiled).
    pub fn touch(&self) -> Result<()> {
        let mut all = Vec::new();
        walk(&self.root, Path::new(""), &mut all)?;
        let now = std::time::SystemTime::now();
        for rel in all {
            let path = self.root.join(rel);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(now))
                .with_context(|| {
                    format!("cannot set the modification time of {}", path.display())
                })?;
        }
        Ok(())
    }

    /// The files `replacements` edit, each with its text now (read once).
    fn sources(&self, replacements: &[Replacement]) -> Result<Vec<(String, String)>> {
        let mut out: Vec<(String, String)> = Vec::new();
        for r in replacements {
            if !out.iter().any(|(f, _)| *f == r.file) {
                let path = self.file(&r.file);
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                out.push((r.file.clone(), text));
            }
        }
        Ok(out)
    }

    /// The change `replacements` make, as a unified diff of every file they edit.
    pub fn diff(&self, replacements: &[Replacement]) -> Result<String> {
        let mut out = String::new();
        for (file, text) in self.sources(replacements)? {
            let mine: Vec<&Replacement> = replacements.iter().filter(|r| r.file == file).collect();
            out += &edit::diff(&file, &text, &mine)?;
        }
        Ok(out)
    }

    /// Applies `replacements` to the copy; the returned guard puts the files back as they were
    /// when it is dropped (with new modification times, so cargo rebuilds them).
    pub fn apply(&self, replacements: &[Replacement]) -> Result<Applied> {
        let sources = self.sources(replacements)?;
        let mut applied = Applied {
            restore: Vec::new(),
        };
        for (file, text) in sources {
            let mine: Vec<&Replacement> = replacements.iter().filter(|r| r.file == file).collect();
            let new = edit::apply(&text, &mine)?;
            let path = self.file(&file);
            std::fs::write(&path, new)
                .with_context(|| format!("cannot write {}", path.display()))?;
            applied.restore.push((path, text));
        }
        Ok(applied)
    }
}

/// A change applied to the scratch tree: dropping it puts the files back.
#[derive(Debug)]
pub struct Applied {
    restore: Vec<(PathBuf, String)>,
}

impl Drop for Applied {
    fn drop(&mut self) {
        for (path, text) in &self.restore {
            if let Err(e) = std::fs::write(path, text) {
                eprintln!(
                    "warning: cannot restore {} in advise's scratch tree: {e}; the next advise \
                     copies it again",
                    path.display()
                );
            }
        }
    }
}
