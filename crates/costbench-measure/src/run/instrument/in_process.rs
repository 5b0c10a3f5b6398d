//! The instruments the scenario binary runs on itself, memory (allocation counts, max RSS) and
//! perf (hardware counters): one [`CountersResult`] per party. Pure: callers read the file.

use super::super::child::Outcome;
use super::{ended_well, failure, InProcess, Measured};
use crate::measure::{memory, perf};
use costbench_protocol::{self as proto, CountersResult};
use costbench_record::model::Failure;
use std::time::Duration;

/// The `memory` or `perf` figures of one party from the result file's `bytes`, with the raw perf
/// counts (which the availability probe needs).
pub(in crate::run) fn in_process(
    kind: InProcess,
    outcome: &Outcome,
    timeout: Duration,
    ops: u64,
    bytes: std::io::Result<Vec<u8>>,
) -> Result<(Measured, Option<proto::PerfCounts>), Failure> {
    let inst = kind.name();
    ended_well(inst, outcome, timeout)?;
    let r = match bytes
        .map_err(proto::DecodeError::Io)
        .and_then(|b| proto::decode_result::<CountersResult>(&b))
    {
        Ok(r) => r,
        Err(e @ proto::DecodeError::Version { .. }) => {
            return Err(failure(inst, outcome, "protocol", e.to_string()));
        }
        Err(e) => {
            let m = format!("unreadable {inst} result: {e}");
            return Err(failure(inst, outcome, "protocol", m));
        }
    };
    let missing = || {
        failure(
            inst,
            outcome,
            "protocol",
            format!("the child sent no {inst} figures"),
        )
    };
    match kind {
        InProcess::Memory => {
            let m = r.memory.ok_or_else(missing)?;
            Ok((Measured::Memory(memory::figures(&m, ops)), None))
        }
        InProcess::Perf => {
            let p = r.perf.ok_or_else(missing)?;
            match perf::figures(&p, ops) {
                Some(f) => Ok((Measured::Perf(f), Some(p))),
                None => Err(failure(
                    inst,
                    outcome,
                    "no-measurement",
                    perf::unavailable_reason(&p),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn counters(memory: Option<proto::MemoryCounts>, perf: Option<proto::PerfCounts>) -> Vec<u8> {
        serde_json::to_vec(&CountersResult {
            protocol: proto::PROTOCOL_VERSION,
            scenario: "s".into(),
            party: None,
            memory,
            perf,
        })
        .unwrap()
    }

    #[test]
    fn memory_figures_come_from_the_result_file() {
        let m = proto::MemoryCounts {
            allocator: "system".into(),
            counts: None,
            not_counted: Some("why".into()),
            max_rss_kib: 900,
        };
        let Ok((Measured::Memory(got), None)) = in_process(
            InProcess::Memory,
            &ok(),
            TIMEOUT,
            4,
            Ok(counters(Some(m.clone()), None)),
        ) else {
            panic!("memory figures expected")
        };
        assert_eq!(got, memory::figures(&m, 4));
    }

    #[test]
    fn in_process_results_that_say_too_little_are_protocol_failures() {
        let f = in_process(
            InProcess::Memory,
            &ok(),
            TIMEOUT,
            1,
            Ok(counters(None, None)),
        )
        .err()
        .unwrap();
        assert_eq!(
            (f.kind.as_str(), f.message.as_str()),
            ("protocol", "the child sent no memory figures")
        );
        let f = in_process(InProcess::Perf, &ok(), TIMEOUT, 1, Ok(b"not json".to_vec()))
            .err()
            .unwrap();
        assert_eq!(f.kind, "protocol");
        assert!(
            f.message.starts_with("unreadable perf result: "),
            "{}",
            f.message
        );
        let f = in_process(InProcess::Perf, &ok(), TIMEOUT, 1, missing())
            .err()
            .unwrap();
        assert_eq!(f.message, "unreadable perf result: gone");
        let f = in_process(InProcess::Perf, &exited(3), TIMEOUT, 1, missing())
            .err()
            .unwrap();
        assert_eq!(
            (f.kind.as_str(), f.message.as_str()),
            ("crashed", "exited with code 3")
        );
    }

    #[test]
    fn perf_without_counters_gives_the_kernels_reason() {
        let p = proto::PerfCounts {
            readings: vec![],
            unavailable: vec![],
            paranoid: Some(4),
        };
        let f = in_process(
            InProcess::Perf,
            &ok(),
            TIMEOUT,
            1,
            Ok(counters(None, Some(p.clone()))),
        )
        .err()
        .unwrap();
        assert_eq!(f.kind, "no-measurement");
        assert_eq!(f.message, perf::unavailable_reason(&p));
    }
}
