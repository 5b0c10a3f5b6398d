//! Cancelling a run, and cleaning up after one that was killed.
//!
//! Every child [`super::child`] starts gets a process group of its own, registered here, and a
//! parent-death signal (SIGKILL when costbench dies). That alone does not cover everything:
//! the parent-death signal reaches only the direct child, and nothing of costbench runs after a
//! `kill -9` to kill the rest of a group or remove the run's temporary directory. So a measuring
//! run starts a janitor: `costbench` re-executed in a hidden mode ([`JANITOR_ARG`]), in a process
//! group of its own, reading registrations (process groups, temporary directories) from a socket
//! whose other end only this process holds (close-on-exec, so no child inherits it). When that
//! socket reads end-of-file (this process ended, however it ended), the janitor kills the groups
//! still registered and removes the directories, then exits. After a normal end nothing is
//! registered any more and it exits at once.
//!
//! SIGINT and SIGTERM ([`catch_signals`]) set a flag and kill every registered group; the
//! measuring code then stops starting children, keeps what finished and ends with
//! [`Interrupted`], which `main` turns into exit code 128 + the signal. A second signal ends the
//! process at once (the janitor still cleans up).
//!
//! This module owns process-wide state (the registry, the flag); it measures nothing.

use std::collections::BTreeSet;
use std::io::{BufRead, Read};
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, Once, OnceLock};

/// The hidden first argument that makes `costbench` the janitor of the process that started it.
pub const JANITOR_ARG: &str = "__costbench-janitor";

/// Process groups of the children running now.
static GROUPS: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());
/// Our end of the janitor's socket, once it runs.
static JANITOR: OnceLock<Option<UnixStream>> = OnceLock::new();
/// The first SIGINT or SIGTERM received; 0 while none was.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Write end of the pipe that wakes the thread that kills the groups after a signal.
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);

/// The signal that interrupted this process (SIGINT or SIGTERM), if one did.
pub fn interrupted() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The name of a signal this module catches.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// The error that ends a run stopped by a signal, after its records were written.
#[derive(Debug)]
pub struct Interrupted {
    /// The signal that stopped the run (`SIGINT`, `SIGTERM`).
    pub signal: i32,
    /// Scenarios that finished, over every side.
    pub kept: usize,
    /// Scenarios the run was to measure, over every side.
    pub scenarios: usize,
    /// The output directories holding what finished.
    pub results: Vec<PathBuf>,
}

