//! A scenario binary started by a test runner rather than by costbench: the libtest arguments
//! `cargo test --benches`, `cargo bench` and `cargo nextest` pass (issue 16: `cargo nextest list`
//! could not list the bench target). The selftest suite's bench binaries, built by cargo.

mod common;

use common::workspace;
use std::path::PathBuf;
use std::process::{Command, Output};

/// Builds `bench` of the selftest suite as `cargo test --benches` does and returns its path.
fn bench_binary(bench: &str) -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .current_dir(workspace())
        .args([
            "test",
            "-p",
            "costbench-selftest",
            "--bench",
            bench,
            "--no-run",
            "--message-format=json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == bench)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the bench executable")
}

fn run(bin: &PathBuf, args: &[&str]) -> (Output, String) {
    let out = Command::new(bin).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, stdout)
}

#[test]
fn nextest_lists_and_runs_scenarios_one_by_one() {
    let bin = bench_binary("selftest");
    // What nextest runs to list: every scenario as `NAME: test`, nothing else on stdout.
    let (out, list) = run(&bin, &["--list", "--format", "terse"]);
    assert!(out.status.success());
    let names: Vec<&str> = list
        .lines()
        .map(|l| l.strip_suffix(": test").expect(l))
        .collect();
    assert!(names.contains(&"calibrate/1000"), "{list}");
    assert!(
        names.contains(&"pipe/echo"),
        "a multi-party scenario is one test: {list}"
    );
    // ... and to list ignored tests: costbench has none.
    let (out, ignored) = run(&bin, &["--list", "--format", "terse", "--ignored"]);
    assert!(out.status.success());
    assert_eq!(ignored, "");
    // What nextest runs per test: exactly that scenario, once (`calibrate/1000` is a prefix of
    // `calibrate/100000`, which a substring filter would run too).
    let (out, ran) = run(&bin, &["--exact", "calibrate/1000", "--nocapture"]);
    assert!(out.status.success(), "{ran}");
    assert_eq!(ran.matches(" ... ok").count(), 1, "{ran}");
    assert!(ran.contains("scenario calibrate/1000 ... ok"), "{ran}");
    // libtest refuses what it does not know, with its exit code.
    let (out, _) = run(&bin, &["--frobnicate"]);
    assert_eq!(out.status.code(), Some(101));
}

#[test]
fn a_failing_scenario_fails_its_test() {
    let bin = bench_binary("failures");
    let (out, ran) = run(&bin, &["--exact", "works"]);
    assert!(out.status.success(), "{ran}");
    // A panic in the body fails that test alone, with libtest's exit code.
    let (out, ran) = run(&bin, &["--exact", "panics", "--nocapture"]);
    assert_eq!(out.status.code(), Some(101), "{ran}");
    assert!(ran.contains("scenario panics ... FAILED"), "{ran}");
    // Filters and --skip as libtest reads them: `works` and `panics`, not the others.
    let (out, ran) = run(&bin, &["works", "panics", "--skip", "hangs"]);
    assert_eq!(out.status.code(), Some(101), "{ran}");
    assert!(ran.contains("1 passed, 1 failed"), "{ran}");
}
