//! End-to-end tests of budgets (issue 28): the selftest suite's `budgets` bench target declares
//! budgets with `Suite::budget`, two of them broken on purpose; `run` fails on them with the
//! exact figures, and `check` holds a candidate to costbench.toml's `[[budget]]` tables, which
//! override the suite's, in every output format.

mod common;
use common::scratch::scratch_repo;
use common::*;

use serde_json::Value;
use std::path::Path;

/// The budget checks of a record or a gate, as (id, figure, status, value).
fn checks(v: &Value) -> Vec<(String, String, String, f64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["figure"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
                c["value"].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect()
}

fn check_with_config(
    repo: &Path,
    config: &str,
    run: &Path,
    extra: &[&str],
) -> std::process::Output {
    std::fs::write(repo.join("costbench.toml"), config).unwrap();
    costbench(["check", "--manifest-path"])
        .arg(repo.join("Cargo.toml"))
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "budgets",
            "--github",
            "off",
        ])
        .arg("--baseline")
        .arg(run)
        .arg("--candidate")
        .arg(run)
        .args(extra)
        .output()
}

#[test]
fn issue_28_budgets_fail_run_and_check_with_exact_figures() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = run_suite(
        "budgets",
        &["--instrument", "icount,memory", "--no-history"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let run = run_json(dir.path());
    let residual = run["harness_residual_ir"].as_u64().unwrap();
    // calibrated_loop::<1000> is 2001 instructions; the harness adds its residual.
    let whole = (2001 + residual) as f64;
    assert_eq!(ir(&run, "loop/whole") as f64, whole);
    let size = run["binary"]["total"].as_f64().unwrap();
    assert!(
        size > 0.0 && size < (1u64 << 30) as f64,
        "{}",
        run["binary"]
    );
    let s = |x: &str| x.to_string();
    assert_eq!(
        checks(&run["budgets"]),
        [
            (
                s("loop/per_iteration"),
                s("instructions"),
                s("within"),
                whole / 1000.0
            ),
            (s("loop/whole"), s("instructions"), s("exceeded"), whole),
            (s("parse/u64"), s("allocations"), s("within"), 0.0),
            (s("parse/u64"), s("bytes"), s("within"), 0.0),
            (s("parse/u64"), s("peak-heap"), s("within"), 0.0),
            // One Vec<String> of capacity 4 (96 bytes) and three 2-byte Strings per op.
            (s("parse/split_owned"), s("allocations"), s("exceeded"), 4.0),
            (s("parse/split_owned"), s("bytes"), s("exceeded"), 102.0),
            (s("parse/split_owned"), s("peak-heap"), s("exceeded"), 102.0),
            (s("bench:budgets"), s("binary-size"), s("within"), size),
        ]
    );
    // --quiet: the broken budgets on stderr, each with its id, figure, value and limit.
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "BUDGET loop/whole (instructions): {whole} Ir/op, above the budget of 2000 Ir/op (library)"
        )),
        "{err}"
    );
    assert!(
        err.contains(
            "BUDGET parse/split_owned (allocations): 4 allocs/op, above the budget of 0 allocs/op (library)"
        ),
        "{err}"
    );

    // `check` judges the run as its own baseline (nothing regressed) against costbench.toml's
    // budgets. Loosened to the exact figures: the check passes.
    let repo = scratch_repo();
    let loose = format!(
        "[[budget]]\nscenario = \"loop/whole\"\ninstructions = {whole}\n\
         [[budget]]\nscenario = \"parse/split_owned\"\nallocations = 4\nbytes = 102\npeak-heap = 102\n"
    );
    let o = check_with_config(repo.path(), &loose, dir.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["passed"], true);
    assert_eq!(report["gate"]["budgets"], serde_json::json!([]));

    // Tightened: parse/u64 at most 100 instructions per number; every format says so.
    let parse_ir = ir(&run, "parse/u64") as f64;
    assert!(parse_ir > 100.0, "{parse_ir}");
    let tight = format!("{loose}[[budget]]\nscenario = \"parse/u64\"\ninstructions = 100\n");
    let files = tempfile::tempdir().unwrap();
    let (md, xml) = (files.path().join("c.md"), files.path().join("c.xml"));
    let o = check_with_config(
        repo.path(),
        &tight,
        dir.path(),
        &[
            "--format",
            "json",
            "--markdown",
            md.to_str().unwrap(),
            "--junit",
            xml.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["passed"], false);
    assert_eq!(
        checks(&report["gate"]["budgets"]),
        [(s("parse/u64"), s("instructions"), s("exceeded"), parse_ir)]
    );
    assert_eq!(report["gate"]["budgets"][0]["source"], "costbench.toml");
    let why = format!("{parse_ir} Ir/op, above the budget of 100 Ir/op (costbench.toml)");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains(&format!("| parse/u64 | budget: instructions | {why} |")),
        "{md}"
    );
    let xml = std::fs::read_to_string(&xml).unwrap();
    assert!(
        xml.contains("classname=\"costbench.budgets\"") && xml.contains("type=\"budget\""),
        "{xml}"
    );
    let o = check_with_config(repo.path(), &tight, dir.path(), &[]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stdout(&o).contains(&format!("  parse/u64 (instructions): {why}\n")),
        "{}",
        stdout(&o)
    );
    // A budget with a typo is refused, naming the key.
    let o = check_with_config(
        repo.path(),
        "[[budget]]\ninstrutions = 1\n",
        dir.path(),
        &[],
    );
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("instrutions"), "{}", stderr(&o));
}

