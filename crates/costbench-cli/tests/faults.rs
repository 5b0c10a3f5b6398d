//! Fault injection on the real binary (issue 33): `costbench run` on the selftest suite killed
//! with SIGKILL at named points (the hidden `COSTBENCH_FAULT=POINT[:N]` hook, which kills the
//! process exactly there: before the first scenario, inside a scenario's child, between
//! scenarios, inside run.json's atomic write, after measuring, inside the history's
//! transaction), stopped by SIGINT and SIGTERM, run out of space on a small tmpfs, and a sharded
//! run with one shard killed. After each, the invariants:
//!
//! - no silent acceptance: `merge`, `import` and `check` refuse the unfinished run (exit 2),
//!   `compare`, `report` and `export` say it first;
//! - no row with neither a figure nor a reason (`state` and `state_reason` on every row);
//! - every file left in the output directory parses (run.json, the CSV files);
//! - no process of the run left 2 s later, no temporary file.
//!
//! `fault_matrix` prints the fault × command matrix of docs/reliability.md
//! (`cargo test -p costbench-cli --test faults -- --nocapture --test-threads 1`).

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// Four quick scenarios, measured one at a time so that the points are hit in a known order.
const FILTER: &str = "^(empty|calibrate/1000|feature/loop|checked/sum)$";

fn instruments() -> Option<&'static str> {
    if valgrind_installed() {
        Some("icount")
    } else {
        skip("valgrind is not installed: the fault suite kills icount runs");
        None
    }
}

fn run_cmd(out: &Path, instruments: &str, extra: &[&str]) -> Costbench {
    costbench(["run", "--manifest-path"])
        .arg(selftest_manifest())
        .args(["--bench", "selftest", "--quiet", "--measure-jobs", "1"])
        .args(["--instrument", instruments, "--filter", FILTER])
        .arg("--output-dir")
        .arg(out)
        .args(extra)
}

/// Hidden entries (temporary files and directories) anywhere in `dir`.
fn hidden_entries(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            found.push(e.path().display().to_string());
        } else if e.path().is_dir() {
            found.extend(hidden_entries(&e.path()));
        }
    }
    found
}

/// What one fault left, checked against the invariants: panics on any breach.
struct Left {
    run: Value,
}

/// Waits for the run `child` into `out` to end, then up to 2 s for its janitor to finish (no
/// process of the run left), and checks the invariants of the directory it left: no process,
/// no temporary file, every file parses, every row says what happened to it.
fn settle(mut child: Child, out: &Path) -> (Option<i32>, String, Left) {
    use std::io::Read;
    let pid = child.id();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let code = child.wait().unwrap().code();
    // The promise is "nothing left 2 s later": waiting the whole 2 s when everything is already
    // gone proves no more (a process that has ended cannot come back), and cost 2 s per fault.
    let ended = Instant::now();
    let mut left = common::run_processes(out, pid);
    while !left.is_empty() && ended.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(50));
        left = common::run_processes(out, pid);
    }
    assert!(left.is_empty(), "orphans 2 s later: {left:#?}\n{err}");
    let tmp = hidden_entries(out);
    assert!(tmp.is_empty(), "temporary files left: {tmp:?}");
    let run = files_parse(out);
    (code, err, Left { run })
}

