//! Reading wall time: the samples a wall-time child wrote to its [`WalltimeResult`], matched
//! to the scenario's measured ids (one per party), and the per-op statistics of those samples
//! (of one child, or pooled over the rounds of several). Pure.

use super::super::shape::{ended_well, failure, ChildSamples};
use crate::ending::Outcome;
use costbench_protocol::{self as proto, Clock, ScenarioInfo, WalltimeResult, WalltimeSamples};
use costbench_record::model::{Failure, Paired, Walltime};
use costbench_record::stats;
use std::time::Duration;

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
        step: None,
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
        step: None,
    })
}

/// Per measured id of `s`: the samples a finished wall-time child wrote (the result file's
/// `bytes`), or why there are none.
pub(crate) fn samples(
    s: &ScenarioInfo,
    outcome: &Outcome,
    timeout: Duration,
    bytes: std::io::Result<Vec<u8>>,
) -> ChildSamples {
    let ids = s.measured_ids();
    let fail = |kind: &str, message: String| failure("walltime", outcome, kind, message);
    let all_fail = |f: Failure| ids.iter().map(|id| (id.clone(), Err(f.clone()))).collect();
    if let Err(f) = ended_well("walltime", outcome, timeout) {
        return all_fail(f);
    }
    let result = match bytes
        .map_err(proto::DecodeError::Io)
        .and_then(|b| proto::decode_result::<WalltimeResult>(&b))
    {
        Ok(r) => r,
        Err(e @ proto::DecodeError::Version { .. }) => {
            return all_fail(fail("protocol", e.to_string()))
        }
        Err(e) => return all_fail(fail("protocol", format!("unreadable walltime result: {e}"))),
    };
    ids.iter()
        .map(|id| {
            let m = result.measurements.iter().find(|m| match &m.party {
                Some(p) => proto::party_id(&s.name, p) == *id,
                None => *id == s.name,
            });
            let r = match m {
                Some(m) if !m.sample_ns.is_empty() => Ok(m.clone()),
                _ => Err(fail(
                    "no-measurement",
                    "the child reported no samples".into(),
                )),
            };
            (id.clone(), r)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::super::shape::testing::*;
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

    fn scenario(parties: &[&str]) -> ScenarioInfo {
        ScenarioInfo {
            name: "s".into(),
            ops: 4,
            unit: "op".into(),
            parties: parties.iter().map(|p| p.to_string()).collect(),
            internal: false,
            service: None,
        }
    }

    fn walltime_result(protocol: u32, measurements: Vec<WalltimeSamples>) -> Vec<u8> {
        serde_json::to_vec(&WalltimeResult {
            protocol,
            scenario: "s".into(),
            measurements,
        })
        .unwrap()
    }

    fn measured(party: Option<&str>, sample_ns: Vec<u64>) -> WalltimeSamples {
        WalltimeSamples {
            party: party.map(String::from),
            clock: proto::Clock::Monotonic,
            iterations_per_sample: 10,
            sample_ns,
            warmup_iterations: 5,
            clock_overhead_ns: 20.0,
        }
    }

    #[test]
    fn walltime_matches_samples_to_parties_and_flags_empty_ones() {
        let s = scenario(&["client", "server"]);
        let bytes = walltime_result(
            proto::PROTOCOL_VERSION,
            vec![
                measured(Some("server"), vec![]),
                measured(Some("client"), vec![100, 110]),
            ],
        );
        let got = samples(&s, &ok(), TIMEOUT, Ok(bytes));
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, proto::party_id("s", "client"));
        assert_eq!(got[0].1.as_ref().unwrap().sample_ns, vec![100, 110]);
        assert_eq!(got[1].0, proto::party_id("s", "server"));
        let f = got[1].1.as_ref().unwrap_err();
        assert_eq!(
            (f.kind.as_str(), f.message.as_str()),
            ("no-measurement", "the child reported no samples")
        );
    }

    #[test]
    fn walltime_failures_fail_every_id() {
        let s = scenario(&["a", "b"]);
        let other = walltime_result(proto::PROTOCOL_VERSION + 1, vec![]);
        for (outcome, bytes, kind) in [
            (timed_out(), Ok(vec![]), "timed-out"),
            (ok(), Ok(other), "protocol"),
            (ok(), Ok(b"{".to_vec()), "protocol"),
            (ok(), missing(), "protocol"),
        ] {
            let got = samples(&s, &outcome, TIMEOUT, bytes);
            assert_eq!(got.len(), 2);
            for (_, r) in got {
                let f = r.unwrap_err();
                assert_eq!((f.instrument.as_str(), f.kind.as_str()), ("walltime", kind));
            }
        }
        let single = scenario(&[]);
        let got = samples(
            &single,
            &ok(),
            TIMEOUT,
            Ok(walltime_result(
                proto::PROTOCOL_VERSION,
                vec![measured(None, vec![5])],
            )),
        );
        assert_eq!(got[0].0, "s");
        assert!(got[0].1.is_ok());
    }
}
