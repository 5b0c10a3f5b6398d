//! The first hour of a new user (issue 29), scripted: a fresh library crate in a temporary
//! directory with the book's bench (docs/guide/scenarios.md) copied in (and a stray `benches/*.rs` that uses libtest's
//! harness), costbench as a path dependency; then `run`, `check --baseline-rev`, `variants`,
//! `census`, `report`, and ten bad inputs. Every step asserts its exit code and the first line
//! of what it says (stderr's, or stdout's where the answer is there).
//!
//! Run time: 71 s, 136 s and 195 s in three runs on the project's 2-core VM shared with other
//! engineers' builds (measured 2026-11-25), nearly all of it the two cold builds of the fresh
//! crate that no session can skip (`run`'s, 32 to 85 s; `check`'s baseline revision's, 33 to
//! 91 s); everything after them took 6 to 20 s
//! (the variants change nothing, so they reuse `run`'s build; instruction counts only, so that
//! measuring is seconds).

mod common;
use common::scratch::git;
use common::*;

use std::path::Path;
use std::process::Output;
use std::time::Instant;

/// The library of the fresh crate: one function with a bounds check, small enough to be inlined
/// into the bench closure that calls it.
const LIB: &str = r#"//! A fresh library.

/// The sum of `v` at the indices `idx` (each index checked).
#[inline]
pub fn gather_sum(v: &[u64], idx: &[usize]) -> u64 {
    idx.iter().map(|&i| v[i]).sum()
}
"#;

/// A scenario of the library, added at the top of the book's bench.
const LIB_SCENARIO: &str = r#"
    suite.bench("mylib/gather_sum", ops(1000, "lookups"), |b| {
        let v: Vec<u64> = (0..4096).collect();
        let idx: Vec<usize> = (0..1000).map(|i| i * 7 % 4096).collect();
        b.iter(|| mylib::gather_sum(black_box(&v), black_box(&idx)))
    });
"#;

/// The book's bench (the block after `// benches/costs.rs` in docs/guide/scenarios.md), with
/// [`LIB_SCENARIO`] added.
fn book_bench() -> String {
    let readme = std::fs::read_to_string(workspace().join("docs/guide/scenarios.md")).unwrap();
    let start = readme
        .find("```rust,no_run\n// benches/costs.rs\n")
        .expect("docs/guide/scenarios.md shows benches/costs.rs")
        + "```rust,no_run\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let bench = &readme[start..end];
    let anchor = "    let mut suite = Suite::new();\n";
    assert!(bench.contains(anchor), "{bench}");
    bench.replacen(anchor, &format!("{anchor}{LIB_SCENARIO}"), 1)
}

/// The fresh crate, committed in a git repository of its own.
fn fresh_crate(dir: &Path) {
    let lib = workspace().join("crates/costbench").canonicalize().unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("benches")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"mylib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dev-dependencies]\ncostbench = {{ path = {:?} }}\n\n\
             [[bench]]\nname = \"costs\"\nharness = false\n\n[workspace]\n",
            lib.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), LIB).unwrap();
    std::fs::write(dir.join("benches/costs.rs"), book_bench()).unwrap();
    // Found by cargo on its own: a libtest bench, which costbench must not ask about.
    std::fs::write(dir.join("benches/stray.rs"), "// a libtest bench\n").unwrap();
    // The workspace's lock file: the same dependency versions, no index update.
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "a fresh crate"]);
}

/// The first line of `text` that is not blank, trimmed.
fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
}

/// Runs costbench in `dir` with `args`; asserts the exit code and that the first line of
/// stderr (or of stdout when `on_stdout`) starts with `first`.
fn step(dir: &Path, args: &[&str], code: i32, on_stdout: bool, first: &str) -> Output {
    let start = Instant::now();
    let o = costbench(args).current_dir(dir).output();
    let (out, err) = (stdout(&o), stderr(&o));
    let said = if on_stdout { &out } else { &err };
    eprintln!(
        "costbench {} -> {:?} in {:.1} s: {}",
        args.join(" "),
        o.status.code(),
        start.elapsed().as_secs_f64(),
        first_line(said)
    );
    assert_eq!(
        o.status.code(),
        Some(code),
        "costbench {args:?}\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert!(
        first_line(said).starts_with(first),
        "costbench {args:?}: the first line should start with {first:?}\nstdout:\n{out}\nstderr:\n{err}"
    );
    o
}

