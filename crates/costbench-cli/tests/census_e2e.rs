//! End-to-end tests of the census on `suites/census-fixtures`, whose functions have exactly
//! known checks: the real binary, real cargo builds, real valgrind. Tests that need valgrind say
//! so and pass when it is missing.

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixtures_manifest() -> PathBuf {
    workspace().join("suites/census-fixtures/Cargo.toml")
}

/// The 1-based line of the fixtures' source that ends with `census: MARKER` (in a comment).
fn marker_line(marker: &str) -> u64 {
    let src =
        std::fs::read_to_string(workspace().join("suites/census-fixtures/src/lib.rs")).unwrap();
    let tag = format!(" census: {marker}");
    let lines: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end().ends_with(&tag))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "marker {marker:?} must be on exactly one line"
    );
    lines[0] as u64
}

/// `costbench run --instrument census` on the fixtures, with `extra` arguments and `env`.
fn census_run(extra: &[&str], env: &[(&str, &str)]) -> (Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixtures_manifest();
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--no-history",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let out = costbench(&args).envs(env).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    (run, dir)
}

/// (checks, sites) of one kind in one measured id's census.
fn kind(run: &Value, id: &str, kind: &str) -> (u64, u64) {
    let k = result(run, id)["census"]["by_kind"]
        .as_array()
        .unwrap_or_else(|| panic!("no census for {id}"))
        .iter()
        .find(|k| k["kind"] == kind)
        .unwrap();
    (k["checks"].as_u64().unwrap(), k["sites"].as_u64().unwrap())
}

fn checks(run: &Value, id: &str) -> u64 {
    result(run, id)["census"]["checks"].as_u64().unwrap()
}

