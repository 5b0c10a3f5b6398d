//! Hardware counters: turning the child's raw `perf_event_open` readings into per-op figures
//! (scaled when the kernel multiplexed a counter), and saying exactly why counters are
//! unavailable when the kernel refuses them.
//!
//! The readings are taken in the scenario process around the measured body (see the library's
//! `perf` module); this module is pure arithmetic and wording.

use super::super::shape::{Output, Parser};
use costbench_protocol::{PerfCounts, PerfUnavailable};
use costbench_record::instrument::Instrument;
use costbench_record::instrument::perf::{Perf, PerfCounter};
use costbench_record::model::Failure;

/// The record entry for a body of `ops` operations; `None` when no counter was read.
///
/// A counter that ran only part of the time it was enabled (multiplexing) is scaled by
/// `time_enabled / time_running`; a counter that never ran is reported unavailable instead of
/// as zero.
pub fn figures(p: &PerfCounts, ops: u64) -> Option<Perf> {
    let mut unavailable: Vec<String> = p.unavailable.iter().map(describe_one).collect();
    let mut counters = Vec::new();
    for r in &p.readings {
        if r.time_running_ns == 0 || r.time_enabled_ns == 0 {
            unavailable.push(format!(
                "{}: enabled but never scheduled on the PMU (too many counters at once)",
                r.counter
            ));
            continue;
        }
        let fraction = r.time_running_ns as f64 / r.time_enabled_ns as f64;
        let scaled = if r.time_running_ns >= r.time_enabled_ns {
            r.value as f64
        } else {
            r.value as f64 * r.time_enabled_ns as f64 / r.time_running_ns as f64
        };
        counters.push(PerfCounter {
            name: r.counter.clone(),
            raw: r.value,
            time_enabled_ns: r.time_enabled_ns,
            time_running_ns: r.time_running_ns,
            scaled,
            per_op: scaled / ops.max(1) as f64,
            running_fraction: fraction.min(1.0),
        });
    }
    if counters.is_empty() {
        return None;
    }
    let get = |n: &str| counters.iter().find(|c| c.name == n).map(|c| c.scaled);
    let ipc = match (get("instructions"), get("cycles")) {
        (Some(i), Some(c)) if c > 0.0 => Some(i / c),
        _ => None,
    };
    Some(Perf {
        counters,
        ipc,
        unavailable,
    })
}

fn describe_one(u: &PerfUnavailable) -> String {
    format!("{}: errno {} ({})", u.counter, u.errno, u.error)
}

/// Why the kernel refused every counter, and what would enable them, for the run's `skipped`
/// entry. `errno` and `paranoid` are those of the first counter the child tried (cycles).
pub fn unavailable_reason(p: &PerfCounts) -> String {
    let paranoid = match p.paranoid {
        Some(v) => format!("/proc/sys/kernel/perf_event_paranoid is {v}"),
        None => "/proc/sys/kernel/perf_event_paranoid is unreadable".into(),
    };
    let Some(first) = p.unavailable.first() else {
        return format!("no hardware counter could be read ({paranoid})");
    };
    let errno = first.errno;
    let what = match errno {
        libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV => {
            "the CPU (or the virtual machine) exposes no such hardware event: run on bare metal, \
             or give the VM a virtual PMU (KVM/QEMU `-cpu host,pmu=on`; VMware \"virtualize CPU \
             performance counters\"; most cloud VMs offer it only on whole-host instance types)"
                .to_string()
        }
        libc::EACCES | libc::EPERM => format!(
            "the kernel forbids it to this process: allow user-space counting with \
             `sysctl kernel.perf_event_paranoid=2` (or lower), or grant CAP_PERFMON; in a \
             container, the seccomp profile must allow perf_event_open (docker `--cap-add \
             PERFMON` or `--security-opt seccomp=...`) ({paranoid})"
        ),
        libc::ENOSYS => "the kernel was built without perf events (CONFIG_PERF_EVENTS)".to_string(),
        _ => "the kernel refused it".to_string(),
    };
    format!(
        "hardware counters unavailable: perf_event_open({}, user space of this process) failed \
         with errno {errno} ({}): {what}; {paranoid}; {} of {} counters refused. Simulated \
         counters (--instrument cache) work without them",
        first.counter,
        first.error,
        p.unavailable.len(),
        p.unavailable.len() + p.readings.len(),
    )
}

impl Parser for super::Perf {
    const INSTRUMENT: Instrument = Instrument::Perf;
    type Figure = Perf;

