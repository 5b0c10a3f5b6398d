//! Issue 15: the history commands work the same on both backends. One scenario (import runs of
//! two branches, import one again, list, chart a series, compare by run id, gate with `check
//! --baseline branch:main`, render the HTML report with its history charts) runs against an
//! SQLite file and against a throwaway PostgreSQL server, and every output must be the same but
//! for the database's name. The PostgreSQL URL carries a password that must never be printed.

mod common;

use common::{costbench, selftest_manifest, stderr};
use costbench_store::pg_cluster::PgCluster;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A password no output may contain (the throwaway server trusts its socket, so it is ignored).
const PASSWORD: &str = "hunter2-never-shown";

/// The runs: (run id, started_at, branch, icounts.csv). `feat` makes `a` 50% dearer; `m4`, the
/// newest, is on main, so that the report (the newest run and the one before it) has history.
const RUNS: &[(&str, &str, &str, &str)] = &[
    ("m1", "2026-03-01T00:00:00Z", "main", "a,1000\nb,2000\n"),
    ("m2", "2026-03-02T00:00:00Z", "main", "a,1001\nb,2000\n"),
    ("m3", "2026-03-03T00:00:00Z", "main", "a,1000\nb,2001\n"),
    (
        "feat",
        "2026-03-04T00:00:00Z",
        "feature",
        "a,1500\nb,2000\n",
    ),
    ("m4", "2026-03-05T00:00:00Z", "main", "a,1000\nb,2000\n"),
];

/// Output directories with a run.json each, with fixed run ids and times so that both backends
/// get exactly the same runs: made by importing ci-bench CSVs into a scratch history and
/// exporting them again.
fn run_dirs(tmp: &Path) -> Vec<PathBuf> {
    let scratch = tmp.join("scratch.sqlite");
    let scratch = scratch.to_str().unwrap();
    RUNS.iter()
        .map(|(id, at, branch, csv)| {
            let dir = tmp.join(id);
            std::fs::create_dir_all(dir.join("csv")).unwrap();
            std::fs::write(dir.join("csv/icounts.csv"), csv).unwrap();
            let o = ok(costbench([
                "import",
                dir.join("csv").to_str().unwrap(),
                "--branch",
                branch,
                "--commit",
                &format!("c-{id}"),
                "--db",
                scratch,
            ])
            .output());
            let line = String::from_utf8(o.stdout).unwrap();
            let run_id = line.split_whitespace().nth(2).unwrap().to_string();
            let o = ok(costbench(["export", &run_id, "--db", scratch]).output());
            let mut run: Value = serde_json::from_slice(&o.stdout).unwrap();
            run["run_id"] = (*id).into();
            run["started_at"] = (*at).into();
            std::fs::write(dir.join("run.json"), run.to_string()).unwrap();
            dir
        })
        .collect()
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", stderr(&o));
    o
}

/// Everything the scenario printed or wrote, with the database's name replaced by `<db>`.
#[derive(Debug, PartialEq)]
struct Seen {
    texts: Vec<(String, Option<i32>, String, String)>,
    report: String,
}

