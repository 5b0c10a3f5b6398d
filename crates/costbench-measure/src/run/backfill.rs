//! The git side of watching a branch (`costbench history backfill`, `history changes`): the
//! commits of a range on the first-parent line with where each sits (parent, position, author
//! date, subject), revisions and dates resolved for `--since` and `--reference`, the branch
//! checked out, and whether the work tree is clean. Building and measuring a commit is
//! bisect's machinery ([`super::baseline::checkout_for_bisect`], [`super::bisect`]).

use crate::instrument::Phase;
use anyhow::{Context, Result};
use costbench_record::model::Git;
use std::path::Path;
use std::process::Command;

/// Build directory and worktree name of the commits a backfill measures.
pub const BACKFILL_VARIANT: &str = "backfill";

fn git(dir: &Path, args: &[&str]) -> Result<std::result::Result<String, String>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("cannot run git: watching a branch needs git on PATH (apt-get install git)")?;
    Ok(if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    })
}

/// A commit of a backfilled range, placed on its branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchCommit {
    /// Full id.
    pub sha: String,
    /// First parent (none for a root commit).
    pub parent: Option<String>,
    /// Position on the first-parent line (`git rev-list --count --first-parent`).
    pub position: u64,
    /// Author date, RFC 3339.
    pub author_date: String,
    /// First line of the message.
    pub subject: String,
}

impl BranchCommit {
    /// The run record's git block for this commit, recorded under `branch`.
    pub fn git(&self, branch: Option<String>) -> Git {
        Git {
            commit: self.sha.clone(),
            branch,
            dirty: false,
            parent: self.parent.clone(),
            position: Some(self.position),
            author_date: Some(self.author_date.clone()),
            subject: Some(self.subject.clone()),
        }
    }
}

/// The commits of `range` in the repository at `root`, oldest first: `A..B` as git reads it, or
/// one revision for its whole line. The first-parent line unless `all` (then every commit,
/// a merged branch's included, in topological order). A range git does not know, or one that
/// holds no commit, is a usage error.
pub fn commits(root: &Path, range: &str, all: bool) -> Result<Vec<BranchCommit>> {
    let mut args = vec!["log", "--reverse", "--format=%H%x00%P%x00%aI%x00%s"];
    if all {
        args.push("--topo-order");
    } else {
        args.push("--first-parent");
    }
    args.extend(["--end-of-options", range]);
    let list = match git(root, &args)? {
        Ok(list) => list,
        Err(e) => costbench_record::bad_input!(
            "{range:?} is not a range of commits of the repository at {} (`git log` says: {e}); \
             give A..B (the commits after A up to B) or one revision",
            root.display()
        ),
    };
    let mut out: Vec<BranchCommit> = Vec::new();
    for line in list.lines().filter(|l| !l.is_empty()) {
        let mut f = line.split('\0');
        let sha = f.next().unwrap_or_default().to_string();
        let parent = f
            .next()
            .and_then(|p| p.split_whitespace().next())
            .map(str::to_string);
        let author_date = f.next().unwrap_or_default().to_string();
        let subject = f.next().unwrap_or_default().to_string();
        out.push(BranchCommit {
            sha,
            parent,
            position: 0,
            author_date,
            subject,
        });
    }
    if out.is_empty() {
        costbench_record::bad_input!(
            "{range:?} holds no commit in the repository at {}: give A..B with A before B",
            root.display()
        );
    }
    // Positions: one count for the oldest, then along the first-parent line. A commit off
    // that line (with `all`) takes its merge's place: counted on its own.
    let first = position(root, &out[0].sha)?;
    out[0].position = first;
    for i in 1..out.len() {
        out[i].position = if out[i].parent.as_deref() == Some(out[i - 1].sha.as_str()) {
            out[i - 1].position + 1
        } else {
            position(root, &out[i].sha)?
        };
    }
    Ok(out)
}

/// The branch that merge commit `sha` merged: the fork point (the merge base of its two parents)
/// and the commits of its second parent's first-parent line after it, oldest first (positions
/// counted on that line). `None` when `sha` is not a merge, or its branch holds no commit of
/// its own.
pub fn merged_branch(root: &Path, sha: &str) -> Result<Option<(BranchCommit, Vec<BranchCommit>)>> {
    let second = match git(
        root,
        &["rev-parse", "--verify", "--quiet", &format!("{sha}^2")],
    )? {
        Ok(s) if !s.is_empty() => s,
        _ => return Ok(None),
    };
    let base = git(root, &["merge-base", &format!("{sha}^1"), &second])?
        .map_err(|e| anyhow::anyhow!("cannot find where the branch merged at {sha} forked: {e}"))?;
    if base == second {
        return Ok(None);
    }
    let mut fork = commits(root, &format!("{base}^!"), false)?;
    let line = commits(root, &format!("{base}..{second}"), false)?;
    Ok(fork.pop().map(|f| (f, line)))
}

