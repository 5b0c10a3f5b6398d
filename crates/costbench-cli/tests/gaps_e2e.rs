//! Issue 29, "the first hour of a new user": what did not run, or ran without what it needs, is
//! said where the user looks (the terminal, the check's verdict), and never claimed. Each test
//! runs the real binary on a suite of the repository.

mod common;

use common::{costbench, selftest_manifest, stderr, stdout, workspace};
use std::path::{Path, PathBuf};

/// A PATH with every directory of this one, except that the directory holding valgrind is
/// replaced by a copy of it (symbolic links) without valgrind: cargo, the linker and git stay.
fn path_without_valgrind(scratch: &Path) -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .enumerate()
        .map(|(i, dir)| {
            if !dir.join("valgrind").exists() {
                return dir;
            }
            let shadow = scratch.join(format!("path-{i}"));
            std::fs::create_dir_all(&shadow).unwrap();
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let name = e.file_name();
                if !name.to_string_lossy().starts_with("valgrind") {
                    let _ = std::os::unix::fs::symlink(e.path(), shadow.join(&name));
                }
            }
            shadow
        })
        .collect();
    std::env::join_paths(dirs).unwrap()
}

/// Issue 29, item 2: without valgrind, `check` judged wall time only and passed, its summary
/// saying "N unchanged (icount within 0.2 %; walltime within 3 %)". Now the summary names the
/// instrument that did not run, and the gate fails unless `--allow-missing-instrument`.
#[test]
fn issue_29_a_missing_instrument_is_named_and_fails_check() {
    let scratch = tempfile::tempdir().unwrap();
    let path = path_without_valgrind(scratch.path());
    let out = scratch.path().join("run");
    let o = costbench(["run", "--manifest-path"])
        .arg(selftest_manifest())
        .args([
            "--bench",
            "selftest",
            "--filter",
            "^(empty|calibrate/1000)$",
        ])
        .args([
            "--iterations-per-scenario",
            "3",
            "--no-history",
            "--output-dir",
        ])
        .arg(&out)
        .env("PATH", &path)
        .env_remove("COSTBENCH_VALGRIND")
        .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // `run` says it in its summary, after the table.
    assert!(
        stdout(&o).contains("icount skipped: valgrind is not installed"),
        "{}",
        stdout(&o)
    );

    let check = |extra: &[&str]| {
        costbench(["check", "--manifest-path"])
            .arg(selftest_manifest())
            .args(["--bench", "selftest", "--baseline"])
            .arg(&out)
            .arg("--candidate")
            .arg(&out)
            .args(extra)
            .env("PATH", &path)
            .output()
    };
    let o = check(&["--github", "on"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // In GitHub Actions, an error annotation says it too.
    assert!(
        stderr(&o)
            .contains("::error title=costbench%3A icount not measured::icount was not measured"),
        "{}",
        stderr(&o)
    );
    let text = stdout(&o);
    assert!(!text.contains("icount within"), "{text}");
    assert!(
        text.lines()
            .find(|l| l.contains(" regressions, "))
            .unwrap()
            .ends_with(", icount not measured"),
        "{text}"
    );
    assert!(
        text.contains("icount was not measured in either run: valgrind is not installed"),
        "{text}"
    );
    assert!(
        text.contains("check: FAILED: an instrument asked for could not run"),
        "{text}"
    );
    assert!(text.contains("--allow-missing-instrument"), "{text}");

    let o = check(&["--allow-missing-instrument"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("check: passed"), "{text}");
    assert!(
        text.contains("icount was not measured in either run"),
        "{text}"
    );
}

/// Issue 29, item 3: `run --instrument memory` without the library's `count-alloc` feature
/// printed "not counted" in every row; what to do was only in run.json.
#[test]
fn issue_29_why_allocations_were_not_counted_is_printed() {
    let out = tempfile::tempdir().unwrap();
    let o = costbench(["run", "--manifest-path"])
        .arg(workspace().join("suites/nocount/Cargo.toml"))
        .args(["--instrument", "memory", "--no-history", "--output-dir"])
        .arg(out.path())
        .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let hint: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("allocations not counted: "))
        .collect();
    assert_eq!(hint.len(), 1, "{text}");
    assert!(hint[0].contains("`count-alloc` feature"), "{text}");
}

/// Issue 29, item 12: "Finished 5 measured ids" when four of them failed.
#[test]
fn issue_29_finished_counts_failed_ids_as_failed() {
    let out = tempfile::tempdir().unwrap();
    let o = costbench(["run", "--manifest-path"])
        .arg(selftest_manifest())
        .args([
            "--bench",
            "failures",
            "--filter",
            "^(works|panics|no_iter)$",
        ])
        .args(["--instrument", "walltime", "--iterations-per-scenario", "3"])
        .args(["--no-history", "--output-dir"])
        .arg(out.path())
        .output();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let finished = err
        .lines()
        .find(|l| l.trim_start().starts_with("Finished 1 measured"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        finished.contains("1 measured id, 2 failed in "),
        "{finished}"
    );
}
