//! Memory figures: what the child's counting allocator and `getrusage` reported, per op.
//!
//! Counting happens in the scenario process (`costbench::CountingAlloc`, read around the
//! measured body); this module only turns the child's report into the record's figures.

use costbench_protocol::MemoryCounts;
use costbench_record::model::{Allocations, Memory};

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

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_protocol::AllocCounts;

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
