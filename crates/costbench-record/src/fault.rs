//! Fault injection for the reliability tests (issue 33): a hidden hook that kills this process
//! with SIGKILL at a named point of a run, so that the tests can stop the real binary exactly
//! there (between two scenarios, inside `run.json`'s atomic write, inside the history's
//! transaction) instead of guessing with timers.
//!
//! The hook reads `COSTBENCH_FAULT=NAME` or `NAME:N` (the N-th time the point is passed,
//! 1-based) once; without the variable a point costs one atomic load. The points are named
//! where they are placed: `record-written`, `run-json-written`, `before-first-scenario`,
//! `child-started`, `after-measuring`, `history-transaction`. Not part of the interface users
//! rely on: the names may change with the tests.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The environment variable that arms the hook.
pub const ENV: &str = "COSTBENCH_FAULT";

/// The point and hit number the hook is armed for.
fn armed() -> Option<&'static (String, usize)> {
    static SPEC: OnceLock<Option<(String, usize)>> = OnceLock::new();
    SPEC.get_or_init(|| {
        let spec = std::env::var(ENV).ok()?;
        let (name, n) = match spec.split_once(':') {
            Some((name, n)) => (name.to_string(), n.parse().ok()?),
            None => (spec, 1),
        };
        Some((name, n))
    })
    .as_ref()
}

/// Passes point `name`: kills this process with SIGKILL (no handler, no destructor, no cleanup
/// runs: what `kill -9`, the out-of-memory killer or a lost machine do) when the hook is armed
/// for this point and this is the hit it names.
pub fn point(name: &str) {
    static HITS: AtomicUsize = AtomicUsize::new(0);
    let Some((armed, n)) = armed() else {
        return;
    };
    if armed == name && HITS.fetch_add(1, Ordering::SeqCst) + 1 == *n {
        // SAFETY: kill(2) with this process's own id and a valid signal number.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}