/// Every file of `out` parses: run.json as a run record (read back by `export`), each CSV as
/// rows of one width. Returns run.json.
fn files_parse(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("run.json")).expect("run.json is left");
    let run: Value = serde_json::from_str(&text).expect("run.json parses");
    let exported = costbench(["export"]).arg(out).output();
    assert!(exported.status.success(), "{}", stderr(&exported));
    for e in std::fs::read_dir(out).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "csv") {
            let text = std::fs::read_to_string(&p).unwrap();
            let widths: std::collections::BTreeSet<usize> =
                text.lines().map(|l| l.split(',').count()).collect();
            assert!(widths.len() <= 1, "{} is ragged: {text}", p.display());
        }
    }
    // No row with neither a figure nor a reason.
    for r in run["results"].as_array().unwrap() {
        let state = r["state"]
            .as_str()
            .unwrap_or_else(|| panic!("no state: {r}"));
        match state {
            "measured" => assert!(!r["icount"].is_null(), "{r}"),
            "failed" => assert!(!r["failures"].as_array().unwrap().is_empty(), "{r}"),
            "skipped" | "not-reached" => {
                assert!(
                    r["state_reason"].as_str().is_some_and(|s| !s.is_empty()),
                    "{r}"
                )
            }
            other => panic!("unknown state {other}: {r}"),
        }
    }
    run
}

fn not_reached(run: &Value) -> usize {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["state"] == "not-reached")
        .count()
}

/// The commands that read an output directory, on `dir` (unfinished) against `whole`
/// (finished): each cell of the matrix, asserted not to accept the run silently.
fn readers(dir: &Path, whole: &Path, scratch: &Path) -> [String; 5] {
    let code = |o: &Output| o.status.code().unwrap_or(-1);
    let db = scratch.join("import.sqlite");
    let import = costbench(["import"]).arg(dir).arg("--db").arg(&db).output();
    assert_eq!(code(&import), 2, "import: {}", stderr(&import));
    assert!(
        stderr(&import).contains("did not finish"),
        "{}",
        stderr(&import)
    );
    if db.exists() {
        let history = costbench(["history", "--db"]).arg(&db).output();
        assert!(
            stdout(&history).contains("no runs recorded"),
            "history holds the run: {}",
            stdout(&history)
        );
    }
    let compare = costbench(["compare"]).arg(dir).arg(whole).output();
    assert!(
        stdout(&compare).starts_with("UNFINISHED: baseline"),
        "compare: {}",
        stdout(&compare)
    );
    let json = costbench(["compare", "--format", "json"])
        .arg(whole)
        .arg(dir)
        .output();
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["unfinished"][0]["side"], "candidate", "{v}");
    let check = costbench(["check", "--manifest-path"])
        .arg(selftest_manifest())
        .args(["--bench", "selftest", "--baseline"])
        .arg(dir)
        .arg("--candidate")
        .arg(whole)
        .output();
    assert_eq!(code(&check), 2, "check: {}", stderr(&check));
    let allowed = costbench(["check", "--manifest-path"])
        .arg(selftest_manifest())
        .args([
            "--bench",
            "selftest",
            "--allow-unfinished",
            "--format",
            "json",
        ])
        .arg("--baseline")
        .arg(dir)
        .arg("--candidate")
        .arg(whole)
        .output();
    let v: Value = serde_json::from_slice(&allowed.stdout).unwrap();
    assert_eq!(v["unfinished"][0]["side"], "baseline", "{v}");
    // Opted in, the gate never passes a row that was not reached (a run killed after its last
    // figure, before its end, has none: it may pass).
    let missing = not_reached(
        &serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap(),
    );
    if missing > 0 {
        assert_ne!(
            code(&allowed),
            0,
            "check --allow-unfinished passed: {}",
            stdout(&allowed)
        );
        assert_eq!(v["passed"], false, "{v}");
        assert_eq!(v["gate"]["not_reached"].as_array().unwrap().len(), missing);
    }
    let bmf = costbench(["export", "--format", "bmf"]).arg(dir).output();
    assert_eq!(code(&bmf), 2, "export --format bmf: {}", stderr(&bmf));
    let json = costbench(["export"]).arg(dir).output();
    assert!(
        stderr(&json).contains("did not finish"),
        "{}",
        stderr(&json)
    );
    let html = scratch.join("report.html");
    let report = costbench(["report", "--no-history", "-o"])
        .arg(&html)
        .arg(dir)
        .output();
    assert!(report.status.success(), "{}", stderr(&report));
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("Unfinished:"));
    [
        "refused (2)".into(),
        "not recorded".into(),
        "said first (0)".into(),
        format!("refused (2); opted in: {}", code(&allowed)),
        "said first; export: JSON warns, BMF refused (2)".into(),
    ]
}