impl Interrupted {
    /// 128 + the signal, as a shell reports a process ended by it (130 for SIGINT, 143 for
    /// SIGTERM).
    pub fn exit_code(&self) -> i32 {
        128 + self.signal
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted: kept {} of {} scenarios ({})",
            self.kept,
            self.scenarios,
            signal_name(self.signal)
        )?;
        let dirs: Vec<String> = self
            .results
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        if !dirs.is_empty() {
            write!(f, "; results in {}", dirs.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for Interrupted {}

/// Makes the child die with this process: SIGKILL when the thread that spawns it ends (which
/// is the thread that waits for it, in [`super::child`]). Reaches the child only, not what it
/// starts: its process group does that.
pub fn die_with_parent(cmd: &mut Command) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: prctl and getppid are async-signal-safe system calls; nothing is allocated.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the prctl: then no signal will come.
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Registers the process group `pgid` of a child just started: killed at a signal, and by the
/// janitor if this process dies. A signal that came between the caller's check and now is
/// honoured here.
pub fn register_group(pgid: libc::pid_t) {
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    groups.push(pgid);
    tell_janitor(&format!("group {pgid}\n"));
    if interrupted().is_some() {
        // SAFETY: signalling the group of a child we started and have not reaped.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Forgets the group of a child that was reaped.
pub fn unregister_group(pgid: libc::pid_t) {
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    groups.retain(|g| *g != pgid);
    tell_janitor(&format!("ungroup {pgid}\n"));
}

/// Registers a temporary directory for the janitor to remove if this process dies.
pub fn register_dir(dir: &Path) {
    tell_janitor(&format!("dir {}\n", hex(dir)));
}

/// Forgets a temporary directory this process removed itself.
pub fn unregister_dir(dir: &Path) {
    tell_janitor(&format!("undir {}\n", hex(dir)));
}

/// Starts the janitor, once per process; a second call does nothing. Fails (with why) where it
/// cannot start: then a killed run may leave its temporary directory, which the next run into
/// the same directory removes.
pub fn start_janitor() -> Result<(), String> {
    let mut error = None;
    JANITOR.get_or_init(|| match spawn_janitor() {
        Ok(s) => Some(s),
        Err(e) => {
            error = Some(e);
            None
        }
    });
    error.map_or(Ok(()), Err)
}

fn spawn_janitor() -> Result<UnixStream, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the costbench executable: {e}"))?;
    let (ours, theirs) =
        UnixStream::pair().map_err(|e| format!("cannot create the janitor's socket: {e}"))?;
    let mut cmd = Command::new(&exe);
    // Our pid on its command line: says whose janitor it is, to `ps` and to the tests.
    cmd.arg(JANITOR_ARG)
        .arg(std::process::id().to_string())
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Not in our group: a Ctrl-C at the terminal, or a kill of our group, must not end it.
        .process_group(0);
    // Not waited for: it outlives us when we are killed, and is reaped by init then.
    cmd.spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    Ok(ours)
}

/// Sends one line to the janitor; without one (or once it is gone) this does nothing.
fn tell_janitor(line: &str) {
    let Some(Some(sock)) = JANITOR.get() else {
        return;
    };
    let mut bytes = line.as_bytes();
    while !bytes.is_empty() {
        // SAFETY: sending from a valid buffer on a socket we own. MSG_NOSIGNAL: a janitor that
        // died must not kill us with SIGPIPE.
        let n = unsafe {
            libc::send(
                sock.as_raw_fd(),
                bytes.as_ptr().cast(),
                bytes.len(),
                libc::MSG_NOSIGNAL,
            )
        };
        if n <= 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

fn hex(p: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn unhex(s: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let bytes = (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect::<Option<Vec<u8>>>()?;
    Some(std::ffi::OsString::from_vec(bytes).into())
}

/// The janitor's main: reads registrations from stdin until end-of-file, then kills the groups
/// and removes the directories still registered. Returns the exit code.
pub fn janitor_main() -> i32 {
    // SAFETY: setting dispositions at start-up, before any thread exists. It ends only at
    // end-of-file: a Ctrl-C or SIGTERM for the run is the run's to handle.
    unsafe {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
    }
    let mut groups = BTreeSet::new();
    let mut dirs = BTreeSet::new();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("group"), Some(g)) => {
                groups.extend(g.parse::<libc::pid_t>().ok().filter(|g| *g > 1));
            }
            (Some("ungroup"), Some(g)) => {
                if let Ok(g) = g.parse::<libc::pid_t>() {
                    groups.remove(&g);
                }
            }
            (Some("dir"), Some(d)) => dirs.extend(unhex(d)),
            (Some("undir"), Some(d)) => {
                if let Some(d) = unhex(d) {
                    dirs.remove(&d);
                }
            }
            _ => {}
        }
    }
    for g in &groups {
        // SAFETY: kill(2) on a process group the run registered and did not see end.
        unsafe {
            libc::kill(-g, libc::SIGKILL);
        }
    }
    for d in &dirs {
        let _ = std::fs::remove_dir_all(d);
    }
    if !groups.is_empty() && !dirs.is_empty() {
        // A child killed in the middle of creating a file may finish that one system call:
        // look again once it is surely gone.
        std::thread::sleep(std::time::Duration::from_millis(200));
        for d in &dirs {
            let _ = std::fs::remove_dir_all(d);
        }
    }
    0
}

/// Catches SIGINT and SIGTERM from now on (once per process): the first sets the flag
/// [`interrupted`] reads and kills every registered group; a second ends the process at once.
pub fn catch_signals() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // std's pipe: close-on-exec on both ends, so that no child inherits the wake-up pipe.
        let Ok((mut read, write)) = std::io::pipe() else {
            return;
        };
        WAKE_FD.store(write.into_raw_fd(), Ordering::SeqCst);
        std::thread::spawn(move || {
            let mut byte = [0u8; 1];
            while let Ok(1) = read.read(&mut byte) {
                let groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
                for g in groups.iter() {
                    // SAFETY: signalling groups of children we started and have not reaped.
                    unsafe {
                        libc::kill(-g, libc::SIGKILL);
                    }
                }
            }
        });
        // SAFETY: installing a handler that only does async-signal-safe things (an atomic
        // exchange, write(2), _exit(2)).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            for sig in [libc::SIGINT, libc::SIGTERM] {
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
        }
    });
}

extern "C" fn on_signal(sig: libc::c_int) {
    if SIGNAL
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // The second signal: the user wants out now. The janitor kills what is left.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + sig) }
    }
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) of one byte from a static buffer is async-signal-safe.
        unsafe {
            libc::write(fd, b"x".as_ptr().cast(), 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_survive_the_janitor_protocol() {
        for p in ["/tmp/a b/c", "/x\ny", "relative/é"] {
            assert_eq!(unhex(&hex(Path::new(p))).unwrap(), PathBuf::from(p));
        }
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("abc"), None);
    }

    #[test]
    fn interruptions_name_what_was_kept_and_exit_like_a_shell() {
        let i = Interrupted {
            signal: libc::SIGINT,
            kept: 2,
            scenarios: 5,
            results: vec![PathBuf::from("out")],
        };
        assert_eq!(
            i.to_string(),
            "interrupted: kept 2 of 5 scenarios (SIGINT); results in out"
        );
        assert_eq!(i.exit_code(), 130);
        let t = Interrupted {
            signal: libc::SIGTERM,
            ..i
        };
        assert_eq!(t.exit_code(), 143);
    }
}