/// The run record of a commit whose build failed: no results, the reason in its `backfill`
/// block, the settings of `opts` (so that a later backfill with them passes over it).
pub fn failed_build_record(
    target: &crate::cargo::BenchTarget,
    opts: &super::RunOptions,
    commit: &BranchCommit,
    branch: Option<String>,
    why: String,
) -> costbench_record::model::RunRecord {
    // The record a run starts as, with no scenario: the same settings a measured commit's
    // record has, so that a later backfill with them passes over this commit.
    let listing = costbench_protocol::Listing {
        protocol: costbench_protocol::PROTOCOL_VERSION,
        library_version: String::new(),
        scenarios: Vec::new(),
        capabilities: Vec::new(),
        budgets: Vec::new(),
    };
    let valgrind = crate::instrument::callgrind::detect().ok();
    // The riding instruments asked for, as a measured run under valgrind would have set them up.
    let ridden: Vec<_> = opts
        .instruments
        .running()
        .into_iter()
        .filter(|i| valgrind.is_some() && matches!(crate::instrument::phase(*i), Phase::Riding(_)))
        .collect();
    let mut run = super::new_record(
        opts,
        target,
        &listing,
        &[],
        valgrind.as_ref(),
        &ridden,
        Vec::new(),
    );
    run.finished_at = Some(run.started_at.clone());
    run.environment.git = Some(commit.git(branch));
    run.backfill = Some(costbench_record::model::Backfill {
        carried_from: None,
        failed: Some(why),
    });
    run
}

/// Whether `run` was measured (or recorded as failing to build) with the settings `like` has:
/// the same machine, variant, instruments and filter, so that measuring again would repeat it.
pub fn same_settings(
    run: &costbench_record::model::RunRecord,
    like: &costbench_record::model::RunRecord,
) -> bool {
    let mut a = run.settings.instruments.clone();
    let mut b = like.settings.instruments.clone();
    a.sort();
    b.sort();
    run.environment.host.machine() == like.environment.host.machine()
        && run.variant == like.variant
        && run.suite.bench == like.suite.bench
        && run.settings.filter == like.settings.filter
        && a == b
}

/// The position of `sha` on its first-parent line.
pub fn position(root: &Path, sha: &str) -> Result<u64> {
    let n = git(root, &["rev-list", "--count", "--first-parent", sha])?
        .map_err(|e| anyhow::anyhow!("cannot count the commits before {sha}: {e}"))?;
    n.parse()
        .with_context(|| format!("`git rev-list --count` printed {n:?}"))
}

/// The full id of the commit `rev` names; `what` names the option in the usage error.
pub fn resolve(root: &Path, rev: &str, what: &str) -> Result<String> {
    match git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )? {
        Ok(sha) if !sha.is_empty() => Ok(sha),
        _ => costbench_record::bad_input!(
            "{what} {rev:?} is not a commit of the repository at {} (a commit, tag or branch)",
            root.display()
        ),
    }
}

/// The branch checked out in `root`, if any (none on a detached HEAD or outside git).
pub fn current_branch(root: &Path) -> Option<String> {
    git(root, &["rev-parse", "--abbrev-ref", "HEAD"])
        .ok()?
        .ok()
        .filter(|b| b != "HEAD" && !b.is_empty())
}

/// Whether `root`'s checkout has uncommitted changes to tracked files.
pub fn dirty(root: &Path) -> Result<bool> {
    match git(root, &["status", "--porcelain", "--untracked-files=no"])? {
        Ok(s) => Ok(!s.is_empty()),
        Err(e) => costbench_record::bad_input!(
            "{} is not in a git repository ({e}): watching a branch needs its history",
            root.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(d.path())
                .args(args)
                .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
                .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        };
        run(&["init", "-q", "-b", "main"]);
        run(&["config", "user.email", "t@example.com"]);
        run(&["config", "user.name", "t"]);
        for i in 0..3 {
            std::fs::write(d.path().join("f"), format!("{i}")).unwrap();
            run(&["add", "f"]);
            run(&["commit", "-q", "-m", &format!("commit {i}")]);
        }
        // A side branch of two commits merged with --no-ff: first-parent skips them.
        run(&["checkout", "-q", "-b", "side"]);
        for i in 0..2 {
            std::fs::write(d.path().join("g"), format!("{i}")).unwrap();
            run(&["add", "g"]);
            run(&["commit", "-q", "-m", &format!("side {i}")]);
        }
        run(&["checkout", "-q", "main"]);
        run(&["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
        d
    }

    #[test]
    fn first_parent_line_with_positions_and_bad_ranges_refused() {
        let d = repo();
        let all = commits(d.path(), "main", false).unwrap();
        let subjects: Vec<&str> = all.iter().map(|c| c.subject.as_str()).collect();
        assert_eq!(subjects, ["commit 0", "commit 1", "commit 2", "merge side"]);
        assert_eq!(
            all.iter().map(|c| c.position).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        assert_eq!(all[1].parent.as_deref(), Some(all[0].sha.as_str()));
        assert!(all[0].author_date.starts_with("2026-01-02T03:04:05"));
        let tail = commits(d.path(), "main~2..main", false).unwrap();
        assert_eq!(tail.len(), 2);
        assert_eq!(tail[0].position, 3);
        let every = commits(d.path(), "main~1..main", true).unwrap();
        assert_eq!(
            every.len(),
            3,
            "the merged branch's two commits and the merge"
        );
        for bad in ["nope..main", "main..main"] {
            let e = commits(d.path(), bad, false).unwrap_err();
            assert!(e.is::<costbench_record::error::BadInput>(), "{bad}: {e:#}");
        }
        assert_eq!(current_branch(d.path()).as_deref(), Some("main"));
        assert!(!dirty(d.path()).unwrap());
        assert_eq!(resolve(d.path(), "main~3", "--since").unwrap(), all[0].sha);
        assert!(resolve(d.path(), "v9", "--since").is_err());
    }
}