/// One row of the printed matrix.
fn row(fault: &str, run: &Value, code: Option<i32>, merge: &str, cells: &[String]) -> String {
    format!(
        "| {fault} | {} | {} | {} | {merge} | {} |",
        code.map_or("killed".into(), |c| c.to_string()),
        run["completion"]["why"].as_str().unwrap_or("finished"),
        not_reached(run),
        cells.join(" | ")
    )
}

#[test]
fn fault_matrix() {
    let Some(inst) = instruments() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let o = run_cmd(&whole, inst, &["--no-history"]).output();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        not_reached(&run_json(&whole)),
        0,
        "a finished run reaches every row"
    );
    assert_eq!(run_json(&whole)["completion"]["finished"], true);
    let mut matrix = vec![
        "| fault | exit | run.json says | rows not reached | merge | import | history | compare | check | report, export |".to_string(),
        "|:--|:--|:--|--:|:--|:--|:--|:--|:--|:--|".to_string(),
    ];
    // (what the fault stands for, the hook's point). The first child is the harness's residual
    // (the library's empty scenario), then one child per scenario; the first record is written
    // before any scenario, then one after each.
    let kills = [
        ("kill -9 right after the first record", "record-written:1"),
        ("kill -9 before the first scenario", "before-first-scenario"),
        (
            "kill -9 inside the residual's child (valgrind running)",
            "child-started:1",
        ),
        (
            "kill -9 inside scenario 1 (valgrind running)",
            "child-started:2",
        ),
        ("kill -9 between scenarios 1 and 2", "record-written:2"),
        ("kill -9 between scenarios 2 and 3", "record-written:3"),
        (
            "kill -9 inside run.json's write after scenario 2 (temp written, not renamed)",
            "run-json-written:3",
        ),
        ("kill -9 inside scenario 3", "child-started:4"),
        ("kill -9 between scenarios 3 and 4", "record-written:4"),
        (
            "kill -9 after measuring, before the end is written",
            "after-measuring",
        ),
    ];
    // Each kill point into a folder of its own, two at a time (the machine's two cores: a
    // killed run measures under valgrind, one process at a time), rows in the order above.
    let kill = |k: usize| {
        let (what, point) = kills[k];
        let out = tmp.path().join(format!("kill{k}"));
        let child = run_cmd(&out, inst, &["--no-history"])
            .env("COSTBENCH_FAULT", point)
            .spawn(Stdio::null(), Stdio::piped());
        let (code, err, left) = settle(child, &out);
        assert_eq!(code, None, "{what}: not killed: {err}");
        assert_eq!(left.run["completion"]["finished"], false, "{what}");
        assert_eq!(left.run["completion"]["why"], "killed", "{what}");
        let scratch = tmp.path().join(format!("readers{k}"));
        std::fs::create_dir_all(&scratch).unwrap();
        let cells = readers(&out, &whole, &scratch);
        row(what, &left.run, code, "not a shard", &cells)
    };
    let rows: Vec<String> = std::thread::scope(|s| {
        let odd = s.spawn(|| (1..kills.len()).step_by(2).map(kill).collect::<Vec<_>>());
        let even: Vec<String> = (0..kills.len()).step_by(2).map(kill).collect();
        let odd = odd.join().expect("the odd kill points pass");
        (0..kills.len())
            .map(|k| {
                if k % 2 == 0 {
                    &even[k / 2]
                } else {
                    &odd[k / 2]
                }
                .clone()
            })
            .collect()
    });
    let mut points = rows.len();
    matrix.extend(rows);
    // Killed inside the history's transaction: the directory holds the finished run, the
    // history holds none of it (the transaction rolled back).
    let out = tmp.path().join("history-kill");
    let db = tmp.path().join("h.sqlite");
    let child = run_cmd(&out, inst, &["--db", db.to_str().unwrap()])
        .env("COSTBENCH_FAULT", "history-transaction")
        .spawn(Stdio::null(), Stdio::piped());
    let (code, _, left) = settle(child, &out);
    assert_eq!(code, None);
    points += 1;
    assert_eq!(left.run["completion"]["finished"], true);
    let h = costbench(["history", "--db"]).arg(&db).output();
    assert!(h.status.success(), "{}", stderr(&h));
    assert!(stdout(&h).contains("no runs recorded"), "{}", stdout(&h));
    matrix.push(
        "| kill -9 inside the history's transaction | killed | finished | 0 | - | - | rolled back: no run | - | - | - |"
            .to_string(),
    );
    for (signal, name, exit, why) in [
        (libc::SIGINT, "SIGINT (Ctrl-C) mid-run", 130, "interrupted"),
        (
            libc::SIGTERM,
            "SIGTERM (job timeout, cancel) mid-run",
            143,
            "terminated",
        ),
    ] {
        let out = tmp.path().join(format!("signal{signal}"));
        let mut child = run_cmd(&out, inst, &["--no-history"]).spawn(Stdio::null(), Stdio::piped());
        // Once one scenario is measured.
        let start = Instant::now();
        while !std::fs::read_to_string(out.join("icounts.csv")).is_ok_and(|t| !t.is_empty()) {
            assert!(child.try_wait().unwrap().is_none(), "{name}: ended early");
            assert!(start.elapsed() < Duration::from_secs(600));
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: signalling our own child, not yet reaped.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let (code, err, left) = settle(child, &out);
        assert_eq!(code, Some(exit), "{name}: {err}");
        assert_eq!(left.run["completion"]["why"], why, "{name}");
        assert!(err.contains("interrupted: kept"), "{err}");
        let cells = readers(&out, &whole, tmp.path());
        matrix.push(row(name, &left.run, code, "not a shard", &cells));
    }
    if let Some(line) = out_of_space(inst, tmp.path(), &whole) {
        matrix.push(line);
    }
    matrix.push(sharded(inst, tmp.path()));
    assert!(points >= 10, "the issue asks for ten kill points or more");
    println!("{}", matrix.join("\n"));
}

