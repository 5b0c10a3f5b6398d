//! A scratch git repository holding the library, the protocol crate and the selftest suite, for
//! the tests that build two revisions (`check --baseline-rev`). It runs git, and costbench only
//! to build the warm build directory each scratch repository starts from ([`scratch_repo`]).

use super::{costbench, workspace, workspace_manifest};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

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

/// A git repository with the library, the protocol crate and the selftest suite, committed,
/// whose build directories start warm: each build directory costbench uses there (a run's, a
/// baseline's, a backfill's, a bisection's) is a copy of [`seed`], so that the suite's
/// dependencies are not compiled again in every scratch repository (about 30 s of CPU each, 16
/// repositories in the suite). The library, the protocol crate and the suite are still compiled
/// there: their sources are newer than the seed's artifacts, which is how cargo judges a
/// workspace member stale.
pub fn scratch_repo() -> tempfile::TempDir {
    let dir = scratch_repo_cold();
    let seed = seed();
    for variant in ["default", "baseline", "backfill", "bisect", "bisect-ahead"] {
        let to = dir.path().join("target/costbench/build").join(variant);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        // `cp -a` keeps the artifacts' times, older than the scratch sources: copied with new
        // times, the seed's build of the library would look fresh against a changed source.
        let out = Command::new("cp")
            .arg("-a")
            .arg(seed)
            .arg(&to)
            .output()
            .expect("cp runs");
        assert!(
            out.status.success(),
            "cp -a {}: {}",
            seed.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    dir
}

/// The build directory every warm scratch repository copies: the selftest suite built once by
/// costbench (`run --list`) in a scratch copy under the test target's temporary directory, and
/// kept there between test runs while `Cargo.lock` and the toolchain stay the same. Test
/// binaries run one after another and their tests in parallel: a file lock makes one build it
/// and the others wait.
fn seed() -> &'static Path {
    static SEED: OnceLock<PathBuf> = OnceLock::new();
    SEED.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scratch-seed");
        std::fs::create_dir_all(&root).unwrap();
        let lock = std::fs::File::create(root.join("lock")).unwrap();
        lock.lock().unwrap();
        let rustc = Command::new("rustc")
            .arg("-vV")
            .output()
            .expect("rustc runs");
        let key = format!(
            "{}{}",
            String::from_utf8_lossy(&rustc.stdout),
            std::fs::read_to_string(workspace().join("Cargo.lock")).unwrap()
        );
        let repo = root.join("repo");
        let build = repo.join("target/costbench/build/default");
        let ready = root.join("ready");
        if std::fs::read_to_string(&ready).ok().as_deref() != Some(key.as_str()) {
            let _ = std::fs::remove_file(&ready);
            let _ = std::fs::remove_dir_all(&repo);
            write_repo(&repo);
            let o = costbench(["run", "--list", "--quiet", "--manifest-path"])
                .arg(repo.join("Cargo.toml"))
                .args(["-p", "costbench-selftest", "--bench", "selftest"])
                .output();
            assert!(
                o.status.success() && build.is_dir(),
                "building the scratch repositories' seed: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            std::fs::write(&ready, key).unwrap();
        }
        build
    })
}

/// [`scratch_repo`] with nothing built: for a test that asserts what is built, or builds
/// nothing.
pub fn scratch_repo_cold() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    dir
}

/// The library, the protocol crate and the selftest suite copied into `dir`, as a workspace of
/// their own with the repository's lock file.
fn write_repo(dir: &Path) {
    let ws = workspace();
    for c in [
        "crates/costbench",
        "crates/costbench-protocol",
        "suites/selftest",
    ] {
        copy_dir(&ws.join(c), &dir.join(c));
    }
    let manifest = workspace_manifest(&[
        "crates/costbench",
        "crates/costbench-protocol",
        "suites/selftest",
    ]);
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(ws.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
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