/// Runs the scenario against the database `db`; `via_env` passes it as `COSTBENCH_DB` instead of
/// `--db` to the reading commands.
fn scenario(db: &str, via_env: bool, dirs: &[PathBuf], tmp: &Path) -> Seen {
    let manifest = selftest_manifest();
    let manifest = manifest.to_str().unwrap();
    let mut texts = Vec::new();
    let mut run = |name: &str, args: &[&str]| -> Output {
        let mut args: Vec<&str> = args.to_vec();
        let env: Vec<(&str, &str)> = if via_env && name != "import" {
            vec![("COSTBENCH_DB", db)]
        } else {
            args.extend(["--db", db]);
            vec![]
        };
        let o = costbench(&args).envs(&env).output();
        // As messages show it: the password masked.
        let redacted = db.replace(PASSWORD, "***");
        let shown = |b: &[u8]| {
            String::from_utf8_lossy(b)
                .replace(db, "<db>")
                .replace(&redacted, "<db>")
        };
        let (out, err) = (shown(&o.stdout), shown(&o.stderr));
        assert!(
            !out.contains(PASSWORD) && !err.contains(PASSWORD),
            "{name}: {out}{err}"
        );
        texts.push((name.to_string(), o.status.code(), out, err));
        o
    };
    for d in dirs {
        ok(run("import", &["import", d.to_str().unwrap()]));
    }
    // The same run again: idempotent.
    ok(run("import again", &["import", dirs[0].to_str().unwrap()]));
    let o = ok(run("history", &["history"]));
    let listed = String::from_utf8_lossy(&o.stdout).into_owned();
    let ids: Vec<&str> = listed
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        ids,
        ["m4", "feat", "m3", "m2", "m1"],
        "each run once, newest first:\n{listed}"
    );
    let o = ok(run(
        "series",
        &["history", "--scenario", "a", "--branch", "main"],
    ));
    let series = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        series.contains("m1") && series.contains("m3") && !series.contains("feat"),
        "{series}"
    );
    let o = ok(run(
        "compare",
        &["compare", "m3", "feat", "--format", "json"],
    ));
    let cmp: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(cmp["rows"][0]["id"], "a");
    assert_eq!(cmp["rows"][0]["verdict"], "regression", "{cmp}");
    assert_eq!(cmp["rows"][1]["verdict"], "unchanged", "{cmp}");

    let o = run(
        "check",
        &[
            "check",
            "--baseline",
            "branch:main",
            "--candidate",
            "feat",
            "--manifest-path",
            manifest,
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "a regression: {}", stderr(&o));
    let html = tmp.join("report.html");
    ok(run(
        "report",
        &["report", "--output", html.to_str().unwrap()],
    ));
    let mut report = std::fs::read_to_string(&html).unwrap();
    // The page says when it was generated; that differs, nothing else may.
    let at = report.find(" · generated ").expect("a generation time");
    report.replace_range(at..at + " · generated 2026-01-01T00:00:00Z".len(), "");
    // The newest run and the one before it on its branch, with the history of both scenarios
    // over the four runs of main.
    assert!(report.contains("m4") && report.contains("m3"));
    assert_eq!(
        report
            .matches(r#"data-chart="history" data-series="1" data-points="4""#)
            .count(),
        2,
        "a chart of four runs for each of a and b"
    );
    assert!(!report.contains(PASSWORD));
    Seen {
        texts: texts
            .into_iter()
            .map(|(n, c, o, e)| {
                let o = if n == "compare" {
                    // The bootstrap's seed is drawn per comparison; the rest must match.
                    let mut cmp: Value = serde_json::from_str(&o).unwrap();
                    cmp["options"]["seed"] = 0.into();
                    cmp.to_string()
                } else {
                    o.replace(html.to_str().unwrap(), "<html>")
                };
                (n, c, o, e)
            })
            .collect(),
        report,
    }
}

#[test]
fn history_compare_check_and_report_are_the_same_on_sqlite_and_postgres() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = run_dirs(tmp.path());
    let on_sqlite = {
        let t = tempfile::tempdir().unwrap();
        let db = t.path().join("history.sqlite");
        scenario(db.to_str().unwrap(), false, &dirs, t.path())
    };
    let Some(pg) = PgCluster::start_or_skip(
        "history_compare_check_and_report_are_the_same_on_sqlite_and_postgres (postgres half)",
    ) else {
        return;
    };
    let url = format!("{}&password={PASSWORD}", pg.new_database());
    let t = tempfile::tempdir().unwrap();
    let on_postgres = scenario(&url, false, &dirs, t.path());
    assert_eq!(on_sqlite.texts, on_postgres.texts);
    assert!(on_sqlite.report == on_postgres.report, "the reports differ");
    // COSTBENCH_DB instead of --db: the same again, in a fresh database.
    let url = format!("{}&password={PASSWORD}", pg.new_database());
    let t = tempfile::tempdir().unwrap();
    let via_env = scenario(&url, true, &dirs, t.path());
    assert_eq!(on_sqlite.texts, via_env.texts);
    assert!(on_sqlite.report == via_env.report, "the reports differ");

    // --help names the variable but never shows its value.
    let o = costbench(["history", "--help"])
        .envs(&[("COSTBENCH_DB", &url)])
        .output();
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("COSTBENCH_DB") && !help.contains(PASSWORD),
        "{help}"
    );

    // A database that is not there: a clear error, no password.
    let bad = format!(
        "postgres://costbench:{PASSWORD}@/no_such_db?host={}",
        pg.socket_dir().display()
    );
    let o = costbench(["history", "--db", &bad]).output();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no_such_db") && !err.contains(PASSWORD),
        "{err}"
    );
    assert!(err.contains("costbench:***@"), "{err}");
}

/// `costbench run` records into PostgreSQL named by `COSTBENCH_DB`, and `--html` reads the
/// history back from there for the report's charts.
#[test]
fn run_records_in_postgres_named_by_the_environment() {
    let Some(pg) = PgCluster::start_or_skip("run_records_in_postgres_named_by_the_environment")
    else {
        return;
    };
    let url = format!("{}&password={PASSWORD}", pg.new_database());
    let manifest = selftest_manifest();
    let mut ids = Vec::new();
    let mut last = None;
    for _ in 0..2 {
        let out = tempfile::tempdir().unwrap();
        let o = costbench([
            "run",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--bench",
            "selftest",
            "--instrument",
            "walltime",
            "--filter",
            "^empty$",
            "--iterations-per-scenario",
            "3",
            "--html",
            "--output-dir",
            out.path().to_str().unwrap(),
        ])
        .envs(&[("COSTBENCH_DB", &url)])
        .output();
        let printed = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        assert!(o.status.success(), "{printed}");
        assert!(!printed.contains(PASSWORD), "{printed}");
        ids.push(
            common::run_json(out.path())["run_id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        last = Some(out);
    }
    let o = costbench(["history"])
        .envs(&[("COSTBENCH_DB", &url)])
        .output();
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    for id in &ids {
        assert!(listed.contains(id.as_str()), "{id} in:\n{listed}");
    }
    let report = std::fs::read_to_string(last.unwrap().path().join("report.html")).unwrap();
    assert!(
        report.contains(r#"data-chart="history" data-series="1" data-points="2""#),
        "the second run's report charts both runs from PostgreSQL"
    );
}
