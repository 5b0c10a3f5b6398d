//! What `costbench bisect` reuses instead of building: what `run`'s build already compiled
//! ([`seed_build`], with [`take_mtimes`] for the worktree made beside it), and the commits whose
//! build cannot differ from one already measured ([`BuildInputs`], [`changed_files`]), as `git
//! bisect start -- PATHS` leaves out the commits that touch none of the paths, but with the
//! paths read from the build itself.
//!
//! It decides nothing about counts: the command's search asks it whether a commit's sources
//! equal a measured commit's, and takes that commit's count when they do.

use crate::cargo::BenchTarget;
use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Copies into the build directory `TARGET/costbench/build/TO`, when it does not exist yet, the
/// units `TARGET/costbench/build/FROM` compiled (`deps`, `build` and `.fingerprint` of each
/// profile), with their modification times, and returns how many units it copied (0: nothing
/// to copy, or `TO` has builds of its own).
///
/// Why: a cold bisect otherwise compiles every crate again (74 s for the built-in suite here,
/// where moving a checkout rebuilds one crate in 12 s), though `run` built them with the same
/// profile, features and flags. Cargo names artifacts by a hash of exactly those (a workspace
/// member's by its path inside the workspace) and finds a dependency's fresh wherever it is.
/// A workspace member's it finds fresh when its sources are older than its outputs: so the
/// caller must make bisect's worktree anew right after (this removes the old one) and give its
/// files the times of the user's identical ones ([`take_mtimes`]): the members whose sources
/// are the ones `run` built are then fresh, the others rebuilt.
pub fn seed_build(target: &BenchTarget, from: &str, to: &str) -> Result<usize> {
    let build = target.costbench_dir().join("build");
    let (from, to) = (build.join(from), build.join(to));
    if to.exists() || !from.is_dir() {
        return Ok(0);
    }
    let worktree = target
        .costbench_dir()
        .join("worktrees")
        .join(to.file_name().unwrap_or_default());
    if worktree.exists() {
        std::fs::remove_dir_all(&worktree)
            .with_context(|| format!("cannot remove {}", worktree.display()))?;
    }
    // Copied beside the destination and renamed into place: an interrupted copy leaves no
    // half-seeded build directory that the next bisect would take as its own.
    let tmp = build.join(format!(
        ".{}-seeding",
        to.file_name().unwrap_or_default().to_string_lossy()
    ));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp)
            .with_context(|| format!("cannot remove {}", tmp.display()))?;
    }
    let mut units = 0;
    copy_units(&from, &tmp, 0, &mut units)
        .with_context(|| format!("cannot seed {} from {}", to.display(), from.display()))?;
    std::fs::rename(&tmp, &to)
        .with_context(|| format!("cannot rename {} to {}", tmp.display(), to.display()))?;
    Ok(units)
}

/// Copies the dependency units below `from` (a build directory, a profile's or a target
/// triple's folder) into `to`: in `deps`, `build` and `.fingerprint`, every entry named for a
/// crate (not rustc's temporary folders); above them, the folders that lead to such ones.
fn copy_units(from: &Path, to: &Path, depth: usize, units: &mut usize) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        let path = entry.path();
        if !entry.file_type()?.is_dir() {
            continue;
        }
        if matches!(name.as_str(), "deps" | "build" | ".fingerprint") {
            let dest = to.join(&name);
            std::fs::create_dir_all(&dest)?;
            for unit in std::fs::read_dir(&path)? {
                let unit = unit?;
                let file = unit.file_name().to_string_lossy().to_string();
                if unit_crate(&file).is_some() {
                    copy_tree(&unit.path(), &dest.join(&file))?;
                    if name == ".fingerprint" {
                        *units += 1;
                    }
                }
            }
        } else if depth < 2 && !matches!(name.as_str(), "incremental" | "examples" | "tmp") {
            // A profile's folder (`release`), or a target triple's holding profiles.
            copy_units(&path, &to.join(&name), depth + 1, units)?;
        }
    }
    Ok(())
}

/// The crate an entry of `deps`, `build` or `.fingerprint` belongs to: `NAME` of `NAME-HASH`,
/// `libNAME-HASH.rlib` or `NAME-HASH.d` (HASH: 16 hexadecimal digits); `None` for anything
/// else (rustc's temporary folders).
fn unit_crate(file: &str) -> Option<&str> {
    let stem = file.split('.').next()?;
    let (name, hash) = stem.rsplit_once('-')?;
    if hash.len() != 16 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(
        name.strip_prefix("lib")
            .filter(|_| file.contains('.'))
            .unwrap_or(name),
    )
}

/// Copies a file or a folder, keeping modification times (cargo compares them).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    if meta.is_dir() {
        std::fs::create_dir_all(to)?;
        for e in std::fs::read_dir(from)? {
            let e = e?;
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        }
    } else if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)?;
        return Ok(());
    } else {
        std::fs::copy(from, to)?;
    }
    let f = std::fs::File::options()
        .write(!meta.is_dir())
        .read(meta.is_dir())
        .open(to)?;
    f.set_modified(meta.modified()?)?;
    Ok(())
}

