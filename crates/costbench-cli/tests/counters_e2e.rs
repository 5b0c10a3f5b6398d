//! End-to-end tests of the counting instruments of `costbench run` on the selftest suite:
//! simulated cache counters, allocation counts, hardware counters, DHAT's heap totals, and memory
//! figures compared and kept in history. The real binary, real builds, real valgrind; tests that
//! need a tool say so and pass when it is missing.

mod common;
use common::*;

use serde_json::Value;

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
