//! End-to-end tests of `costbench miri`: the real binary, real `cargo +nightly miri` runs of the
//! built-in suite and of the selftest crate's deliberately unsound `miri_ub` bench target. They
//! print `SKIPPED` and pass where nightly's Miri is not installed; the message for that case is
//! tested everywhere.

mod common;
use common::*;

use serde_json::Value;

use std::process::Output;

/// `costbench miri --format json` on `package`'s bench target `bench`.
fn miri_json(package: &str, bench: &str, filter: Option<&str>) -> (Output, Value) {
    let manifest = workspace().join("Cargo.toml");
    let mut args = vec![
        "miri",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "-p",
        package,
        "--bench",
        bench,
        "--format",
        "json",
    ];
    if let Some(f) = filter {
        args.extend(["--filter", f]);
    }
    let out = costbench(&args).output();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stderr:\n{}", stderr(&out)));
    (out, json)
}

fn result<'a>(report: &'a Value, scenario: &str) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scenario"] == scenario)
        .unwrap_or_else(|| panic!("no result for {scenario}: {report:#}"))
}

/// `file:line:col` of the first line of `file` (relative to the workspace) containing `needle`,
/// at the column where `needle` starts.
fn location_of(file: &str, needle: &str) -> String {
    let text = std::fs::read_to_string(workspace().join(file)).unwrap();
    let (n, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in {file}"));
    format!("{file}:{}:{}", n + 1, line.find(needle).unwrap() + 1)
}

/// Whether `location` (`FILE:LINE:COL`) points into `needle` where it stands in `file`.
fn within(location: &str, file: &str, needle: &str) -> bool {
    let start = location_of(file, needle);
    let (line, col) = start.rsplit_once(':').unwrap();
    let Some((at_line, at_col)) = location.rsplit_once(':') else {
        return false;
    };
    let (col, at_col): (usize, usize) = (col.parse().unwrap(), at_col.parse().unwrap_or(0));
    at_line == line && (col..col + needle.len()).contains(&at_col)
}

#[test]
fn builtin_unchecked_and_unaligned_scenarios_are_clean_and_file_io_is_not_runnable() {
    if !miri_available() {
        return;
    }
    let (out, report) = miri_json(
        "costbench-suite",
        "builtin",
        Some("unchecked|unaligned|^io/read/open_once$"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(report["schema"], "costbench-miri");
    assert_eq!(report["schema_version"], 1);
    let results = report["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["scenario"].as_str().unwrap())
        .collect();
    for expected in [
        "index/sum_indirect/unchecked",
        "index/binary_search/unchecked",
        "index/matmul32/unchecked",
        "words/read_u64/unaligned",
        "io/read/open_once",
    ] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    for r in results
        .iter()
        .filter(|r| r["scenario"] != "io/read/open_once")
    {
        assert_eq!(r["verdict"], "clean", "{r:#}");
    }
    let io = result(&report, "io/read/open_once");
    assert_eq!(io["verdict"], "not-runnable", "{io:#}");
    assert_eq!(io["kind"], "isolation");
    assert_eq!(
        io["message"],
        "`open` not available when isolation is enabled"
    );
    assert!(
        io["workspace_frame"]
            .as_str()
            .unwrap()
            .contains("suites/builtin/src/files.rs:"),
        "{io:#}"
    );
    assert!(report["timing"]["total_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn unsound_scenarios_are_undefined_behaviour_at_their_line() {
    if !miri_available() {
        return;
    }
    let (out, report) = miri_json("costbench-selftest", "miri_ub", None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let file = "suites/selftest/benches/miri_ub.rs";
    assert_eq!(result(&report, "unchecked/in_bounds")["verdict"], "clean");
    let oob = result(&report, "unchecked/out_of_bounds");
    assert_eq!(oob["verdict"], "undefined-behavior", "{oob:#}");
    // Miri's own check points at the expression (`data.get_unchecked(i)`); on nightlies whose
    // standard library checks `get_unchecked`'s precondition under Miri, that check fires first
    // and its panic names the method call, a few columns on: either is the scenario's line.
    assert!(
        within(
            oob["location"].as_str().unwrap(),
            file,
            "data.get_unchecked(i)"
        ),
        "{oob:#}"
    );
    let odd = result(&report, "aligned_read/odd_address");
    assert_eq!(odd["verdict"], "undefined-behavior", "{odd:#}");
    assert_eq!(
        odd["message"],
        "accessing memory based on pointer with alignment 1, but alignment 8 is required"
    );
    assert_eq!(
        odd["location"].as_str().unwrap(),
        location_of(file, "black_box(bytes.as_ptr()).cast::<u64>().read()")
    );
    let asm = result(&report, "asm/calibrated_loop");
    assert_eq!(asm["verdict"], "not-runnable");
    assert_eq!(asm["kind"], "inline-assembly");
    let spawn = result(&report, "process/spawn");
    assert_eq!(spawn["verdict"], "not-runnable");
    assert_eq!(spawn["kind"], "process-spawning");
    assert!(
        spawn["message"]
            .as_str()
            .unwrap()
            .starts_with("can't call foreign function `posix_spawn"),
        "{spawn:#}"
    );

    // The table says the same for people, the location included.
    let manifest = workspace().join("Cargo.toml");
    let out = costbench([
        "miri",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "-p",
        "costbench-selftest",
        "--bench",
        "miri_ub",
        "--filter",
        "out_of_bounds",
        "--quiet",
    ])
    .output();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    // One line, in Miri's words or the standard library's precondition check's (see above).
    let line = err
        .lines()
        .find_map(|l| l.strip_prefix("UNDEFINED BEHAVIOUR unchecked/out_of_bounds: "))
        .unwrap_or_else(|| panic!("{err}"));
    let (message, location) = line.rsplit_once(" at ").unwrap();
    assert!(
        [
            "`assume` called with `false`",
            "unsafe precondition(s) violated: slice::get_unchecked requires that the index is \
             within the slice"
        ]
        .contains(&message),
        "{err}"
    );
    assert!(within(location, file, "data.get_unchecked(i)"), "{err}");
}

#[test]
fn missing_miri_gives_one_message_with_the_install_command() {
    let manifest = workspace().join("Cargo.toml");
    let out = costbench([
        "miri",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "-p",
        "costbench-selftest",
        "--bench",
        "miri_ub",
    ])
    .env("COSTBENCH_MIRI_TOOLCHAIN", "costbench-no-such-toolchain")
    .output();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("costbench miri needs Miri"),
        "one message, first: {err}"
    );
    assert!(
        err.contains("rustup toolchain install nightly --component miri,rust-src"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}
