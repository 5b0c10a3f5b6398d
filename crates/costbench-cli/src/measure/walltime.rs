//! Wall time: turn the samples a child reported into per-op statistics.

use crate::model::Walltime;
use crate::stats;
use costbench_protocol::{Clock, WalltimeSamples};

/// Statistics of `m`'s samples for a body that performs `ops` operations per iteration.
pub fn figures(m: &WalltimeSamples, ops: u64) -> Option<Walltime> {
    if m.sample_ns.is_empty() || m.iterations_per_sample == 0 || ops == 0 {
        return None;
    }
    let iters = m.iterations_per_sample as f64;
    let iteration_ns: Vec<f64> = m.sample_ns.iter().map(|&ns| ns as f64 / iters).collect();
    let per_op: Vec<f64> = iteration_ns.iter().map(|ns| ns / ops as f64).collect();
    Some(Walltime {
        clock: match m.clock {
            Clock::Monotonic => "monotonic",
            Clock::ThreadCpu => "thread-cpu",
        }
        .to_string(),
        samples: m.sample_ns.len(),
        iterations_per_sample: m.iterations_per_sample,
        warmup_iterations: m.warmup_iterations,
        clock_overhead_ns: m.clock_overhead_ns,
        ns_per_op: stats::summarize(&per_op),
        iteration_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_op_divides_by_batch_and_ops() {
        let m = WalltimeSamples {
            party: None,
            clock: Clock::Monotonic,
            iterations_per_sample: 10,
            sample_ns: vec![1000, 2000, 3000],
            warmup_iterations: 5,
            clock_overhead_ns: 20.0,
        };
        let w = figures(&m, 4).unwrap();
        assert_eq!(w.iteration_ns, vec![100.0, 200.0, 300.0]);
        assert_eq!(w.ns_per_op.median, 50.0);
        assert_eq!(w.samples, 3);
        assert!(figures(&m, 0).is_none());
    }
}
