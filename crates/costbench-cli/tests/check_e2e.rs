//! End-to-end tests of `costbench check --baseline-rev`: a scratch git repository holding the
//! library and the selftest suite, a known change in its working tree, the real binary, real
//! builds of both revisions, real valgrind.

mod common;
use common::scratch::{git, scratch_repo, set_knob};
use common::*;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn check(repo: &Path, out: &Path, extra: &[&str]) -> (Output, Value) {
    check_rev(repo, out, "HEAD", extra)
}

fn check_rev(repo: &Path, out: &Path, rev: &str, extra: &[&str]) -> (Output, Value) {
    check_env(repo, out, rev, extra, &[])
}

/// Variables GitHub Actions sets in every step; cleared from the tests' own environment (they
/// may run inside GitHub Actions) unless `env` sets them.
const GITHUB_VARS: [&str; 3] = ["GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"];

fn check_env(
    repo: &Path,
    out: &Path,
    rev: &str,
    extra: &[&str],
    env: &[(&str, &Path)],
) -> (Output, Value) {
    let manifest = repo.join("Cargo.toml");
    let mut cmd = costbench(["check", "--manifest-path"]);
    for k in GITHUB_VARS {
        cmd = cmd.env_remove(k);
    }
    let o = cmd
        .envs(env)
        .arg(&manifest)
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
            "--baseline-rev",
            rev,
            "--format",
            "json",
            "--no-history",
            "--output-dir",
        ])
        .arg(out)
        .args(extra)
        // The knob scenario unless the test chose others.
        .args(if extra.contains(&"--filter") {
            &[][..]
        } else {
            &["--filter", "^knob/"][..]
        })
        .output();
    let json = common::stdout_json(&o, "check");
    (o, json)
}

/// Addresses and names of the functions of code layout `seed` of `mode` in `dir`, in address
/// order.
fn function_order(dir: &Path, mode: &str, seed: u64) -> Vec<(u64, String)> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let suffix = format!("-{mode}{seed}");
    let file = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(&suffix))
        .unwrap_or_else(|| panic!("no layout {seed} in {}", dir.display()));
    let data = std::fs::read(&file).unwrap();
    let obj = object::File::parse(&*data).unwrap();
    let mut syms: Vec<(u64, String)> = obj
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .map(|s| (s.address(), s.name().unwrap_or("").to_string()))
        .collect();
    syms.sort();
    syms
}

fn knob(run: &Value) -> &Value {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "knob/spin")
        .expect("knob/spin measured")
}

