//! Throughput: the time slices a load child wrote to its [`LoadResult`], or why a round has
//! none (the load child failed, or the server it loaded died under it). Turning rounds into
//! figures is `crate::measure::throughput`'s; pure: callers read the file and stop the server.

use super::super::child::Outcome;
use super::{ended_well, failure};
use costbench_protocol::{self as proto, LoadResult};
use costbench_record::model::Failure;
use std::time::Duration;

/// The round a load child measured (its result file's `bytes`), given how the load child
/// ended and, when the server had already ended before it was stopped, how the server ended.
pub(in crate::run) fn load_round(
    load: &Outcome,
    server_ended: Option<&Outcome>,
    timeout: Duration,
    bytes: std::io::Result<Vec<u8>>,
) -> Result<LoadResult, Failure> {
    if let Some(server) = server_ended {
        return Err(failure(
            "throughput",
            server,
            "crashed",
            format!(
                "the server exited during the load ({}); its stderr is below",
                server.how_it_ended()
            ),
        ));
    }
    ended_well("throughput", load, timeout)?;
    let result = bytes
        .map_err(proto::DecodeError::Io)
        .and_then(|b| proto::decode_result::<LoadResult>(&b));
    match result {
        Ok(r) if r.slices.iter().any(|s| s.requests > 0) => Ok(r),
        Ok(_) => Err(failure(
            "throughput",
            load,
            "no-measurement",
            "no request completed in any measured slice".into(),
        )),
        Err(e @ proto::DecodeError::Version { .. }) => {
            Err(failure("throughput", load, "protocol", e.to_string()))
        }
        Err(e) => Err(failure(
            "throughput",
            load,
            "protocol",
            format!("unreadable load result: {e}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use costbench_protocol::{LoadSlice, PROTOCOL_VERSION};

    fn result(requests: u64) -> Vec<u8> {
        serde_json::to_vec(&LoadResult {
            protocol: PROTOCOL_VERSION,
            scenario: "s".into(),
            clients: 1,
            rate: None,
            ops_per_request: 1,
            warmup_requests: 3,
            slices: vec![LoadSlice {
                elapsed_ns: 1000,
                requests,
                latency_ns: vec![(10, requests)],
            }],
        })
        .unwrap()
    }

    #[test]
    fn a_round_is_read_when_both_processes_did_their_part() {
        let r = load_round(&ok(), None, TIMEOUT, Ok(result(5))).unwrap();
        assert_eq!(r.slices[0].requests, 5);
    }

    #[test]
    fn a_dead_server_fails_the_round_with_its_own_stderr() {
        let f = load_round(&ok(), Some(&exited(101)), TIMEOUT, Ok(result(5))).unwrap_err();
        assert_eq!(f.instrument, "throughput");
        assert_eq!(f.kind, "crashed");
        assert!(f.message.contains("exit code 101"), "{}", f.message);
        assert_eq!(f.stderr_tail, "last lines");
    }

    #[test]
    fn failed_loads_empty_slices_and_bad_files_are_failures() {
        assert_eq!(
            load_round(&exited(1), None, TIMEOUT, Ok(result(5)))
                .unwrap_err()
                .kind,
            "crashed"
        );
        assert_eq!(
            load_round(&timed_out(), None, TIMEOUT, Ok(result(5)))
                .unwrap_err()
                .kind,
            "timed-out"
        );
        assert_eq!(
            load_round(&ok(), None, TIMEOUT, Ok(result(0)))
                .unwrap_err()
                .kind,
            "no-measurement"
        );
        let f = load_round(&ok(), None, TIMEOUT, Ok(b"{".to_vec())).unwrap_err();
        assert!(
            f.message.starts_with("unreadable load result"),
            "{}",
            f.message
        );
        let f = load_round(&ok(), None, TIMEOUT, missing()).unwrap_err();
        assert_eq!(f.kind, "protocol");
    }
}