/// The selftest suite's `complexity` target: four families of known classes (log n, n,
/// n log n, n²), each declared with `Budget::complexity`, fitted right from real counts; a
/// class declared wrong in costbench.toml fails `check`.
#[test]
fn issue_28_complexity_classes_fit_and_wrong_declarations_fail() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = run_suite("complexity", &["--instrument", "icount", "--no-history"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = run_json(dir.path());
    let fitted: Vec<(String, String)> = run["complexity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["family"].as_str().unwrap().to_string(),
                f["class"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let s = |x: &str| x.to_string();
    assert_eq!(
        fitted,
        [
            (s("lookup"), s("log n")),
            (s("pairs"), s("n^2")),
            (s("sort"), s("n log n")),
            (s("sum"), s("n")),
        ]
    );
    let checks = run["complexity_checks"].as_array().unwrap();
    assert_eq!(checks.len(), 4);
    assert!(checks.iter().all(|c| c["passed"] == true), "{checks:?}");
    // binary_search over 64 to 4096 keys: one more step of the search per doubling, exactly.
    let lookup = &run["complexity"][0];
    assert_eq!(lookup["rms_rel_error"].as_f64(), Some(0.0), "{lookup}");

    let repo = scratch_repo();
    let o = check_with_config(
        repo.path(),
        "[[budget]]\nscenario = \"sum\"\ncomplexity = \"n^2\"\n",
        dir.path(),
        &["--format", "json"],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let found = &report["gate"]["complexity"];
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["family"], "sum");
    assert_eq!(found[0]["kind"], "declared");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("declared O(n^2), but the counts fit O(n) best"),
        "{found}"
    );
}

/// Issue 28: `variants` holds every variant's run to the suite's budgets as `run` does: the
/// calibrated loop's whole-op budget is broken in each variant, named on stderr, exit code 3.
#[test]
fn issue_28_variants_fail_on_a_broken_budget() {
    if !valgrind_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = costbench(["variants", "--manifest-path"])
        .arg(selftest_manifest())
        .args(["--bench", "budgets", "--output-dir"])
        .arg(dir.path())
        .args([
            "--variant",
            "e2e-release:",
            "--variant",
            "e2e-oc:overflow-checks=true",
            "--filter",
            "^loop/whole$",
            "--instrument",
            "icount",
            "--no-history",
            "--quiet",
        ])
        .output();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    for variant in ["e2e-release", "e2e-oc"] {
        assert!(
            err.contains(&format!(
                "BUDGET in variant {variant}: loop/whole (instructions): "
            )),
            "{err}"
        );
    }
    assert!(
        err.contains("above the budget of 2000 Ir/op (library)"),
        "{err}"
    );
}
