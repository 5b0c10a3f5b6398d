//! Issue 38: watching main. `history backfill` measures a range of real commits of a scratch
//! repository (the selftest suite), carries figures over commits that changed no file the build
//! reads, records a commit that does not build and passes over it, resumes without measuring
//! again, and narrows a sampled change to its exact commit; `history changes` places the change
//! at that commit, explains it by the function that moved, fails once (`--since`), and takes an
//! acknowledgement from costbench.toml. A change brought by a merged branch is paired (wall time
//! against the first parent) and narrowed into the branch (which of its commits brought it).

mod common;

use common::scratch::{git, rev_parse, scratch_repo, set_knob};
use common::{costbench, stderr, stdout, stdout_json, valgrind_available};
use std::path::Path;

fn backfill(r: &Path, db: &Path, extra: &[&str]) -> std::process::Output {
    costbench(["history", "backfill"])
        .args(extra)
        .arg("--manifest-path")
        .arg(r.join("Cargo.toml"))
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
            "--filter",
            "^(knob/spin|calibrate/1000)$",
            "--instrument",
            "icount",
            "--quiet",
            "--db",
        ])
        .arg(db)
        .output()
}

fn changes(r: &Path, db: &Path, extra: &[&str]) -> std::process::Output {
    costbench(["history", "changes", "--manifest-path"])
        .arg(r.join("Cargo.toml"))
        .arg("--db")
        .arg(db)
        .args(["--github", "off"])
        .args(extra)
        .output()
}