/// A run into a directory that held a finished run, on a 24 MiB tmpfs filled up once the
/// first scenario is measured. None (said) where no tmpfs can be mounted (not root).
fn out_of_space(inst: &str, scratch: &Path, whole: &Path) -> Option<String> {
    let mnt = scratch.join("small");
    std::fs::create_dir_all(&mnt).unwrap();
    // As root, or through sudo without a password (as .ci/run installs its tools); mode 1777 so
    // that this user writes into it either way.
    let as_root = |program: &str| {
        // SAFETY: getuid has no preconditions.
        if unsafe { libc::getuid() } == 0 {
            std::process::Command::new(program)
        } else {
            let mut c = std::process::Command::new("sudo");
            c.args(["-n", program]);
            c
        }
    };
    let mounted = as_root("mount")
        .args(["-t", "tmpfs", "-o", "size=24m,mode=1777", "tmpfs"])
        .arg(&mnt)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        skip("cannot mount a tmpfs (neither root nor sudo -n): out of space not tested");
        return None;
    }
    struct Unmount<F: Fn(&str) -> std::process::Command>(PathBuf, F);
    impl<F: Fn(&str) -> std::process::Command> Drop for Unmount<F> {
        fn drop(&mut self) {
            let _ = (self.1)("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(mnt.clone(), as_root);
    let out = mnt.join("out");
    let o = run_cmd(&out, inst, &["--no-history"]).output();
    assert!(o.status.success(), "{}", stderr(&o));
    let earlier = run_json(&out)["run_id"].clone();
    let mut child = run_cmd(&out, inst, &["--no-history"]).spawn(Stdio::null(), Stdio::piped());
    let start = Instant::now();
    while run_json_or_null(&out)["run_id"] == earlier
        || !run_json_or_null(&out)["results"][0]["icount"].is_object()
    {
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before the disk filled"
        );
        assert!(start.elapsed() < Duration::from_secs(600));
        std::thread::sleep(Duration::from_millis(20));
    }
    // Fill the file system.
    let filler = mnt.join("filler");
    let _ = std::process::Command::new("dd")
        .args(["if=/dev/zero", "bs=64k"])
        .arg(format!("of={}", filler.display()))
        .stderr(Stdio::null())
        .status();
    let (code, err, left) = settle(child, &out);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("the run did not finish") && err.contains("rows were not written"),
        "{err}"
    );
    assert_eq!(left.run["completion"]["why"], "out-of-space", "{err}");
    let _ = std::fs::remove_file(&filler);
    let cells = readers(&out, whole, scratch);
    Some(row(
        "out of space (tmpfs filled mid-run; an earlier finished run in the folder)",
        &left.run,
        code,
        "not a shard",
        &cells,
    ))
}

