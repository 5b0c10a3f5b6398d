//! End-to-end tests of `--shard K/N` and `costbench merge` (issue 15) on the selftest suite:
//! the real binary, real builds, real valgrind. Tests that need valgrind say so and pass when it
//! is missing.

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// `costbench run --shard K/N` into `dir`, no history.
fn run_shard(dir: &Path, shard: Option<&str>, extra: &[&str]) -> Value {
    let manifest = selftest_manifest();
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--output-dir",
        dir.to_str().unwrap(),
        "--no-history",
        "--quiet",
    ];
    if let Some(s) = shard {
        args.extend(["--shard", s]);
    }
    args.extend_from_slice(extra);
    let out = costbench(&args);
    assert!(out.status.success(), "{shard:?}: {}", stderr(&out));
    run_json(dir)
}

fn merge(dirs: &[PathBuf], out: &Path) -> std::process::Output {
    let mut args = vec![
        "merge",
        "--no-history",
        "--quiet",
        "--output",
        out.to_str().unwrap(),
    ];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    costbench(&args)
}

fn ids(run: &Value) -> Vec<String> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// Issue 15's target: a 3-way sharded icount run, merged, equals the unsharded run exactly, row
/// by row, in the same order and with the same files.
#[test]
fn issue_15_three_icount_shards_merge_into_the_unsharded_run() {
    if !valgrind_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let icount = ["--instrument", "icount"];
    let whole = run_shard(&tmp.path().join("whole"), None, &icount);
    let dirs: Vec<PathBuf> = (1..=3).map(|k| tmp.path().join(format!("s{k}"))).collect();
    let mut seen = Vec::new();
    for (k, d) in dirs.iter().enumerate() {
        let run = run_shard(d, Some(&format!("{}/3", k + 1)), &icount);
        assert_eq!(run["shard"]["index"], k + 1);
        assert_eq!(run["shard"]["count"], 3);
        assert!(
            run["shard"]["assignment"]
                .as_str()
                .unwrap()
                .starts_with("balanced by count (no history"),
            "{}",
            run["shard"]
        );
        seen.extend(ids(&run));
    }
    // Every scenario in exactly one shard.
    let mut all = ids(&whole);
    all.sort();
    seen.sort();
    assert_eq!(seen, all);
    let out_dir = tmp.path().join("merged");
    let out = merge(&dirs, &out_dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let merged = run_json(&out_dir);
    assert_eq!(ids(&merged), ids(&whole), "the unsharded run's order");
    for id in ids(&whole) {
        assert_eq!(ir(&merged, &id), ir(&whole, &id), "{id}");
        let rel = result(&merged, &id)["icount"]["callgrind_out"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(out_dir.join(&rel).is_file(), "{rel} copied");
    }
    assert_eq!(merged["harness_residual_ir"], whole["harness_residual_ir"]);
    for f in ["icounts.csv", "walltime.csv"] {
        assert_eq!(
            std::fs::read_to_string(out_dir.join(f)).unwrap(),
            std::fs::read_to_string(tmp.path().join("whole").join(f)).unwrap(),
            "{f}"
        );
    }
    assert_eq!(merged["merged"]["shards"].as_array().unwrap().len(), 3);
    // A merged run is an ordinary run: compare finds no change against the unsharded one.
    let cmp = costbench(&[
        "compare",
        tmp.path().join("whole").to_str().unwrap(),
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(cmp.status.success(), "{}", stderr(&cmp));
    let cmp: Value = serde_json::from_slice(&cmp.stdout).unwrap();
    for row in cmp["rows"].as_array().unwrap() {
        assert_eq!(row["verdict"], "unchanged", "{row}");
    }
    // check --shard measures and judges only its own scenarios: none of the others is missing.
    let manifest = selftest_manifest();
    let check_dir = tmp.path().join("check-s2");
    let out = costbench(&[
        "check",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--instrument",
        "icount",
        "--no-history",
        "--baseline",
        tmp.path().join("whole").to_str().unwrap(),
        "--shard",
        "2/3",
        "--output-dir",
        check_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let check: Value = serde_json::from_slice(&out.stdout).unwrap();
    let judged: Vec<&str> = check["comparison"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(judged, ids(&run_json(&dirs[1])), "shard 2's rows");
    assert_eq!(
        check["comparison"]["missing_in_cand"],
        serde_json::json!([])
    );
    // Refusals: a missing shard, a shard twice, a run that is not a shard.
    let e = stderr(&merge(&dirs[..2], &tmp.path().join("m2")));
    assert!(e.contains("shard 3/3 missing"), "{e}");
    let twice = [dirs[0].clone(), dirs[1].clone(), dirs[1].clone()];
    let e = stderr(&merge(&twice, &tmp.path().join("m3")));
    assert!(e.contains("shard 2/3 is given twice"), "{e}");
    let e = stderr(&merge(&[tmp.path().join("whole")], &tmp.path().join("m4")));
    assert!(e.contains("is not a shard"), "{e}");
}

/// Sharded wall-time runs merge with their provenance: each row says which shard and machine
/// measured it, and a shard with no scenarios writes a valid empty run.
#[test]
fn issue_15_walltime_shards_keep_their_provenance() {
    let tmp = tempfile::tempdir().unwrap();
    let extra = [
        "--instrument",
        "walltime",
        "--filter",
        "^sort",
        "--iterations-per-scenario",
        "5",
    ];
    let selected = ids(&run_shard(&tmp.path().join("whole"), None, &extra)).len();
    // More shards than scenarios: the last ones are empty.
    let n = selected + 1;
    let dirs: Vec<PathBuf> = (1..=n).map(|k| tmp.path().join(format!("s{k}"))).collect();
    for (k, d) in dirs.iter().enumerate() {
        let run = run_shard(d, Some(&format!("{}/{n}", k + 1)), &extra);
        if k + 1 == n {
            assert_eq!(run["results"].as_array().unwrap().len(), 0, "empty shard");
        }
    }
    let out_dir = tmp.path().join("merged");
    let out = merge(&dirs, &out_dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let merged = run_json(&out_dir);
    assert_eq!(ids(&merged).len(), selected);
    let shards = merged["merged"]["shards"].as_array().unwrap();
    assert_eq!(shards.len(), n);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok();
    for id in ids(&merged) {
        assert!(
            result(&merged, &id)["walltime"]["samples"]
                .as_u64()
                .unwrap()
                == 5
        );
        let owner: Vec<&Value> = shards
            .iter()
            .filter(|s| s["ids"].as_array().unwrap().iter().any(|i| *i == *id))
            .collect();
        assert_eq!(owner.len(), 1, "{id}: one shard measured it");
        if let Some(h) = &host {
            assert_eq!(owner[0]["host"]["name"], h.as_str(), "{id}: its machine");
        }
    }
    // Recorded in history like a measured run (the merged run's own id, every row).
    let db = tmp.path().join("h.sqlite");
    let again = tmp.path().join("merged-again");
    let mut args = vec![
        "merge",
        "--quiet",
        "--db",
        db.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    let out = costbench(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let run_id = run_json(&again)["run_id"].as_str().unwrap().to_string();
    let out = costbench(&["history", "--db", db.to_str().unwrap()]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && listed.contains(&run_id), "{listed}");
    // Merged wall time is walltime.csv's too.
    assert_eq!(
        std::fs::read_to_string(out_dir.join("walltime.csv"))
            .unwrap()
            .lines()
            .count(),
        selected
    );
}
