//! A throwaway PostgreSQL cluster for tests (feature `test-cluster`): `initdb` into a temporary
//! directory, a server listening only on a unix socket inside it, stopped and removed when the
//! [`PgCluster`] is dropped, which happens on a test's panic too.
//!
//! It uses the server binaries of the machine (Debian's `postgresql` package: `pg_config
//! --bindir`, else the newest `/usr/lib/postgresql/*/bin`, else `initdb` on `PATH`). `initdb`
//! refuses to run as root, so under root the cluster runs as the `postgres` system user (or
//! `nobody`) through `runuser`. Where no server can be started for want of those,
//! [`PgCluster::start_or_skip`] prints one `SKIPPED:` line saying why and the test passes (it
//! fails where `COSTBENCH_REQUIRE_TOOLS` is set, as `.ci/run` sets it); once the binaries are
//! there, a failure to start is a test failure with the server's log.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The superuser the cluster is initialised with (trust authentication on its socket only).
const SUPERUSER: &str = "costbench";

/// A running throwaway cluster.
#[derive(Debug)]
pub struct PgCluster {
    dir: tempfile::TempDir,
    bindir: PathBuf,
    /// The unprivileged user running the server when the tests run as root.
    run_as: Option<String>,
    next_db: AtomicUsize,
}

impl PgCluster {
    /// Starts a cluster, or prints `SKIPPED: {test}: …why… (install postgresql)` and returns
    /// `None` when no server can be started here.
    pub fn start_or_skip(test: &str) -> Option<PgCluster> {
        match Self::prerequisites() {
            Ok((bindir, run_as)) => Some(Self::start(bindir, run_as)),
            Err(why) => {
                let why = format!(
                    "{test}: no PostgreSQL server can be started here: {why} (install postgresql)"
                );
                // Where tools are required (`.ci/run` sets COSTBENCH_REQUIRE_TOOLS), a test that
                // cannot run fails: a green CI must not hide that the backend went untested.
                if std::env::var_os("COSTBENCH_REQUIRE_TOOLS")
                    .is_some_and(|v| !v.is_empty() && v != "0")
                {
                    panic!("{why} (COSTBENCH_REQUIRE_TOOLS is set: a missing tool fails the test)");
                }
                // Straight to the stderr handle, not `eprintln!`: the test harness captures the
                // macros' output of a passing test, and this line must show in CI's log.
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
                None
            }
        }
    }

    /// The server binaries and the user to run them as, or why there are none.
    fn prerequisites() -> Result<(PathBuf, Option<String>), String> {
        let bindir = bindir().ok_or(
            "no PostgreSQL server binaries (initdb, pg_ctl) found via pg_config, /usr/lib/postgresql or PATH",
        )?;
        let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
        if !root {
            return Ok((bindir, None));
        }
        if !works(Command::new("runuser").arg("--help")) {
            return Err(
                "running as root and there is no runuser to start the server as another user"
                    .into(),
            );
        }
        let user = ["postgres", "nobody"]
            .into_iter()
            .find(|u| works(Command::new("id").arg("-u").arg(u)))
            .ok_or("running as root and there is neither a postgres nor a nobody user to run the server")?;
        Ok((bindir, Some(user.to_string())))
    }

