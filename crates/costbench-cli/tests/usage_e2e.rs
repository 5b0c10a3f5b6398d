//! Issue 29, "the first hour of a new user": a wrong command line exits 2 with one plain message
//! (what, where, what to do), and every input is checked before the build it would waste. Each
//! test runs the real binary on the selftest suite (or a scratch git repository of it).

mod common;

use common::scratch::{git, scratch_repo};
use common::{costbench, selftest_manifest, stderr};
use std::process::Output;

/// The first line of stderr that says `error`.
fn error_line(o: &Output) -> String {
    stderr(o)
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or_default()
        .to_string()
}

/// `run` on the selftest suite's manifest with `args`, quiet, into a fresh directory.
fn run(args: &[&str]) -> Output {
    let out = tempfile::tempdir().unwrap();
    costbench(["run", "--quiet", "--manifest-path"])
        .arg(selftest_manifest())
        .args(args)
        .arg("--output-dir")
        .arg(out.path())
        .output()
}

/// Issue 29, item 4: usage errors exited 1, though `--help` says 2 means "the command line was
/// wrong". Each case: its arguments and the start of its error line.
#[test]
fn issue_29_every_usage_error_exits_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--bench", "selftest", "--shard", "3/2"],
            "error: --shard \"3/2\": shards are numbered from 1 to N",
        ),
        (
            &["--bench", "selftest", "--shard", "0/2"],
            "error: --shard \"0/2\": shards are numbered from 1 to N",
        ),
        (
            &["--bench", "selftest", "--jobs", "0"],
            "error: --jobs 0: cargo's build jobs must not be 0",
        ),
        (
            &["--bench", "selftest", "--measure-jobs", "0"],
            "error: --measure-jobs must be at least 1",
        ),
        (
            &["--bench", "selftest", "--timeout", "0"],
            "error: --timeout must be at least 1 second",
        ),
        (
            &["--bench", "selftest", "--filter", "("],
            "error: --filter is not a valid regular expression",
        ),
        (
            &["-p", "nosuch"],
            "error: no package named \"nosuch\" here; packages:",
        ),
        (
            &["--bench", "nosuch"],
            "error: no bench target named \"nosuch\"; bench targets here:",
        ),
        (
            &["--bench", "selftest", "--format", "markdown"],
            "error: --format markdown:",
        ),
        (
            &[
                "--bench",
                "selftest",
                "--variant",
                "a:",
                "--baseline-variant",
                "zz",
            ],
            "error: --baseline-variant zz: no such variant here",
        ),
        (
            &["--bench", "selftest", "--variant", "a:nosuchkey=1"],
            "error: --variant a",
        ),
    ];
    for (args, first) in cases {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            error_line(&o).starts_with(first),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// Issue 29, items 1 and 4: a `--filter` that matches nothing said `side "default"` after the
/// build; now it is a usage error in plain words, and `check --baseline-rev` finds it before it
/// builds the baseline.
#[test]
fn issue_29_a_filter_that_matches_nothing_is_a_plain_usage_error() {
    let o = run(&["--bench", "selftest", "--filter", "^nothing-matches$"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let line = error_line(&o);
    assert!(
        line.starts_with(
            "error: --filter \"^nothing-matches$\" matches no scenario; scenarios: empty,"
        ),
        "{line}"
    );
    assert!(!stderr(&o).contains("side"), "{}", stderr(&o));

    let repo = scratch_repo();
    let out = tempfile::tempdir().unwrap();
    let o = costbench(["check", "--manifest-path"])
        .arg(repo.path().join("Cargo.toml"))
        .args(["-p", "costbench-selftest", "--bench", "selftest"])
        .args(["--baseline-rev", "HEAD", "--filter", "^nothing-matches$"])
        .arg("--output-dir")
        .arg(out.path())
        .output();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        error_line(&o).starts_with("error: --filter \"^nothing-matches$\" matches no scenario"),
        "{}",
        stderr(&o)
    );
    // The baseline was never built: its build directory holds at most the checkout's marker.
    let base_build = repo.path().join("target/costbench/build/baseline");
    let built: Vec<String> = std::fs::read_dir(&base_build)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != ".costbench-source")
                .collect()
        })
        .unwrap_or_default();
    assert!(built.is_empty(), "{built:?}: {}", stderr(&o));
}