#[test]
fn backfill_places_a_change_at_its_commit_and_explains_it() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    let r = repo.path();
    // Eight commits after the base: the 3rd breaks the build and the 4th mends it, the 6th
    // turns the knob (1,000 more instructions per run of knob/spin); the others edit a note no
    // build reads.
    let lib = r.join("suites/selftest/src/lib.rs");
    let good = std::fs::read_to_string(&lib).unwrap();
    for k in 1..=8 {
        match k {
            3 => std::fs::write(&lib, format!("{good}\nfn broken( {{\n")).unwrap(),
            4 => std::fs::write(&lib, &good).unwrap(),
            6 => set_knob(r, 5),
            _ => {
                std::fs::write(r.join("NOTES.txt"), format!("note {k}\n")).unwrap();
                git(r, &["add", "NOTES.txt"]);
            }
        }
        git(r, &["commit", "-q", "-am", &format!("commit {k}")]);
    }
    let sixth = rev_parse(r, "HEAD~2");
    let db = r.join("target/history.sqlite");

    // Sampled every 4th commit from the newest, and the oldest (the 1st, 4th and 8th: the 1st and
    // 8th measured, the 4th carries the 1st's figures), then narrowed: the change between the 4th
    // and the 8th is bisected to the 6th (which carries the 8th's, the 5th the 1st's).
    let o = backfill(r, &db, &["HEAD~8..HEAD", "--every", "4", "--narrow"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    assert!(text.contains("2 measured, 3 carried over"), "{text}");
    assert!(
        text.contains("2 commits between them taken to narrow"),
        "{text}"
    );
    let o = changes(r, &db, &["--format", "json", "--filter", "knob"]);
    let doc = stdout_json(&o, "history changes");
    assert_eq!(o.status.code(), Some(3), "{doc}\n{}", stderr(&o));
    let list = doc["changes"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{doc}");
    let c = &list[0];
    assert_eq!(c["commit"], sixth.as_str(), "{doc}");
    assert_eq!(c["narrowed"], true, "{doc}");
    assert_eq!(c["id"], "knob/spin");
    assert_eq!(c["metric"], "icount");
    assert!(c["change_pct"].as_f64().unwrap() > 0.0, "{doc}");
    assert!(
        c["explanation"].as_str().unwrap_or("").contains("spin"),
        "the function that moved: {doc}"
    );

    // The whole range: the broken commit is recorded as such and passed over, the notes carried
    // over, the commits already measured not measured again.
    let o = backfill(r, &db, &["HEAD~8..HEAD"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    assert!(text.contains("1 did not build"), "{text}");
    assert!(text.contains("already recorded"), "{text}");
    assert!(stderr(&o).contains("does not build"), "{}", stderr(&o));
    let o = backfill(r, &db, &["HEAD~8..HEAD", "--format", "json"]);
    let doc = stdout_json(&o, "history backfill");
    assert_eq!(doc["schema"], "costbench-backfill", "{doc}");
    assert_eq!(doc["commits_in_range"], 8, "{doc}");
    let taken = doc["commits"].as_array().unwrap();
    assert_eq!(taken.len(), 8, "{doc}");
    assert!(
        taken.iter().all(|c| c["outcome"] == "recorded"),
        "a second backfill measures nothing: {doc}"
    );
    // Every commit measured one by one says the same: one change, at the 6th; calibrate never.
    let o = changes(r, &db, &["--format", "json"]);
    let doc = stdout_json(&o, "history changes");
    let list = doc["changes"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{doc}");
    assert_eq!(list[0]["commit"], sixth.as_str(), "{doc}");

    // Fails once: after the change's commit it no longer does.
    let o = changes(r, &db, &["--since", "HEAD~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = changes(r, &db, &["--since", "HEAD~3"]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("FAIL knob/spin icount"),
        "{}",
        stdout(&o)
    );
    // Issue 41: every chosen bench target at every commit, into one record per commit (the
    // newest commit, into a history of its own: one more small bench binary to build).
    let db2 = r.join("target/history-two-targets.sqlite");
    let o = costbench(["history", "backfill", "HEAD~1..HEAD", "--manifest-path"])
        .arg(r.join("Cargo.toml"))
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
            "--bench",
            "growth",
        ])
        .args([
            "--filter",
            "^(knob/spin|scan/128)$",
            "--instrument",
            "icount",
        ])
        .args(["--quiet", "--db"])
        .arg(&db2)
        .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let head = rev_parse(r, "HEAD");
    let run: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            r.join("target/costbench/backfill")
                .join(&head)
                .join("run/run.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(run["suite"]["bench"], "selftest,growth", "{run:#}");
    let ids: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["knob/spin", "scan/128"], "{run:#}");

    // Acknowledged in costbench.toml: reported with its reason, not failing.
    std::fs::write(
        r.join("costbench.toml"),
        format!(
            "[[history.acknowledge]]\ncommit = \"{}\"\nwhy = \"the knob is meant\"\n",
            &sixth[..10]
        ),
    )
    .unwrap();
    let o = changes(r, &db, &["--since", "HEAD~3", "--format", "markdown"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("the knob is meant"), "{}", stdout(&o));
    // A dirty tree, a range that does not exist: usage errors before anything is built.
    let o = backfill(r, &db, &["nope..HEAD"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    std::fs::write(r.join("NOTES.txt"), "uncommitted\n").unwrap();
    let o = backfill(r, &db, &["HEAD~1..HEAD"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("uncommitted"), "{}", stderr(&o));
}

/// A change brought by a merged branch, measured two ways. Wall time paired with the previous
/// commit: the merge's binary takes turns with its first parent's, as `check` measures a pull
/// request against its base, and the +30 % is a change point at the merge in the
/// `walltime-step` series, its step (interval, verdict) kept in the merge's record.
/// Instruction counts: the change is at the merge, and `--narrow` bisects the merged branch's
/// commits to the one that turned the knob.
#[test]
fn a_merged_change_is_paired_and_narrowed_into_its_branch() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    let r = repo.path();
    let commit = |msg: &str| git(r, &["commit", "-q", "-am", msg]);
    let note = |text: &str| {
        std::fs::write(r.join("NOTES.txt"), text).unwrap();
        git(r, &["add", "NOTES.txt"]);
    };
    note("main\n");
    commit("a note on main");
    git(r, &["checkout", "-q", "-b", "feature"]);
    let lib = r.join("suites/selftest/src/lib.rs");
    let comment = |k: u32| {
        let text = std::fs::read_to_string(&lib).unwrap();
        std::fs::write(&lib, format!("{text}// feature {k}\n")).unwrap();
    };
    comment(1);
    commit("feature 1");
    set_knob(r, 300);
    commit("feature 2: the knob");
    comment(3);
    commit("feature 3");
    let knob = rev_parse(r, "HEAD~1");
    git(r, &["checkout", "-q", "-"]);
    note("main moves on\n");
    commit("another note on main");
    git(
        r,
        &["merge", "-q", "--no-ff", "-m", "merge feature", "feature"],
    );
    let (main, merge) = (rev_parse(r, "HEAD~1"), rev_parse(r, "HEAD"));
    let db = r.join("target/history.sqlite");
    let o = costbench([
        "history",
        "backfill",
        "HEAD~2..HEAD",
        "--narrow",
        "--manifest-path",
    ])
    .arg(r.join("Cargo.toml"))
    .args(["-p", "costbench-selftest", "--bench", "selftest"])
    .args([
        "--filter",
        "^knob/spin$",
        "--instrument",
        "icount,walltime",
        "--db",
    ])
    .arg(&db)
    .output();
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    assert!(text.contains("2 measured"), "{text}");
    assert!(
        text.contains("4 commits of merged branches measured"),
        "the fork point, the tip, then two halvings: {text}"
    );
    assert!(
        stderr(&o).contains("paired with"),
        "the merge is paired with its first parent: {}",
        stderr(&o)
    );

    let o = changes(r, &db, &["--metric", "walltime-step", "--format", "json"]);
    let doc = stdout_json(&o, "history changes");
    assert_eq!(o.status.code(), Some(3), "{doc}\n{}", stderr(&o));
    let list = doc["changes"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{doc}");
    assert_eq!(list[0]["commit"], merge.as_str(), "{doc}");
    assert_eq!(list[0]["narrowed"], true, "{doc}");
    let pct = list[0]["change_pct"].as_f64().unwrap();
    assert!((15.0..45.0).contains(&pct), "+30 % of work: {doc}");
    let kept = r.join(format!("target/costbench/backfill/{merge}/run/run.json"));
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
    let step = &common::result(&run, "knob/spin")["walltime"]["step"];
    assert_eq!(step["against"], main.as_str(), "{step}");
    assert_eq!(step["verdict"], "regression", "{step}");
    assert_eq!(
        step["confirmation"], "regression",
        "a second session: {step}"
    );
    assert!(step["low"].as_f64().unwrap() > 1.03, "{step}");

    let o = changes(r, &db, &["--metric", "icount", "--format", "json"]);
    let doc = stdout_json(&o, "history changes");
    let list = doc["changes"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{doc}");
    assert_eq!(list[0]["commit"], merge.as_str(), "{doc}");
    let steps = list[0]["merged_branch"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "the knob's commit alone: {doc}");
    assert_eq!(steps[0]["commit"], knob.as_str(), "{doc}");
    assert_eq!(steps[0]["subject"], "feature 2: the knob", "{doc}");
    let o = changes(r, &db, &["--metric", "icount"]);
    assert!(
        stdout(&o).contains("brought by") && stdout(&o).contains("feature 2: the knob"),
        "{}",
        stdout(&o)
    );
}

/// The scripts of `docs/workflows/costbench-main.yml`, as written, run locally on three pushes
/// to a scratch repository's main: each push's commits are measured and recorded, the push that
/// brings a change fails (exit 3) and the next one does not, and the dashboard is drawn.
#[test]
fn the_main_workflow_runs_as_written() {
    if !valgrind_available() {
        return;
    }
    let text =
        std::fs::read_to_string(common::workspace().join("docs/workflows/costbench-main.yml"))
            .unwrap();
    let wf = &yaml_rust2::YamlLoader::load_from_str(&text).unwrap()[0];
    let script = |name: &str| -> String {
        wf["jobs"]["watch"]["steps"]
            .as_vec()
            .unwrap()
            .iter()
            .find(|s| s["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("no step {name:?}"))["run"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (measure, find, draw) = (
        script("Measure the pushed commits"),
        script("Find change points"),
        script("Draw the dashboard"),
    );
    let repo = scratch_repo();
    let r = repo.path();
    std::fs::write(
        r.join("costbench.toml"),
        "[run]\npackage = \"costbench-selftest\"\nbench = \"selftest\"\n",
    )
    .unwrap();
    git(r, &["add", "costbench.toml"]);
    git(r, &["commit", "-q", "-m", "costbench.toml"]);
    let bin = Path::new(env!("CARGO_BIN_EXE_costbench")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // GitHub runs a step's script with `bash -e` and its `env:`.
    let step = |script: &str, before: &str| {
        std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(r)
            .env("PATH", &path)
            .env("BEFORE", before)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("COSTBENCH_DB")
            .output()
            .unwrap()
    };
    let push = |change: &dyn Fn(&Path), subject: &str| -> (i32, String) {
        let before = rev_parse(r, "HEAD");
        change(r);
        git(r, &["commit", "-q", "-am", subject]);
        let o = step(&measure, &before);
        assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
        let o = step(&find, &before);
        (o.status.code().unwrap_or(-1), stdout(&o))
    };
    let note = |k: u32| {
        move |r: &Path| {
            std::fs::write(r.join("NOTES.txt"), format!("{k}\n")).unwrap();
            git(r, &["add", "NOTES.txt"]);
        }
    };
    let (code, text) = push(&note(1), "a note");
    assert_eq!(code, 0, "{text}");
    let (code, text) = push(&|r| set_knob(r, 5), "turn the knob");
    assert_eq!(code, 3, "the push that brings the change fails: {text}");
    assert!(text.contains("FAIL knob/spin icount"), "{text}");
    let (code, text) = push(&note(2), "another note");
    assert_eq!(code, 0, "and the next one does not: {text}");
    assert!(text.contains("knob/spin icount"), "still listed: {text}");
    let o = step(&draw, "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = std::fs::read_to_string(r.join("site/index.html")).unwrap();
    assert!(
        page.contains("knob/spin"),
        "the dashboard charts the series"
    );
}

/// A database that is not a history, or none at all, is a usage error said before anything
/// else; so are bad options.
#[test]
fn bad_databases_and_options_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let foreign = d.path().join("other.sqlite");
    let conn = std::process::Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t (x)'); c.commit()",
        ])
        .arg(&foreign)
        .status();
    if !conn.is_ok_and(|s| s.success()) {
        // Without python3, a file of another kind stands in.
        std::fs::write(&foreign, "not a database").unwrap();
    }
    let manifest = common::workspace().join("Cargo.toml");
    for (args, needle) in [
        (
            vec!["history", "changes", "--db", foreign.to_str().unwrap()],
            "",
        ),
        (
            vec![
                "history",
                "changes",
                "--db",
                d.path().join("missing.sqlite").to_str().unwrap(),
            ],
            "no history database",
        ),
        (
            vec!["history", "dashboard", "--db", foreign.to_str().unwrap()],
            "",
        ),
    ] {
        let o = costbench(&args)
            .arg("--manifest-path")
            .arg(&manifest)
            .output();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}
