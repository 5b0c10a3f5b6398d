//! End-to-end tests of issue 28's complexity targets on real counts: the selftest suite's
//! `growth` target measured as it is and with the feature `quadratic` (a pull request that adds
//! a duplicate check of every 128th record against all records), where every size moves less
//! than the icount threshold and `check` must still fail on the family's growth; and a family
//! split across shards, fitted again by `merge`.

mod common;
use common::scratch::scratch_repo;
use common::*;

use serde_json::Value;
use std::path::Path;

/// `costbench run` of the `growth` target into `dir` (instruction counts only), with `extra`
/// arguments; asserts that it succeeded.
fn growth_run(dir: &Path, extra: &[&str]) -> Value {
    let db = dir.with_extension("history.sqlite");
    let out = costbench(["run", "--manifest-path"])
        .arg(selftest_manifest())
        .args([
            "--bench",
            "growth",
            "--instrument",
            "icount",
            "--no-history",
        ])
        .args(["--quiet", "--output-dir"])
        .arg(dir)
        // A history of its own that does not exist: shards split by count.
        .arg("--db")
        .arg(&db)
        .args(extra)
        .output();
    assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
    run_json(dir)
}

fn family<'a>(run: &'a Value, name: &str) -> &'a Value {
    run["complexity"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["family"] == name)
        .unwrap_or_else(|| panic!("no fit of {name}: {}", run["complexity"]))
}

/// Issue 28's target: a linear scan turned quadratic with a small constant, where each size
/// alone moves less than the icount threshold (0.2 %), fails `check` on its growth (exit 3).
#[test]
fn issue_28_a_quadratic_pull_request_under_the_threshold_fails_check() {
    if !valgrind_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (base_dir, cand_dir) = (tmp.path().join("base"), tmp.path().join("cand"));
    let base = growth_run(&base_dir, &[]);
    let cand = growth_run(&cand_dir, &["--features", "quadratic"]);
    assert_eq!(family(&base, "scan")["class"], "n");
    // The quadratic share is too small to change the best class: only the growth of the change
    // shows it.
    assert_eq!(family(&cand, "scan")["class"], "n");
    let mut added = Vec::new();
    for n in [128u64, 256, 512, 1024] {
        let id = format!("scan/{n}");
        let (b, c) = (ir(&base, &id), ir(&cand, &id));
        assert!(c > b, "{id}: {b} -> {c}");
        let pct = 100.0 * (c - b) as f64 / b as f64;
        assert!(pct < 0.2, "{id}: +{pct} % is not under the threshold");
        added.push((n, c - b));
    }
    // Doubling the records about quadruples the added instructions.
    for w in added.windows(2) {
        let ratio = w[1].1 as f64 / w[0].1 as f64;
        assert!((3.5..4.5).contains(&ratio), "{added:?}");
    }

    let repo = scratch_repo();
    std::fs::write(repo.path().join("costbench.toml"), "").unwrap();
    let o = costbench(["check", "--manifest-path"])
        .arg(repo.path().join("Cargo.toml"))
        .args(["-p", "costbench-selftest", "--bench", "growth"])
        .args(["--github", "off", "--format", "json", "--baseline"])
        .arg(&base_dir)
        .arg("--candidate")
        .arg(&cand_dir)
        .output();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let gate = &report["gate"];
    assert_eq!(gate["violations"].as_array().unwrap().len(), 0, "{gate}");
    let found = gate["complexity"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{gate}");
    assert_eq!(found[0]["family"], "scan");
    let msg = found[0]["message"].as_str().unwrap();
    assert!(msg.contains("the added cost grows as n^1.9"), "{msg}");
    // Every row unchanged: no single size crossed the threshold.
    for r in report["comparison"]["rows"].as_array().unwrap() {
        assert_eq!(r["verdict"], "unchanged", "{r}");
    }

    // Both sides' binaries and builds are recorded, and become history series of the bench
    // target; the HTML report plots both fits in one log-log chart with the change of growth.
    for run in [&base, &cand] {
        assert!(
            run["binary"]["total"].as_u64().unwrap() > 0,
            "{}",
            run["binary"]
        );
        assert!(
            run["build"]["seconds"].as_f64().unwrap() > 0.0,
            "{}",
            run["build"]
        );
    }
    let db = tmp.path().join("h.sqlite");
    for d in [&base_dir, &cand_dir] {
        let o = costbench(["import"]).arg(d).arg("--db").arg(&db).output();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = costbench([
        "history",
        "--scenario",
        "bench:growth",
        "--metric",
        "binary-size",
    ])
    .arg("--db")
    .arg(&db)
    .output();
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = stdout(&o);
    let total = |run: &Value| {
        let t = run["binary"]["total"].as_u64().unwrap().to_string();
        let mut out = String::new();
        for (i, c) in t.chars().enumerate() {
            if i > 0 && (t.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    assert!(
        lines.contains(&total(&base)) && lines.contains(&total(&cand)),
        "{lines}"
    );
    let page = tmp.path().join("report.html");
    let o = costbench(["report", "--no-history", "-o"])
        .arg(&page)
        .arg(&base_dir)
        .arg(&cand_dir)
        .output();
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches(r#"data-chart="loglog" data-series="2""#)
            .count(),
        1
    );
    assert!(html.contains("Growth changed:</strong> the added cost grows as n^1.9"));
}

/// Issue 28: `merge` of shards that each hold two of a family's four sizes fits the family over
/// the merged rows, as the unsharded run does.
#[test]
fn issue_28_merge_fits_a_family_split_across_shards() {
    if !valgrind_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let whole = growth_run(&tmp.path().join("whole"), &[]);
    let dirs: Vec<_> = (1..=2).map(|k| tmp.path().join(format!("s{k}"))).collect();
    for (k, d) in dirs.iter().enumerate() {
        let shard = growth_run(d, &["--shard", &format!("{}/2", k + 1)]);
        assert_eq!(shard["results"].as_array().unwrap().len(), 2, "{shard}");
        assert!(
            shard.get("complexity").is_none(),
            "two sizes are not fitted"
        );
    }
    let out = tmp.path().join("merged");
    let o = costbench(["merge", "--no-history", "--quiet", "--output"])
        .arg(&out)
        .args(&dirs)
        .output();
    assert!(o.status.success(), "{}", stderr(&o));
    let merged = run_json(&out);
    assert_eq!(merged["complexity"], whole["complexity"]);
    assert_eq!(family(&merged, "scan")["class"], "n");
}
