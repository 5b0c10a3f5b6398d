//! End-to-end tests of the explanation of a change (issue 27): on a scratch git repository whose
//! working tree adds a bounds check to a hot loop, `costbench check --baseline-rev` names the
//! function whose own cost changed and nothing else, and its census diff lists the one check
//! that appeared, at its line, with its executions per op. Real builds of both revisions, real
//! valgrind.

mod common;
use common::scratch::{git, scratch_repo};
use common::*;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// `check --baseline-rev HEAD` of the selftest suite's scenarios matching `filter`, with the
/// census, as JSON, the markdown report written to `md`.
fn check(repo: &Path, out: &Path, filter: &str, md: &Path) -> (Output, Value) {
    let o = costbench(["check", "--manifest-path"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .arg(repo.join("Cargo.toml"))
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
            "--baseline-rev",
            "HEAD",
            "--instrument",
            "icount,census",
            "--format",
            "json",
            "--no-history",
            "--filter",
            filter,
            "--markdown",
        ])
        .arg(md)
        .arg("--output-dir")
        .arg(out)
        .output();
    let json = common::stdout_json(&o, "check");
    (o, json)
}

/// Commits the selftest suite's `checked_sum` summing `xs[x]` for each element `x` without a
/// bounds check (`get_unchecked`: the scenario's elements are 0..1000, all valid indices), then
/// writes the same loop with the check (`xs[x]`) to the working tree: an index from the data,
/// one check per element that the optimiser cannot hoist, and nothing else changed. Returns the
/// line of the indexing.
fn add_bounds_check(repo: &Path) -> u32 {
    let lib = repo.join("suites/selftest/src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let old = "    for &x in xs {\n        s += x;\n    }";
    assert!(text.contains(old), "checked_sum's loop as committed");
    let body =
        |index: &str| format!("    for &x in xs {{\n        s = s.wrapping_add({index});\n    }}");
    // SAFETY of the committed side: every element of the scenario's input is below its length.
    let unchecked = text.replace(old, &body("unsafe { *xs.get_unchecked(x as usize) }"));
    std::fs::write(&lib, &unchecked).unwrap();
    git(repo, &["commit", "-q", "-am", "unchecked indirect sum"]);
    let checked = text.replace(old, &body("xs[x as usize]"));
    let line = checked
        .lines()
        .position(|l| l.contains("xs[x as usize]"))
        .expect("the new line") as u32
        + 1;
    std::fs::write(&lib, checked).unwrap();
    line
}

/// Issue 27's first target on the selftest suite: the function, the added check at its line
/// with one execution per op, and nothing else.
#[test]
fn an_added_bounds_check_is_named_with_its_line_and_count() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    let line = add_bounds_check(repo.path());
    let out = tempfile::tempdir().unwrap();
    let md = out.path().join("comment.md");
    let (o, json) = check(repo.path(), out.path(), "^checked/sum$", &md);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let cmp = &json["comparison"];
    let functions = &cmp["functions"][0];
    assert_eq!(functions["id"], "checked/sum");
    let top = functions["top"].as_array().unwrap();
    assert!(
        top[0]["name"].as_str().unwrap().contains("checked_sum"),
        "{functions}"
    );
    // Nothing listed whose own cost did not change.
    for f in top {
        assert_ne!(f["base_self"], f["cand_self"], "{functions}");
    }
    let census = &cmp["census"][0];
    assert_eq!(census["id"], "checked/sum", "{cmp}");
    let appeared = census["appeared"].as_array().unwrap();
    assert_eq!(appeared.len(), 1, "{census}");
    let check = &appeared[0];
    assert_eq!(check["kind"], "slice-index", "{check}");
    assert!(
        check["file"]
            .as_str()
            .unwrap()
            .ends_with("suites/selftest/src/lib.rs"),
        "{check}"
    );
    assert_eq!(check["line"].as_u64(), Some(u64::from(line)), "{check}");
    // 1,000 additions per run, one check each: exactly one per op.
    assert_eq!(check["cand_per_op"].as_f64(), Some(1.0), "{check}");
    assert_eq!(
        census["disappeared"].as_array().unwrap().len(),
        0,
        "{census}"
    );
    assert_eq!(census["changed"].as_array().unwrap().len(), 0, "{census}");
    // The machine code: the added compare and conditional branch of the check (`cmp len, idx;
    // jbe` or `cmp idx, len; jae`, as LLVM orders them), each run once per op, and the call of
    // the cold block that panics, never run. (The unchecked loop was unrolled eight times and
    // the checked one is not, so the loop's other instructions differ too.)
    let asm = cmp["asm"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["function"].as_str().unwrap().contains("checked_sum"))
        .unwrap_or_else(|| panic!("no machine code of checked_sum: {cmp}"));
    let lines = asm["lines"].as_array().unwrap();
    let added = |pred: &dyn Fn(&str) -> bool, per_op: f64| {
        lines.iter().any(|l| {
            l["edit"] == "added"
                && pred(l["text"].as_str().unwrap())
                && l["cand_per_op"].as_f64() == Some(per_op)
        })
    };
    assert!(added(&|t| t.starts_with("cmp "), 1.0), "{asm}");
    assert!(
        added(&|t| t.starts_with('j') && !t.starts_with("jmp"), 1.0),
        "{asm}"
    );
    assert!(
        added(
            &|t| t.starts_with("call") && t.contains("panic_bounds_check"),
            0.0
        ),
        "{asm}"
    );
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("Machine code of the functions that changed most"),
        "{md}"
    );
    assert!(md.contains("Checks that moved"), "{md}");
    assert!(
        md.contains(&format!(
            "| appeared | slice-index | suites/selftest/src/lib.rs:{line} | 0 → 1.000 |"
        )),
        "{md}"
    );
    // The check's branch in the collapsed diff, with its executions per op.
    assert!(
        md.lines()
            .any(|l| l.starts_with('+') && l.contains("cmp ") && l.contains(" 1.000 ")),
        "{md}"
    );
}

