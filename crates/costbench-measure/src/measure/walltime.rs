//! Wall time: turn the samples a child reported into per-op statistics.

use costbench_protocol::{Clock, WalltimeSamples};
use costbench_record::model::{Paired, Walltime};
use costbench_record::stats;

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
        paired: None,
    })
}

/// Statistics of several rounds' samples of one body, pooled, with each round's median kept for
/// a paired comparison with the other sides of the session `pairing`. `iterations_per_sample` is
/// the first round's (each round sizes its own batches) and warm-up iterations are summed.
pub fn figures_from_rounds(
    rounds: &[WalltimeSamples],
    ops: u64,
    pairing: &str,
    lockstep: bool,
) -> Option<Walltime> {
    let each: Vec<Walltime> = rounds
        .iter()
        .map(|m| figures(m, ops))
        .collect::<Option<_>>()?;
    let first = each.first()?;
    let iteration_ns: Vec<f64> = each
        .iter()
        .flat_map(|w| w.iteration_ns.iter().copied())
        .collect();
    let per_op: Vec<f64> = iteration_ns.iter().map(|ns| ns / ops as f64).collect();
    Some(Walltime {
        clock: first.clock.clone(),
        samples: iteration_ns.len(),
        iterations_per_sample: first.iterations_per_sample,
        warmup_iterations: each.iter().map(|w| w.warmup_iterations).sum(),
        clock_overhead_ns: each.iter().map(|w| w.clock_overhead_ns).sum::<f64>()
            / each.len() as f64,
        ns_per_op: stats::summarize(&per_op),
        iteration_ns,
        paired: Some(Paired {
            session: pairing.to_string(),
            round_medians_ns_per_op: each.iter().map(|w| w.ns_per_op.median).collect(),
            round_min_ns_per_op: each.iter().map(|w| w.ns_per_op.min).collect(),
            round_samples: each.iter().map(|w| w.samples).collect(),
            lockstep,
            round_layouts: Vec::new(),
            layout_note: None,
            looks: None,
        }),
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

    #[test]
    fn rounds_pool_samples_and_keep_round_medians() {
        let round = |ns: Vec<u64>| WalltimeSamples {
            party: None,
            clock: Clock::Monotonic,
            iterations_per_sample: 10,
            sample_ns: ns,
            warmup_iterations: 5,
            clock_overhead_ns: 20.0,
        };
        let w = figures_from_rounds(
            &[round(vec![100, 200, 300]), round(vec![1000, 1000])],
            1,
            "s",
            true,
        )
        .unwrap();
        assert_eq!(w.samples, 5);
        assert_eq!(w.iteration_ns, vec![10.0, 20.0, 30.0, 100.0, 100.0]);
        assert_eq!(w.warmup_iterations, 10);
        let p = w.paired.unwrap();
        assert_eq!(p.session, "s");
        assert_eq!(p.round_medians_ns_per_op, vec![20.0, 100.0]);
        assert_eq!(p.round_min_ns_per_op, vec![10.0, 100.0]);
        assert_eq!(p.round_samples, vec![3, 2]);
        assert!(p.lockstep);
        assert!(figures_from_rounds(&[], 1, "s", false).is_none());
    }
}
