//! A scratch git repository holding the library, the protocol crate and the selftest suite, for
//! the tests that build two revisions (`check --baseline-rev`). It runs git, never costbench.

use super::{workspace, workspace_manifest};
use std::path::Path;
use std::process::Command;

/// Copies a directory tree, leaving out `target` directories.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "target" {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if e.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Runs git in `dir` as a fixed author; fails the test when git does.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The full id of the commit `rev` names in the repository at `dir`.
pub fn rev_parse(dir: &Path, rev: &str) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", rev])
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git rev-parse {rev}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A git repository with the library, the protocol crate and the selftest suite, committed.
pub fn scratch_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace();
    for c in [
        "crates/costbench",
        "crates/costbench-protocol",
        "suites/selftest",
    ] {
        copy_dir(&ws.join(c), &dir.path().join(c));
    }
    let manifest = workspace_manifest(&[
        "crates/costbench",
        "crates/costbench-protocol",
        "suites/selftest",
    ]);
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(ws.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    std::fs::write(dir.path().join(".gitignore"), "/target\n").unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    dir
}

/// Sets the selftest suite's knob (extra work per mille of the `knob` scenario) in `repo`'s
/// working tree: a change of known size.
pub fn set_knob(repo: &Path, permille: u32) {
    let lib = repo.join("suites/selftest/src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("pub const KNOB_EXTRA_PERMILLE"))
        .unwrap();
    let text = text.replace(
        line,
        &format!("pub const KNOB_EXTRA_PERMILLE: u64 = {permille};"),
    );
    std::fs::write(&lib, text).unwrap();
}
