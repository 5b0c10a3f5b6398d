//! End-to-end tests of `costbench run` on the selftest suite: the real binary, real cargo
//! builds, real valgrind. Tests that need valgrind say so and pass when it is missing.

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `costbench run` on a bench target of the selftest crate, results in a fresh directory.
fn run_suite(bench: &str, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = selftest_manifest();
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        bench,
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    (costbench(&args).output(), dir)
}

#[test]
fn calibrated_kernel_is_counted_exactly_and_residual_is_tiny() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = run_suite(
        "selftest",
        &[
            "--instrument",
            "icount",
            "--filter",
            "^(empty|calibrate/.*)$",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    let residual = run["harness_residual_ir"].as_u64().unwrap();
    assert!(residual < 50, "harness residual {residual} instructions");
    let empty = ir(&run, "empty");
    assert_eq!(
        empty, residual,
        "an empty scenario costs exactly the residual"
    );
    // calibrated_loop::<N> executes exactly 2N + 1 instructions.
    assert_eq!(ir(&run, "calibrate/1000") - empty, 2 * 1000 + 1);
    assert_eq!(ir(&run, "calibrate/100000") - empty, 2 * 100_000 + 1);
    assert_eq!(result(&run, "calibrate/1000")["ops"], 1000);
    let csv = std::fs::read_to_string(dir.path().join("icounts.csv")).unwrap();
    assert!(
        csv.lines()
            .any(|l| l == format!("calibrate/1000,{}", 2001 + empty)),
        "{csv}"
    );
    let cg = result(&run, "calibrate/1000")["icount"]["callgrind_out"]
        .as_str()
        .unwrap();
    let text = std::fs::read_to_string(dir.path().join(cg)).unwrap();
    assert!(
        text.contains("costbench_measured_region"),
        "the raw callgrind output is kept"
    );
}

#[test]
fn counts_are_identical_from_run_to_run() {
    if !valgrind_available() {
        return;
    }
    let args = ["--instrument", "icount", "--filter", "sort|alloc|pipe|hash"];
    let (a, da) = run_suite("selftest", &args);
    let (b, db) = run_suite("selftest", &args);
    assert!(
        a.status.success() && b.status.success(),
        "{}{}",
        stderr(&a),
        stderr(&b)
    );
    let ca = std::fs::read_to_string(da.path().join("icounts.csv")).unwrap();
    let cb = std::fs::read_to_string(db.path().join("icounts.csv")).unwrap();
    assert_eq!(ca.lines().count(), 5, "{ca}");
    assert_eq!(ca, cb);
}

#[test]
fn parties_are_measured_each_on_its_own() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = run_suite(
        "selftest",
        &["--filter", "^pipe/echo$", "--iterations-per-scenario", "7"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    for id in ["pipe/echo_client", "pipe/echo_server"] {
        let r = result(&run, id);
        assert!(ir(&run, id) > 100, "{id} did real work");
        assert_eq!(r["walltime"]["samples"], 7, "{id}");
        assert_eq!(r["walltime"]["clock"], "thread-cpu");
        assert_eq!(r["ops"], 16);
    }
    assert_ne!(ir(&run, "pipe/echo_client"), ir(&run, "pipe/echo_server"));
}

#[test]
fn walltime_reports_statistics_and_samples() {
    let (out, dir) = run_suite(
        "selftest",
        &[
            "--instrument",
            "walltime",
            "--filter",
            "^sort",
            "--iterations-per-scenario",
            "12",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    let w = &result(&run, "sort/10000")["walltime"];
    assert_eq!(w["samples"], 12);
    let s = &w["ns_per_op"];
    let f = |k: &str| s[k].as_f64().unwrap();
    assert!(
        f("min") > 0.0
            && f("min") <= f("median")
            && f("median") <= f("p95")
            && f("p95") <= f("max")
    );
    assert!(f("iqr") >= 0.0);
    let csv = std::fs::read_to_string(dir.path().join("walltime.csv")).unwrap();
    let row: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(row[0], "sort/10000");
    assert_eq!(row.len(), 13, "name plus 12 per-iteration times");
    assert!(result(&run, "sort/10000")["icount"].is_null());
    // Wall time ran on one CPU, the last this process may use, in a build aligned to cache lines.
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim();
    let last: u64 = allowed.rsplit([',', '-']).next().unwrap().parse().unwrap();
    assert_eq!(run["settings"]["walltime_cpu"], last, "allowed: {allowed}");
    assert_eq!(run["settings"]["code_align"], "64");
}

#[test]
fn failing_scenarios_are_reported_and_the_others_kept() {
    let have_vg = valgrind_available();
    // The timeout must let the healthy scenario finish under callgrind on a loaded 2-core
    // machine (5 s was measured too short while other tests ran beside this one).
    let (out, dir) = run_suite(
        "failures",
        &["--timeout", "15", "--iterations-per-scenario", "5"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let run = run_json(dir.path());
    let works = result(&run, "works");
    assert!(works["failures"].as_array().unwrap().is_empty());
    assert_eq!(works["walltime"]["samples"], 5);
    if have_vg {
        assert!(works["icount"]["ir"].as_u64().unwrap() > 0);
    }
    let kinds = |id: &str| -> Vec<String> {
        result(&run, id)["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap().to_string())
            .collect()
    };
    let per_instrument = if have_vg { 2 } else { 1 };
    assert_eq!(kinds("panics"), vec!["panicked"; per_instrument]);
    assert_eq!(kinds("hangs"), vec!["timed-out"; per_instrument]);
    assert_eq!(kinds("no_iter"), vec!["misuse"; per_instrument]);
    assert_eq!(kinds("aborts"), vec!["crashed"; per_instrument]);
    let panic_tail = result(&run, "panics")["failures"][0]["stderr_tail"]
        .as_str()
        .unwrap();
    assert!(panic_tail.contains("deliberate panic"), "{panic_tail}");
    let misuse_tail = result(&run, "no_iter")["failures"][0]["stderr_tail"]
        .as_str()
        .unwrap();
    assert!(
        misuse_tail.contains("without calling iter"),
        "{misuse_tail}"
    );
    let err = stderr(&out);
    assert!(err.contains("FAILED panics"), "{err}");
    // No temporary files are left behind.
    for entry in walk(dir.path()) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "left behind: {name}");
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn missing_valgrind_is_said_and_walltime_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = selftest_manifest();
    let out = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
    ])
    .args([
        "--filter",
        "^empty$",
        "--iterations-per-scenario",
        "3",
        "--quiet",
    ])
    .arg("--output-dir")
    .arg(dir.path())
    .env("COSTBENCH_VALGRIND", "/nonexistent/valgrind")
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("apt-get install valgrind"), "{err}");
    let run = run_json(dir.path());
    assert_eq!(run["skipped"][0]["instrument"], "icount");
    assert_eq!(result(&run, "empty")["walltime"]["samples"], 3);
    assert!(result(&run, "empty")["icount"].is_null());

    // Asked for explicitly, a missing valgrind is an error.
    let out = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
    ])
    .args(["--instrument", "icount", "--quiet", "--output-dir"])
    .arg(dir.path())
    .env("COSTBENCH_VALGRIND", "/nonexistent/valgrind")
    .output();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("valgrind not found"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_input_gets_one_clear_error() {
    let manifest = selftest_manifest();
    let m = manifest.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--bench", "selftest", "--filter", "^nothing-matches$"],
            "matches no scenario",
        ),
        (vec!["--bench", "nope"], "no bench target named \"nope\""),
        (vec![], "several bench targets"),
        (
            vec![
                "--bench",
                "selftest",
                "--output-dir",
                "/proc/costbench-cannot-write",
            ],
            "cannot create output directory",
        ),
    ];
    for (extra, expect) in cases {
        let mut args = vec!["run", "--manifest-path", m, "--quiet"];
        args.extend(extra.iter());
        let out = costbench(&args).output();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expect), "{args:?}: {}", stderr(&out));
    }
    let out = costbench(["run", "--jobs", "0"]).output();
    assert_eq!(out.status.code(), Some(1));
    let out = costbench(["run", "--instrument", "bogus"]).output();
    assert_eq!(out.status.code(), Some(2), "usage errors exit 2");
}