/// Issue 29, item 1: `--db` naming a file that is not a database (or an unreachable server) was
/// found after the build and the measuring, and no table was printed. Now before the build.
#[test]
fn issue_29_a_bad_db_is_found_before_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let not_db = dir.path().join("notes.txt");
    std::fs::write(&not_db, "not a database\n".repeat(100)).unwrap();
    for db in [
        not_db.to_str().unwrap(),
        // Port 1 on loopback: nothing listens there.
        "postgres://costbench@127.0.0.1:1/history",
    ] {
        let out = dir.path().join("out");
        let o = costbench(["run", "--manifest-path"])
            .arg(selftest_manifest())
            .args(["--bench", "selftest", "--filter", "^empty$", "--db", db])
            .arg("--output-dir")
            .arg(&out)
            .output();
        assert_eq!(o.status.code(), Some(1), "{db}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            error_line(&o).starts_with("error: cannot use --db ") && err.contains("--no-history"),
            "{db}: {err}"
        );
        // Nothing was built nor measured: neither cargo nor costbench said a word of it.
        assert!(
            !err.contains("Compiling") && !err.contains("profile ["),
            "{db}: {err}"
        );
        assert!(!err.contains("Measuring"), "{db}: {err}");
    }
}

/// Issue 29, item 1: a results folder that cannot be written is found before building, by
/// `check` as by `run`.
#[test]
fn issue_29_an_unwritable_output_dir_is_found_before_the_build() {
    for cmd in [&["run"][..], &["check", "--baseline-rev", "HEAD"]] {
        let o = costbench(cmd)
            .arg("--manifest-path")
            .arg(selftest_manifest())
            .args([
                "--bench",
                "selftest",
                "--output-dir",
                "/proc/costbench-cannot-write",
            ])
            .output();
        assert_eq!(o.status.code(), Some(1), "{cmd:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            error_line(&o).starts_with("error: cannot create output directory /proc/"),
            "{cmd:?}: {err}"
        );
        assert!(
            !err.contains("Compiling") && !err.contains("profile ["),
            "{cmd:?}: {err}"
        );
    }
}

/// Issue 29, item 11: `--baseline-rev main` in a repository whose branch is `master` ended its
/// error after a colon with nothing; now it names the branches there are, as a usage error.
#[test]
fn issue_29_an_unknown_baseline_rev_names_the_branches() {
    let repo = scratch_repo();
    git(repo.path(), &["branch", "-M", "master"]);
    let out = tempfile::tempdir().unwrap();
    let o = costbench(["check", "--manifest-path"])
        .arg(repo.path().join("Cargo.toml"))
        .args(["-p", "costbench-selftest", "--bench", "selftest"])
        .args(["--baseline-rev", "main", "--output-dir"])
        .arg(out.path())
        .output();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let line = error_line(&o);
    assert!(
        line.starts_with("error: --baseline-rev \"main\" is not a commit of the repository at ")
            && line.contains("branches there: master ("),
        "{line}"
    );
    // Found before anything was built.
    assert!(!stderr(&o).contains("Compiling"), "{}", stderr(&o));
}

/// Issue 29, item 11: `check` without a baseline says how to get one, `--baseline-rev` included.
#[test]
fn issue_29_check_without_a_baseline_mentions_baseline_rev() {
    let o = costbench(["check"]).output();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("--baseline-rev"), "{err}");
}

/// Issue 29, item 4: `variants --help` listed `--list`, which `variants` then refused. It lists
/// the scenarios now, as `run --list` does.
#[test]
fn issue_29_variants_list_lists_the_scenarios() {
    let o = costbench(["variants", "--list", "--quiet", "--manifest-path"])
        .arg(selftest_manifest())
        .args(["--bench", "selftest", "--filter", "^calibrate/"])
        .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = common::stdout(&o);
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, ["calibrate/1000", "calibrate/100000"], "{out}");
}
