//! Reading throughput: the time slices a load child wrote to its [`LoadResult`], or why a round
//! has none (the load child failed, or the server it loaded died under it); and from the
//! rounds of one build, operations per second, latency percentiles, the percentile curve and
//! the intervals a repeat run is expected to land in. Pure: no clocks, no files.

use super::super::shape::{ended_well, failure};
use crate::ending::Outcome;
use costbench_protocol::{self as proto, LoadResult};
use costbench_record::model::{Failure, Interval, Latency, LoadSlice, Throughput};
use std::time::Duration;

/// How the rounds were run (recorded with the figures).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadSettings {
    /// Number of concurrent clients the load process runs.
    pub clients: u32,
    /// Ops per second over all clients (an open loop); `None` is a closed loop.
    pub target_rate: Option<f64>,
    /// Length of one measured time slice, milliseconds.
    pub slice_ms: u64,
    /// Unmeasured load before each round's first slice, milliseconds.
    pub warmup_ms: u64,
}

/// Coverage of the repeat intervals.
pub const REPEAT_LEVEL: f64 = 0.95;

type Histogram = hdrhistogram::Histogram<u64>;

fn histogram() -> Histogram {
    // The load child's bounds; values it saturated are at the top already.
    Histogram::new_with_bounds(1, 100_000_000_000, 3).expect("valid bounds")
}

fn add(h: &mut Histogram, buckets: &[(u64, u64)]) {
    for &(value, count) in buckets {
        h.saturating_record_n(value.max(1), count);
    }
}

/// The figures of the rounds of one build, or `None` when no slice completed a request.
pub fn figures(rounds: &[LoadResult], settings: &LoadSettings) -> Option<Throughput> {
    let ops_per_request = rounds.first()?.ops_per_request;
    let mut all = histogram();
    let mut slices = Vec::new();
    let mut round_rates = Vec::new();
    let mut round_p99 = Vec::new();
    let (mut total_ops, mut total_ns) = (0f64, 0f64);
    for (k, r) in rounds.iter().enumerate() {
        let mut round = histogram();
        let (mut ops, mut ns) = (0f64, 0f64);
        for s in &r.slices {
            let mut h = histogram();
            add(&mut h, &s.latency_ns);
            round.add(&h).expect("same bounds");
            let slice_ops = s.requests as f64 * ops_per_request as f64;
            let secs = s.elapsed_ns as f64 / 1e9;
            ops += slice_ops;
            ns += s.elapsed_ns as f64;
            slices.push(LoadSlice {
                round: k as u32,
                requests: s.requests,
                ops_per_sec: if secs > 0.0 { slice_ops / secs } else { 0.0 },
                p99_ns: h.value_at_quantile(0.99) as f64,
            });
        }
        all.add(&round).expect("same bounds");
        if ns > 0.0 && ops > 0.0 {
            round_rates.push(ops / (ns / 1e9));
            round_p99.push(round.value_at_quantile(0.99) as f64);
        }
        total_ops += ops;
        total_ns += ns;
    }
    if all.is_empty() || total_ns <= 0.0 {
        return None;
    }
    let ops_per_sec = total_ops / (total_ns / 1e9);
    let latency = Latency {
        mean_ns: all.mean(),
        p50_ns: all.value_at_quantile(0.5) as f64,
        p90_ns: all.value_at_quantile(0.9) as f64,
        p99_ns: all.value_at_quantile(0.99) as f64,
        p999_ns: all.value_at_quantile(0.999) as f64,
        max_ns: all.max() as f64,
    };
    Some(Throughput {
        clients: settings.clients,
        load: if settings.target_rate.is_some() {
            "open"
        } else {
            "closed"
        }
        .into(),
        target_rate: settings.target_rate,
        ops_per_request,
        rounds: rounds.len() as u32,
        slices_per_round: rounds.iter().map(|r| r.slices.len()).max().unwrap_or(0) as u32,
        slice_ms: settings.slice_ms,
        warmup_ms: settings.warmup_ms,
        requests: all.len(),
        ops_per_sec,
        ops_per_sec_repeat: repeat_interval(ops_per_sec, &round_rates),
        p99_repeat: repeat_interval(latency.p99_ns, &round_p99),
        latency,
        round_ops_per_sec: round_rates,
        round_p99_ns: round_p99,
        slices,
        percentiles: percentile_curve(&all),
        paired: None,
    })
}

/// Where another run of `rounds.len()` rounds is expected to land, around `centre`: on the log
/// scale, the difference of two means of R rounds has standard error `s * sqrt(2 / R)`, where
/// `s` is the rounds' standard deviation, and Student's t with R - 1 degrees of freedom gives
/// the width. Rounds are fresh processes spread over the measuring time, so their spread holds
/// the machine's drift over that time; drift over longer times is not in it.
pub fn repeat_interval(centre: f64, rounds: &[f64]) -> Option<Interval> {
    let logs: Vec<f64> = rounds
        .iter()
        .filter(|x| x.is_finite() && **x > 0.0)
        .map(|x| x.ln())
        .collect();
    let n = logs.len();
    if n < 3 || !(centre.is_finite() && centre > 0.0) {
        return None;
    }
    let mean = logs.iter().sum::<f64>() / n as f64;
    let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t_975(n - 1) * var.sqrt() * (2.0 / n as f64).sqrt();
    Some(Interval {
        low: centre * (-half).exp(),
        high: centre * half.exp(),
        level: REPEAT_LEVEL,
    })
}

