//! End-to-end tests of service scenarios (`Suite::service`) and the throughput instrument on
//! the selftest suite's `service` bench target: real servers on loopback TCP, real load
//! processes, real callgrind for the per-request counts. Load settings are the smallest that
//! still give every figure (a few hundred milliseconds per scenario).

mod common;
use common::*;

use serde_json::Value;
use std::process::Output;

/// `costbench run` on the selftest `service` target, results in a fresh directory.
fn run_service(extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = selftest_manifest();
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "service",
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--no-history",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    (costbench(&args).output(), dir)
}

/// Quick load: 3 rounds (the fewest that give a repeat interval) of 2 slices of 50 ms.
const QUICK: [&str; 8] = [
    "--load-rounds",
    "3",
    "--slices",
    "2",
    "--slice-ms",
    "50",
    "--load-warmup-ms",
    "50",
];

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_service_is_counted_per_request_as_two_parties_exactly() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = run_service(&[
        "--instrument",
        "icount",
        "--filter",
        "^echo/(plain|loop1000)$",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    // One run of the parties is 100 requests: ops are requests times runs.
    assert_eq!(result(&run, "echo/plain_server")["ops"], 100);
    assert_eq!(result(&run, "echo/plain_server")["unit"], "requests");
    // The server of echo/loop1000 runs calibrated_loop::<1000> (2 * 1000 + 1 instructions) per
    // request, and nothing else differs.
    assert_eq!(
        ir(&run, "echo/loop1000_server") - ir(&run, "echo/plain_server"),
        100 * 2001
    );
    assert_eq!(
        ir(&run, "echo/loop1000_client"),
        ir(&run, "echo/plain_client")
    );
    // No throughput rows without the instrument.
    assert!(run["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r.get("throughput").is_none() && r.get("clients").is_none()));
}

#[test]
fn throughput_rows_report_rates_percentiles_and_repeat_intervals() {
    let mut args = vec![
        "--instrument",
        "throughput",
        "--filter",
        "^echo/plain$",
        "--clients",
        "2,1",
    ];
    args.extend(QUICK);
    let (out, dir) = run_service(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    assert!(run["settings"]["instruments"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i == "throughput"));
    for (id, clients) in [("echo/plain@1c", 1), ("echo/plain@2c", 2)] {
        let r = result(&run, id);
        assert_eq!(r["clients"], clients);
        assert_eq!(r["ops"], 1, "a throughput row's op is one request");
        let t = &r["throughput"];
        assert_eq!(t["clients"], clients);
        assert_eq!(t["load"], "closed");
        assert_eq!(t["rounds"], 3);
        assert_eq!(t["slices"].as_array().unwrap().len(), 6);
        assert!(t["requests"].as_u64().unwrap() > 0);
        let ops = f(&t["ops_per_sec"]);
        assert!(ops > 0.0);
        let rep = &t["ops_per_sec_repeat"];
        assert!(f(&rep["low"]) <= ops && ops <= f(&rep["high"]), "{rep}");
        let l = &t["latency"];
        let order = ["p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"].map(|k| f(&l[k]));
        assert!(
            order.windows(2).all(|w| w[0] <= w[1]) && order[0] > 0.0,
            "{l}"
        );
        let pts = t["percentiles"].as_array().unwrap();
        assert_eq!(f(&pts.last().unwrap()[0]), 100.0);
        assert!(t.get("paired").is_none(), "one build is not paired");
    }
    // The parties' rows are there, without figures: only throughput was asked for.
    assert!(result(&run, "echo/plain_server")["icount"].is_null());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.is_empty(), "--quiet prints no table: {table}");
}

#[test]
fn an_open_loop_keeps_its_rate() {
    let mut args = vec![
        "--instrument",
        "throughput",
        "--filter",
        "^echo/plain$",
        "--clients",
        "2",
        "--rate",
        "2000",
    ];
    args.extend(QUICK);
    let (out, dir) = run_service(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    let t = &result(&run, "echo/plain@2c")["throughput"];
    assert_eq!(t["load"], "open");
    assert_eq!(f(&t["target_rate"]), 2000.0);
    // An echo answers in tens of microseconds, so the requests go out when due: 2000 per
    // second give or take the slices' edges (a generous band: this is pacing, not speed).
    let ops = f(&t["ops_per_sec"]);
    assert!(
        (1500.0..2500.0).contains(&ops),
        "{ops} ops/s at a 2000 ops/s target"
    );
}

#[test]
fn a_server_that_dies_under_load_fails_its_own_row_only() {
    let mut args = vec![
        "--instrument",
        "throughput",
        "--filter",
        "^echo/(plain|server_panics)$",
        "--clients",
        "1",
    ];
    args.extend(QUICK);
    let (out, dir) = run_service(&args);
    assert!(!out.status.success(), "a failed scenario fails the run");
    let run = run_json(dir.path());
    let bad = result(&run, "echo/server_panics@1c");
    assert!(bad["throughput"].is_null());
    let failure = &bad["failures"][0];
    assert_eq!(failure["instrument"], "throughput");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("the server exited during the load"),
        "{message}"
    );
    assert!(
        failure["stderr_tail"]
            .as_str()
            .unwrap()
            .contains("the 50th request"),
        "{failure}"
    );
    assert!(result(&run, "echo/plain@1c")["throughput"]["ops_per_sec"].is_f64());
}

#[test]
fn load_options_are_checked_before_anything_is_built() {
    for (args, what) in [
        (vec!["--clients", "0"], "--clients"),
        (vec!["--rate=0"], "--rate"),
        (vec!["--slices", "0"], "--slices"),
    ] {
        let mut all = vec!["--instrument", "throughput"];
        all.extend(args);
        let (out, _dir) = run_service(&all);
        assert!(!out.status.success(), "{what}");
        assert!(stderr(&out).contains(what), "{}", stderr(&out));
    }
}
