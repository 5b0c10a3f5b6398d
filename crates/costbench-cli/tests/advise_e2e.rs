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

/// The fixture crate `name` (a folder of `tests/`) in `dir`, with `deps` as its
/// `[dependencies]`, committed in a git repository of its own.
fn fixture(dir: &Path, name: &str, deps: &str) {
    let lib = workspace().join("crates/costbench").canonicalize().unwrap();
    scratch::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(name),
        dir,
    );
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\n{deps}\n\n\
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

fn candidate<'a>(advice: &'a Value, rule: &str) -> &'a Value {
    advice["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["change"]["rule"] == rule)
        .unwrap_or_else(|| panic!("no candidate of {rule}: {advice:#}"))
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
    fixture(&c, "advise-fixture", "");
    let lib_before = std::fs::read_to_string(c.join("src/lib.rs")).unwrap();
    let out = tmp.path().join("out");
    // The fixture has no tests of its own: `cargo test` would only compile its dependencies
    // again (the planted-idioms test below runs them).
    let o = costbench([
        "advise",
        "--only",
        "clippy",
        "--no-tests",
        "--instrument",
        "icount",
    ])
    .args(["--format", "json", "--output-dir"])
    .arg(&out)
    .current_dir(&c)
    .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let advice = stdout_json(&o, "advise --format json");
    assert_eq!(advice["schema"], "costbench-advice");
    assert_eq!(advice["schema_version"], 2);
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
    let diff = clone["change"]["diff"].as_str().unwrap();
    assert!(
        diff.contains("-    consume(owned.clone())\n+    consume(owned)\n"),
        "{diff}"
    );
    assert!(
        diff.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ "),
        "{diff}"
    );

    // The cold `to_string` in `format!` arguments: the unchanged code's profile shows no scenario
    // executes `describe`, so it was built and not measured, and no saving is claimed.
    let cold = candidate(&advice, "clippy::to_string_in_format_args");
    assert_eq!(cold["verdict"], "no-measurable-effect", "{cold:#}");
    assert!(cold["effects"].as_array().unwrap().is_empty(), "{cold:#}");
    assert!(cold.get("executed_by").is_none(), "{cold:#}");
    let why = cold["reason"].as_str().unwrap();
    assert!(
        why.contains("no scenario executes the code it changes (`describe`, src/lib.rs:"),
        "{why}"
    );
    // The hot clone is measured on the one scenario that executes `hot`.
    assert_eq!(clone["executed_by"][0]["id"], "token/hot", "{clone:#}");
    assert_eq!(clone["executed_by"].as_array().unwrap().len(), 1);

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
        (&["advise", "--only", "lints"][..], "invalid value 'lints'"),
        (&["advise", "--apply", "c9"][..], "no advice in"),
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

/// The candidate at `line` of `src/lib.rs` from `rule`.
fn at<'a>(advice: &'a Value, rule: &str, line: u64) -> &'a Value {
    advice["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["change"]["rule"] == rule && c["change"]["line"] == line)
        .unwrap_or_else(|| panic!("no candidate of {rule} at line {line}: {advice:#}"))
}