/// Gives every tracked file of the new checkout at `worktree` whose content equals the file at
/// the same place in the user's checkout at `top` that file's modification time, and returns
/// how many it gave. Only right for a checkout made for a build directory just seeded from the
/// user's own build ([`seed_build`]): cargo then takes what `run` compiled from those very
/// files as fresh, as it would in the user's checkout.
pub fn take_mtimes(worktree: &Path, top: &Path) -> Result<usize> {
    let out = Command::new("git")
        .arg("-C")
        .arg(worktree)
        .args(["ls-files", "-z"])
        .output()
        .context("cannot run git: bisect needs git on PATH")?;
    let mut taken = 0;
    for rel in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let rel = Path::new(std::str::from_utf8(rel).unwrap_or_default());
        let (ours, theirs) = (worktree.join(rel), top.join(rel));
        let (Ok(a), Ok(b)) = (std::fs::symlink_metadata(&ours), std::fs::metadata(&theirs)) else {
            continue;
        };
        if !a.is_file() || !b.is_file() || a.len() != b.len() {
            continue;
        }
        if std::fs::read(&ours)? == std::fs::read(&theirs)? {
            std::fs::File::options()
                .write(true)
                .open(&ours)
                .and_then(|f| f.set_modified(b.modified()?))
                .with_context(|| {
                    format!("cannot set the modification time of {}", ours.display())
                })?;
            taken += 1;
        }
    }
    Ok(taken)
}

/// The files of a checkout one build read, relative to the repository's top: every file of
/// the checkout that rustc's dependency files (`deps/*.d`) name, and the whole folder of every
/// package those files lie in and of the bench's package (build scripts read their package's
/// folder, scenarios run in the bench's). Manifests, the lock file and cargo's and costbench's
/// configuration count wherever they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildInputs {
    files: BTreeSet<PathBuf>,
    dirs: BTreeSet<PathBuf>,
}

/// Files whose change can change any build, wherever they lie.
const ALWAYS: [&str; 5] = [
    "Cargo.toml",
    "Cargo.lock",
    "costbench.toml",
    "rust-toolchain",
    "rust-toolchain.toml",
];

impl BuildInputs {
    /// What the build of `target` (checked out at `top`) in `TARGET/costbench/build/VARIANT`
    /// read. Dependency files of earlier builds in the same folder count too: more inputs only
    /// make fewer commits decided without a build.
    pub fn read(target: &BenchTarget, top: &Path, variant: &str) -> Result<BuildInputs> {
        let build = target.costbench_dir().join("build").join(variant);
        let mut inputs = BuildInputs::default();
        for deps in dep_folders(&build) {
            for e in std::fs::read_dir(&deps)
                .with_context(|| format!("cannot read {}", deps.display()))?
            {
                let path = e?.path();
                if path.extension().is_some_and(|x| x == "d") {
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("cannot read {}", path.display()))?;
                    inputs.add_dep_file(&text, &target.workspace_root, top);
                }
            }
        }
        // Every bench target's package (issue 41: a backfill builds them all).
        for t in target.all() {
            if let Ok(rel) = t.package_dir.strip_prefix(top) {
                inputs.dirs.insert(rel.to_path_buf());
            }
        }
        Ok(inputs)
    }

    /// Adds the files a rustc dependency file names (paths relative to `workspace_root`, where
    /// cargo runs rustc, or absolute) that lie in the checkout at `top`, and their packages'
    /// folders.
    fn add_dep_file(&mut self, text: &str, workspace_root: &Path, top: &Path) {
        for line in text.lines() {
            // `target: dep dep ...`; spaces inside a path are escaped as `\ `.
            let deps = line.split_once(": ").map_or("", |(_, d)| d);
            let deps = deps.replace("\\ ", "\u{0}");
            for token in deps.split_whitespace() {
                let file = workspace_root.join(token.replace('\u{0}', " "));
                let Ok(rel) = file.strip_prefix(top) else {
                    continue;
                };
                self.files.insert(rel.to_path_buf());
                if let Some(pkg) = package_of(&file, top) {
                    self.dirs.insert(pkg);
                }
            }
        }
    }

    /// The first of `changed` (files relative to the repository's top) that can change this
    /// build, or `None` when none can: then a commit that changed only these builds the same
    /// binary.
    pub fn first_touched<'a>(&self, changed: &'a [PathBuf]) -> Option<&'a PathBuf> {
        changed.iter().find(|f| {
            let always = f
                .file_name()
                .is_some_and(|n| ALWAYS.iter().any(|a| n == *a))
                || f.components().any(|c| c.as_os_str() == ".cargo");
            always || self.files.contains(*f) || self.dirs.iter().any(|d| f.starts_with(d))
        })
    }
}