/// The 97.5 % quantile of Student's t with `df` degrees of freedom (two-sided 95 %).
fn t_975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        31..=60 => 2.000,
        _ => 1.960,
    }
}

/// (percentile, ns) points of the latency distribution: HdrHistogram's percentile iteration
/// (5 ticks per halving of the distance to 100 %), so the tail gets as many points as the body.
fn percentile_curve(h: &Histogram) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = Vec::new();
    for v in h.iter_quantiles(5) {
        let p = v.quantile_iterated_to() * 100.0;
        let ns = h.highest_equivalent(v.value_iterated_to()) as f64;
        if points.last().is_some_and(|(lp, _)| *lp >= p) {
            continue;
        }
        points.push((p, ns));
        if p >= 100.0 {
            break;
        }
    }
    points
}

/// The round a load child measured (its result file's `bytes`), given how the load child
/// ended and, when the server had already ended before it was stopped, how the server ended.
pub(crate) fn load_round(
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
    use super::super::super::shape::testing::*;
    use super::*;
    use costbench_protocol::{LoadSlice as Slice, PROTOCOL_VERSION};

    /// (elapsed ns, requests, latency buckets) of one slice.
    type SliceSpec<'a> = (u64, u64, &'a [(u64, u64)]);

    fn round(slices: &[SliceSpec]) -> LoadResult {
        LoadResult {
            protocol: PROTOCOL_VERSION,
            scenario: "s".into(),
            clients: 2,
            rate: None,
            ops_per_request: 2,
            warmup_requests: 10,
            slices: slices
                .iter()
                .map(|(ns, req, lat)| Slice {
                    elapsed_ns: *ns,
                    requests: *req,
                    latency_ns: lat.to_vec(),
                })
                .collect(),
        }
    }

    fn settings() -> LoadSettings {
        LoadSettings {
            clients: 2,
            target_rate: None,
            slice_ms: 100,
            warmup_ms: 50,
        }
    }

    #[test]
    fn rates_are_ops_over_time_and_percentiles_come_from_every_request() {
        // 100 requests of 2 ops in 0.1 s: 2000 ops/s; 99 requests at 1 µs and one at 1 ms.
        let lat: &[(u64, u64)] = &[(1000, 99), (1_000_000, 1)];
        let rounds = [
            round(&[(100_000_000, 100, lat)]),
            round(&[(100_000_000, 100, lat)]),
            round(&[(200_000_000, 100, lat)]),
        ];
        let t = figures(&rounds, &settings()).unwrap();
        // 600 ops over 0.4 s.
        assert!((t.ops_per_sec - 1500.0).abs() < 1e-9, "{}", t.ops_per_sec);
        assert_eq!(t.requests, 300);
        assert_eq!(t.slices.len(), 3);
        assert!((t.slices[2].ops_per_sec - 1000.0).abs() < 1e-9);
        assert_eq!(t.latency.p50_ns, 1000.0);
        assert!((t.latency.max_ns - 1_000_000.0).abs() / 1e6 < 1e-3);
        assert_eq!(t.load, "closed");
        let r = t.ops_per_sec_repeat.unwrap();
        assert!(r.low < t.ops_per_sec && t.ops_per_sec < r.high);
        let last = t.percentiles.last().unwrap();
        assert_eq!(last.0, 100.0);
        assert!(t
            .percentiles
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
    }

    #[test]
    fn identical_rounds_give_a_zero_width_interval_and_two_rounds_none() {
        assert_eq!(
            repeat_interval(10.0, &[10.0, 10.0, 10.0]),
            Some(Interval {
                low: 10.0,
                high: 10.0,
                level: REPEAT_LEVEL
            })
        );
        assert_eq!(repeat_interval(10.0, &[9.0, 11.0]), None);
        // Three rounds of 9, 10, 11: s = 0.1 on the log scale, t = 4.303, sqrt(2/3).
        let i = repeat_interval(10.0, &[9.0, 10.0, 11.0]).unwrap();
        let logs = [9f64.ln(), 10f64.ln(), 11f64.ln()];
        let m = logs.iter().sum::<f64>() / 3.0;
        let s = (logs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 2.0).sqrt();
        let half = 4.303 * s * (2.0f64 / 3.0).sqrt();
        assert!((i.high - 10.0 * half.exp()).abs() < 1e-9);
    }

    #[test]
    fn no_requests_is_no_figure() {
        assert!(figures(&[round(&[(100, 0, &[])])], &settings()).is_none());
        assert!(figures(&[], &settings()).is_none());
    }

    fn result(requests: u64) -> Vec<u8> {
        serde_json::to_vec(&LoadResult {
            protocol: PROTOCOL_VERSION,
            scenario: "s".into(),
            clients: 1,
            rate: None,
            ops_per_request: 1,
            warmup_requests: 3,
            slices: vec![Slice {
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
