//! The baseline side of a paired A/B check: a git revision of the measured workspace, checked out
//! as a detached git worktree under `TARGET/costbench/worktrees/COMMIT`, so that the user's own
//! checkout is never touched. A worktree that already holds the commit is reused, so a second
//! check against the same baseline builds nothing new.

use crate::cargo::{self, BenchTarget};
use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
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

/// The commit `rev` names in the repository at `root`. A name git does not know is a wrong
/// command line ([`BadInput`](costbench_record::error::BadInput)), said with the branches there
/// are: `--baseline-rev main` in a repository whose branch is `master` (issue 29).
pub fn resolve(root: &Path, rev: &str) -> Result<String> {
    let spec = format!("{rev}^{{commit}}");
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--verify", "--quiet", &spec])
        .output()
        .context("cannot run git: --baseline-rev needs git on PATH (apt-get install git)")?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !stderr.trim().is_empty() {
        // Not a repository, or git itself failed: not the revision's fault.
        bail!(
            "--baseline-rev {rev:?}: `git rev-parse` failed in {}: {}",
            root.display(),
            stderr.trim()
        );
    }
    let branches = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads",
            "refs/remotes",
        ],
    )
    .unwrap_or_default();
    let branches: Vec<&str> = branches
        .lines()
        .filter(|b| !b.is_empty() && !b.ends_with("/HEAD"))
        .collect();
    costbench_record::bad_input!(
        "--baseline-rev {rev:?} is not a commit of the repository at {}; branches there: {} \
         (any commit, tag or branch will do; a remote's branch after `git fetch`)",
        root.display(),
        if branches.is_empty() {
            "none".to_string()
        } else {
            branches.join(", ")
        }
    )
}

/// A commit of a bisected range: its full id and subject line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// Full commit id.
    pub sha: String,
    /// First line of its message.
    pub subject: String,
}

/// The commits of `good..bad` in the repository holding `target`, oldest first, on the
/// ancestry path from `good` to `bad` (`bad` last), and `good`'s full id. An error when either
/// is not a commit, or `good` is not an ancestor of `bad`.
pub fn range(target: &BenchTarget, good: &str, bad: &str) -> Result<(Commit, Vec<Commit>)> {
    let root = &target.workspace_root;
    let resolve = |rev: &str| -> Result<Commit> {
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
                "{rev:?} is not a commit of the repository at {}",
                root.display()
            )
        })?;
        let subject = git(root, &["log", "-1", "--format=%s", &sha])?;
        Ok(Commit { sha, subject })
    };
    let (g, b) = (resolve(good)?, resolve(bad)?);
    if git(root, &["merge-base", "--is-ancestor", &g.sha, &b.sha]).is_err() {
        bail!("{good} is not an ancestor of {bad}: bisect needs GOOD before BAD in the history");
    }
    let list = git(
        root,
        &[
            "log",
            "--reverse",
            "--ancestry-path",
            "--format=%H %s",
            &format!("{}..{}", g.sha, b.sha),
        ],
    )?;
    let commits: Vec<Commit> = list
        .lines()
        .filter_map(|l| l.split_once(' ').or(Some((l, ""))))
        .map(|(sha, subject)| Commit {
            sha: sha.to_string(),
            subject: subject.to_string(),
        })
        .collect();
    if commits.is_empty() {
        bail!("{good}..{bad} holds no commit: BAD must come after GOOD");
    }
    Ok((g, commits))
}

/// Checks out `rev` of the repository holding `target` and returns the bench target there: the
/// same package and bench, with the candidate's target directory (build it under another
/// variant name than the candidate: cargo names a workspace member's artifacts without its
/// path, so the two checkouts must not share a build directory).
pub fn checkout(target: &BenchTarget, rev: &str) -> Result<BenchTarget> {
    let root = &target.workspace_root;
    let sha = resolve(root, rev)?;
    let top = PathBuf::from(git(root, &["rev-parse", "--show-toplevel"])?);
    let dir = target.costbench_dir().join("worktrees").join(&sha);
    // Cargo judges a workspace member fresh by its sources' paths relative to the workspace and
    // their mtimes, not by which checkout they are in: an old worktree of commit A, reused after
    // commit B was built in the same build directory, would look fresh and run B's binary. So a
    // worktree is reused only when its commit was also the last one built there; otherwise it is
    // checked out anew, and its new mtimes make cargo rebuild the workspace's own crates (the
    // dependencies stay cached).
    let marker = target
        .costbench_dir()
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
        let _one_at_a_time = worktree_lock();
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
    target_in(target, &top, &dir, rev, &sha)
}

