//! The memory instrument's piece of the library: the `memory` mode of the child protocol
//! ([`MODE`]), and in `alloc.rs` the allocation counting it reads ([`CountingAlloc`], below the
//! library's `Bench`, which reads the counters around the body) and the global allocator the
//! crate's features install.

pub(crate) mod alloc;

pub use alloc::CountingAlloc;

use super::mode::ChildMode;
use crate::bench::{Counted, Mode};
use crate::child_args::{ChildArgs, ChildError};
use crate::suite::Scenario;
use alloc::{allocator_name, NOT_INSTALLED};
use costbench_protocol::MemoryCounts;

/// The `memory` mode of the child protocol: one run of the body between two readings of the
/// allocation counters, written with the process's peak RSS as [`MemoryCounts`].
pub(super) const MODE: ChildMode = ChildMode {
    name: "memory",
    run: memory_mode,
};

fn memory_mode(s: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    super::counters::run(s, a, Mode::Memory, |counted, result| {
        if let Counted::Memory(counts) = counted {
            result.memory = Some(MemoryCounts {
                allocator: allocator_name().to_string(),
                not_counted: counts.is_none().then(|| NOT_INSTALLED.to_string()),
                counts,
                max_rss_kib: max_rss_kib(),
            })
        }
    })
}

/// Peak resident set size of this process so far, in KiB.
#[cfg(unix)]
fn max_rss_kib() -> u64 {
    // SAFETY: an all-zero rusage is a valid out-value for getrusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid out-pointer; RUSAGE_SELF always exists.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0;
    }
    // Linux (and the BSDs) report ru_maxrss in kilobytes, macOS in bytes.
    if cfg!(target_vendor = "apple") {
        ru.ru_maxrss as u64 / 1024
    } else {
        ru.ru_maxrss as u64
    }
}

/// Off Unix there is no `getrusage`: 0, which the protocol documents as "not measured".
#[cfg(not(unix))]
fn max_rss_kib() -> u64 {
    0
}