#[test]
fn a_crate_that_does_not_build_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let lib = workspace().join("crates/costbench").canonicalize().unwrap();
    std::fs::create_dir_all(dir.path().join("benches")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"broken\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
             [dev-dependencies]\ncostbench = {{ path = {:?} }}\n\n[[bench]]\nname = \"b\"\nharness = false\n",
            lib.display().to_string()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    std::fs::write(
        dir.path().join("benches/b.rs"),
        "fn main() { let x: u32 = \"not a number\"; }\n",
    )
    .unwrap();
    let out_dir = dir.path().join("results");
    let out = costbench([
        "run",
        "--manifest-path",
        dir.path().join("Cargo.toml").to_str().unwrap(),
        "--quiet",
        "--output-dir",
        out_dir.to_str().unwrap(),
    ])
    .output();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("building bench target b of package broken failed"),
        "{err}"
    );
    assert!(
        err.contains("mismatched types"),
        "the compiler's error is shown: {err}"
    );
    assert!(
        !out_dir.join("run.json").exists(),
        "nothing is written for a build failure"
    );
}

#[test]
fn list_names_scenarios_without_measuring() {
    let manifest = selftest_manifest();
    let out = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--list",
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("calibrate/1000  (1000 iterations)"), "{s}");
    assert!(
        s.contains("pipe/echo  (16 round trips)  parties: client, server"),
        "{s}"
    );
    assert!(
        !s.contains("costbench::residual"),
        "internal scenarios are not listed"
    );
}

