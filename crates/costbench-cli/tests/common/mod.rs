//! Helpers shared by the end-to-end tests: where the workspace is, whether valgrind and Miri are
//! here, and running the real `costbench` binary ([`costbench`], the one way every test starts
//! it). Each test file uses some of them.
#![allow(dead_code)]

pub mod browser;
pub mod scratch;

use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The repository root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether valgrind runs here, without a word.
pub fn valgrind_installed() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether valgrind runs here; says SKIPPED when it does not, for tests that need it (and fails
/// the test where tools are required: [`skip`]).
pub fn valgrind_available() -> bool {
    let ok = valgrind_installed();
    if !ok {
        skip("valgrind is not installed (apt-get install valgrind); this test needs it");
    }
    ok
}

/// A test cannot run for want of a tool: where `COSTBENCH_REQUIRE_TOOLS` is set (`.ci/run` sets
/// it), that fails the test, so that a green CI never hides a headline test that did not run;
/// elsewhere one `SKIPPED:` line says why, on the stderr handle itself (the harness captures
/// `eprintln!` of a passing test, and the line must show in a log).
pub fn skip(why: &str) {
    if std::env::var_os("COSTBENCH_REQUIRE_TOOLS").is_some_and(|v| !v.is_empty() && v != "0") {
        panic!("{why} (COSTBENCH_REQUIRE_TOOLS is set: a missing tool fails the test)");
    }
    skipped(why);
}

/// One `SKIPPED:` line, for a test of an optional tool (Miri: nightly only).
pub fn skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}

/// The costbench binary under test: the one way every end-to-end test starts it.
pub const BIN: &str = env!("CARGO_BIN_EXE_costbench");

/// One run of the costbench binary being set up: its arguments, environment and working
/// directory. Built by [`costbench`], finished by [`Costbench::output`] (or
/// [`Costbench::spawn`], for a test that signals or reads the process while it runs).
pub struct Costbench {
    cmd: Command,
}

/// The costbench binary with `args`, to set up further and run:
/// `costbench(&["run", ...]).current_dir(dir).env("K", "v").output()`.
pub fn costbench<I, S>(args: I) -> Costbench
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    Costbench { cmd }
}

impl Costbench {
    /// One more argument (a path, say).
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.cmd.arg(arg);
        self
    }

    /// More arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// An environment variable.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// Environment variables, as `(name, value)` pairs.
    pub fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(mut self, vars: &[(K, V)]) -> Self {
        for (k, v) in vars {
            self.cmd.env(k, v);
        }
        self
    }

    /// An environment variable the test's own environment may hold, removed.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.cmd.env_remove(key);
        self
    }

    /// The directory the binary runs in.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    /// Where standard input comes from (the test's own when not set).
    pub fn stdin(mut self, stdin: Stdio) -> Self {
        self.cmd.stdin(stdin);
        self
    }

    /// Runs it to the end: exit status, stdout and stderr.
    pub fn output(mut self) -> Output {
        self.cmd.output().expect("the costbench binary runs")
    }

    /// Starts it with `stdout` and `stderr` as given, for a test that acts while it runs.
    pub fn spawn(mut self, stdout: Stdio, stderr: Stdio) -> Child {
        self.cmd
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .expect("the costbench binary starts")
    }
}

/// stdout, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// stderr, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON `what` printed on stdout; a test fails here with the exit code and stderr when
/// there is none.
pub fn stdout_json(o: &Output, what: &str) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON ({e}); exit {:?}; stderr:\n{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// The run record of an output directory.
pub fn run_json(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

/// `costbench run` of bench target `bench` of the selftest suite with `extra` arguments, quiet,
/// its results in a fresh directory.
pub fn run_suite(bench: &str, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = selftest_manifest();
    let out = costbench(["run", "--manifest-path"])
        .arg(manifest)
        .args(["--bench", bench, "--output-dir"])
        .arg(dir.path())
        .arg("--quiet")
        .args(extra)
        .output();
    (out, dir)
}

/// The repository's workspace manifest with `members` as its only members (and no default
/// members), for a scratch workspace that copies part of the repository.
pub fn workspace_manifest(members: &[&str]) -> String {
    let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let start = manifest.find("members = [").unwrap();
    let end = start + manifest[start..].find(']').unwrap() + 1;
    let members: Vec<String> = members.iter().map(|m| format!("{m:?}")).collect();
    format!(
        "{}members = [{}]{}",
        &manifest[..start],
        members.join(", "),
        &manifest[end..]
    )
    .lines()
    .filter(|l| !l.starts_with("default-members"))
    .collect::<Vec<_>>()
    .join("\n")
}

/// The selftest suite's manifest: scenarios with exactly known costs.
pub fn selftest_manifest() -> PathBuf {
    workspace().join("suites/selftest/Cargo.toml")
}

/// The result of measured id `id` in a run record.
pub fn result<'a>(run: &'a Value, id: &str) -> &'a Value {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no result for {id}"))
}

/// The instruction count of measured id `id` in a run record.
pub fn ir(run: &Value, id: &str) -> u64 {
    result(run, id)["icount"]["ir"]
        .as_u64()
        .unwrap_or_else(|| panic!("no icount for {id}"))
}

/// Whether the toolchain `costbench miri` would use (`COSTBENCH_MIRI_TOOLCHAIN`, default
/// nightly) has a working Miri: `cargo miri setup` succeeds (it needs the miri and rust-src
/// components, and builds Miri's sysroot the first time).
pub fn miri_available() -> bool {
    let toolchain =
        std::env::var("COSTBENCH_MIRI_TOOLCHAIN").unwrap_or_else(|_| "nightly".to_string());
    let ok = Command::new("cargo")
        .args([&format!("+{toolchain}"), "miri", "setup"])
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("CARGO")
        .env_remove("RUSTC")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        // Optional even where tools are required: Miri needs the nightly toolchain.
        skipped(
            "Miri is not installed or cannot build its sysroot \
             (rustup toolchain install nightly --component miri,rust-src); this test needs it",
        );
    }
    ok
}

/// Processes of the run of `costbench` (pid `pid`) into `out`: any whose command line names the
/// output directory (valgrind, scenario binaries, costbench itself), and its janitor.
pub fn run_processes(out: &Path, pid: u32) -> Vec<String> {
    let out = out.to_string_lossy().into_owned();
    let janitor = format!("__costbench-janitor {pid} ");
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) || name == me {
            continue;
        }
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        // A zombie (killed, not yet reaped by init) has an empty command line and runs nothing.
        if cmd.contains(&out) || cmd.contains(&janitor) {
            found.push(format!("{name}: {cmd}"));
        }
    }
    found
}
