//! Issue 29, "the first hour of a new user": a wrong command line exits 2 with one plain message
//! (what, where, what to do), and every input is checked before the build it would waste. Each
//! test runs the real binary on the selftest suite (or a scratch git repository of it).

mod common;

use common::scratch::{git, scratch_repo_cold};
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

    let repo = scratch_repo_cold();
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
    let repo = scratch_repo_cold();
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

/// Issue 41: `variants --filter` that matched nothing was found only after every variant was
/// built. Now the baseline variant is built first, alone, and its scenarios listed: the other
/// variants are never built.
#[test]
fn issue_41_a_variants_filter_that_matches_nothing_is_said_before_the_other_builds() {
    let out = tempfile::tempdir().unwrap();
    let o = costbench(["variants", "--no-history", "--manifest-path"])
        .arg(selftest_manifest())
        .args(["--bench", "selftest", "--instrument", "icount"])
        .args([
            "--variant",
            "plain:",
            "--variant",
            "checked:overflow-checks=true",
        ])
        .args(["--filter", "^nothing-matches$", "--output-dir"])
        .arg(out.path())
        .output();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        error_line(&o).starts_with("error: --filter \"^nothing-matches$\" matches no scenario"),
        "{err}"
    );
    // The baseline was built (its scenarios are listed from it), the other variant never.
    assert!(err.contains("variant plain"), "{err}");
    assert!(!err.contains("variant checked"), "{err}");
    assert!(!err.contains("Measuring"), "{err}");
}

/// Issue 41: `compare` and `check --baseline` naming a folder that does not exist exited 1;
/// it is a name that does not exist, a usage error (exit 2), said before anything is built.
#[test]
fn issue_41_a_baseline_folder_that_does_not_exist_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.sqlite");
    let o = costbench(["compare", "no/such/run", "no/such/other", "--db"])
        .arg(&db)
        .output();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let line = error_line(&o);
    assert!(
        line.starts_with("error: baseline \"no/such/run\": no such directory (looked in ")
            && line.contains("no history database at ")
            && line.contains("`costbench history`"),
        "{line}"
    );
    let check = |baseline: &str| {
        costbench(["check", "--manifest-path"])
            .arg(selftest_manifest())
            .args(["--bench", "selftest", "--baseline", baseline, "--db"])
            .arg(&db)
            .arg("--output-dir")
            .arg(dir.path().join("out"))
            .output()
    };
    for (baseline, first) in [
        (
            "no/such/run",
            "error: baseline \"no/such/run\": no such directory",
        ),
        (
            "branch:main",
            "error: --baseline branch:main: no history database at ",
        ),
    ] {
        let o = check(baseline);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{baseline}: {err}");
        assert!(error_line(&o).starts_with(first), "{baseline}: {err}");
        // Said before the candidate was built.
        assert!(
            !err.contains("Compiling") && !err.contains("profile ["),
            "{err}"
        );
    }
}

/// Issue 41: `variants --build-jobs` sat beside `-j/--jobs` and was easy to confuse; it is
/// `--parallel-builds` now, and the old spelling still works, hidden, with a note.
#[test]
fn issue_41_build_jobs_is_parallel_builds_and_the_old_spelling_says_so() {
    let variants = |args: &[&str]| {
        costbench(["variants", "--manifest-path"])
            .arg(selftest_manifest())
            .args(["--bench", "selftest", "--variant", "a:"])
            .args(args)
            .output()
    };
    let o = variants(&["--parallel-builds", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        error_line(&o),
        "error: --parallel-builds must be at least 1",
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("deprecated"), "{}", stderr(&o));
    // The old spelling reaches the same option, and says its new name.
    let o = variants(&["--build-jobs", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: --build-jobs is deprecated: it is now --parallel-builds"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        error_line(&o),
        "error: --parallel-builds must be at least 1"
    );
    // Both at once is a contradiction, refused by the parser.
    let o = variants(&["--build-jobs", "2", "--parallel-builds", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
    // The help names the new spelling only.
    let help = common::stdout(&costbench(["variants", "--help"]).output());
    assert!(
        help.contains("--parallel-builds <N>") && !help.contains("--build-jobs"),
        "{help}"
    );
}