    fn parse(&self, out: Output<'_>) -> Result<Perf, Failure> {
        out.ended_well(Self::INSTRUMENT)?;
        let p = out.counters(Self::INSTRUMENT)?.perf.ok_or_else(|| {
            out.failure(
                Self::INSTRUMENT,
                "protocol",
                "the child sent no perf figures".into(),
            )
        })?;
        figures(&p, out.ops)
            .ok_or_else(|| out.failure(Self::INSTRUMENT, "no-measurement", unavailable_reason(&p)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shape::testing::*;
    use super::*;
    use costbench_protocol::PerfReading;

    fn reading(counter: &str, value: u64, enabled: u64, running: u64) -> PerfReading {
        PerfReading {
            counter: counter.into(),
            value,
            time_enabled_ns: enabled,
            time_running_ns: running,
        }
    }

    #[test]
    fn multiplexed_counters_are_scaled_and_ipc_derived() {
        let p = PerfCounts {
            readings: vec![
                reading("cycles", 1000, 100, 100),
                // Ran a quarter of the time: scaled ×4.
                reading("instructions", 500, 100, 25),
                reading("branches", 7, 100, 0),
            ],
            unavailable: vec![],
            paranoid: Some(2),
        };
        let f = figures(&p, 10).unwrap();
        assert_eq!(f.counters.len(), 2);
        let i = &f.counters[1];
        assert_eq!((i.raw, i.scaled, i.per_op), (500, 2000.0, 200.0));
        assert_eq!(i.running_fraction, 0.25);
        assert_eq!(f.counters[0].scaled, 1000.0);
        assert_eq!(f.ipc, Some(2.0));
        // A counter that never ran is unavailable, never zero.
        assert_eq!(f.unavailable.len(), 1);
        assert!(
            f.unavailable[0].starts_with("branches:"),
            "{:?}",
            f.unavailable
        );
    }

    #[test]
    fn nothing_read_gives_no_figures_and_says_why() {
        // What this project's VM answers: ENOENT for every hardware event.
        let refused = |c: &str| PerfUnavailable {
            counter: c.into(),
            errno: libc::ENOENT,
            error: "No such file or directory (os error 2)".into(),
        };
        let p = PerfCounts {
            readings: vec![],
            unavailable: vec![refused("cycles"), refused("instructions")],
            paranoid: Some(2),
        };
        assert!(figures(&p, 1).is_none());
        let why = unavailable_reason(&p);
        assert!(why.starts_with("hardware counters unavailable: perf_event_open(cycles, user space of this process) failed with errno 2 (No such file or directory (os error 2)): the CPU (or the virtual machine) exposes no such hardware event"), "{why}");
        assert!(why.contains("perf_event_paranoid is 2"), "{why}");
        assert!(why.contains("2 of 2 counters refused"), "{why}");
        let denied = PerfCounts {
            unavailable: vec![PerfUnavailable {
                counter: "cycles".into(),
                errno: libc::EACCES,
                error: "Permission denied (os error 13)".into(),
            }],
            paranoid: Some(3),
            ..p
        };
        let why = unavailable_reason(&denied);
        assert!(why.contains("kernel.perf_event_paranoid=2"), "{why}");
        assert!(why.contains("perf_event_paranoid is 3"), "{why}");
    }

    #[test]
    fn unreadable_results_are_protocol_failures_and_a_failed_child_its_ending() {
        let ok = ok();
        let f = super::super::Perf
            .parse(output(&ok, 1, Ok(b"not json".to_vec())))
            .unwrap_err();
        assert_eq!(f.kind, "protocol");
        assert!(
            f.message.starts_with("unreadable perf result: "),
            "{}",
            f.message
        );
        let f = super::super::Perf
            .parse(output(&ok, 1, missing()))
            .unwrap_err();
        assert_eq!(f.message, "unreadable perf result: gone");
        let crashed = exited(3);
        let f = super::super::Perf
            .parse(output(&crashed, 1, missing()))
            .unwrap_err();
        assert_eq!(
            (f.kind.as_str(), f.message.as_str()),
            ("crashed", "exited with code 3")
        );
    }

    #[test]
    fn perf_without_counters_gives_the_kernels_reason() {
        let p = PerfCounts {
            readings: vec![],
            unavailable: vec![],
            paranoid: Some(4),
        };
        let file = serde_json::to_vec(&costbench_protocol::CountersResult {
            protocol: costbench_protocol::PROTOCOL_VERSION,
            scenario: "s".into(),
            party: None,
            memory: None,
            perf: Some(p.clone()),
        })
        .unwrap();
        let ok = ok();
        let f = super::super::Perf
            .parse(output(&ok, 1, Ok(file)))
            .unwrap_err();
        assert_eq!(f.kind, "no-measurement");
        assert_eq!(f.message, unavailable_reason(&p));
    }
}
