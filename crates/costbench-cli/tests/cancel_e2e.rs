//! End-to-end tests of cancelling `costbench run` (issue 16): the real binary on the selftest
//! suite, killed with SIGKILL or interrupted with SIGINT while a scenario (under valgrind when it
//! is installed) runs. Afterwards no process of the run may be left (2 s later), no temporary
//! file in the output directory, and the next run into the same directory must succeed; an
//! interrupted run keeps what finished and says so.

mod common;
use common::*;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The instruments to run: icount under valgrind when it is here, else wall time alone.
fn instruments() -> &'static str {
    if valgrind_installed() {
        "icount"
    } else {
        eprintln!("valgrind is not installed: cancelling is tested on wall-time children only");
        "walltime"
    }
}

fn start_run(out: &Path, instruments: &str) -> Child {
    costbench(["run", "--manifest-path"])
        .arg(selftest_manifest())
        .args([
            "--bench",
            "selftest",
            "--no-history",
            "--quiet",
            "--instrument",
        ])
        .arg(instruments)
        .arg("--output-dir")
        .arg(out)
        .spawn(Stdio::null(), Stdio::piped())
}

/// Waits (up to 10 minutes: the first run builds the suite) until `ready()`.
fn wait_until(child: &mut Child, what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("costbench ended ({status}) before {what}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "{what}: not within 600 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Hidden entries (temporary files and directories) anywhere in `dir`.
fn hidden_entries(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            found.push(e.path().display().to_string());
        } else if e.path().is_dir() {
            found.extend(hidden_entries(&e.path()));
        }
    }
    found
}

/// Sends `signal` to the run, waits for it, and checks what it leaves: nothing running 2 s
/// later, no temporary file. Returns its exit code and stderr.
fn stop(mut child: Child, out: &Path, signal: i32) -> (Option<i32>, String) {
    let pid = child.id();
    // SAFETY: signalling our own child, not yet reaped.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0);
    let output = child_output(&mut child);
    std::thread::sleep(Duration::from_secs(2));
    let left = common::run_processes(out, pid);
    assert!(
        left.is_empty(),
        "processes of the run left after 2 s: {left:#?}"
    );
    let tmp = hidden_entries(out);
    assert!(tmp.is_empty(), "temporary files left: {tmp:?}");
    output
}

fn child_output(child: &mut Child) -> (Option<i32>, String) {
    use std::io::Read;
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let status = child.wait().unwrap();
    (status.code(), err)
}

/// The next run into the same directory succeeds (one scenario, to be quick).
fn next_run_succeeds(out: &Path, instruments: &str) {
    let manifest = selftest_manifest();
    let o = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--no-history",
        "--quiet",
        "--instrument",
        instruments,
        "--filter",
        "^calibrate/1000$",
        "--output-dir",
        out.to_str().unwrap(),
    ])
    .output();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(hidden_entries(out).is_empty(), "{:?}", hidden_entries(out));
}

#[test]
fn a_killed_run_leaves_no_process_and_no_temporary_file() {
    let instruments = instruments();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let mut child = start_run(out, instruments);
    let pid = child.id();
    // A scenario process runs: its command line names its temporary output file.
    wait_until(&mut child, "a scenario process ran", || {
        common::run_processes(out, pid)
            .iter()
            .any(|p| p.contains(".costbench-tmp-") && !p.contains("__costbench-janitor"))
    });
    let (code, _) = stop(child, out, libc::SIGKILL);
    assert_eq!(code, None, "killed by a signal");
    next_run_succeeds(out, instruments);
}

#[test]
fn an_interrupted_run_keeps_what_finished_and_says_so() {
    let instruments = instruments();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let mut child = start_run(out, instruments);
    let pid = child.id();
    let figure = if instruments == "icount" {
        "icount"
    } else {
        "walltime"
    };
    // At least one scenario finished, and another is running.
    wait_until(&mut child, "a scenario finished", || {
        std::fs::read_to_string(out.join("run.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|run| {
                run["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| !r[figure].is_null())
            })
            && common::run_processes(out, pid)
                .iter()
                .any(|p| p.contains(".costbench-tmp-") && !p.contains("__costbench-janitor"))
    });
    let (code, err) = stop(child, out, libc::SIGINT);
    assert_eq!(code, Some(130), "{err}");
    let run = run_json(out);
    let interrupted = &run["interrupted"];
    assert_eq!(interrupted["signal"], "SIGINT", "{run:#}");
    let kept = interrupted["finished_scenarios"].as_u64().unwrap();
    let all = interrupted["scenarios"].as_u64().unwrap();
    assert!(kept >= 1 && kept < all, "{interrupted}");
    let with_figure = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r[figure].is_null())
        .count() as u64;
    assert!(with_figure >= kept, "{with_figure} figures, {kept} kept");
    // The children we killed are not recorded as failures of their scenarios.
    for r in run["results"].as_array().unwrap() {
        assert!(r["failures"].as_array().unwrap().is_empty(), "{r}");
    }
    assert!(
        err.contains(&format!("interrupted: kept {kept} of {all} scenarios")),
        "{err}"
    );
    // Files are written with the user's umask, not 0600.
    use std::os::unix::fs::PermissionsExt;
    let umask = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .map(|v| u32::from_str_radix(v.trim(), 8).unwrap())
        .unwrap();
    let mut files = vec![out.join("run.json"), out.join("icounts.csv")];
    if figure == "icount" {
        // Written by valgrind (0600), published by costbench.
        let cg = std::fs::read_dir(out.join("callgrind")).unwrap().next();
        files.push(cg.expect("a kept callgrind output").unwrap().path());
    }
    for f in files {
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask, "{}: {mode:o}", f.display());
    }
    next_run_succeeds(out, instruments);
}