fn run_json_or_null(dir: &Path) -> Value {
    std::fs::read_to_string(dir.join("run.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

/// `--shard 1/2` finished, `--shard 2/2` killed after its first scenario: merge refuses it
/// naming the shard and what to re-run, and merges it marked unfinished when asked.
fn sharded(inst: &str, scratch: &Path) -> String {
    let s1 = scratch.join("shard1");
    let s2 = scratch.join("shard2");
    let o = run_cmd(&s1, inst, &["--no-history", "--shard", "1/2"]).output();
    assert!(o.status.success(), "{}", stderr(&o));
    let child = run_cmd(&s2, inst, &["--no-history", "--shard", "2/2"])
        .env("COSTBENCH_FAULT", "record-written:2")
        .spawn(Stdio::null(), Stdio::piped());
    let (code, _, left) = settle(child, &s2);
    assert_eq!(code, None);
    let merged = scratch.join("merged");
    let m = costbench(["merge", "--no-history", "-o"])
        .arg(&merged)
        .arg(&s1)
        .arg(&s2)
        .output();
    assert_eq!(m.status.code(), Some(2), "{}", stderr(&m));
    let e = stderr(&m);
    assert!(
        e.contains("shard 2/2") && e.contains("same --shard 2/2") && e.contains("rows"),
        "{e}"
    );
    assert!(!merged.join("run.json").exists(), "nothing written");
    let m = costbench(["merge", "--allow-unfinished", "-o"])
        .arg(&merged)
        .arg(&s1)
        .arg(&s2)
        .args(["--db"])
        .arg(scratch.join("merge.sqlite"))
        .output();
    assert!(m.status.success(), "{}", stderr(&m));
    assert!(stdout(&m).starts_with("UNFINISHED:"), "{}", stdout(&m));
    assert!(
        stderr(&m).contains("not recorded in history"),
        "{}",
        stderr(&m)
    );
    let run = files_parse(&merged);
    assert_eq!(run["completion"]["why"], "unfinished-shards");
    assert!(not_reached(&run) >= 1);
    format!(
        "| sharded run, shard 2/2 killed after its first scenario | killed | killed (shard) | {} | refused (2): names shard 2/2 and `--shard 2/2`; `--allow-unfinished`: merged, marked unfinished-shards, not recorded | - | not recorded | - | - | - |",
        not_reached(&left.run)
    )
}

#[test]
fn throughput_without_a_service_scenario_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = costbench(["run", "--manifest-path"])
        .arg(selftest_manifest())
        .args(["--bench", "selftest", "--quiet", "--no-history"])
        .args(["--instrument", "throughput", "--output-dir"])
        .arg(&out)
        .output();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--bench cache"), "{}", stderr(&o));
    assert!(
        !out.join("run.json").exists(),
        "no rows without figures written"
    );
}
