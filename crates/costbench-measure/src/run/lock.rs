//! Locks that keep two costbench runs on one machine out of each other's way, as cargo's
//! `Blocking waiting for file lock` does: one on every output folder (the later run would
//! silently replace the other's results) and one on the CPU wall time is pinned to (each run
//! would time the other's work). A run that finds a lock taken says what it waits for and
//! waits; the locks are `flock(2)` locks, so the kernel drops them when a run ends however it
//! ends. It owns no measuring.

use anyhow::{Context, Result};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// A lock held until dropped.
#[derive(Debug)]
pub(crate) struct Held {
    _file: File,
}

/// The lock file that stands for output folder `dir`: beside it (`.NAME.lock`), so that
/// preparing or replacing the folder never touches it.
pub(crate) fn output_lock_path(dir: &Path) -> PathBuf {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    dir.with_file_name(format!(".{name}.costbench-lock"))
}

/// The machine-wide lock file of CPU `cpu` (in the temporary directory, shared by every user's
/// runs).
pub(crate) fn cpu_lock_path(cpu: usize) -> PathBuf {
    std::env::temp_dir().join(format!("costbench-walltime-cpu{cpu}.lock"))
}

/// Takes the exclusive lock on `path` (created if missing); when another process holds it,
/// first says so with `waiting_for` (`the results folder X`, `CPU 1`) and `why`, then waits.
pub(crate) fn take(path: &Path, waiting_for: &str, why: &str) -> Result<Held> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
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
        assert_eq!(path.file_name().unwrap(), ".results.costbench-lock");
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