#[test]
fn a_new_user_session_from_a_fresh_crate_to_the_report() {
    if !valgrind_available() {
        return;
    }
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("mylib");
    fresh_crate(&c);

    // run: the harness = false target is chosen over the stray one, and says so.
    let o = step(
        &c,
        &["run", "--instrument", "icount"],
        0,
        false,
        "Selected bench target costs (harness = false) of package mylib; not stray",
    );
    assert!(stdout(&o).contains("mylib/gather_sum"), "{}", stdout(&o));
    assert!(c.join("target/costbench/results/run.json").is_file());

    // check against the committed revision: the same source, nothing changed.
    step(
        &c,
        &["check", "--baseline-rev", "HEAD", "--instrument", "icount"],
        0,
        false,
        "Selected bench target costs (harness = false) of package mylib; not stray",
    );

    // variants: those that change nothing reuse run's build (a variant with a setting of its
    // own builds every dependency again, a minute here: variants_e2e.rs covers those).
    let o = step(
        &c,
        &[
            "variants",
            "--variant",
            "release:",
            "--variant",
            "again:",
            "--instrument",
            "icount",
        ],
        0,
        false,
        "Selected bench target costs (harness = false) of package mylib; not stray",
    );
    let err = stderr(&o);
    for v in ["release", "again"] {
        let finished = format!("Finished variant {v} in");
        assert!(
            err.lines()
                .any(|l| l.trim_start().starts_with(&finished) && l.ends_with("(nothing rebuilt)")),
            "{err}"
        );
    }

    // census: the crate's own checks, its library's found through the bench closure.
    let o = step(&c, &["census"], 0, true, "census of ");
    let table = stdout(&o);
    assert!(
        table
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("(only the workspace's own crates; ")),
        "{table}"
    );
    let per_crate: Vec<&str> = table
        .split("\nper crate\n")
        .nth(1)
        .unwrap_or_default()
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .lines()
        .collect();
    assert!(
        per_crate.iter().all(|l| !l.contains(" costbench ")),
        "{table}"
    );
    let o = step(
        &c,
        &["census", "--functions", "^mylib$", "--format", "json"],
        0,
        true,
        "{",
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // gather_sum's check, inlined into the bench's closure, is the library's.
    assert!(
        json["guards"].as_array().unwrap().iter().any(
            |g| g["crate"] == "mylib" && g["function"].as_str().unwrap().starts_with("costs::")
        ),
        "{json}"
    );

    // report: after variants, the variants side by side, under the target directory.
    let page = c.join("target/costbench/report.html");
    step(
        &c,
        &["report"],
        0,
        true,
        &format!("wrote {}", page.display()),
    );
    let o = step(
        &c,
        &["report", "target/costbench/variants", "--no-history"],
        0,
        true,
        "wrote ",
    );
    assert!(stdout(&o).contains("2 runs"), "{}", stdout(&o));
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .contains("id=\"variants\""));

    // Ten bad inputs: what each says first, and its exit code (2: the command line was wrong;
    // 1: a run that is not there).
    let bad: &[(&[&str], i32, &str)] = &[
        (
            &["run", "--instrument", "bogus"],
            2,
            "error: invalid value 'bogus' for '--instrument",
        ),
        (
            &["run", "--measure-jobs", "0"],
            2,
            "error: --measure-jobs must be at least 1",
        ),
        (
            &["run", "--jobs", "0"],
            2,
            "error: --jobs 0: cargo's build jobs must not be 0",
        ),
        (
            &["run", "--bench", "nosuch"],
            2,
            "error: no bench target named \"nosuch\"; bench targets here: costs, stray",
        ),
        (
            &["census", "--binary", "no/such/file"],
            2,
            "error: --binary no/such/file: no such file",
        ),
        (
            &["report", "no/such/run", "--no-history"],
            2,
            "error: run \"no/such/run\"",
        ),
        (&["compare", "only-one"], 2, "error: "),
        (
            &["report", "--history-limit", "1"],
            2,
            "error: --history-limit must be at least 2",
        ),
        (
            &["run", "--walltime-cpu", "many"],
            2,
            "error: --walltime-cpu",
        ),
        (
            &["nosuchcommand"],
            2,
            "error: unrecognized subcommand 'nosuchcommand'",
        ),
    ];
    for (args, code, first) in bad {
        step(&c, args, *code, false, first);
    }
    eprintln!(
        "the new user's session took {:.0} s",
        started.elapsed().as_secs_f64()
    );
}
