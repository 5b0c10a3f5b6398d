//! Wall time's piece of the library: the `walltime` mode of the child protocol ([`MODE`]: the
//! samples of the body or of each party, written as a [`WalltimeResult`]) and `cargo bench`'s
//! in-process table ([`bench_header`], [`bench_rows`], which the test-runner harness prints).
//! The sampling itself is `sample.rs`, below the library's `Bench` (which calls it around the
//! body) and the child's command line (which holds its settings).

pub(crate) mod sample;

use super::mode::ChildMode;
use crate::bench::{Bench, Mode};
use crate::body::{exit_on_panic, mem_links, run_body};
use crate::child_args::{bad, ChildArgs, ChildError};
use crate::suite::Scenario;
use costbench_protocol::{self as proto, WalltimeResult, WalltimeSamples};
use sample::{Coordinator, WalltimeConfig};
use std::sync::Arc;
use std::time::Duration;

/// The `walltime` mode of the child protocol: samples to `--result` as a [`WalltimeResult`].
pub(super) const MODE: ChildMode = ChildMode {
    name: "walltime",
    run: walltime_mode,
};

fn walltime_mode(scenario: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    if a.perturb.is_some() {
        return Err(bad(
            "--perturb is for icount, memory, perf and once: wall time has its own code-layout rounds",
        ));
    }
    let path = a
        .result
        .as_deref()
        .ok_or_else(|| bad("walltime needs --result FILE"))?;
    let measurements = sample_scenario(scenario, &a.config);
    let result = WalltimeResult {
        protocol: proto::PROTOCOL_VERSION,
        scenario: scenario.name.clone(),
        measurements,
    };
    let json = serde_json::to_vec(&result).expect("a result always serialises");
    std::fs::write(path, json)
        .map_err(|e| ChildError(1, format!("cannot write result file {path}: {e}")))?;
    Ok(0)
}

/// Samples a scenario's wall time in this process: its body, or each of its parties on a thread
/// of its own in lockstep with the others.
pub(crate) fn sample_scenario(s: &Scenario, config: &WalltimeConfig) -> Vec<WalltimeSamples> {
    if let Some(f) = &s.body {
        let b = run_body(
            f,
            Bench::new(&s.name, None, Mode::Walltime(config.clone()), vec![]),
        );
        return vec![take(b)];
    }
    exit_on_panic();
    let co = Arc::new(Coordinator::new(s.parties.len()));
    let handles: Vec<_> = s
        .parties
        .iter()
        .zip(mem_links(&s.parties))
        .enumerate()
        .map(|(i, ((party, f), links))| {
            let mode = Mode::WalltimeParty {
                config: config.clone(),
                coordinator: co.clone(),
                leader: i == 0,
            };
            let bench = Bench::new(&s.name, Some(party), mode, links);
            let f = f.clone();
            std::thread::spawn(move || take(run_body(&f, bench)))
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("a panicking party exits the process"))
        .collect()
}

fn take(mut b: Bench) -> WalltimeSamples {
    b.take_samples()
        .expect("a walltime bench that ran has samples")
}

/// The header of `cargo bench`'s table.
pub(crate) fn bench_header() {
    println!(
        "{:<48} {:>14} {:>10}  unit (in-process; `costbench run` measures instructions too)",
        "scenario", "median/op", "IQR"
    );
}

/// Measures one scenario's wall time in process and prints its rows of `cargo bench`'s table.
pub(crate) fn bench_rows(s: &Scenario) {
    let config = WalltimeConfig {
        samples: 30,
        warmup: Duration::from_millis(100),
        max_time: Some(Duration::from_secs(2)),
        ..WalltimeConfig::default()
    };
    {
        for m in sample_scenario(s, &config) {
            let per_op = m.iterations_per_sample as f64 * s.ops.count() as f64;
            let mut v: Vec<f64> = m.sample_ns.iter().map(|&n| n as f64 / per_op).collect();
            v.sort_by(f64::total_cmp);
            let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
            let name = match &m.party {
                Some(p) => proto::party_id(&s.name, p),
                None => s.name.clone(),
            };
            println!(
                "{name:<48} {:>11.2} ns {:>7.2} ns  {}",
                q(0.5),
                q(0.75) - q(0.25),
                s.ops.unit()
            );
        }
    }
}
