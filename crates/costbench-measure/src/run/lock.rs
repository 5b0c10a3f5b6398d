//! Locks that keep two costbench runs on one machine out of each other's way, as cargo's
//! `Blocking waiting for file lock` does: one on every output folder (the later run would
//! silently replace the other's results) and one on the CPU wall time is pinned to (each run
//! would time the other's work). A run that finds a lock taken says what it waits for and
//! waits; the locks are `flock(2)` locks, so the kernel drops them when a run ends however it
//! ends. The lock files live in one folder of the temporary directory (`costbench-locks`,
//! shared by every user's runs), never in or beside an output folder. It owns no measuring.

use anyhow::{Context, Result};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// A lock held until dropped.
#[derive(Debug)]
pub(crate) struct Held {
    _file: File,
}

/// The folder of every lock file: in the temporary directory, shared by every user's runs.
fn lock_dir() -> PathBuf {
    std::env::temp_dir().join("costbench-locks")
}

/// FNV-1a of `bytes`: a name for a path that every costbench build computes alike (std's
/// hasher promises no stability between releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The lock file that stands for output folder `dir` (named by a hash of its absolute path).
pub(crate) fn output_lock_path(dir: &Path) -> PathBuf {
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let hash = fnv1a(abs.as_os_str().as_encoded_bytes());
    lock_dir().join(format!("output-{hash:016x}.lock"))
}

/// The lock file of CPU `cpu`.
pub(crate) fn cpu_lock_path(cpu: usize) -> PathBuf {
    lock_dir().join(format!("walltime-cpu{cpu}.lock"))
}

/// Creates the lock folder, writable by every user (sticky, as the temporary directory is) so
/// that another user's run can lock there too.
fn create_lock_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    use std::os::unix::fs::PermissionsExt;
    // Best effort: another user may have created it a moment ago.
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o1777));
    Ok(())
}

/// Takes the exclusive lock on `path` (created if missing); when another process holds it,
/// first says so with `waiting_for` (`the results folder X`, `CPU 1`) and `why`, then waits.
pub(crate) fn take(path: &Path, waiting_for: &str, why: &str) -> Result<Held> {
    if let Some(parent) = path.parent() {
        create_lock_dir(parent)?;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        // Another user's lock file in the temporary directory: reading is enough for flock.
        .or_else(|_| File::open(path))
        .with_context(|| format!("cannot open the lock file {}", path.display()))?;
    let fd = file.as_raw_fd();
    // SAFETY: flock on a descriptor this function owns; no memory is passed.
    if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(Held { _file: file });
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
        return Err(err).with_context(|| format!("cannot lock {}", path.display()));
    }
    crate::terminal::status(
        "Blocking",
        format!("waiting for file lock on {waiting_for} ({why})"),
    );
    loop {
        // SAFETY: as above. Blocking: Ctrl-C still ends the process, which drops the wait.
        if unsafe { libc::flock(fd, libc::LOCK_EX) } == 0 {
            return Ok(Held { _file: file });
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).with_context(|| format!("cannot lock {}", path.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = output_lock_path(&dir.path().join("results"));
        assert_eq!(path, output_lock_path(&dir.path().join("results")));
        assert_ne!(path, output_lock_path(&dir.path().join("other")));
        let first = take(&path, "x", "y").unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let p = path.clone();
        let waiter = std::thread::spawn(move || {
            let held = take(&p, "x", "y").unwrap();
            tx.send(()).unwrap();
            held
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(rx.try_recv().is_err(), "the second lock waits");
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("the second lock is taken once the first is dropped");
        drop(waiter.join().unwrap());
    }
}