/// The `deps` folders of a build directory: `PROFILE/deps` and `TRIPLE/PROFILE/deps`.
fn dep_folders(build: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(profiles) = std::fs::read_dir(build) else {
        return found;
    };
    for p in profiles.flatten() {
        let deps = p.path().join("deps");
        if deps.is_dir() {
            found.push(deps);
        } else if let Ok(inner) = std::fs::read_dir(p.path()) {
            found.extend(
                inner
                    .flatten()
                    .map(|i| i.path().join("deps"))
                    .filter(|d| d.is_dir()),
            );
        }
    }
    found
}

/// The folder of the package `file` belongs to (the nearest one above it with a Cargo.toml,
/// not above `top`), relative to `top`.
fn package_of(file: &Path, top: &Path) -> Option<PathBuf> {
    let mut dir = file.parent()?;
    while dir.starts_with(top) {
        if dir.join("Cargo.toml").exists() {
            return dir.strip_prefix(top).ok().map(Path::to_path_buf);
        }
        dir = dir.parent()?;
    }
    None
}

/// The files that differ between commits `a` and `b` of the repository at `top`, relative to
/// its top (`git diff --name-only --no-renames`: a rename is its two paths).
pub fn changed_files(top: &Path, a: &str, b: &str) -> Result<Vec<PathBuf>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["diff", "--name-only", "--no-renames", a, b, "--"])
        .output()
        .context("cannot run git: bisect needs git on PATH")?;
    if !out.status.success() {
        anyhow::bail!(
            "`git diff --name-only {a} {b}` failed in {}: {}",
            top.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(PathBuf::from)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_named_for_their_crate() {
        for (file, krate) in [
            ("libregex-b92296792452d65a.rlib", Some("regex")),
            ("regex_automata-a42c5f2674be389a.d", Some("regex_automata")),
            ("costbench-suite-0f127a2dd2f7d0a7", Some("costbench-suite")),
            ("builtin-755ab83a942350d4", Some("builtin")),
            (
                "builtin-755ab83a942350d4.builtin.41537e91746b7c82-cgu.0.rcgu.o",
                Some("builtin"),
            ),
            ("libc-6fcde0ceb2196d37", Some("libc")),
            ("liblibc-6fcde0ceb2196d37.rlib", Some("libc")),
            ("rmetaC4aDEI", None),
            ("rustceEXMf9", None),
        ] {
            assert_eq!(unit_crate(file), krate, "{file}");
        }
    }

    /// The scratch range of docs/explain.md: a note at the top changes no build, a source file
    /// of the suite, its C source, a manifest anywhere or the lock file does.
    #[test]
    fn a_commit_touching_none_of_the_inputs_builds_the_same_binary() {
        let top = tempfile::tempdir().unwrap();
        let t = top.path();
        for dir in [
            "suites/builtin/src",
            "suites/builtin/csrc",
            "crates/costbench/src",
            "crates/cli/src",
        ] {
            std::fs::create_dir_all(t.join(dir)).unwrap();
        }
        for m in [
            "suites/builtin/Cargo.toml",
            "crates/costbench/Cargo.toml",
            "crates/cli/Cargo.toml",
        ] {
            std::fs::write(t.join(m), "").unwrap();
        }
        let mut inputs = BuildInputs::default();
        inputs.add_dep_file(
            &format!(
                "{0}/target/deps/costbench_suite-2db0aa1b7231b413.d: suites/builtin/src/lib.rs suites/builtin/src/index.rs\n\n\
                 suites/builtin/src/lib.rs:\n\
                 {0}/target/deps/costbench-0fc1937e5895506c.d: crates/costbench/src/lib.rs README.md /home/user/.cargo/registry/src/x/regex-1/src/lib.rs\n",
                "/elsewhere"
            ),
            t,
            t,
        );
        let touched = |files: &[&str]| {
            let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
            inputs
                .first_touched(&files)
                .map(|p| p.display().to_string())
        };
        assert_eq!(touched(&["NOTES-explain.txt"]), None);
        assert_eq!(
            touched(&["docs/explain.md", "crates/cli/src/main.rs"]),
            None
        );
        assert_eq!(
            touched(&["suites/builtin/src/index.rs"]).as_deref(),
            Some("suites/builtin/src/index.rs")
        );
        assert_eq!(
            touched(&["suites/builtin/csrc/packet.c"]).as_deref(),
            Some("suites/builtin/csrc/packet.c")
        );
        assert_eq!(
            touched(&["crates/costbench/src/other.rs"]).as_deref(),
            Some("crates/costbench/src/other.rs")
        );
        // include_str! of a file outside every package.
        assert_eq!(touched(&["README.md"]).as_deref(), Some("README.md"));
        assert_eq!(
            touched(&["crates/cli/Cargo.toml"]).as_deref(),
            Some("crates/cli/Cargo.toml")
        );
        assert_eq!(touched(&["Cargo.lock"]).as_deref(), Some("Cargo.lock"));
        assert_eq!(
            touched(&[".cargo/config.toml"]).as_deref(),
            Some(".cargo/config.toml")
        );
    }
}
