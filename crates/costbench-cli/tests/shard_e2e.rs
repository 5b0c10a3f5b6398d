//! End-to-end tests of `--shard K/N` and `costbench merge` (issue 15) on the selftest suite:
//! the real binary, real builds, real valgrind. Tests that need valgrind say so and pass when it
//! is missing.

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `costbench COMMAND` on the selftest suite into `dir`, as shard `shard` (or unsharded), no
/// history, then `extra`; asserts that it succeeded.
fn measure_shard(command: &str, dir: &Path, shard: Option<&str>, extra: &[&str]) -> Output {
    let manifest = selftest_manifest();
    // A history of its own that does not exist, so that the split is by count whatever other
    // tests recorded in the workspace's default history (shards read costs from history even
    // when --no-history keeps them from recording).
    let db = dir.with_extension("history.sqlite");
    let mut args = vec![
        command,
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--output-dir",
        dir.to_str().unwrap(),
        "--no-history",
        "--db",
        db.to_str().unwrap(),
    ];
    if let Some(s) = shard {
        args.extend(["--shard", s]);
    }
    args.extend_from_slice(extra);
    let out = costbench(&args).output();
    assert!(out.status.success(), "{shard:?}: {}", stderr(&out));
    out
}

/// `costbench run --shard K/N` into `dir`, no history.
fn run_shard(dir: &Path, shard: Option<&str>, extra: &[&str]) -> Value {
    let mut args = vec!["--quiet"];
    args.extend_from_slice(extra);
    measure_shard("run", dir, shard, &args);
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
    costbench(&args).output()
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
    let cmp = costbench([
        "compare",
        tmp.path().join("whole").to_str().unwrap(),
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ])
    .output();
    assert!(cmp.status.success(), "{}", stderr(&cmp));
    let cmp: Value = serde_json::from_slice(&cmp.stdout).unwrap();
    for row in cmp["rows"].as_array().unwrap() {
        assert_eq!(row["verdict"], "unchanged", "{row}");
    }
    // check --shard measures and judges only its own scenarios: none of the others is missing.
    let manifest = selftest_manifest();
    let check_dir = tmp.path().join("check-s2");
    let out = costbench([
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
    ])
    .output();
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
    let out = costbench(&args).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let run_id = run_json(&again)["run_id"].as_str().unwrap().to_string();
    let out = costbench(["history", "--db", db.to_str().unwrap()]).output();
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

/// `costbench variants --shard K/N` (or unsharded, `None`) on three selftest variants, into
/// `dir`; the matrix JSON.
fn variants_shard(dir: &Path, shard: Option<&str>, extra: &[&str]) -> Value {
    let mut args = vec![
        // The builds of variants_e2e.rs (same names, same settings): reused when it ran first.
        "--variant",
        "e2e-release:",
        "--variant",
        "e2e-oc:overflow-checks=true",
        "--variant",
        "e2e-longer:features=longer",
        "--filter",
        "^(calibrate/1000|checked/sum|feature/loop)$",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = measure_shard("variants", dir, shard, &args);
    serde_json::from_slice(&out.stdout).expect("the matrix as JSON")
}

/// The icount figure and ratio of every cell of a matrix, by (row, variant).
fn cells(m: &Value) -> Vec<(String, String, f64, Option<f64>)> {
    let mut out = Vec::new();
    for row in m["rows"].as_array().unwrap() {
        for c in row["cells"].as_array().unwrap() {
            let f = &c["icount"];
            out.push((
                row["id"].as_str().unwrap().to_string(),
                c["variant"].as_str().unwrap().to_string(),
                f["per_op"].as_f64().unwrap(),
                f["ratio"].as_f64(),
            ));
        }
    }
    out
}

/// Issue 15: a variants session sharded whole variant by whole variant merges into the matrix of
/// the unsharded session: with instruction counts only the baseline is one shard's variant like
/// any other; with wall time every shard measures it beside its own variants and each variant
/// is compared with its own shard's.
#[test]
fn issue_15_variant_shards_merge_into_the_unsharded_matrix() {
    if !valgrind_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let icount = ["--instrument", "icount"];
    let whole = variants_shard(&tmp.path().join("whole"), None, &icount);
    let mut roots = Vec::new();
    for k in 1..=3 {
        let root = tmp.path().join(format!("v{k}"));
        let m = variants_shard(&root, Some(&format!("{k}/3")), &icount);
        assert_eq!(
            m["columns"].as_array().unwrap().len(),
            1,
            "one variant each"
        );
        assert_eq!(
            m["shard"]["split"]["whole_variants"]["baseline_everywhere"],
            false
        );
        roots.push(root);
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge", "--no-history", "--format", "json", "--output"];
    args.push(merged.to_str().unwrap());
    args.extend(roots.iter().map(|d| d.to_str().unwrap()));
    let out = costbench(&args).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let m: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(m["baseline"], "e2e-release");
    let names: Vec<&str> = m["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["e2e-release", "e2e-oc", "e2e-longer"]);
    assert_eq!(cells(&m), cells(&whole), "every figure and ratio");
    assert_eq!(cells(&m).len(), 9);
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("matrix.json")).unwrap())
            .unwrap();
    assert_eq!(on_disk, m);
    for v in names {
        let run = run_json(&merged.join(v));
        assert_eq!(run["variant"], v);
        // How its build went, kept for the partition's build costs: cargo's units, fresh or not.
        let units = |k: &str| run["build"][k].as_u64().unwrap();
        assert!(units("compiled") + units("fresh") > 0, "{}", run["build"]);
        assert!(run["build"]["seconds"].as_f64().unwrap() >= 0.0);
    }
    // A shard missing, and a run directory among variants roots, are refused.
    let out = merge(&roots[..2], &tmp.path().join("m2"));
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("shard 3/3 missing"),
        "{}",
        stderr(&out)
    );
    let out = merge(
        &[roots[0].clone(), roots[1].join("e2e-oc")],
        &tmp.path().join("m3"),
    );
    assert!(
        stderr(&out).contains("is the root of a variants session"),
        "{}",
        stderr(&out)
    );

    // Wall time: two shards, each with the baseline beside one variant.
    let wall = [
        "--instrument",
        "icount,walltime",
        "--rounds",
        "8",
        "--max-rounds",
        "8",
    ];
    let mut roots = Vec::new();
    for k in 1..=2 {
        let root = tmp.path().join(format!("w{k}"));
        let m = variants_shard(&root, Some(&format!("{k}/2")), &wall);
        assert_eq!(m["columns"].as_array().unwrap().len(), 2, "{m}");
        assert_eq!(m["columns"][0]["name"], "e2e-release");
        roots.push(root);
    }
    let merged = tmp.path().join("wmerged");
    let out = merge(&roots, &merged);
    assert!(out.status.success(), "{}", stderr(&out));
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("matrix.json")).unwrap())
            .unwrap();
    assert_eq!(m["columns"].as_array().unwrap().len(), 3);
    let second = run_json(&merged.join("e2e-release@2"));
    assert_eq!(second["variant"], "e2e-release");
    assert_eq!(second["shard"]["index"], 2);
    // Every variant's wall time is judged against a baseline measured beside it: paired.
    for row in m["rows"].as_array().unwrap() {
        for c in &row["cells"].as_array().unwrap()[1..] {
            let w = &c["walltime"];
            assert!(w["ratio"].as_f64().is_some(), "{row}");
            assert!(w["ci"].is_object(), "paired interval: {row}");
        }
    }
}