    fn start(bindir: PathBuf, run_as: Option<String>) -> PgCluster {
        let dir = tempfile::Builder::new()
            .prefix("costbench-pg-")
            .tempdir()
            .expect("a temporary directory");
        let cluster = PgCluster {
            dir,
            bindir,
            run_as,
            next_db: AtomicUsize::new(0),
        };
        let root = cluster.dir.path();
        let (data, sock) = (cluster.data_dir(), cluster.socket_dir());
        for d in [&data, &sock] {
            std::fs::create_dir(d).expect("cluster directories");
        }
        if let Some(user) = &cluster.run_as {
            // The server's user must reach its directories; the tests (root) reach everything.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755))
                .expect("chmod the cluster directory");
            let id = |flag: &str| -> u32 {
                let out = Command::new("id").args([flag, user]).output().expect("id");
                String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse()
                    .expect("a numeric id")
            };
            let (uid, gid) = (id("-u"), id("-g"));
            for d in [&data, &sock] {
                std::os::unix::fs::chown(d, Some(uid), Some(gid)).expect("chown the cluster");
            }
            std::os::unix::fs::chown(root, Some(uid), Some(gid)).expect("chown the cluster");
        }
        let log = root.join("server.log");
        cluster.run(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                SUPERUSER.as_ref(),
                "--auth=trust".as_ref(),
                "--no-locale".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--no-sync".as_ref(),
            ],
            None,
        );
        let opts = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c max_connections=100",
            sock.display()
        );
        cluster.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
                "-w".as_ref(),
                "-t".as_ref(),
                "60".as_ref(),
                "-o".as_ref(),
                opts.as_ref(),
                "start".as_ref(),
            ],
            Some(&log),
        );
        cluster
    }

    /// Runs one of the server's programs as the server's user; panics with its output (and the
    /// server log) when it fails.
    fn run(&self, program: &str, args: &[&std::ffi::OsStr], log: Option<&Path>) {
        let exe = self.bindir.join(program);
        let mut cmd = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        // Run from the cluster directory: the server's user may not be able to read the cwd.
        cmd.args(args).current_dir(self.dir.path());
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
        if !out.status.success() {
            let log = log
                .and_then(|l| std::fs::read_to_string(l).ok())
                .unwrap_or_default();
            panic!(
                "{program} failed ({}):\n{}{}\n{log}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The directory holding the server's socket.
    pub fn socket_dir(&self) -> PathBuf {
        self.dir.path().join("sock")
    }

    /// The URL of database `name` on this cluster.
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgres:///{name}?host={}&user={SUPERUSER}",
            self.socket_dir().display()
        )
    }

    /// Creates a new, empty database and returns its URL, so that each test (or each backend
    /// run of a test) starts from nothing.
    pub fn new_database(&self) -> String {
        let name = format!("t{}", self.next_db.fetch_add(1, Ordering::Relaxed));
        let mut c = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .expect("connect to the throwaway cluster");
        c.batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create a test database");
        self.url(&name)
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        // Immediate: nothing in a throwaway cluster needs a clean shutdown. Errors are ignored
        // (this may run while a test is already panicking); the directory goes with `dir`.
        let exe = self.bindir.join("pg_ctl");
        let data = self.data_dir();
        let mut cmd = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        let _ = cmd
            .arg("-D")
            .arg(&data)
            .args(["-m", "immediate", "-w", "stop"])
            .current_dir(self.dir.path())
            .output();
    }
}

fn works(cmd: &mut Command) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

/// The directory of `initdb` and `pg_ctl`.
fn bindir() -> Option<PathBuf> {
    let has_server = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let d = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has_server(&d) {
            return Some(d);
        }
    }
    // Debian keeps the server's binaries out of PATH, one directory per major version.
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, d)| has_server(d))
        .collect();
    versions.sort();
    if let Some((_, d)) = versions.pop() {
        return Some(d);
    }
    std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).find(|d| has_server(d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether process `pid` is still running (a zombie waiting for its reaper is not).
    fn running(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            // The state follows the parenthesised command name.
            stat.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
        })
    }

    #[test]
    fn the_server_is_stopped_and_removed_even_on_panic() {
        let seen = std::sync::Mutex::new(None);
        let result = std::panic::catch_unwind(|| {
            let Some(pg) =
                PgCluster::start_or_skip("the_server_is_stopped_and_removed_even_on_panic")
            else {
                return;
            };
            let pid: u32 = std::fs::read_to_string(pg.data_dir().join("postmaster.pid"))
                .unwrap()
                .lines()
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(running(pid));
            *seen.lock().unwrap() = Some((pid, pg.dir.path().to_path_buf()));
            panic!("a failing test, on purpose");
        });
        if result.is_ok() {
            return; // skipped: no server here
        }
        let (pid, dir) = seen.into_inner().unwrap().expect("the cluster ran");
        assert!(!running(pid), "the server {pid} outlived its test");
        assert!(!dir.exists(), "{} is left behind", dir.display());
    }
}
