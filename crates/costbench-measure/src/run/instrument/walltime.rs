//! Wall time: the samples a wall-time child wrote to its [`WalltimeResult`], matched to the
//! scenario's measured ids (one per party). Turning samples into figures is
//! `crate::measure::walltime`'s; pure: callers read the file.

use super::super::child::Outcome;
use super::{ended_well, failure, ChildSamples};
use costbench_protocol::{self as proto, ScenarioInfo, WalltimeResult};
use costbench_record::model::Failure;
use std::time::Duration;

/// Per measured id of `s`: the samples a finished wall-time child wrote (the result file's
/// `bytes`), or why there are none.
pub(in crate::run) fn walltime(
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
    use super::super::testing::*;
    use super::*;
    use costbench_protocol::WalltimeSamples;

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

    fn samples(party: Option<&str>, sample_ns: Vec<u64>) -> WalltimeSamples {
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
                samples(Some("server"), vec![]),
                samples(Some("client"), vec![100, 110]),
            ],
        );
        let got = walltime(&s, &ok(), TIMEOUT, Ok(bytes));
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
            let got = walltime(&s, &outcome, TIMEOUT, bytes);
            assert_eq!(got.len(), 2);
            for (_, r) in got {
                let f = r.unwrap_err();
                assert_eq!((f.instrument.as_str(), f.kind.as_str()), ("walltime", kind));
            }
        }
        let single = scenario(&[]);
        let got = walltime(
            &single,
            &ok(),
            TIMEOUT,
            Ok(walltime_result(
                proto::PROTOCOL_VERSION,
                vec![samples(None, vec![5])],
            )),
        );
        assert_eq!(got[0].0, "s");
        assert!(got[0].1.is_ok());
    }
}