/// The gate sees a 0.5 % instruction-count regression made in the working tree, exactly, names
/// the function that grew, obeys a soft limit from costbench.toml, and measures wall time of
/// the two builds in paired rounds.
#[test]
fn check_against_a_git_revision_finds_a_known_regression() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    set_knob(repo.path(), 5);
    let out = tempfile::tempdir().unwrap();

    // As a step of GitHub Actions: a job summary another command of the step began, and JUnit
    // XML beside the JSON report.
    let summary = out.path().join("step_summary.md");
    std::fs::write(&summary, "# tests\n\n12 passed\n").unwrap();
    let junit = out.path().join("junit.xml");
    let (o, json) = check_env(
        repo.path(),
        out.path(),
        "HEAD",
        &["--instrument", "icount", "--junit", junit.to_str().unwrap()],
        &[
            ("GITHUB_ACTIONS", Path::new("true")),
            ("GITHUB_STEP_SUMMARY", &summary),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(json["schema"], "costbench-check");
    assert_eq!(json["passed"], false);
    let v = &json["gate"]["violations"][0];
    assert_eq!(
        (v["id"].as_str(), v["kind"].as_str()),
        (Some("knob/spin"), Some("regression"))
    );
    // spin runs 100,000 steps at the base and 100,500 with the knob at 5 permille: two
    // instructions per step, so exactly 1,000 more per run of the body.
    let base = run_json(&out.path().join("baseline"));
    let cand = run_json(&out.path().join("candidate"));
    let (bi, ci) = (
        knob(&base)["icount"]["ir"].as_u64().unwrap(),
        knob(&cand)["icount"]["ir"].as_u64().unwrap(),
    );
    assert_eq!(ci - bi, 1000, "baseline {bi}, candidate {ci}");
    let top = &json["comparison"]["functions"][0];
    assert_eq!(top["id"], "knob/spin");
    let f = &top["top"][0];
    assert!(
        f["name"].as_str().unwrap().contains("spin"),
        "top function: {f}"
    );
    let self_change = f["cand_self"].as_f64().unwrap() - f["base_self"].as_f64().unwrap();
    assert!((self_change - 0.01).abs() < 1e-9, "{f}");
    // Issue 27: the function explains all of the change, is entered as often on both sides,
    // and no function whose own cost did not change is listed (no caller padding).
    assert!((f["share"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{top}");
    assert_eq!(f["base_calls"], f["cand_calls"], "{f}");
    assert_eq!(f["presence"], "both", "{f}");
    for g in top["top"].as_array().unwrap() {
        assert_ne!(g["base_self"], g["cand_self"], "{top}");
    }
    github_outputs(&o, &summary, &junit, bi, ci);

    // A soft limit above the change lets it pass (and the markdown says so).
    std::fs::write(
        repo.path().join("costbench.toml"),
        "[[check.limit]]\nscenario = \"knob/*\"\nsoft = 1.0\n",
    )
    .unwrap();
    let md = out.path().join("report.md");
    let (o, json) = check(
        repo.path(),
        out.path(),
        &["--instrument", "icount", "--markdown", md.to_str().unwrap()],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(json["passed"], true);
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.starts_with("### costbench check: passed"), "{md}");
    assert!(md.contains("Functions whose own cost changed"), "{md}");
    github_judging_only(repo.path(), out.path());

    // Issue 16: the baseline revision is built with the user's cargo flags too, so a scenario
    // that exists only under a feature is measured on both sides, with the same exact count.
    let (o, json) = check(
        repo.path(),
        out.path(),
        &[
            "--instrument",
            "icount",
            "--features",
            "extra",
            "--filter",
            "^feature/extra$",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(json["passed"], true);
    let (base, cand) = (
        run_json(&out.path().join("baseline")),
        run_json(&out.path().join("candidate")),
    );
    assert_eq!(ir(&base, "feature/extra"), ir(&cand, "feature/extra"));
    assert_eq!(base["settings"]["features"], serde_json::json!(["extra"]));

    // Wall time of both builds in interleaved rounds, judged paired; a fixed number of rounds.
    let (o, json) = check(
        repo.path(),
        out.path(),
        &[
            "--instrument",
            "walltime",
            "--rounds",
            "8",
            "--max-rounds",
            "8",
        ],
    );
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let row = &json["comparison"]["rows"][0];
    assert_eq!(row["instrument"], "walltime");
    assert_eq!(row["paired_rounds"], 8, "{row}");
    // Versioned output; every row says what backs its verdict; the gate fails on regressions
    // only, and lists unresolved and placement rows as notes.
    assert_eq!(json["schema_version"], 2);
    assert_eq!(json["comparison"]["schema"], "costbench-comparison");
    assert_eq!(json["comparison"]["schema_version"], 2);
    assert!(
        row["evidence"]
            .as_str()
            .unwrap()
            .starts_with("paired over 8 rounds, "),
        "{row}"
    );
    assert!(
        row["p_value"].as_f64().is_some_and(|p| p > 0.0 && p <= 1.0),
        "{row}"
    );
    let rows = json["comparison"]["rows"].as_array().unwrap();
    let open = rows
        .iter()
        .filter(|r| matches!(r["verdict"].as_str(), Some("unresolved" | "placement")))
        .count();
    assert_eq!(
        json["gate"]["notes"].as_array().unwrap().len(),
        open,
        "{json}"
    );
    let regressions = rows.iter().filter(|r| r["verdict"] == "regression").count();
    assert_eq!(o.status.code() == Some(3), regressions > 0, "{json}");
    let (base, cand) = (
        run_json(&out.path().join("baseline")),
        run_json(&out.path().join("candidate")),
    );
    let (bp, cp) = (
        &knob(&base)["walltime"]["paired"],
        &knob(&cand)["walltime"]["paired"],
    );
    assert_eq!(bp["session"], cp["session"]);
    assert_eq!(bp["round_medians_ns_per_op"].as_array().unwrap().len(), 8);
    assert_eq!(bp["round_min_ns_per_op"].as_array().unwrap().len(), 8);
    assert_eq!(knob(&cand)["walltime"]["samples"], 80);
    assert_eq!(bp["looks"], 1, "a fixed number of rounds is one look");
    // Every round of every side ran its own code layout, really relinked in another order.
    let seeds = |p: &Value| -> Vec<u64> {
        p["round_layouts"]
            .as_array()
            .unwrap_or_else(|| panic!("no round_layouts: {p}"))
            .iter()
            .map(|s| s.as_u64().unwrap())
            .collect()
    };
    let (bs, cs) = (seeds(bp), seeds(cp));
    let mut all: Vec<u64> = bs.iter().chain(&cs).copied().collect();
    assert_eq!((bs.len(), cs.len()), (8, 8));
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 16, "distinct per side and round: {bs:?} {cs:?}");
    // The default layouts shift all of the program's code by a multiple of 16 bytes: the same
    // functions in the same order, nearly all of them moved by one distance.
    let layouts = repo
        .path()
        .join("target/costbench/build/default/release/layouts");
    let (first, second) = (
        function_order(&layouts, "shift", cs[0]),
        function_order(&layouts, "shift", cs[1]),
    );
    assert!(first.len() > 100, "{} functions", first.len());
    let names = |v: &[(u64, String)]| v.iter().map(|(_, n)| n.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&first),
        names(&second),
        "the same functions in the same order"
    );
    let mut moved: Vec<i64> = first
        .iter()
        .zip(&second)
        .map(|((a, _), (b, _))| *b as i64 - *a as i64)
        .collect();
    moved.sort_unstable();
    let shift = moved[moved.len() / 2];
    assert!(shift != 0 && shift % 16 == 0, "moved by {shift}");
    let same = moved.iter().filter(|m| **m == shift).count();
    assert!(
        same * 10 > moved.len() * 9,
        "{same} of {} moved by {shift}",
        moved.len()
    );

    // Adaptive rounds: between --rounds and --max-rounds, the same on both sides, two looks; and
    // --layouts shuffle relinks every round with its functions in another order.
    let (o, _) = check(
        repo.path(),
        out.path(),
        &[
            "--instrument",
            "walltime",
            "--rounds",
            "8",
            "--max-rounds",
            "10",
            "--layouts",
            "shuffle",
        ],
    );
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (base, cand) = (
        run_json(&out.path().join("baseline")),
        run_json(&out.path().join("candidate")),
    );
    let (bp, cp) = (
        &knob(&base)["walltime"]["paired"],
        &knob(&cand)["walltime"]["paired"],
    );
    let n = bp["round_min_ns_per_op"].as_array().unwrap().len();
    assert!((8..=10).contains(&n), "{n} rounds");
    assert_eq!(cp["round_min_ns_per_op"].as_array().unwrap().len(), n);
    assert_eq!(
        (&bp["looks"], &cp["looks"]),
        (&Value::from(2), &Value::from(2))
    );
    let cs: Vec<u64> = cp["round_layouts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    let (first, second) = (
        function_order(&layouts, "shuffle", cs[0]),
        function_order(&layouts, "shuffle", cs[1]),
    );
    let (mut a, mut b) = (names(&first), names(&second));
    assert_ne!(
        a, b,
        "layouts {} and {} order functions alike",
        cs[0], cs[1]
    );
    a.sort();
    b.sort();
    assert_eq!(a, b, "the same functions in both layouts");

    // Baselines of several commits share one build directory: going back to a commit whose
    // worktree is still there must measure that commit, not the one built last (cargo would take
    // the old worktree's sources as fresh for the other commit's build).
    std::fs::remove_file(repo.path().join("costbench.toml")).unwrap();
    git(repo.path(), &["commit", "-q", "-am", "knob"]);
    let base_ir = |rev: &str| {
        let (o, _) = check_rev(repo.path(), out.path(), rev, &["--instrument", "icount"]);
        assert!(
            matches!(o.status.code(), Some(0 | 3)),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        knob(&run_json(&out.path().join("baseline")))["icount"]["ir"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(base_ir("HEAD~1"), bi);
    assert_eq!(base_ir("HEAD"), bi + 1000);
    assert_eq!(
        base_ir("HEAD~1"),
        bi,
        "the old commit's worktree was built afresh"
    );
    issue_41_every_bench_target_on_both_sides(repo.path(), out.path(), bi + 1000);
}

/// Issue 41: `check --baseline-rev` measures every chosen bench target on both sides. The
/// working tree adds a second target, `selftest2`, built from the same source as `selftest`;
/// HEAD lacks it, so it is left out of the baseline with a note and its scenarios are new.
/// `knob/spin` is offered by both targets of the candidate, so it is `selftest/knob/spin` on
/// both sides (the baseline, with one target, names it alike) and the sides pair up by id:
/// the same commit's count on both, and wall time in interleaved rounds across the targets.
/// Reuses the builds above: one more bench binary to build.
fn issue_41_every_bench_target_on_both_sides(repo: &Path, out: &Path, knob_ir: u64) {
    let manifest = repo.join("suites/selftest/Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push_str(
        "\n[[bench]]\nname = \"selftest2\"\npath = \"benches/selftest.rs\"\nharness = false\n",
    );
    std::fs::write(&manifest, text).unwrap();
    let o = costbench(["check", "--manifest-path"])
        .arg(repo.join("Cargo.toml"))
        .args(["-p", "costbench-selftest", "--bench", "selftest"])
        .args(["--bench", "selftest2", "--baseline-rev", "HEAD"])
        .args([
            "--filter",
            "(^|/)knob/spin$",
            "--instrument",
            "icount,walltime",
        ])
        .args(["--rounds", "8", "--max-rounds", "8"])
        .args(["--format", "json", "--no-history", "--output-dir"])
        .arg(out)
        .output();
    let err = stderr(&o);
    assert!(matches!(o.status.code(), Some(0 | 3)), "{err}");
    assert!(
        err.contains("bench target selftest2 left out at HEAD"),
        "{err}"
    );
    let (base, cand) = (
        run_json(&out.join("baseline")),
        run_json(&out.join("candidate")),
    );
    let ids = |r: &Value| -> Vec<String> {
        r["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&base), ["selftest/knob/spin"]);
    assert_eq!(ids(&cand), ["selftest/knob/spin", "selftest2/knob/spin"]);
    assert_eq!(cand["suite"]["bench"], "selftest,selftest2");
    for r in [&base, &cand] {
        assert_eq!(ir(r, "selftest/knob/spin"), knob_ir, "{r:#}");
    }
    assert_eq!(ir(&cand, "selftest2/knob/spin"), knob_ir);
    // Paired by id: the same pairing session and rounds on both sides.
    let paired = |r: &Value, id: &str| result(r, id)["walltime"]["paired"].clone();
    let (bp, cp) = (
        paired(&base, "selftest/knob/spin"),
        paired(&cand, "selftest/knob/spin"),
    );
    assert_eq!(bp["session"], cp["session"], "{bp} {cp}");
    assert_eq!(cp["round_min_ns_per_op"].as_array().unwrap().len(), 8);
    let json = common::stdout_json(&o, "check");
    let rows = json["comparison"]["rows"].as_array().unwrap();
    assert!(
        rows.iter().any(|r| r["id"] == "selftest/knob/spin"
            && r["instrument"] == "icount"
            && r["verdict"] == "unchanged"),
        "{json:#}"
    );
}

/// What the check that found the knob's regression left for GitHub Actions (issue 15): the
/// report appended to the job summary, an `::error` annotation on stderr (stdout stayed JSON),
/// and JUnit XML with the regression as a failure.
fn github_outputs(o: &Output, summary: &Path, junit: &Path, bi: u64, ci: u64) {
    let err = String::from_utf8_lossy(&o.stderr);
    let change = format!("{:+.2} %25", 100.0 * (ci - bi) as f64 / bi as f64);
    let error = err
        .lines()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("no ::error annotation in:\n{err}"));
    assert!(
        error.starts_with(
            "::error title=costbench regression%3A knob/spin (icount)::Instruction counts: "
        ) && error.contains(&format!(
            " per op ({change}); {} (significant); exact instruction counts",
            &change
        )),
        "{error}"
    );
    let commands: Vec<&str> = err.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(commands, [error], "one annotation: {err}");
    let md = std::fs::read_to_string(summary).unwrap();
    assert!(
        md.starts_with("# tests\n\n12 passed\n\n### costbench check: failed (1 violation)\n"),
        "{md}"
    );
    assert!(md.contains("| knob/spin | Instruction counts | "), "{md}");
    let xml = std::fs::read_to_string(junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
    let root = doc.root_element();
    assert_eq!(
        (root.attribute("name"), root.attribute("failures")),
        (Some("costbench check"), Some("1")),
        "{xml}"
    );
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("knob/spin"))
        .unwrap_or_else(|| panic!("no knob/spin case:\n{xml}"));
    assert_eq!(case.attribute("classname"), Some("costbench.icount"));
    let failure = case.first_element_child().unwrap();
    assert_eq!(
        (failure.tag_name().name(), failure.attribute("type")),
        ("failure", Some("regression"))
    );
    let message = failure.attribute("message").unwrap();
    assert!(
        message.contains(&format!(
            " per op, {}, threshold 0.2 %",
            change.replace("%25", "%")
        )),
        "{message}"
    );
}

/// `check` judging two existing runs (nothing measured) in GitHub Actions' environment: with
/// the regression excused by `ignore`, the check passes and warns on costbench.toml; a job summary
/// that cannot be written is a warning, not a failure; `--github off` says nothing to GitHub.
fn github_judging_only(repo: &Path, out: &Path) {
    let config = repo.join("costbench.toml");
    let kept = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        repo.join("costbench.toml"),
        "[check]\nignore = [\"knob/*\"]\n",
    )
    .unwrap();
    let run = |github: &str, summary: &Path| {
        let mut cmd = costbench(["check", "--manifest-path"]);
        for k in GITHUB_VARS {
            cmd = cmd.env_remove(k);
        }
        let o = cmd
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", summary)
            .env("GITHUB_WORKSPACE", repo)
            .arg(repo.join("Cargo.toml"))
            .args([
                "-p",
                "costbench-selftest",
                "--bench",
                "selftest",
                "--github",
                github,
            ])
            .arg("--baseline")
            .arg(out.join("baseline"))
            .arg("--candidate")
            .arg(out.join("candidate"))
            .output();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        stderr(&o)
    };
    // The summary "file" is a directory: appending fails, the check does not.
    let err = run("auto", out);
    assert!(
        err.contains("warning: could not append the report to GITHUB_STEP_SUMMARY"),
        "{err}"
    );
    let commands: Vec<&str> = err.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(commands.len(), 2, "{err}");
    assert!(
        commands[0].starts_with("::warning title=costbench job summary::could not append"),
        "{err}"
    );
    assert!(
        commands[1].starts_with(
            "::warning title=costbench regression ignored%3A knob/spin,file=costbench.toml::\
             significant regression (icount +0.",
        ),
        "{err}"
    );
    let summary = out.join("off.md");
    let err = run("off", &summary);
    assert!(!err.contains("::"), "{err}");
    assert!(!summary.exists());
    std::fs::write(&config, kept).unwrap();
}

#[test]
fn check_refuses_bad_baselines() {
    let repo = scratch_repo();
    let out = tempfile::tempdir().unwrap();
    let o = costbench(["check", "--manifest-path"])
        .arg(repo.path().join("Cargo.toml"))
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
            "--baseline-rev",
            "no-such-rev",
            "--output-dir",
        ])
        .arg(out.path())
        .output();
    // A revision that does not exist: the command line was wrong (issue 29).
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no-such-rev") && err.contains("not a commit"),
        "{err}"
    );
    // Neither a baseline nor a revision: a usage error.
    let o = costbench(["check"]).output();
    assert_eq!(o.status.code(), Some(2));
    let o = costbench(["check", "--baseline", "branch:nope", "--manifest-path"])
        .arg(repo.path().join("Cargo.toml"))
        .args(["-p", "costbench-selftest", "--bench", "selftest", "--db"])
        .arg(out.path().join("missing.sqlite"))
        .output();
    // A baseline branch with no history to take it from: the command line names what is not
    // there, a usage error (issue 41).
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no history database"), "{err}");
}

/// Issue 13, item 8: an instruction count that moves with data placement. `check --baseline-rev`
/// re-runs every scenario whose count changed with the heap and stack shifted (`--perturb`): the
/// calibrated spin loop counts exactly the same under every placement, so its real change stays a
/// regression; the word count (an allocation and memcmp per word) spreads.
#[test]
fn changed_counts_are_measured_under_shifted_data_placements() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    set_knob(repo.path(), 5);
    let out = tempfile::tempdir().unwrap();
    let manifest = repo.path().join("Cargo.toml");
    let o = costbench(["check", "--manifest-path"])
        .arg(&manifest)
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
            "--baseline-rev",
            "HEAD",
            "--filter",
            "^(knob|placement)/",
            "--instrument",
            "icount",
            // Every change gets placement runs, the word count's few extra words included.
            "--icount-threshold",
            "0",
            "--placement-runs",
            "3",
            "--format",
            "json",
            "--no-history",
            "--output-dir",
        ])
        .arg(out.path())
        .output();
    let json: Value = common::stdout_json(&o, "check");
    let base = run_json(&out.path().join("baseline"));
    let cand = run_json(&out.path().join("candidate"));
    let icount = |run: &Value, id: &str| -> (f64, Vec<f64>) {
        let r = run["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} measured"));
        let ic = &r["icount"];
        let pl = &ic["placement"];
        assert_eq!(
            pl["perturbations"],
            serde_json::json!([1, 2, 3]),
            "{id}: {ic}"
        );
        let perturbed = pl["ir_per_op"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        (ic["ir_per_op"].as_f64().unwrap(), perturbed)
    };
    // (a) Arithmetic only: identical under every placement, on both sides.
    for run in [&base, &cand] {
        let (plain, perturbed) = icount(run, "knob/spin");
        assert!(
            perturbed.iter().all(|v| *v == plain),
            "{plain} vs {perturbed:?}"
        );
    }
    let row = json["comparison"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "knob/spin")
        .unwrap();
    assert_eq!(row["verdict"], "regression", "{row}");
    let reason = row["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("beyond what shifted heap and stack placements moved it (±0 %)"),
        "{reason}"
    );
    // (b) Heap and memcmp work: the count moves with placement.
    let spread = |run: &Value| {
        let (plain, perturbed) = icount(run, "placement/words");
        let all: Vec<f64> = std::iter::once(plain).chain(perturbed).collect();
        let (lo, hi) = all
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                (l.min(*v), h.max(*v))
            });
        (hi - lo) / plain
    };
    // Issue 32: the perturbations move the heap's top by about a quarter page per step (and
    // leave a history of freed blocks on odd steps), which reaches memcmp's page-end paths and
    // malloc's bins whatever the number of words: the count moves on both sides.
    let (sb, sc) = (spread(&base), spread(&cand));
    assert!(sb > 0.0 && sc > 0.0, "spreads {sb} and {sc}");
    eprintln!(
        "placement/words spread: baseline {:.3} %, candidate {:.3} %",
        100.0 * sb,
        100.0 * sc
    );
}

