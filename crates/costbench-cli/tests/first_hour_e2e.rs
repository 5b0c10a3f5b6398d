//! End-to-end tests of issue 29's items on the selftest suite (the real binary, real cargo):
//! a heartbeat without a terminal (6), `-j` as cargo's build jobs and `--measure-jobs` for
//! measuring processes (7), and two runs at once waiting for each other's locks (13). The
//! scripted new-user session (`new_user_session.rs`) covers the others through a fresh crate.

mod common;
use common::*;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// `costbench run` on the selftest suite's bench `bench`, results in `out`, not quiet (so that
/// progress shows), without history.
fn run_args<'a>(bench: &'a str, out: &'a Path, extra: &[&'a str]) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "run".into(),
        "--manifest-path".into(),
        selftest_manifest().display().to_string(),
        "--bench".into(),
        bench.into(),
        "--output-dir".into(),
        out.display().to_string(),
        "--no-history".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Issue 29 (6): without a terminal, a hung scenario is not minutes of silence: a heartbeat
/// names it with its running time, and a line says when it finished.
#[test]
fn without_a_terminal_a_heartbeat_names_the_running_scenario() {
    let out = tempfile::tempdir().unwrap();
    let args = run_args(
        "failures",
        out.path(),
        &[
            "--filter",
            "^hangs$",
            "--instrument",
            "walltime",
            "--timeout",
            "3",
        ],
    );
    let o = costbench(&args)
        .env("COSTBENCH_HEARTBEAT_SECS", "1")
        .output();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "the scenario fails: {err}");
    assert!(
        err.lines()
            .any(|l| l.trim_start().starts_with("Running walltime hangs: ")
                && l.contains("s so far (a scenario is stopped after 3 s")),
        "{err}"
    );
    assert!(
        err.lines()
            .any(|l| l.trim_start() == "Measured walltime hangs (1 of 1)"),
        "{err}"
    );
}

/// Issue 29 (6): a line per scenario under instruction counts too, never naming the internal
/// residual scenario that every run measures.
#[test]
fn the_residual_scenario_is_never_shown() {
    if !valgrind_available() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let args = run_args(
        "selftest",
        out.path(),
        &["--filter", "^empty$", "--instrument", "icount"],
    );
    let o = costbench(&args).output();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.lines()
            .any(|l| l.trim_start() == "Measured icount empty (1 of 1)"),
        "{err}"
    );
    assert!(!err.contains("costbench::residual"), "{err}");
}

/// Issue 29 (7): `-j N` is cargo's `-j` (given to the build), `--measure-jobs N` how many
/// measuring processes run at once.
#[test]
fn jobs_are_cargos_build_jobs_and_measure_jobs_the_measuring_processes() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("cargo-args.log");
    let wrapper = tmp.path().join("cargo");
    let real = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec '{real}' \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = tmp.path().join("out");
    let args = run_args(
        "selftest",
        &out,
        &[
            "-j",
            "1",
            "--measure-jobs",
            "1",
            "--filter",
            "^empty$",
            "--instrument",
            "walltime",
            "--iterations-per-scenario",
            "3",
            "--quiet",
        ],
    );
    let o = costbench(&args).env("CARGO", &wrapper).output();
    assert!(o.status.success(), "{}", stderr(&o));
    let calls = std::fs::read_to_string(&log).unwrap();
    let build = calls
        .lines()
        .find(|l| l.starts_with("rustc "))
        .unwrap_or_else(|| panic!("no cargo rustc among {calls}"));
    assert!(build.contains("--jobs=1"), "{build}");
    let run = run_json(&out);
    assert_eq!(run["settings"]["jobs"], 1, "{run}");

    let o = costbench(["run", "--measure-jobs", "0"]).output();
    assert!(
        stderr(&o).contains("--measure-jobs must be at least 1"),
        "{}",
        stderr(&o)
    );
}

/// Waits until `path` exists (the run.json the first run writes as it starts measuring, after
/// it took its locks).
fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Issue 29 (13): a second run into the same output folder, or timing on the same CPU, says
/// what it waits for and waits for the first to finish, instead of both silently measuring
/// each other and one replacing the other's results.
#[test]
fn a_second_run_waits_for_the_output_folder_and_the_cpu_of_the_first() {
    let tmp = tempfile::tempdir().unwrap();
    let shared = tmp.path().join("shared");
    // Built first, so that the second runs reach their locks while the first holds them.
    let listed = costbench(run_args(
        "selftest",
        &tmp.path().join("list"),
        &["--list", "--quiet"],
    ))
    .output();
    assert!(listed.status.success(), "{}", stderr(&listed));
    // The first run holds both locks for about 6 s (a scenario that hangs until its timeout).
    let first = costbench(run_args(
        "failures",
        &shared,
        &[
            "--filter",
            "^hangs$",
            "--instrument",
            "walltime",
            "--timeout",
            "6",
            "--quiet",
        ],
    ))
    .spawn(Stdio::null(), Stdio::null());
    wait_for(&shared.join("run.json"));
    std::thread::sleep(Duration::from_millis(500));
    let quick = [
        "--filter",
        "^empty$",
        "--instrument",
        "walltime",
        "--iterations-per-scenario",
        "3",
    ];
    let mut same_dir = quick.to_vec();
    same_dir.extend(["--walltime-cpu", "any"]);
    let other = tmp.path().join("other");
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| costbench(run_args("selftest", &shared, &same_dir)).output());
        let b = s.spawn(|| costbench(run_args("selftest", &other, &quick)).output());
        (a.join().unwrap(), b.join().unwrap())
    });
    let mut first = first;
    assert_eq!(first.wait().unwrap().code(), Some(1), "its scenario fails");
    for (o, what) in [(&a, "the output folder "), (&b, "CPU ")] {
        let err = stderr(o);
        assert!(o.status.success(), "{err}");
        assert!(
            err.lines().any(|l| l
                .trim_start()
                .starts_with(&format!("Blocking waiting for file lock on {what}"))),
            "{err}"
        );
    }
    // The second run's results are the folder's now, whole.
    let run = run_json(&shared);
    assert_eq!(run["results"][0]["id"], "empty", "{run}");
}