#[test]
fn static_census_lists_the_surviving_checks_with_lines_and_inline_chains() {
    let manifest = fixtures_manifest();
    let out = costbench([
        "census",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--format",
        "json",
        "--filter",
        "^costbench_census_fixtures::",
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["schema"], "costbench-census");
    assert_eq!(c["schema_version"], 1);
    let guards = c["guards"].as_array().unwrap();
    let of = |f: &str| -> Vec<&Value> {
        guards
            .iter()
            .filter(|g| g["function"] == format!("costbench_census_fixtures::{f}"))
            .collect()
    };
    // `for i in 0..v.len()`: removed. Overflow checks are off in the bench profile.
    assert!(of("sum_to_len").is_empty(), "{:?}", of("sum_to_len"));
    assert!(of("times_three").is_empty(), "{:?}", of("times_three"));
    // One guard per indirect index, on the indexing line.
    let ind = of("sum_indirect");
    assert_eq!(ind.len(), 1, "{ind:?}");
    assert_eq!(ind[0]["kind"], "slice-index");
    assert_eq!(ind[0]["line"], marker_line("indirect"));
    // The loop to a caller-given bound: one hoisted guard.
    let bound = of("sum_to_bound");
    assert_eq!(bound.len(), 1, "{bound:?}");
    assert_eq!(bound[0]["kind"], "slice-index");
    // `&v[a..b]`: two guards (a <= b, b <= len) sharing one panic call.
    let range = of("range_len");
    assert_eq!(range.len(), 2, "{range:?}");
    assert!(range.iter().all(|g| g["kind"] == "slice-range"));
    for g in &range {
        let outer = g["inline_chain"].as_array().unwrap().last().unwrap();
        assert_eq!(outer["line"], marker_line("range"), "{g}");
    }
    // The `#[inline(always)]` helper's check: the helper's line, then the caller's.
    let helper = of("through_helper");
    assert_eq!(helper.len(), 1, "{helper:?}");
    let g = helper[0];
    assert_eq!(g["kind"], "slice-index");
    assert_eq!(g["line"], marker_line("helper"));
    let chain = g["inline_chain"].as_array().unwrap();
    assert_eq!(chain.len(), 2, "{chain:?}");
    assert_eq!(chain[0]["function"], "helper_get");
    assert_eq!(chain[0]["line"], marker_line("helper"));
    assert_eq!(chain[1]["function"], "through_helper");
    assert_eq!(chain[1]["line"], marker_line("helper-call"));
    assert!(g["file"].as_str().unwrap().ends_with("src/lib.rs"));
    assert!(g["address"].as_str().unwrap().starts_with("0x"));
    // A hand-written check failing through our own diverging function: one `other-panic` guard.
    let by_hand = of("checked_by_hand");
    assert_eq!(by_hand.len(), 1, "{by_hand:?}");
    assert_eq!(by_hand[0]["kind"], "other-panic");
    assert_eq!(
        by_hand[0]["line"],
        marker_line("by-hand") + 1,
        "the `if` line"
    );
    assert!(
        of("out_of_range").is_empty(),
        "a function that always panics has no guards"
    );
    // Totals agree with the records.
    assert_eq!(c["totals"]["guards"], guards.len());
    assert_eq!(c["totals"]["by_kind"]["slice-range"], 2);
    assert_eq!(c["crates"][0]["crate"], "costbench_census_fixtures");

    // The table names the same things.
    let out = costbench([
        "census",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--filter",
        "through_helper",
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains(&format!(
            "suites/census-fixtures/src/lib.rs:{}  in helper_get, inlined into through_helper at suites/census-fixtures/src/lib.rs:{}",
            marker_line("helper"),
            marker_line("helper-call")
        )),
        "{table}"
    );
}

#[test]
fn census_refuses_what_it_cannot_read() {
    let out = costbench(["census", "--binary", "no/such/binary"]).output();
    // A path that names nothing: the command line was wrong (issue 29).
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no such file"), "{}", stderr(&out));
    let manifest = fixtures_manifest();
    let out = costbench(["census", "--binary", manifest.to_str().unwrap()]).output();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not an object file costbench can read"),
        "{}",
        stderr(&out)
    );
    let out = costbench(["census", "--binary", "x", "--bench", "y"]).output();
    assert_eq!(out.status.code(), Some(2), "--binary excludes target flags");
}

#[test]
fn dynamic_census_counts_exactly_the_checks_executed() {
    if !valgrind_available() {
        return;
    }
    let (run, _dir) = census_run(&["--instrument", "census"], &[]);
    assert_eq!(
        run["settings"]["instruments"],
        serde_json::json!(["icount", "census"])
    );
    // 1000 indices through an index array: exactly 1000 bounds checks, nothing else.
    assert_eq!(kind(&run, "index/indirect", "slice-index"), (1000, 1));
    assert_eq!(checks(&run, "index/indirect"), 1000);
    assert_eq!(
        result(&run, "index/indirect")["census"]["checks_per_op"],
        1.0
    );
    // `for i in 0..v.len()`: none.
    assert_eq!(checks(&run, "index/to_len"), 0);
    // A loop to a caller-given bound of 1000, called 10 times: once per call, not per element.
    assert_eq!(kind(&run, "index/to_bound", "slice-index"), (10, 1));
    assert_eq!(checks(&run, "index/to_bound"), 10);
    // `&v[a..b]` called 10 times: two guards per call.
    assert_eq!(kind(&run, "index/range", "slice-range"), (20, 2));
    assert_eq!(checks(&run, "index/range"), 20);
    // Overflow checks are off in the bench profile: `x * 3` is not checked.
    assert_eq!(checks(&run, "arith/times_three"), 0);
    // The helper's check, attributed to the helper's line and its caller's.
    assert_eq!(kind(&run, "index/helper", "slice-index"), (1, 1));
    let top = &result(&run, "index/helper")["census"]["top_sites"][0];
    assert_eq!(top["line"], marker_line("helper"));
    assert_eq!(top["executions"], 1);
    assert_eq!(top["inline_chain"][1]["line"], marker_line("helper-call"));

    // The hand-written check through a diverging function of our own.
    assert_eq!(kind(&run, "index/by_hand", "other-panic"), (1, 1));
    assert_eq!(checks(&run, "index/by_hand"), 1);

    // One callgrind run serves both: --dump-instr=yes leaves the instruction counts unchanged.
    let (plain, _dir2) = census_run(&["--instrument", "icount"], &[]);
    for r in plain["results"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        assert_eq!(r["icount"]["ir"], result(&run, id)["icount"]["ir"], "{id}");
        assert!(
            r.get("census").is_none(),
            "no census without --instrument census"
        );
    }
}

#[test]
fn overflow_checks_appear_when_the_build_turns_them_on() {
    if !valgrind_available() {
        return;
    }
    // Its own target directory, so that this build and the default one do not evict each
    // other from the cache.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("census-overflow-checks");
    let (run, _dir) = census_run(
        &["--instrument", "census", "--filter", "^arith/times_three$"],
        &[
            ("CARGO_PROFILE_BENCH_OVERFLOW_CHECKS", "true"),
            ("CARGO_TARGET_DIR", target.to_str().unwrap()),
        ],
    );
    // 1000 multiplications, one overflow check each.
    assert_eq!(kind(&run, "arith/times_three", "overflow"), (1000, 1));
    assert_eq!(checks(&run, "arith/times_three"), 1000);
    let top = &result(&run, "arith/times_three")["census"]["top_sites"][0];
    assert_eq!(top["line"], marker_line("times-three"));
}

#[test]
fn census_without_valgrind_is_reported_skipped_and_wall_time_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixtures_manifest();
    let out = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--no-history",
        "--quiet",
        "--instrument",
        "census,walltime",
        "--filter",
        "^index/helper$",
        "--iterations-per-scenario",
        "3",
    ])
    .envs(&[("COSTBENCH_VALGRIND", "/nonexistent/valgrind")])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    let skipped: Vec<&str> = run["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["instrument"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["census", "icount"]);
    assert!(run["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("valgrind"));
    let r = result(&run, "index/helper");
    assert!(r.get("census").is_none());
    assert_eq!(r["walltime"]["samples"], 3);
}

/// Issue 29: without `--filter`, the census lists the workspace's own crates, not the hundreds
/// of std's and the dependencies' guards (`--all-crates` shows those), and says so.
#[test]
fn census_without_a_filter_shows_the_workspaces_own_crates() {
    let manifest = fixtures_manifest();
    let m = manifest.to_str().unwrap();
    let crates = |extra: &[&str]| -> (Vec<String>, u64) {
        let mut args = vec!["census", "--manifest-path", m, "--format", "json"];
        args.extend_from_slice(extra);
        let out = costbench(&args).output();
        assert!(out.status.success(), "{}", stderr(&out));
        let c: Value = serde_json::from_slice(&out.stdout).unwrap();
        let names = c["crates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["crate"].as_str().unwrap().to_string())
            .collect();
        (names, c["totals"]["guards"].as_u64().unwrap())
    };
    let (own, own_total) = crates(&[]);
    assert!(
        own.contains(&"costbench_census_fixtures".to_string()),
        "{own:?}"
    );
    for std in ["core", "alloc", "std"] {
        assert!(!own.contains(&std.to_string()), "{std} in {own:?}");
    }
    let (all, all_total) = crates(&["--all-crates"]);
    assert!(all.contains(&"core".to_string()), "{all:?}");
    assert!(all_total > own_total, "{all_total} > {own_total}");

    let out = costbench(["census", "--manifest-path", m]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    let second = table.lines().nth(1).unwrap_or_default();
    assert!(
        second.starts_with("(only the workspace's own crates; ") && second.contains("--all-crates"),
        "{table}"
    );
}