/// Issue 16: like cargo, costbench finds the manifest upward from a subdirectory.
#[test]
fn list_works_from_a_subdirectory_of_the_crate() {
    let src = selftest_manifest().parent().unwrap().join("src");
    let out = costbench(["run", "--bench", "selftest", "--list"])
        .current_dir(&src)
        .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("calibrate/1000  (1000 iterations)"), "{s}");
}

#[test]
fn runs_are_recorded_in_history() {
    let db_dir = tempfile::tempdir().unwrap();
    let db = db_dir.path().join("h.sqlite");
    let db_s = db.to_str().unwrap();
    let (out, dir) = run_suite(
        "selftest",
        &[
            "--instrument",
            "walltime",
            "--filter",
            "^empty$",
            "--iterations-per-scenario",
            "3",
            "--db",
            db_s,
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run_id = run_json(dir.path())["run_id"].as_str().unwrap().to_string();
    let out = costbench(["history", "--db", db_s]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&run_id));
    let out = costbench([
        "history",
        "--db",
        db_s,
        "--scenario",
        "empty",
        "--metric",
        "walltime",
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(" ns"));
    let out = costbench(["history", "--db", db_s, "--scenario", "nope"]).output();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no icount figures for \"nope\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn compare_import_and_export_work_on_real_runs() {
    if !valgrind_available() {
        return;
    }
    let args = [
        "--instrument",
        "icount",
        "--filter",
        "^(empty|sort/10000)$",
        "--no-history",
    ];
    let (a, da) = run_suite("selftest", &args);
    let (b, db) = run_suite("selftest", &args);
    assert!(
        a.status.success() && b.status.success(),
        "{}{}",
        stderr(&a),
        stderr(&b)
    );
    let (pa, pb) = (da.path().to_str().unwrap(), db.path().to_str().unwrap());
    let out = costbench(["compare", pa, pb]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("0 regressions, 0 improvements, 2 unchanged"),
        "{text}"
    );
    let out = costbench(["compare", pa, pb, "--format", "markdown"]).output();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("### Instruction counts"), "{md}");
    let out = costbench(["export", pa, "--format", "bmf"]).output();
    let bmf: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(bmf["sort/10000"]["instructions"]["value"].as_f64().unwrap() > 1.0);

    let hist = tempfile::tempdir().unwrap();
    let h = hist.path().join("h.sqlite");
    let out = costbench(["import", pa, "--db", h.to_str().unwrap()]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let run_id = run_json(da.path())["run_id"].as_str().unwrap().to_string();
    // A run id from history works as a side of compare.
    let out = costbench(["compare", &run_id, pb, "--db", h.to_str().unwrap()]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = costbench(["compare", "no-such-run", pb, "--db", h.to_str().unwrap()]).output();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no run with id \"no-such-run\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn builtin_suite_measures_every_scenario() {
    let have_vg = valgrind_available();
    let dir = tempfile::tempdir().unwrap();
    let root = workspace().join("Cargo.toml");
    // The workspace's costbench.toml makes the built-in suite the default target.
    let out = costbench([
        "run",
        "--manifest-path",
        root.to_str().unwrap(),
        "--quiet",
        "--no-history",
        "--iterations-per-scenario",
        "5",
        "--output-dir",
        dir.path().to_str().unwrap(),
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    assert_eq!(run["suite"]["bench"], "builtin");
    let results = run["results"].as_array().unwrap();
    assert!(results.len() >= 30, "{} results", results.len());
    for r in results {
        assert!(r["failures"].as_array().unwrap().is_empty(), "{r}");
        assert_eq!(r["walltime"]["samples"], 5, "{}", r["id"]);
        if have_vg {
            assert!(r["icount"]["ir"].as_u64().unwrap() > 0, "{}", r["id"]);
        }
    }
    if have_vg {
        // Exact counts make these comparisons safe to assert.
        assert!(ir(&run, "index/sum_indirect/checked") > ir(&run, "index/sum_indirect/unchecked"));
        assert!(
            ir(&run, "packet/flow_counters/rust_checked")
                > ir(&run, "packet/flow_counters/rust_unchecked")
        );
        assert!(ir(&run, "regex/compile/every_line") > 10 * ir(&run, "regex/compile/once"));
        assert!(ir(&run, "regex/suffix/regex") > ir(&run, "regex/suffix/ends_with"));
        assert!(ir(&run, "io/write/unbuffered") > ir(&run, "io/write/bufwriter"));
        assert!(
            ir(&run, "alloc/short_strings/string") > ir(&run, "alloc/short_strings/compact_string")
        );
    }
}

#[test]
fn thresholds_come_from_the_history_of_a_branch() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("h.sqlite");
    let db_s = db.to_str().unwrap();
    let imported_id = |out: &Output| -> String {
        let text = stdout(out);
        text.split_whitespace().nth(2).unwrap().to_string()
    };
    let mut first = String::new();
    // Twelve runs of main: "steady" never moves, "noisy" moves by 1 % every run.
    for k in 0..12 {
        let dir = tmp.path().join(format!("run{k:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        let noisy = if k % 2 == 0 { 100_000 } else { 101_000 };
        std::fs::write(
            dir.join("icounts.csv"),
            format!("steady,100000\nnoisy,{noisy}\n"),
        )
        .unwrap();
        let out = costbench([
            "import",
            dir.to_str().unwrap(),
            "--db",
            db_s,
            "--branch",
            "main",
        ])
        .output();
        assert!(out.status.success(), "{}", stderr(&out));
        if k == 0 {
            first = imported_id(&out);
        }
    }
    let cand = tmp.path().join("cand");
    std::fs::create_dir_all(&cand).unwrap();
    // +0.05 % and +0.5 %: the first beyond a never-moving history, the second within noise.
    std::fs::write(cand.join("icounts.csv"), "steady,100050\nnoisy,100500\n").unwrap();
    let out = costbench([
        "import",
        cand.to_str().unwrap(),
        "--db",
        db_s,
        "--branch",
        "pr",
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let cand_id = imported_id(&out);
    let out = costbench([
        "compare",
        &first,
        &cand_id,
        "--db",
        db_s,
        "--history-branch",
        "main",
        "--format",
        "json",
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let cmp: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = |id: &str| {
        cmp["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(row("steady")["verdict"], "regression", "{}", row("steady"));
    assert_eq!(row("steady")["threshold_pct"], 0.01);
    assert_eq!(row("noisy")["verdict"], "unchanged", "{}", row("noisy"));
    assert!(row("noisy")["reason"]
        .as_str()
        .unwrap()
        .contains("(history)"));
}

#[test]
fn simulated_counters_are_exact_for_the_calibrated_loop() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = run_suite(
        "selftest",
        &[
            "--instrument",
            "icount,cache",
            "--filter",
            "^(empty|calibrate/1000)$",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    let ev = |id: &str, e: &str| {
        result(&run, id)["cache"]["totals"][e]
            .as_u64()
            .unwrap_or_else(|| panic!("no {e} for {id}"))
    };
    assert_eq!(result(&run, "empty")["cache"]["simulated"], true);
    // The same toggle as instruction counts: the same Ir, exactly.
    assert_eq!(ev("calibrate/1000", "Ir"), ir(&run, "calibrate/1000"));
    // calibrated_loop::<1000> has one conditional branch (jnz) per iteration and no memory
    // access; the harness adds one indirect call and its reads.
    assert_eq!(ev("calibrate/1000", "Bc") - ev("empty", "Bc"), 1000);
    assert_eq!(ev("calibrate/1000", "Bi"), ev("empty", "Bi"));
    assert_eq!(ev("calibrate/1000", "Dr"), ev("empty", "Dr"));
    assert_eq!(ev("calibrate/1000", "Dw"), ev("empty", "Dw"));
    // Estimated cycles follow the documented model.
    let l1 = ev("calibrate/1000", "L1hits");
    let ll = ev("calibrate/1000", "LLhits");
    let ram = ev("calibrate/1000", "RAMhits");
    assert_eq!(
        ev("calibrate/1000", "EstimatedCycles"),
        l1 + 5 * ll + 35 * ram
    );
    let per_op = result(&run, "calibrate/1000")["cache"]["per_op"]["Bc"]
        .as_f64()
        .unwrap();
    assert_eq!(per_op, ev("calibrate/1000", "Bc") as f64 / 1000.0);
    let csv = std::fs::read_to_string(dir.path().join("counters.csv")).unwrap();
    assert!(
        csv.lines()
            .any(|l| l.starts_with("calibrate/1000,simulated,Bc,")),
        "{csv}"
    );
    let raw = result(&run, "calibrate/1000")["cache"]["callgrind_out"]
        .as_str()
        .unwrap();
    let text = std::fs::read_to_string(dir.path().join(raw)).unwrap();
    assert!(text.contains("events: Ir Dr Dw I1mr"), "{raw}");
}

#[test]
fn allocation_counts_are_exact() {
    let (out, dir) = run_suite(
        "selftest",
        &[
            "--instrument",
            "memory",
            "--filter",
            "^(memory/exact|pipe/echo)$",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    let m = &result(&run, "memory/exact")["memory"];
    assert_eq!(m["allocator"], "system");
    let a = &m["allocations"];
    // 100 ops of: a 1000-byte box, a 500-byte vector grown to 1500 bytes, both freed.
    assert_eq!(a["allocs"], 200);
    assert_eq!(a["deallocs"], 200);
    assert_eq!(a["reallocs"], 100);
    assert_eq!(a["bytes_allocated"], 250_000);
    assert_eq!(a["peak_live_bytes"], 2500);
    assert_eq!(a["allocs_per_op"], 2.0);
    assert_eq!(a["bytes_allocated_per_op"], 2500.0);
    assert!(m["max_rss_kib"].as_u64().unwrap() > 0);
    // Parties run in their own processes, each counted on its own.
    for id in ["pipe/echo_client", "pipe/echo_server"] {
        assert!(
            result(&run, id)["memory"]["allocations"]["allocs"].is_u64(),
            "{id}"
        );
    }
    let csv = std::fs::read_to_string(dir.path().join("memory.csv")).unwrap();
    assert!(
        csv.lines()
            .any(|l| l.starts_with("memory/exact,system,2,2,1,2500,2500,")),
        "{csv}"
    );
}

#[test]
fn memory_without_a_counting_allocator_says_how_to_enable_it() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = workspace().join("suites/nocount/Cargo.toml");
    let out = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--instrument",
        "memory",
        "--no-history",
        "--output-dir",
        dir.path().to_str().unwrap(),
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("not counted"), "{table}");
    let run = run_json(dir.path());
    let m = &result(&run, "alloc/vec")["memory"];
    assert!(m["allocations"].is_null(), "never zeros: {m}");
    let why = m["not_counted"].as_str().unwrap();
    assert!(
        why.contains("count-alloc") && why.contains("CountingAlloc"),
        "{why}"
    );
    // Max RSS needs no counting allocator.
    assert!(m["max_rss_kib"].as_u64().unwrap() > 0);
}

#[test]
fn hardware_counters_are_read_or_skipped_with_the_kernels_reason() {
    let (out, dir) = run_suite(
        "selftest",
        &["--instrument", "perf", "--filter", "^calibrate/100000$"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    let r = result(&run, "calibrate/100000");
    let skipped = run["skipped"].as_array().unwrap();
    match skipped.iter().find(|s| s["instrument"] == "perf") {
        Some(s) => {
            // This project's VM: no PMU. The reason names the errno and the paranoid level.
            let why = s["reason"].as_str().unwrap();
            eprintln!("perf skipped here: {why}");
            assert!(why.contains("perf_event_open(cycles"), "{why}");
            assert!(why.contains("errno"), "{why}");
            assert!(why.contains("perf_event_paranoid"), "{why}");
            assert!(r["perf"].is_null(), "no invented numbers: {r}");
            assert!(!dir.path().join("counters.csv").exists());
            assert!(!run["settings"]["instruments"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i == "perf"));
        }
        None => {
            let counters = r["perf"]["counters"].as_array().unwrap();
            let instr = counters
                .iter()
                .find(|c| c["name"] == "instructions")
                .expect("instructions counted");
            // 200,001 instructions in the loop, plus the harness and the counter toggling.
            let n = instr["scaled"].as_f64().unwrap();
            assert!((200_001.0..260_000.0).contains(&n), "{n}");
        }
    }
}

#[test]
fn dhat_reports_heap_totals_of_the_process() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = run_suite(
        "selftest",
        &["--instrument", "dhat", "--filter", "^(empty|memory/exact)$"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    let d = &result(&run, "memory/exact")["dhat"];
    let e = &result(&run, "empty")["dhat"];
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap();
    // The body's 100 boxes and 100 grown vectors (a realloc is a new block to DHAT) come on top
    // of what start-up and setup allocate, which the empty scenario shows (its setup differs
    // by a few bytes: the scenario's name is shorter).
    assert_eq!(n(d, "total_blocks") - n(e, "total_blocks"), 300);
    let bytes = n(d, "total_bytes") - n(e, "total_bytes");
    assert!((300_000..300_100).contains(&bytes), "{bytes}");
    assert!(n(d, "peak_bytes") <= n(d, "total_bytes"));
    let raw = d["dhat_out"].as_str().unwrap();
    assert!(dir.path().join(raw).is_file(), "{raw}");
}

#[test]
fn memory_figures_are_compared_and_kept_in_history() {
    let hist = tempfile::tempdir().unwrap();
    let h = hist.path().join("h.sqlite");
    let args = [
        "--instrument",
        "memory",
        "--filter",
        "^memory/exact$",
        "--db",
        h.to_str().unwrap(),
    ];
    let (a, da) = run_suite("selftest", &args);
    let (b, db) = run_suite("selftest", &args);
    assert!(
        a.status.success() && b.status.success(),
        "{}{}",
        stderr(&a),
        stderr(&b)
    );
    let out = costbench([
        "compare",
        da.path().to_str().unwrap(),
        db.path().to_str().unwrap(),
        "--format",
        "json",
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let cmp: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = cmp["rows"].as_array().unwrap();
    let mem = rows
        .iter()
        .find(|r| r["instrument"] == "memory")
        .expect("a bytes-allocated row");
    // Counts are exact: the same bytes per op in both runs.
    assert_eq!(mem["base"], 2500.0);
    assert_eq!(mem["cand"], 2500.0);
    assert_eq!(mem["verdict"], "unchanged");
    assert!(rows.iter().any(|r| r["instrument"] == "rss"), "{cmp}");
    let out = costbench([
        "history",
        "--db",
        h.to_str().unwrap(),
        "--scenario",
        "memory/exact",
        "--metric",
        "alloc-bytes",
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().filter(|l| l.contains("2500")).count(),
        2,
        "{text}"
    );
}