#[test]
fn issue_39_advise_finds_every_planted_idiom_measures_each_rewrite_and_applies_one() {
    if !valgrind_available() {
        return;
    }
    let started = std::time::Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("planted");
    fixture(&c, "idioms-fixture", "regex = \"1\"");
    let lib_before = std::fs::read_to_string(c.join("src/lib.rs")).unwrap();
    let manifest_before = std::fs::read_to_string(c.join("Cargo.toml")).unwrap();
    let out = tmp.path().join("out");
    // Miri would build the costbench library and regex under Miri for the unchecked index (a
    // few minutes here): a toolchain that does not exist makes it missing, which advise says.
    let o = costbench(["advise", "--only", "idioms", "--instrument", "icount"])
        .args(["--placement-runs", "1", "--format", "json", "--output-dir"])
        .arg(&out)
        .env(
            "COSTBENCH_MIRI_TOOLCHAIN",
            "costbench-test-no-such-toolchain",
        )
        .current_dir(&c)
        .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let advice = stdout_json(&o, "advise --format json");

    // Each planted idiom found, its rewrite measured, and the scenario that runs it faster by
    // instruction count; the idiom's own scenario is what moved.
    for (rule, line, scenario) in [
        ("idiom::regex_compiled_per_call", 16, "regex/count_numbers"),
        ("idiom::regex_for_str_method", 24, "regex/comments"),
        ("idiom::regex_compiled_per_call", 24, "regex/comments"),
        ("idiom::unbuffered_writes", 30, "io/save"),
        ("idiom::vec_without_capacity", 39, "vec/squares"),
        ("idiom::default_hasher", 48, "map/word_counts"),
        ("idiom::collect_then_iterate", 68, "iter/word_lengths"),
    ] {
        let cand = at(&advice, rule, line);
        let e = effect(cand, scenario);
        assert_eq!(e["verdict"], "improvement", "{rule} at {line}: {cand:#}");
        assert!(
            e["cand"].as_f64().unwrap() < e["base"].as_f64().unwrap(),
            "{e:#}"
        );
        // Significant only: a candidate is worth it, or mixed where a row it does not touch
        // moved with the binary's layout; never a gain without a significant row.
        let v = cand["verdict"].as_str().unwrap();
        assert!(v == "worth-it" || v == "mixed", "{rule}: {cand:#}");
        let diff = cand["change"]["diff"].as_str().unwrap();
        assert!(diff.starts_with("--- a/src/lib.rs\n"), "{diff}");
    }
    // The hottest bounds check: `gather`'s, once per element; with its index unchecked the
    // scenario runs fewer instructions, measured on the one scenario that executes `gather`.
    let check = at(&advice, "check::bounds", 106);
    assert_eq!(check["id"], "k1");
    assert_eq!(check["verdict"], "worth-it", "{check:#}");
    assert_eq!(effect(check, "index/gather")["verdict"], "improvement");
    assert_eq!(
        check["executed_by"].as_array().unwrap().len(),
        1,
        "{check:#}"
    );
    assert!(check["change"]["diff"]
        .as_str()
        .unwrap()
        .contains("+        sum = sum.wrapping_add((*unsafe { (data).get_unchecked(p) }));"));
    let notes = advice["notes"].to_string();
    assert!(
        notes.contains("1 bounds-check site of the package's code executed"),
        "{notes}"
    );
    assert!(notes.contains("not by Miri"), "{notes}");
    // The default hasher's rewrite adds its dependency, in the same diff.
    let hasher = at(&advice, "idiom::default_hasher", 48);
    assert!(hasher["change"]["diff"]
        .as_str()
        .unwrap()
        .contains("+++ b/Cargo.toml\n"));

    // No safe rewrite: reported with no claimed saving and nothing measured.
    let print = at(&advice, "idiom::print_in_loop", 78);
    assert_eq!(print["verdict"], "no-rewrite", "{print:#}");
    assert!(print["effects"].as_array().unwrap().is_empty());
    // A rewrite that does not compile, and one that breaks the crate's test: never measured.
    let synced = at(&advice, "idiom::unbuffered_writes", 84);
    assert_eq!(synced["verdict"], "build-failed", "{synced:#}");
    assert!(synced["error"].as_str().unwrap().contains("sync_all"));
    assert!(synced["effects"].as_array().unwrap().is_empty());
    let measured = at(&advice, "idiom::unbuffered_writes", 94);
    assert_eq!(measured["verdict"], "tests-failed", "{measured:#}");
    assert!(
        measured["error"]
            .as_str()
            .unwrap()
            .contains("the_length_counts_every_row"),
        "{measured:#}"
    );
    assert!(measured["effects"].as_array().unwrap().is_empty());

    // The checkout is untouched by measuring...
    assert_eq!(
        std::fs::read_to_string(c.join("src/lib.rs")).unwrap(),
        lib_before
    );
    assert_eq!(
        std::fs::read_to_string(c.join("Cargo.toml")).unwrap(),
        manifest_before
    );
    // ...and `--apply ID` writes one candidate's diff into it, once.
    let id = at(&advice, "idiom::vec_without_capacity", 39)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let apply = || {
        costbench(["advise", "--apply", &id, "--output-dir"])
            .arg(&out)
            .current_dir(&c)
            .output()
    };
    let o = apply();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lib = std::fs::read_to_string(c.join("src/lib.rs")).unwrap();
    assert_eq!(
        lib,
        lib_before.replace(
            "    let mut v = Vec::new();\n",
            "    let mut v = Vec::with_capacity(xs.len());\n"
        )
    );
    let o = apply();
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("has changed since"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(c.join("src/lib.rs")).unwrap(), lib);
    eprintln!(
        "advise idioms end-to-end test: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
