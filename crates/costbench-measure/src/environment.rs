//! Provenance of a run: tool versions, host, and the measured crate's git state. Each probe that
//! fails yields `None`: a missing git or rustc never stops a run.

use costbench_record::model::{Environment, Git, Host};
use std::path::Path;
use std::process::Command;

fn first_line(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8_lossy(&out.stdout);
    let line = s.lines().next()?.trim();
    (!line.is_empty()).then(|| line.to_string())
}

/// The first line of `rustc --version` (`$RUSTC` when set); `None` when it cannot be run.
pub fn rustc_version() -> Option<String> {
    first_line(
        Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into())).arg("--version"),
    )
}

/// Describes the machine and toolchain a run measures on: host, OS, rustc, the git state of `workspace_root`, and `valgrind` (its version) when an instrument used it.
pub fn collect(workspace_root: &Path, valgrind: Option<String>) -> Environment {
    Environment {
        rustc: rustc_version(),
        valgrind,
        host: host(),
        git: git(workspace_root),
    }
}

fn host() -> Host {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string());
    Host {
        name: host_name(),
        cpu,
        cores: std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        os,
        kernel,
        arch: std::env::consts::ARCH.to_string(),
    }
}

/// The host name (the kernel's, as `hostname` prints it): which machine measured a run. CI
/// runners get a fresh name per job, so wall time of two jobs is never compared as if from one
/// machine.
fn host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .filter(|s| !s.is_empty())
}

fn git(dir: &Path) -> Option<Git> {
    let git = |args: &[&str]| first_line(Command::new("git").arg("-C").arg(dir).args(args));
    let commit = git(&["rev-parse", "HEAD"])?;
    let branch = git(&["rev-parse", "--abbrev-ref", "HEAD"]).filter(|b| b != "HEAD");
    let dirty = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false);
    let mut g = Git {
        commit,
        branch,
        dirty,
        ..Git::default()
    };
    describe_commit(dir, &mut g);
    Some(g)
}

/// Fills in where `g.commit` sits on its first-parent line (its parent and position) and its
/// author date and subject, as far as git can tell: history is ordered and labelled by them.
pub fn describe_commit(dir: &Path, g: &mut Git) {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    if let Some(out) = git(&["log", "-1", "--format=%P%n%aI%n%s", &g.commit]) {
        let mut lines = out.lines();
        g.parent = lines
            .next()
            .and_then(|p| p.split_whitespace().next())
            .map(str::to_string);
        g.author_date = lines.next().map(str::to_string).filter(|d| !d.is_empty());
        g.subject = lines.next().map(str::to_string);
    }
    g.position = git(&["rev-list", "--count", "--first-parent", &g.commit])
        .and_then(|c| c.trim().parse().ok());
}

/// Now, as RFC 3339 in UTC with second precision.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since the Unix epoch as RFC 3339 UTC (days-to-civil after H. Hinnant).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A run id: the UTC second it was made, then 8 hex digits: the microsecond within that second
/// (5 digits) and 12 random bits, unique without any shared counter. Ids of one second sort in
/// the order they were made (the history orders runs by start time, then by id: runs imported or
/// merged in a loop, several a second, keep their order), strictly so within one process, whose
/// ids never repeat; the random bits tell apart processes that start in the same microsecond.
pub fn new_run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    // The last (second, microsecond) this process gave, as seconds * 1e6 + microseconds.
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut at = now.as_secs() * 1_000_000 + u64::from(now.subsec_micros());
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        // Never the same or an earlier microsecond twice in one process.
        let next = at.max(last + 1);
        match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => {
                at = next;
                break;
            }
            Err(seen) => last = seen,
        }
    }
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(now.as_nanos());
    h.write_u32(std::process::id());
    let stamp: String = rfc3339(at / 1_000_000)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    format!("{stamp}-{:05x}{:03x}", at % 1_000_000, h.finish() & 0xfff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_000_000), "2026-11-18T11:06:40Z");
    }

    #[test]
    fn run_ids_differ() {
        assert_ne!(new_run_id(), new_run_id());
    }

    /// Ids made one after another sort in that order, however many come in one second (the
    /// history's tie-break between runs that started in the same second), and keep their shape:
    /// the second, a dash and 8 hex digits.
    #[test]
    fn run_ids_of_one_second_sort_in_the_order_they_were_made() {
        let ids: Vec<String> = (0..2_000).map(|_| new_run_id()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        for id in &ids {
            let (stamp, suffix) = id.split_once('-').unwrap();
            assert_eq!(stamp.len(), "20261128T091418Z".len(), "{id}");
            assert!(
                suffix.len() == 8 && suffix.bytes().all(|b| b.is_ascii_hexdigit()),
                "{id}"
            );
        }
    }
}