/// Held while a worktree is pruned and added: `bisect` checks out its two commits from two
/// threads, and a `git worktree prune` that reads the other's half-made entry fails ("failed to
/// read .git/worktrees/bisect-ahead/commondir", seen once in explain_e2e).
fn worktree_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Build directory name (`TARGET/costbench/build/NAME`) of `bisect`'s checkouts.
pub const BISECT_VARIANT: &str = "bisect";

/// Build directory and worktree name of the commit `bisect` builds beside GOOD (its first
/// midpoint, which does not depend on GOOD's count).
pub const BISECT_AHEAD_VARIANT: &str = "bisect-ahead";

/// Checks out commit `sha` in `bisect`'s worktree `TARGET/costbench/worktrees/VARIANT` (made on
/// first use; `VARIANT` is [`BISECT_VARIANT`], or [`BISECT_AHEAD_VARIANT`] for the commit built
/// beside GOOD) and returns the bench target there. One worktree moved from commit to
/// commit, as `git bisect` moves a checkout: git rewrites only the files that differ, so cargo
/// rebuilds only what they touch (build it under [`BISECT_VARIANT`], never a directory another
/// checkout builds in). A worktree made anew takes the modification times of the user's
/// identical files when `take_mtimes` says so (its build directory was just seeded from the
/// user's build: [`super::bisect::seed_build`]).
pub fn checkout_for_bisect(
    target: &BenchTarget,
    sha: &str,
    variant: &str,
    take_mtimes: bool,
) -> Result<BenchTarget> {
    let root = &target.workspace_root;
    let top = PathBuf::from(git(root, &["rev-parse", "--show-toplevel"])?);
    let dir = target.costbench_dir().join("worktrees").join(variant);
    let moved =
        dir.exists() && git(&dir, &["checkout", "--quiet", "--detach", "--force", sha]).is_ok();
    if !moved {
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("cannot remove stale worktree {}", dir.display()))?;
        }
        let _one_at_a_time = worktree_lock();
        git(&top, &["worktree", "prune"])?;
        let d = dir.to_string_lossy();
        git(&top, &["worktree", "add", "--detach", "--force", &d, sha])
            .with_context(|| format!("cannot check out {sha} to bisect"))?;
        if take_mtimes {
            super::bisect::take_mtimes(&dir, &top)?;
        }
    }
    target_in(target, &top, &dir, sha, sha)
}

/// The bench target of `target`'s package and bench in the checkout at `dir` of the repository
/// whose top is `top`, with `target`'s target directory; and with it, as its others, those of
/// `target`'s others that the checkout has (issue 41: every bench target is measured at every
/// commit). An other target the checkout lacks (a bench added since) is left out with a note:
/// its scenarios are then new on the side that has it.
fn target_in(
    target: &BenchTarget,
    top: &Path,
    dir: &Path,
    rev: &str,
    sha: &str,
) -> Result<BenchTarget> {
    let short = &sha[..12.min(sha.len())];
    let checkout = cargo::Checkout { top, dir };
    let manifest = checkout.manifest(target)?;
    if !manifest.exists() {
        bail!(
            "the baseline revision {rev} ({short}) has no {}: the bench target cannot be built there",
            manifest.strip_prefix(dir).unwrap_or(&manifest).display()
        );
    }
    // A commit from before the benches were switched to costbench: switched here, in the
    // worktree only (the next checkout resets it).
    let switched = checkout.switch(target)?;
    let context = || format!("in the baseline revision {rev}");
    let mut base = checkout.resolve(target).with_context(context)?;
    base.switched = switched;
    for o in &target.others {
        let m = checkout.manifest(o)?;
        match m
            .exists()
            .then(|| checkout.resolve(o).with_context(context))
        {
            Some(Ok(found)) => base.others.push(found),
            Some(Err(e)) if e.is::<costbench_record::error::BadInput>() => {
                eprintln!(
                    "note: bench target {} left out at {rev} ({short}): {}",
                    o.bench,
                    e.root_cause()
                );
            }
            Some(Err(e)) => return Err(e),
            None => eprintln!(
                "note: bench target {} left out at {rev} ({short}): it has no {}",
                o.bench,
                m.strip_prefix(dir).unwrap_or(&m).display()
            ),
        }
    }
    Ok(base)
}