/// Issue 27's bisect target on the selftest suite: nine commits after GOOD, the sixth turns the
/// knob (1,000 more instructions per run of `knob/spin`), the others edit a file no scenario
/// reads. `bisect` names the sixth in at most ⌈log2 9⌉ + 1 = 5 measurements (two: the commits
/// that changed only the note take a measured commit's count) and explains it with the function
/// whose own cost changed.
#[test]
fn bisect_finds_the_commit_that_changed_the_count() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    let r = repo.path();
    for k in 1..=9 {
        if k == 6 {
            common::scratch::set_knob(r, 5);
        } else {
            std::fs::write(r.join("NOTES.txt"), format!("note {k}\n")).unwrap();
            git(r, &["add", "NOTES.txt"]);
        }
        git(r, &["commit", "-q", "-am", &format!("commit {k}")]);
    }
    let sixth = common::scratch::rev_parse(r, "HEAD~3");
    let out = tempfile::tempdir().unwrap();
    let o = costbench(["bisect", "HEAD~9", "HEAD", "--manifest-path"])
        .arg(r.join("Cargo.toml"))
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
            "--filter",
            "^knob/spin$",
            "--quiet",
            "--output-dir",
        ])
        .arg(out.path())
        .output();
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    assert!(
        text.starts_with(&format!(
            "first commit that changed knob/spin: {sixth} commit 6\n"
        )),
        "{text}"
    );
    // 1,000 more instructions per run: the two counts in the second line differ by that.
    let counts: Vec<u64> = text
        .lines()
        .nth(1)
        .and_then(|l| l.split_once("), "))
        .map(|(_, l)| {
            l.trim_end_matches(" Ir per run")
                .split(" → ")
                .map(|n| n.replace(',', "").parse().unwrap())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(counts.len(), 2, "{text}");
    assert_eq!(counts[1] - counts[0], 1000, "{text}");
    let measurements: usize = text
        .split_whitespace()
        .zip(text.split_whitespace().skip(1))
        .find(|(_, w)| *w == "measurements")
        .map(|(n, _)| n.parse().unwrap())
        .expect("the number of measurements");
    assert!(measurements <= 5, "{text}");
    // The commits that changed only NOTES.txt, which no build reads, are decided without a
    // build: GOOD and the 7th are measured; the 5th takes GOOD's count, the 6th the 7th's.
    assert_eq!(measurements, 2, "{text}");
    assert!(
        text.contains("; 2 commits decided without a build"),
        "{text}"
    );
    assert!(
        text.contains("functions whose own cost changed in knob/spin"),
        "{text}"
    );
    assert!(text.contains("spin"), "{text}");
}
