//! End-to-end test of `costbench advise` (issue 39) on a small crate of its own
//! (`tests/advise-fixture`): real clippy, real cargo builds of each suggestion applied alone in
//! the scratch copy, real valgrind. The fixture's redundant clone costs exactly 2 * 1000 + 1
//! instructions per call, so removing it must lower `token/hot` by exactly that, and its cold
//! `to_string` in `format!` arguments must change nothing.
//!
//! About 45 s on the project's 2-core VM, most of it the cold build of the costbench library's
//! dependencies for the unchanged copy; instruction counts only (wall time is not asserted).

mod common;
use common::scratch::git;
use common::*;

use serde_json::Value;
use std::path::Path;

/// The fixture crate in `dir`, committed in a git repository of its own.
fn fixture(dir: &Path) {
    let lib = workspace().join("crates/costbench").canonicalize().unwrap();
    scratch::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/advise-fixture"),
        dir,
    );
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"advise-fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dev-dependencies]\ncostbench = {{ path = {:?} }}\n\n\
             [[bench]]\nname = \"costs\"\nharness = false\n\n[workspace]\n",
            lib.display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "fixture"]);
}

fn candidate<'a>(advice: &'a Value, lint: &str) -> &'a Value {
    advice["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["change"]["lint"] == lint)
        .unwrap_or_else(|| panic!("no candidate of {lint}: {advice:#}"))
}

fn effect<'a>(c: &'a Value, id: &str) -> &'a Value {
    c["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id && e["figure"] == "icount")
        .unwrap_or_else(|| panic!("no icount effect on {id}: {c:#}"))
}

#[test]
fn issue_39_advise_measures_each_clippy_fix_alone_and_leaves_the_checkout_alone() {
    if !valgrind_available() {
        return;
    }
    let started = std::time::Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("fixture");
    fixture(&c);
    let lib_before = std::fs::read_to_string(c.join("src/lib.rs")).unwrap();
    let out = tmp.path().join("out");
    let o = costbench(["advise", "--only", "clippy", "--instrument", "icount"])
        .args(["--format", "json", "--output-dir"])
        .arg(&out)
        .current_dir(&c)
        .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let advice = stdout_json(&o, "advise --format json");
    assert_eq!(advice["schema"], "costbench-advice");
    assert_eq!(advice["schema_version"], 1);
    assert_eq!(advice["measured"], true);
    // The file written is the document printed.
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("advice.json")).unwrap()).unwrap();
    assert_eq!(written, advice);

    // The redundant clone on the hot path: exactly one clone (2 * 1000 + 1 instructions) less
    // per call, and nothing else moved.
    let clone = candidate(&advice, "clippy::redundant_clone");
    assert_eq!(clone["verdict"], "worth-it", "{clone:#}");
    let hot = effect(clone, "token/hot");
    assert_eq!(hot["verdict"], "improvement");
    assert_eq!(
        hot["base"].as_f64().unwrap() - hot["cand"].as_f64().unwrap(),
        2001.0,
        "{hot:#}"
    );
    let once = effect(clone, "token/once");
    assert_eq!(once["base"], once["cand"], "{once:#}");
    let diff = clone["change"]["diff"].as_str().unwrap();
    assert!(
        diff.contains("-    consume(owned.clone())\n+    consume(owned)\n"),
        "{diff}"
    );
    assert!(
        diff.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ "),
        "{diff}"
    );

    // The cold `to_string` in `format!` arguments: no scenario runs it, and no count moved.
    let cold = candidate(&advice, "clippy::to_string_in_format_args");
    assert_eq!(cold["verdict"], "no-measurable-effect", "{cold:#}");
    for e in cold["effects"].as_array().unwrap() {
        assert_eq!(e["base"], e["cand"], "{e:#}");
        assert_eq!(e["verdict"], "unchanged");
    }

    // The user's checkout is untouched.
    assert_eq!(
        std::fs::read_to_string(c.join("src/lib.rs")).unwrap(),
        lib_before
    );
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(&c)
        .args(["status", "--porcelain"])
        .output()
        .unwrap();
    assert!(
        status.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );

    // --list: the same candidates with their diffs, nothing measured.
    let o = costbench([
        "advise", "--only", "clippy", "--list", "--format", "markdown",
    ])
    .arg("--output-dir")
    .arg(tmp.path().join("listed"))
    .current_dir(&c)
    .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("**not measured**"), "{md}");
    assert!(md.contains("+    consume(owned)"), "{md}");

    // Usage errors: exit 2, with what to do.
    for (args, says) in [
        (
            &["advise", "--max-candidates", "0"][..],
            "--max-candidates must be at least 1",
        ),
        (
            &["advise", "--only", "idioms"][..],
            "invalid value 'idioms'",
        ),
        (
            &["advise", "--only", "clippy", "--filter", "no/such/scenario"][..],
            "no/such/scenario",
        ),
    ] {
        let o = costbench(args).current_dir(&c).output();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    eprintln!(
        "advise end-to-end test: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
