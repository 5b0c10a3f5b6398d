//! Reading memory figures: what the child's counting allocator and `getrusage` reported in its
//! result file, per op. Pure.

use super::super::shape::{Output, Parser};
use costbench_protocol::MemoryCounts;
use costbench_record::instrument::Instrument;
use costbench_record::instrument::memory::{Allocations, Memory};
use costbench_record::model::Failure;

/// The record entry for a body of `ops` operations.
pub fn figures(m: &MemoryCounts, ops: u64) -> Memory {
    let per = |v: u64| v as f64 / ops.max(1) as f64;
    Memory {
        allocator: m.allocator.clone(),
        allocations: m.counts.map(|c| Allocations {
            allocs: c.allocs,
            deallocs: c.deallocs,
            reallocs: c.reallocs,
            bytes_allocated: c.bytes_allocated,
            peak_live_bytes: c.peak_live_bytes,
            allocs_per_op: per(c.allocs),
            deallocs_per_op: per(c.deallocs),
            reallocs_per_op: per(c.reallocs),
            bytes_allocated_per_op: per(c.bytes_allocated),
        }),
        not_counted: m.not_counted.clone(),
        max_rss_kib: m.max_rss_kib,
    }
}

impl Parser for super::Memory {
    const INSTRUMENT: Instrument = Instrument::Memory;
    type Figure = Memory;

    fn parse(&self, out: Output<'_>) -> Result<Memory, Failure> {
        out.ended_well(Self::INSTRUMENT)?;
        let m = out.counters(Self::INSTRUMENT)?.memory.ok_or_else(|| {
            out.failure(
                Self::INSTRUMENT,
                "protocol",
                "the child sent no memory figures".into(),
            )
        })?;
        Ok(figures(&m, out.ops))
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shape::testing::*;
    use super::*;
    use costbench_protocol::{self as proto, AllocCounts, CountersResult};

    /// A result file of an in-process child.
    pub(crate) fn counters(
        memory: Option<proto::MemoryCounts>,
        perf: Option<proto::PerfCounts>,
    ) -> Vec<u8> {
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
        let ok = ok();
        let got = super::super::Memory
            .parse(output(&ok, 4, Ok(counters(Some(m.clone()), None))))
            .unwrap();
        assert_eq!(got, figures(&m, 4));
    }

    #[test]
    fn a_result_without_memory_figures_is_a_protocol_failure() {
        let ok = ok();
        let f = super::super::Memory
            .parse(output(&ok, 1, Ok(counters(None, None))))
            .unwrap_err();
        assert_eq!(
            (f.kind.as_str(), f.message.as_str()),
            ("protocol", "the child sent no memory figures")
        );
    }

    #[test]
    fn per_op_divides_and_peak_does_not() {
        let m = MemoryCounts {
            allocator: "system".into(),
            counts: Some(AllocCounts {
                allocs: 20,
                deallocs: 10,
                reallocs: 5,
                bytes_allocated: 2000,
                peak_live_bytes: 1500,
            }),
            not_counted: None,
            max_rss_kib: 2048,
        };
        let f = figures(&m, 10);
        let a = f.allocations.unwrap();
        assert_eq!(
            (a.allocs_per_op, a.deallocs_per_op, a.reallocs_per_op),
            (2.0, 1.0, 0.5)
        );
        assert_eq!(a.bytes_allocated_per_op, 200.0);
        assert_eq!(a.peak_live_bytes, 1500);
        assert_eq!(f.max_rss_kib, 2048);
        let none = figures(
            &MemoryCounts {
                counts: None,
                not_counted: Some("why".into()),
                ..m
            },
            10,
        );
        assert!(none.allocations.is_none());
        assert_eq!(none.not_counted.as_deref(), Some("why"));
    }
}