/// Issue 32: a pull request that edits a function a scenario calls so that the compiler stops
/// inlining it is still flagged, with the inlining change named: the function is one of its own
/// in the candidate only.
#[test]
fn issue_32_a_function_that_stops_being_inlined_is_flagged_and_named() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    let lib = repo.path().join("suites/selftest/src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let inlined = "#[inline(always)]\npub fn calibrated_loop";
    assert!(text.contains(inlined));
    std::fs::write(
        &lib,
        text.replace(inlined, "#[inline(never)]\npub fn calibrated_loop"),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let (o, json) = check(
        repo.path(),
        out.path(),
        &[
            "--filter",
            "^calibrate/1000$",
            "--instrument",
            "icount",
            // A call and a return on 2,001 instructions: 0.1 %.
            "--icount-threshold",
            "0.01",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let rows = json["comparison"]["rows"].as_array().unwrap();
    let row = rows.iter().find(|r| r["id"] == "calibrate/1000").unwrap();
    assert_eq!(row["verdict"], "regression", "{row}");
    let functions = json["comparison"]["functions"].as_array().unwrap();
    let f = functions
        .iter()
        .find(|f| f["id"] == "calibrate/1000")
        .unwrap();
    let note = f["inlining_note"].as_str().unwrap_or_else(|| panic!("{f}"));
    assert!(
        note.contains("calibrated_loop") && note.contains("in the candidate only"),
        "{note}"
    );
    assert!(f.get("placement_note").is_none_or(Value::is_null), "{f}");
}
