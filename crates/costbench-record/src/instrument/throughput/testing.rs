//! Rows under load built in code, for the tests of this crate and of the crates above it (the
//! `testing` feature), as `crate::testing` builds run records: a row of one service scenario
//! under load ([`load_row`], [`with_throughput`]) and a run of two service scenarios measured
//! per request and under load ([`service_run`]). Test-only.

use super::figure::{load_id, Interval, Latency, LoadPairing, LoadSlice, Throughput};
use crate::model::{RunRecord, ScenarioResult};
use crate::testing::{record, scenario, with_failure, with_icount, with_ops};

/// `r` as a throughput row under `clients` clients: one slice per entry of `ops_per_sec` (with
/// the matching entry of `p99_ns`), paired in `session` when given.
pub fn with_throughput(
    mut r: ScenarioResult,
    clients: u32,
    ops_per_sec: &[f64],
    p99_ns: &[f64],
    session: Option<&str>,
) -> ScenarioResult {
    let mean = ops_per_sec.iter().sum::<f64>() / ops_per_sec.len().max(1) as f64;
    let mut p99s = p99_ns.to_vec();
    p99s.sort_by(f64::total_cmp);
    let p99 = p99s.get(p99s.len() / 2).copied().unwrap_or(0.0);
    r.clients = Some(clients);
    r.throughput = Some(Throughput {
        clients,
        load: "closed".into(),
        target_rate: None,
        ops_per_request: 1,
        rounds: 1,
        slices_per_round: ops_per_sec.len() as u32,
        slice_ms: 100,
        warmup_ms: 100,
        requests: (mean * 0.1 * ops_per_sec.len() as f64) as u64,
        ops_per_sec: mean,
        ops_per_sec_repeat: None,
        latency: Latency {
            mean_ns: p99 / 3.0,
            p50_ns: p99 / 4.0,
            p90_ns: p99 / 2.0,
            p99_ns: p99,
            p999_ns: p99 * 2.0,
            max_ns: p99 * 10.0,
        },
        p99_repeat: None,
        round_ops_per_sec: ops_per_sec.to_vec(),
        round_p99_ns: p99_ns.to_vec(),
        slices: ops_per_sec
            .iter()
            .zip(p99_ns)
            .map(|(&o, &p)| LoadSlice {
                round: 0,
                requests: (o * 0.1) as u64,
                ops_per_sec: o,
                p99_ns: p,
            })
            .collect(),
        percentiles: vec![(50.0, p99 / 4.0), (99.0, p99), (100.0, p99 * 10.0)],
        paired: session.map(|s| LoadPairing {
            session: s.into(),
            lockstep: true,
            round_layouts: Vec::new(),
        }),
    });
    r
}

/// The row `SCENARIO@Nc` of service scenario `scenario` under `clients` clients, closed loop, 3
/// rounds of 3 slices: `ops_per_sec` with a ±4 % repeat interval, latency p50 `p50_ns` and the
/// other percentiles at fixed multiples of it (p90 1.5×, p99 3× with a ±10 % interval, p99.9
/// 5×, max 20×), and a percentile distribution through them, denser towards the tail.
pub fn load_row(scenario: &str, clients: u32, ops_per_sec: f64, p50_ns: f64) -> ScenarioResult {
    let mut r = crate::testing::scenario(&load_id(scenario, clients));
    r.scenario = scenario.into();
    r.unit = "requests".into();
    r.clients = Some(clients);
    let at = |m: f64| (p50_ns * m).round();
    let percentiles = [
        (0.0, 0.6),
        (25.0, 0.8),
        (50.0, 1.0),
        (75.0, 1.2),
        (90.0, 1.5),
        (95.0, 1.9),
        (99.0, 3.0),
        (99.5, 3.6),
        (99.9, 5.0),
        (99.95, 7.0),
        (99.99, 12.0),
        (100.0, 20.0),
    ]
    .into_iter()
    .map(|(p, m)| (p, at(m)))
    .collect();
    r.throughput = Some(Throughput {
        clients,
        load: "closed".into(),
        target_rate: None,
        ops_per_request: 1,
        rounds: 3,
        slices_per_round: 3,
        slice_ms: 100,
        warmup_ms: 300,
        requests: (ops_per_sec * 0.9).round() as u64,
        ops_per_sec,
        ops_per_sec_repeat: Some(Interval {
            low: ops_per_sec * 0.96,
            high: ops_per_sec * 1.04,
            level: 0.95,
        }),
        latency: Latency {
            mean_ns: at(1.2),
            p50_ns: at(1.0),
            p90_ns: at(1.5),
            p99_ns: at(3.0),
            p999_ns: at(5.0),
            max_ns: at(20.0),
        },
        p99_repeat: Some(Interval {
            low: at(2.7),
            high: at(3.3),
            level: 0.95,
        }),
        round_ops_per_sec: vec![ops_per_sec; 3],
        round_p99_ns: vec![at(3.0); 3],
        slices: (0..9)
            .map(|k| LoadSlice {
                round: k / 3,
                requests: (ops_per_sec * 0.1).round() as u64,
                ops_per_sec,
                p99_ns: at(3.0),
            })
            .collect(),
        percentiles,
        paired: None,
    });
    r
}

/// A service scenario measured per request (its `_client` and `_server` rows, with instruction
/// counts) and under load from 1 and 4 clients (closed loop), and a second one under an open
/// loop at 20,000 ops/s whose 4-client row failed: for the throughput tables, CSV and charts.
pub fn service_run() -> RunRecord {
    let party = |name: &str, party: &str, ir: f64| {
        let mut r = with_icount(
            with_ops(scenario(&format!("{name}_{party}")), 100, "requests"),
            ir,
        );
        r.scenario = name.into();
        r.party = Some(party.into());
        r
    };
    let mut open = load_row("echo/loop", 1, 19_987.4, 48_000.0);
    let t = open.throughput.as_mut().expect("set by load_row");
    t.load = "open".into();
    t.target_rate = Some(20_000.0);
    t.ops_per_sec_repeat = None;
    t.p99_repeat = None;
    let mut failed = load_row("echo/loop", 4, 0.0, 0.0);
    failed.throughput = None;
    let mut run = record(
        "service",
        vec![
            party("echo/plain", "client", 144.17),
            party("echo/plain", "server", 148.16),
            load_row("echo/plain", 1, 43_170.0, 22_095.0),
            load_row("echo/plain", 4, 99_091.4, 40_511.0),
            party("echo/loop", "client", 144.17),
            party("echo/loop", "server", 2149.0),
            open,
            with_failure(failed, "throughput", "no-measurement"),
        ],
    );
    run.settings.instruments = vec!["icount".into(), "throughput".into()];
    run
}
