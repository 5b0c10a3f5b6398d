//! Child processes: spawning with a fixed environment, wiring pipes between parties, waiting
//! with a deadline, and keeping the tail of stderr. The one supervisor of every child costbench
//! waits for: the instruments' scenario processes, listings, and Miri's processes (which need
//! their whole stderr: see [`Supervision`]). Every child gets a process group of its own, killed
//! whole at its deadline, and dies with costbench ([`super::cancel`] registers the groups, so
//! that a signal or the janitor can kill them).

use super::cancel;
use crate::ending::{Ending, Outcome};
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Environment of every scenario process. Fixed, so that the process image (and with it the
/// stack layout and so the instruction counts) is the same from run to run and machine to machine.
pub const FIXED_ENV: &[(&str, &str)] = &[("LC_ALL", "C"), ("PATH", "/usr/local/bin:/usr/bin:/bin")];

/// How many trailing stderr lines a failure keeps.
pub const STDERR_TAIL_LINES: usize = 20;

/// Prepares `cmd` to run a scenario: fixed environment, `cwd`, no stdin/stdout, captured stderr.
pub fn scenario_command(mut cmd: Command, cwd: &Path, no_aslr: bool) -> Command {
    cmd.env_clear()
        .envs(FIXED_ENV.iter().copied())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if no_aslr {
        // SAFETY: personality(2) is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                // ADDR_NO_RANDOMIZE: the same addresses every run, as `setarch -R` does.
                if libc::personality(libc::ADDR_NO_RANDOMIZE as libc::c_ulong) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd
}

/// The CPUs this process may run on (its affinity mask), lowest first.
pub fn allowed_cpus() -> std::io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most its size.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == -1 {
            return Err(std::io::Error::last_os_error());
        }
        set
    };
    // SAFETY: CPU_ISSET only reads the set, for indices below CPU_SETSIZE.
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// Runs the child (and everything it starts) on `cpu` only.
pub fn pin_to_cpu(cmd: &mut Command, cpu: usize) {
    // SAFETY: cpu_set_t is plain data; CPU_SET writes within it for cpu < CPU_SETSIZE, which
    // the caller's choice from `allowed_cpus` guarantees.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        set
    };
    // SAFETY: sched_setaffinity is a plain system call on a copied set, async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The pipes of a token ring of `n` processes: `pipes[j]` carries the token from the j-th
/// process to the next (the j-th writes `pipes[j].1`, the next reads `pipes[j].0`), and the
/// token already waits in the last pipe, so the first process goes first.
pub fn token_ring(n: usize) -> anyhow::Result<Vec<(OwnedFd, OwnedFd)>> {
    use anyhow::Context as _;
    use std::io::Write as _;
    let pipes = (0..n)
        .map(|_| pipe().context("cannot create a pipe"))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some((_, last)) = pipes.last() {
        let mut w = std::fs::File::from(last.try_clone().context("cannot duplicate a pipe")?);
        w.write_all(&[1]).context("cannot start the token ring")?;
    }
    Ok(pipes)
}

/// A pipe: (read end, write end), both close-on-exec.
pub fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` is a valid two-element out array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 returned two fresh descriptors that we now own.
    Ok(unsafe {
        use std::os::fd::FromRawFd;
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    })
}

/// Makes `fds[k].0` available in the child as descriptor `fds[k].1` (not close-on-exec).
/// At most 16 descriptors.
pub fn inherit_fds(cmd: &mut Command, fds: &[(&OwnedFd, RawFd)]) {
    assert!(fds.len() <= 16, "at most 16 inherited descriptors");
    let pairs: Vec<(RawFd, RawFd)> = fds.iter().map(|(f, t)| (f.as_raw_fd(), *t)).collect();
    // SAFETY: only fcntl and dup2 run in the child, both async-signal-safe, on a copied array.
    unsafe {
        cmd.pre_exec(move || {
            // Two steps, so that a target number that is also another mapping's source is not
            // clobbered: first copy every source above the targets, then move copies into place.
            let mut tmp = [0 as RawFd; 16];
            for (k, (src, _)) in pairs.iter().enumerate() {
                tmp[k] = libc::fcntl(*src, libc::F_DUPFD_CLOEXEC, 256);
                if tmp[k] == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            for (k, (_, dst)) in pairs.iter().enumerate() {
                if libc::dup2(tmp[k], *dst) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

/// How a child is supervised, beyond what every child gets (a deadline, the tail of its stderr,
/// a process group of its own killed whole at the deadline: for a child that starts children
/// of its own, as cargo runs Miri as a grandchild, which killing the child alone would leave
/// running, holding the pipes open).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Supervision {
    /// Keep all of stderr in [`Outcome::stderr`], not only its last [`STDERR_TAIL_LINES`] lines:
    /// for output read whole (Miri's finding comes first and its backtrace can be long).
    pub whole_stderr: bool,
}

/// What the stderr thread returns: the tail, and all of it when asked.
type Stderr = (String, Option<String>);

/// A running child and the thread that collects its stderr.
#[derive(Debug)]
pub struct Running {
    child: Child,
    stderr: Option<JoinHandle<Stderr>>,
}

impl Running {
    /// Spawns `cmd`; [`wait_all`] kills it at the deadline. Its stderr (when piped) is read as it
    /// comes, and its last [`STDERR_TAIL_LINES`] lines are kept.
    pub fn spawn(cmd: &mut Command) -> std::io::Result<Running> {
        Running::spawn_with(cmd, Supervision::default())
    }

    /// [`Running::spawn`], supervised as `how` says. Refuses once the run was interrupted.
    pub fn spawn_with(cmd: &mut Command, how: Supervision) -> std::io::Result<Running> {
        if let Some(sig) = cancel::interrupted() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                format!("the run was interrupted ({})", cancel::signal_name(sig)),
            ));
        }
        cmd.process_group(0);
        cancel::die_with_parent(cmd);
        let mut child = cmd.spawn()?;
        cancel::register_group(child.id() as libc::pid_t);
        let stderr = child.stderr.take().map(|mut e| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = e.read_to_end(&mut buf);
                let all = String::from_utf8_lossy(&buf);
                let tail = tail(&all, STDERR_TAIL_LINES);
                (tail, how.whole_stderr.then(|| all.into_owned()))
            })
        });
        Ok(Running { child, stderr })
    }

    /// A thread that reads the child's stdout (which must be piped) to the end.
    fn take_stdout(&mut self) -> JoinHandle<Vec<u8>> {
        let out = self.child.stdout.take();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut o) = out {
                let _ = o.read_to_end(&mut buf);
            }
            buf
        })
    }

    /// Ends a child that runs until it is told to stop (a service's server): kills its
    /// process group unless it has already ended. Returns how it ended when it ended on its own
    /// before this call (a server that died under load), `None` when it was still running.
    pub fn stop(mut self) -> Option<Outcome> {
        let ended = matches!(self.child.try_wait(), Ok(Some(_)));
        let pgid = self.child.id() as libc::pid_t;
        if ended {
            cancel::unregister_group(pgid);
            return Some(wait_all(vec![self], Instant::now(), Duration::ZERO).remove(0));
        }
        self.kill();
        if let Some(h) = self.stderr.take() {
            let _ = h.join();
        }
        None
    }

    /// Kills the child's whole process group and reaps the child.
    fn kill(&mut self) {
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: signalling the process group `spawn_with` created for this child, whose id
        // is the child's; the child is not reaped yet, so the id cannot have been reused.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = self.child.wait();
        cancel::unregister_group(pgid);
    }
}

/// Waits for every child until `timeout` has passed since `start`, then kills the rest.
pub fn wait_all(mut running: Vec<Running>, start: Instant, timeout: Duration) -> Vec<Outcome> {
    let mut endings: Vec<Option<Ending>> = vec![None; running.len()];
    loop {
        for (r, e) in running.iter_mut().zip(endings.iter_mut()) {
            if e.is_none() {
                if let Ok(Some(status)) = r.child.try_wait() {
                    cancel::unregister_group(r.child.id() as libc::pid_t);
                    *e = Some(Ending::Exited(status));
                }
            }
        }
        if endings.iter().all(Option::is_some) {
            break;
        }
        if start.elapsed() >= timeout {
            for (r, e) in running.iter_mut().zip(endings.iter_mut()) {
                if e.is_none() {
                    r.kill();
                    *e = Some(Ending::TimedOut);
                }
            }
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    running
        .into_iter()
        .zip(endings)
        .map(|(mut r, e)| {
            let (stderr_tail, stderr) = r
                .stderr
                .take()
                .and_then(|h| h.join().ok())
                .unwrap_or_default();
            Outcome {
                ending: e.expect("every child has ended"),
                stderr_tail,
                stderr,
            }
        })
        .collect()
}

/// Runs `cmd` (stdout and stderr piped) until it ends or `timeout` passes, supervised as `how`
/// says; returns how it ended and everything it wrote to stdout.
pub fn run_captured(
    cmd: &mut Command,
    timeout: Duration,
    how: Supervision,
) -> std::io::Result<(Outcome, Vec<u8>)> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut running = Running::spawn_with(cmd, how)?;
    let stdout = running.take_stdout();
    let outcome = wait_all(vec![running], start, timeout).remove(0);
    Ok((outcome, stdout.join().unwrap_or_default()))
}

/// The last `n` lines of `s`.
pub fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_keep_the_last_lines() {
        assert_eq!(tail("a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail("", 3), "");
    }

    #[test]
    fn timeouts_kill_and_report() {
        let mut cmd = Command::new("sleep");
        cmd.arg("10").stderr(Stdio::piped());
        let r = Running::spawn(&mut cmd).unwrap();
        let start = Instant::now();
        let out = wait_all(vec![r], start, Duration::from_millis(100));
        assert_eq!(out[0].ending, Ending::TimedOut);
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn stderr_is_collected_and_failures_described() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo one >&2; echo two >&2; exit 101"])
            .stderr(Stdio::piped());
        let out = wait_all(
            vec![Running::spawn(&mut cmd).unwrap()],
            Instant::now(),
            Duration::from_secs(10),
        );
        assert_eq!(out[0].stderr_tail, "one\ntwo");
        assert_eq!(out[0].describe(Duration::from_secs(1)).0, "panicked");
    }

    const WHOLE_GROUP: Supervision = Supervision { whole_stderr: true };

    #[test]
    fn deadline_kills_the_whole_group() {
        let mut cmd = Command::new("sh");
        // The grandchild `sleep` holds stderr open: only killing the group ends the read.
        cmd.args(["-c", "sleep 30 & echo started >&2; wait"]);
        let start = Instant::now();
        let (out, _) = run_captured(&mut cmd, Duration::from_millis(300), WHOLE_GROUP).unwrap();
        assert_eq!(out.ending, Ending::TimedOut);
        assert_eq!(out.stderr.as_deref(), Some("started\n"));
        assert_eq!(out.code(), None);
        assert_eq!(out.how_it_ended(), "timed out");
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn output_is_kept_whole() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "seq 1 100 >&2; echo out; exit 3"]);
        let (out, stdout) = run_captured(&mut cmd, Duration::from_secs(30), WHOLE_GROUP).unwrap();
        assert_eq!(out.code(), Some(3));
        assert_eq!(out.stderr.as_deref().unwrap().lines().count(), 100);
        assert_eq!(out.stderr_tail.lines().count(), STDERR_TAIL_LINES);
        assert_eq!(stdout, b"out\n");
        assert_eq!(out.how_it_ended(), "exit code 3");
    }

    #[test]
    fn only_the_tail_is_kept_unless_asked() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "seq 1 100 >&2; kill -9 $$"]);
        let (out, stdout) =
            run_captured(&mut cmd, Duration::from_secs(30), Supervision::default()).unwrap();
        assert_eq!(out.stderr, None);
        assert_eq!(out.stderr_tail, tail(&seq(1, 100), STDERR_TAIL_LINES));
        assert!(stdout.is_empty());
        assert_eq!(out.code(), None);
        assert_eq!(out.how_it_ended(), "killed by signal 9");
    }

    #[test]
    fn valgrinds_illegal_opcode_says_what_to_do() {
        // What valgrind 3.19 printed for a native build's `insertq` (SSE4a), then SIGILL.
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "echo '==1== Illegal opcode at address 0x2B1018' >&2; kill -ILL $$",
        ]);
        let (out, _) =
            run_captured(&mut cmd, Duration::from_secs(30), Supervision::default()).unwrap();
        let (kind, message) = out.describe(Duration::from_secs(1));
        assert_eq!(kind, "crashed");
        assert!(
            message.contains("valgrind cannot decode") && message.contains("-sse4a"),
            "{message}"
        );
        // A scenario's own SIGILL (no valgrind message) is a plain crash.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "kill -ILL $$"]);
        let (out, _) =
            run_captured(&mut cmd, Duration::from_secs(30), Supervision::default()).unwrap();
        assert_eq!(out.describe(Duration::from_secs(1)).1, "killed by signal 4");
    }

    fn seq(from: u32, to: u32) -> String {
        (from..=to).map(|k| format!("{k}\n")).collect()
    }

    #[test]
    fn inherited_fds_land_on_their_numbers() {
        let (r, w) = pipe().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo hi >&5"]);
        inherit_fds(&mut cmd, &[(&w, 5)]);
        let mut child = cmd.spawn().unwrap();
        drop(w);
        child.wait().unwrap();
        let mut s = String::new();
        std::fs::File::from(r).read_to_string(&mut s).unwrap();
        assert_eq!(s, "hi\n");
    }

    #[test]
    fn every_child_has_a_group_of_its_own_and_dies_with_its_parent() {
        // The child reports its process group (field 5 of /proc/PID/stat) and its pid.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "cut -d' ' -f5 /proc/$$/stat; echo $$"]);
        let (out, stdout) =
            run_captured(&mut cmd, Duration::from_secs(30), Supervision::default()).unwrap();
        assert!(out.success());
        let text = String::from_utf8(stdout).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), lines.next(), "group id = own pid: {text}");
    }

    #[test]
    fn children_die_with_the_thread_that_started_them() {
        // A thread starts a long child and ends without waiting: the child must be killed.
        let start = Instant::now();
        let (r, w) = pipe().unwrap();
        let pid = std::thread::spawn(move || {
            let mut cmd = Command::new("sleep");
            cmd.arg("30");
            inherit_fds(&mut cmd, &[(&w, 9)]);
            let r = Running::spawn(&mut cmd).unwrap();
            let pid = r.child.id();
            std::mem::forget(r);
            pid
        })
        .join()
        .unwrap();
        // The pipe reads end-of-file once the child (the only other holder) is gone.
        let mut s = String::new();
        std::fs::File::from(r).read_to_string(&mut s).unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the child outlived its thread"
        );
        // Reap it, so that it does not stay a zombie of the test process.
        // SAFETY: waiting for our own child.
        unsafe {
            libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0);
        }
    }

    #[test]
    fn a_pinned_child_and_its_children_may_run_on_that_cpu_only() {
        let cpu = *allowed_cpus().unwrap().last().unwrap();
        let mut cmd = Command::new("sh");
        // The grandchild (grep) reads its own mask: affinity is inherited past exec and fork.
        cmd.args(["-c", "grep Cpus_allowed_list /proc/self/status"]);
        pin_to_cpu(&mut cmd, cpu);
        let out = cmd.output().unwrap();
        let line = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            line.split_whitespace().last(),
            Some(cpu.to_string().as_str()),
            "{line}"
        );
    }
}