/// What a pull request changed between the baseline revision and the candidate's working tree,
/// as far as source files go: the judge asks it whether the files of a scenario's code that moved
/// were touched ([`SourceDiff::unchanged`]), to tell a change of the code from the compiler
/// laying out unchanged code differently.
#[derive(Debug, Clone)]
pub struct SourceDiff {
    /// The repository's top in the candidate's checkout and in the baseline's worktree.
    roots: [PathBuf; 2],
    /// Files changed, added or removed since the baseline, relative to the top.
    changed: BTreeSet<PathBuf>,
    /// A `Cargo.lock` changed: dependencies' sources outside the repository may differ.
    lock_changed: bool,
}

impl SourceDiff {
    /// The files changed between `rev` (checked out for `base` by [`checkout`]) and the working
    /// tree of `cand`: `git diff --name-only` against the commit (staged and unstaged) plus the
    /// untracked files git does not ignore.
    pub fn between(base: &BenchTarget, cand: &BenchTarget) -> Result<SourceDiff> {
        let top = |dir: &Path| -> Result<PathBuf> {
            Ok(PathBuf::from(git(dir, &["rev-parse", "--show-toplevel"])?))
        };
        let (cand_top, base_top) = (top(&cand.workspace_root)?, top(&base.workspace_root)?);
        let sha = git(&base_top, &["rev-parse", "HEAD"])?;
        let mut changed = BTreeSet::new();
        for args in [
            &["diff", "--name-only", "--no-renames", &sha, "--"][..],
            &["ls-files", "--others", "--exclude-standard"],
        ] {
            changed.extend(git(&cand_top, args)?.lines().map(PathBuf::from));
        }
        Ok(SourceDiff::new([cand_top, base_top], changed))
    }

    /// The repository's top in the candidate's checkout and in the baseline's worktree: source
    /// paths under them name the same file relative to them.
    pub fn roots(&self) -> (&Path, &Path) {
        (&self.roots[0], &self.roots[1])
    }

    fn new(roots: [PathBuf; 2], changed: BTreeSet<PathBuf>) -> SourceDiff {
        let lock_changed = changed.iter().any(|f| f.ends_with("Cargo.lock"));
        SourceDiff {
            roots,
            changed,
            lock_changed,
        }
    }

    /// Whether the pull request left `file` (a source file as a callgrind profile names it)
    /// unchanged. Inside either checkout: whether git lists it as changed. The toolchain's
    /// (`/rustc/...`): unchanged. The registry's: unchanged unless a `Cargo.lock` changed. A
    /// relative path that is no file of the repository (the C library's `./string/memcmp.S`) and
    /// `???` (no debug information): system code, unchanged. Any other path outside the
    /// repository (a path dependency elsewhere) cannot be vouched for: changed.
    pub fn unchanged(&self, file: &str) -> bool {
        let path = Path::new(file);
        for root in &self.roots {
            if let Ok(rel) = path.strip_prefix(root) {
                return !self.changed.contains(rel);
            }
        }
        if path.is_relative() {
            let rel = path.strip_prefix("./").unwrap_or(path);
            if self.roots.iter().any(|r| r.join(rel).exists()) {
                return !self.changed.contains(rel);
            }
            return true;
        }
        // Both sides are built by one toolchain.
        file.starts_with("/rustc/") || (file.contains("/registry/src/") && !self.lock_changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_the_pull_request_left_alone_are_unchanged() {
        let diff = SourceDiff::new(
            ["/repo".into(), "/target/costbench/worktrees/abc".into()],
            ["benches/b.rs".into(), "src/edited.rs".into()].into(),
        );
        for (file, unchanged) in [
            ("/repo/src/proto.rs", true),
            ("/target/costbench/worktrees/abc/src/proto.rs", true),
            ("/repo/src/edited.rs", false),
            ("/target/costbench/worktrees/abc/src/edited.rs", false),
            ("/rustc/59807616e/library/core/src/slice/cmp.rs", true),
            (
                "/home/user/.cargo/registry/src/index.crates.io-1/regex-1.13.2/src/lib.rs",
                true,
            ),
            (
                "./string/../sysdeps/x86_64/multiarch/memcmp-avx2-movbe.S",
                true,
            ),
            ("???", true),
            ("/elsewhere/path-dependency/src/lib.rs", false),
        ] {
            assert_eq!(diff.unchanged(file), unchanged, "{file}");
        }
        let locked = SourceDiff::new(["/repo".into(), "/wt".into()], ["Cargo.lock".into()].into());
        assert!(!locked
            .unchanged("/home/user/.cargo/registry/src/index.crates.io-1/regex-1.13.2/src/lib.rs"));
        assert!(locked.unchanged("/rustc/59807616e/library/core/src/slice/cmp.rs"));
        assert!(locked.unchanged("/repo/src/proto.rs"));
    }
}
