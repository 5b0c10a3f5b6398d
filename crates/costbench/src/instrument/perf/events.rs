//! Hardware counters read in process around the measured body, with `perf_event_open(2)`.
//!
//! A direct system call through `libc` rather than a crate: the library must stay light, and it
//! needs only opening, enabling, disabling and one `read` per counter. Each counter is its own
//! event (not a group), counting user space of this process only (`exclude_kernel`,
//! `exclude_hv`, so that `perf_event_paranoid` 2 still allows it), with `read_format` asking for
//! the time enabled and running: when the kernel multiplexes counters, the runner scales by
//! their ratio. Nothing here invents a number: a counter the kernel refuses is reported with its
//! errno, never as zero.

use costbench_protocol::{PerfCounts, PerfReading, PerfUnavailable};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Linux has the counters: the `perf` mode runs (`other.rs` says why not elsewhere).
pub(crate) const UNAVAILABLE: Option<&str> = None;

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_HW_CACHE: u32 = 3;
const PERF_FORMAT_TOTAL_TIME_ENABLED: u64 = 1;
const PERF_FORMAT_TOTAL_TIME_RUNNING: u64 = 2;
const FLAG_DISABLED: u64 = 1;
const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
const FLAG_EXCLUDE_HV: u64 = 1 << 6;
const PERF_EVENT_IOC_ENABLE: libc::c_ulong = 0x2400;
const PERF_EVENT_IOC_DISABLE: libc::c_ulong = 0x2401;
const PERF_EVENT_IOC_RESET: libc::c_ulong = 0x2403;

/// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER5` (112 bytes); the kernel accepts any
/// size it knows and zero-extends.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: i32,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    reserved_2: u16,
}

/// The counters asked for, as (name, type, config).
const COUNTERS: &[(&str, u32, u64)] = &[
    ("cycles", PERF_TYPE_HARDWARE, 0),
    ("instructions", PERF_TYPE_HARDWARE, 1),
    ("cache-references", PERF_TYPE_HARDWARE, 2),
    ("cache-misses", PERF_TYPE_HARDWARE, 3),
    ("branches", PERF_TYPE_HARDWARE, 4),
    ("branch-misses", PERF_TYPE_HARDWARE, 5),
    // L1D (0) | READ (0) << 8 | ACCESS (0) / MISS (1) << 16
    ("l1d-loads", PERF_TYPE_HW_CACHE, 0),
    ("l1d-load-misses", PERF_TYPE_HW_CACHE, 1 << 16),
];

fn open(type_: u32, config: u64) -> std::io::Result<OwnedFd> {
    let attr = PerfEventAttr {
        type_,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config,
        read_format: PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
        flags: FLAG_DISABLED | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
        ..PerfEventAttr::default()
    };
    // SAFETY: `attr` is a valid perf_event_attr of the size it declares; pid 0 / cpu -1 is
    // "this thread, any CPU"; no group, no flags.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            0 as libc::pid_t,
            -1 as libc::c_int,
            -1 as libc::c_int,
            0 as libc::c_ulong,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel returned a fresh descriptor that we now own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

fn ioctl(fd: &OwnedFd, request: libc::c_ulong) {
    // SAFETY: a perf event descriptor and a request without argument.
    unsafe { libc::ioctl(fd.as_raw_fd(), request as _, 0) };
}

fn read3(fd: &OwnedFd) -> std::io::Result<[u64; 3]> {
    let mut buf = [0u64; 3];
    // SAFETY: `buf` is 24 writable bytes, the size of the requested read_format.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), 24) };
    if n != 24 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(buf)
}

/// `/proc/sys/kernel/perf_event_paranoid`, if readable.
fn paranoid() -> Option<i32> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Runs `f` with every counter that opens enabled around it; returns its output and readings.
pub(crate) fn measure<R>(f: impl FnOnce() -> R) -> (R, PerfCounts) {
    let mut opened = Vec::new();
    let mut unavailable = Vec::new();
    for &(name, type_, config) in COUNTERS {
        match open(type_, config) {
            Ok(fd) => opened.push((name, fd)),
            Err(e) => unavailable.push(PerfUnavailable {
                counter: name.to_string(),
                errno: e.raw_os_error().unwrap_or(0),
                error: e.to_string(),
            }),
        }
    }
    for (_, fd) in &opened {
        ioctl(fd, PERF_EVENT_IOC_RESET);
    }
    // Enabled one after another: the first counters also see the few instructions that enable
    // the later ones, a constant of a few hundred instructions at most, stated in the docs.
    for (_, fd) in &opened {
        ioctl(fd, PERF_EVENT_IOC_ENABLE);
    }
    let out = f();
    for (_, fd) in &opened {
        ioctl(fd, PERF_EVENT_IOC_DISABLE);
    }
    let mut readings = Vec::new();
    for (name, fd) in &opened {
        match read3(fd) {
            Ok([value, enabled, running]) => readings.push(PerfReading {
                counter: name.to_string(),
                value,
                time_enabled_ns: enabled,
                time_running_ns: running,
            }),
            Err(e) => unavailable.push(PerfUnavailable {
                counter: name.to_string(),
                errno: e.raw_os_error().unwrap_or(0),
                error: format!("read failed: {e}"),
            }),
        }
    }
    (
        out,
        PerfCounts {
            readings,
            unavailable,
            paranoid: paranoid(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attr_has_the_kernels_ver5_size() {
        assert_eq!(std::mem::size_of::<PerfEventAttr>(), 112);
    }

    #[test]
    fn every_counter_is_read_or_refused_with_its_errno() {
        let (v, c) = measure(|| (0..1000u64).sum::<u64>());
        assert_eq!(v, 499_500);
        assert_eq!(c.readings.len() + c.unavailable.len(), COUNTERS.len());
        for u in &c.unavailable {
            assert!(u.errno != 0, "{u:?}");
        }
    }
}
