//! Reading what each instrument's child left behind: from how the child ended and the bytes it
//! wrote, one measured id's figure or the [`Failure`] to record. One function per instrument
//! ([`icount`], [`tool`] for cache and DHAT, [`in_process`] for memory and perf, [`walltime`]),
//! all of one shape, the iai-callgrind way.
//!
//! These functions are pure: they spawn nothing and open no file. The session ([`super::session`])
//! reads the file and passes its contents (or the I/O error) here, then keeps or removes it;
//! that way every way a child can fail is unit-tested below on recorded outputs.

use super::child::Outcome;
use crate::measure::{cache, callgrind, dhat, memory, perf};
use crate::model::{self, Failure, Icount};
use anyhow::Context;
use costbench_protocol::{
    self as proto, CountersResult, ScenarioInfo, WalltimeResult, WalltimeSamples,
};
use std::path::Path;
use std::time::Duration;

/// What one instrument produced for one measured id, on its way into the run record.
pub(super) enum Measured {
    Icount(Icount),
    Walltime(Box<model::Walltime>),
    Census(model::Census),
    Cache(model::CacheSim),
    Memory(model::Memory),
    Perf(model::Perf),
    Dhat(model::Dhat),
}

/// The valgrind tools other than the instruction count: one process per party under valgrind,
/// each writing an output file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tool {
    /// Callgrind with cache and branch simulation.
    Cache,
    /// DHAT's heap profile.
    Dhat,
}

impl Tool {
    /// The instrument's name, as in `--instrument` and the record's failures.
    pub(super) fn name(self) -> &'static str {
        match self {
            Tool::Cache => "cache",
            Tool::Dhat => "dhat",
        }
    }
}

/// The instruments the scenario binary runs on itself, one process per party, writing a
/// [`CountersResult`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum InProcess {
    /// Allocation counts and max RSS.
    Memory,
    /// Hardware counters.
    Perf,
}

impl InProcess {
    /// The instrument's name, as in `--instrument`, the child's mode and the record's failures.
    pub(super) fn name(self) -> &'static str {
        match self {
            InProcess::Memory => "memory",
            InProcess::Perf => "perf",
        }
    }
}

/// Per measured id of a scenario: the samples one wall-time child took, or why it has none.
pub(super) type ChildSamples = Vec<(String, Result<WalltimeSamples, Failure>)>;

/// A failure of `instrument` in a child that ended as `outcome` (its stderr tail kept).
pub(super) fn failure(instrument: &str, outcome: &Outcome, kind: &str, message: String) -> Failure {
    Failure {
        instrument: instrument.into(),
        kind: kind.into(),
        message,
        stderr_tail: outcome.stderr_tail.clone(),
    }
}

/// A wall-time child that ran but measured nothing.
pub(super) fn walltime_failure(message: &str, stderr_tail: &str) -> Failure {
    Failure {
        instrument: "walltime".into(),
        kind: "no-measurement".into(),
        message: message.into(),
        stderr_tail: stderr_tail.into(),
    }
}

/// `Err` with the child's own ending when it did not succeed (killed after `timeout`, crashed,
/// panicked): what it wrote then is not read.
fn ended_well(instrument: &str, outcome: &Outcome, timeout: Duration) -> Result<(), Failure> {
    if outcome.success() {
        return Ok(());
    }
    let (kind, message) = outcome.describe(timeout);
    Err(failure(instrument, outcome, &kind, message))
}

/// The text of a tool's output file at `path` (named `what` in messages), as
/// [`callgrind::read_totals`] and [`dhat::read_totals`] word a file they cannot read.
fn tool_text(what: &str, path: &Path, text: std::io::Result<String>) -> anyhow::Result<String> {
    text.with_context(|| format!("cannot read {what} output {}", path.display()))
}

/// The instruction count of one party from callgrind's output `text` (read from `path`) for a
/// scenario of `ops` operations; `rel` is where the output is kept, relative to the results
/// directory.
pub(super) fn icount(
    outcome: &Outcome,
    timeout: Duration,
    ops: u64,
    path: &Path,
    text: std::io::Result<String>,
    rel: String,
) -> Result<Icount, Failure> {
    ended_well("icount", outcome, timeout)?;
    let ir = tool_text("callgrind", path, text)
        .and_then(|t| {
            callgrind::total_ir(&t)
                .with_context(|| format!("in callgrind output {}", path.display()))
        })
        .map_err(|e| failure("icount", outcome, "no-measurement", format!("{e:#}")))?;
    Ok(Icount {
        ir,
        ir_per_op: ir as f64 / ops as f64,
        callgrind_out: rel,
        placement: None,
    })
}

/// The `cache` or `dhat` figures of one party from the tool's output `text` (read from `path`).
pub(super) fn tool(
    tool: Tool,
    outcome: &Outcome,
    timeout: Duration,
    ops: u64,
    path: &Path,
    text: std::io::Result<String>,
    rel: String,
) -> Result<Measured, Failure> {
    let inst = tool.name();
    ended_well(inst, outcome, timeout)?;
    let no = |m: String| failure(inst, outcome, "no-measurement", m);
    match tool {
        Tool::Cache => {
            let totals = tool_text("callgrind", path, text)
                .and_then(|t| {
                    callgrind::totals(&t)
                        .with_context(|| format!("in callgrind output {}", path.display()))
                })
                .map_err(|e| no(format!("{e:#}")))?;
            cache::figures(&totals, ops, rel)
                .map(Measured::Cache)
                .ok_or_else(|| no("callgrind reported no cache or branch events".into()))
        }
        Tool::Dhat => {
            let (tb, tbk, gb, gbk) = tool_text("DHAT", path, text)
                .and_then(|t| {
                    dhat::totals(&t).with_context(|| format!("in DHAT output {}", path.display()))
                })
                .map_err(|e| no(format!("{e:#}")))?;
            Ok(Measured::Dhat(model::Dhat {
                total_bytes: tb,
                total_blocks: tbk,
                peak_bytes: gb,
                peak_blocks: gbk,
                dhat_out: rel,
            }))
        }
    }
}

/// The `memory` or `perf` figures of one party from the result file's `bytes`, with the raw perf
/// counts (which the availability probe needs).
pub(super) fn in_process(
    kind: InProcess,
    outcome: &Outcome,
    timeout: Duration,
    ops: u64,
    bytes: std::io::Result<Vec<u8>>,
) -> Result<(Measured, Option<proto::PerfCounts>), Failure> {
    let inst = kind.name();
    ended_well(inst, outcome, timeout)?;
    let r = match bytes
        .map_err(proto::DecodeError::Io)
        .and_then(|b| proto::decode_result::<CountersResult>(&b))
    {
        Ok(r) => r,
        Err(e @ proto::DecodeError::Version { .. }) => {
            return Err(failure(inst, outcome, "protocol", e.to_string()));
        }
        Err(e) => {
            let m = format!("unreadable {inst} result: {e}");
            return Err(failure(inst, outcome, "protocol", m));
        }
    };
    let missing = || {
        failure(
            inst,
            outcome,
            "protocol",
            format!("the child sent no {inst} figures"),
        )
    };
    match kind {
        InProcess::Memory => {
            let m = r.memory.ok_or_else(missing)?;
            Ok((Measured::Memory(memory::figures(&m, ops)), None))
        }
        InProcess::Perf => {
            let p = r.perf.ok_or_else(missing)?;
            match perf::figures(&p, ops) {
                Some(f) => Ok((Measured::Perf(f), Some(p))),
                None => Err(failure(
                    inst,
                    outcome,
                    "no-measurement",
                    perf::unavailable_reason(&p),
                )),
            }
        }
    }
}

/// Per measured id of `s`: the samples a finished wall-time child wrote (the result file's
/// `bytes`), or why there are none.
pub(super) fn walltime(
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
    use super::super::child::Ending;
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    /// Recorded callgrind output of a sort, and of a run with cache and branch simulation.
    const SORT: &str = include_str!("../measure/callgrind/testdata/sort.callgrind.out");
    const CACHE_SIM: &str = include_str!("../../tests/fixtures/callgrind-cache-sim.out");
    /// DHAT's JSON for a body that allocates an exactly known amount.
    const DHAT: &str = include_str!("../../tests/fixtures/dhat-memory-exact.json");
    const TIMEOUT: Duration = Duration::from_secs(7);

    fn exited(code: i32) -> Outcome {
        Outcome {
            ending: Ending::Exited(std::process::ExitStatus::from_raw(code << 8)),
            stderr_tail: "last lines".into(),
            stderr: None,
        }
    }

    fn ok() -> Outcome {
        exited(0)
    }

    fn timed_out() -> Outcome {
        Outcome {
            ending: Ending::TimedOut,
            stderr_tail: String::new(),
            stderr: None,
        }
    }

    fn text(t: &str) -> std::io::Result<String> {
        Ok(t.to_string())
    }

    fn missing<T>() -> std::io::Result<T> {
        Err(std::io::Error::new(std::io::ErrorKind::NotFound, "gone"))
    }

    fn path() -> &'static Path {
        Path::new("out/.tmp")
    }

    fn scenario(parties: &[&str]) -> ScenarioInfo {
        ScenarioInfo {
            name: "s".into(),
            ops: 4,
            unit: "op".into(),
            parties: parties.iter().map(|p| p.to_string()).collect(),
            internal: false,
        }
    }

    #[test]
    fn icount_reads_the_ir_total_and_divides_by_ops() {
        let expected = callgrind::total_ir(SORT).unwrap();
        let i = icount(
            &ok(),
            TIMEOUT,
            4,
            path(),
            text(SORT),
            "callgrind/s.out".into(),
        )
        .unwrap();
        assert_eq!(i.ir, expected);
        assert_eq!(i.ir_per_op, expected as f64 / 4.0);
        assert_eq!(i.callgrind_out, "callgrind/s.out");
        assert!(i.placement.is_none());
    }

    #[test]
    fn icount_of_a_failed_child_is_its_ending() {
        let f = icount(&exited(101), TIMEOUT, 1, path(), text(SORT), String::new()).unwrap_err();
        assert_eq!(
            (f.instrument.as_str(), f.kind.as_str()),
            ("icount", "panicked")
        );
        assert_eq!(f.stderr_tail, "last lines");
        let f = icount(&timed_out(), TIMEOUT, 1, path(), text(SORT), String::new()).unwrap_err();
        assert_eq!(f.kind, "timed-out");
        assert_eq!(f.message, "killed after 7 s (change with --timeout)");
    }

    #[test]
    fn icount_names_the_file_it_could_not_read_or_parse() {
        let f = icount(&ok(), TIMEOUT, 1, path(), missing(), String::new()).unwrap_err();
        assert_eq!(f.kind, "no-measurement");
        assert_eq!(f.message, "cannot read callgrind output out/.tmp: gone");
        let f = icount(
            &ok(),
            TIMEOUT,
            1,
            path(),
            text("events: Dr\n"),
            String::new(),
        );
        let m = f.unwrap_err().message;
        assert!(m.starts_with("in callgrind output out/.tmp: "), "{m}");
    }

    #[test]
    fn cache_reads_the_simulated_events() {
        let Ok(Measured::Cache(c)) = tool(
            Tool::Cache,
            &ok(),
            TIMEOUT,
            1,
            path(),
            text(CACHE_SIM),
            "cache/s.out".into(),
        ) else {
            panic!("cache figures expected")
        };
        let expected = cache::figures(
            &callgrind::totals(CACHE_SIM).unwrap(),
            1,
            "cache/s.out".into(),
        );
        assert_eq!(Some(c), expected);
    }

    #[test]
    fn cache_without_simulated_events_is_no_measurement() {
        // A plain icount run has Ir only: nothing to derive cache figures from.
        let Err(f) = tool(
            Tool::Cache,
            &ok(),
            TIMEOUT,
            1,
            path(),
            text(SORT),
            String::new(),
        ) else {
            panic!("failure expected")
        };
        assert_eq!(
            (f.instrument.as_str(), f.kind.as_str()),
            ("cache", "no-measurement")
        );
        assert_eq!(f.message, "callgrind reported no cache or branch events");
    }

    #[test]
    fn dhat_sums_the_program_points() {
        let Ok(Measured::Dhat(d)) = tool(
            Tool::Dhat,
            &ok(),
            TIMEOUT,
            1,
            path(),
            text(DHAT),
            "dhat/s.json".into(),
        ) else {
            panic!("dhat figures expected")
        };
        let (tb, tbk, gb, gbk) = dhat::totals(DHAT).unwrap();
        assert_eq!(
            (d.total_bytes, d.total_blocks, d.peak_bytes, d.peak_blocks),
            (tb, tbk, gb, gbk)
        );
        assert_eq!(d.dhat_out, "dhat/s.json");
        let Err(f) = tool(
            Tool::Dhat,
            &ok(),
            TIMEOUT,
            1,
            path(),
            missing(),
            String::new(),
        ) else {
            panic!("failure expected")
        };
        assert_eq!(f.message, "cannot read DHAT output out/.tmp: gone");
        let Err(f) = tool(
            Tool::Dhat,
            &ok(),
            TIMEOUT,
            1,
            path(),
            text("{}"),
            String::new(),
        ) else {
            panic!("failure expected")
        };
        assert!(
            f.message
                .starts_with("in DHAT output out/.tmp: not DHAT JSON output"),
            "{}",
            f.message
        );
    }

    fn counters(memory: Option<proto::MemoryCounts>, perf: Option<proto::PerfCounts>) -> Vec<u8> {
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
        let Ok((Measured::Memory(got), None)) = in_process(
            InProcess::Memory,
            &ok(),
            TIMEOUT,
            4,
            Ok(counters(Some(m.clone()), None)),
        ) else {
            panic!("memory figures expected")
        };
        assert_eq!(got, memory::figures(&m, 4));
    }

    #[test]
    fn in_process_results_that_say_too_little_are_protocol_failures() {
        let f = in_process(
            InProcess::Memory,
            &ok(),
            TIMEOUT,
            1,
            Ok(counters(None, None)),
        )
        .err()
        .unwrap();
        assert_eq!(
            (f.kind.as_str(), f.message.as_str()),
            ("protocol", "the child sent no memory figures")
        );
        let f = in_process(InProcess::Perf, &ok(), TIMEOUT, 1, Ok(b"not json".to_vec()))
            .err()
            .unwrap();
        assert_eq!(f.kind, "protocol");
        assert!(
            f.message.starts_with("unreadable perf result: "),
            "{}",
            f.message
        );
        let f = in_process(InProcess::Perf, &ok(), TIMEOUT, 1, missing())
            .err()
            .unwrap();
        assert_eq!(f.message, "unreadable perf result: gone");
        let f = in_process(InProcess::Perf, &exited(3), TIMEOUT, 1, missing())
            .err()
            .unwrap();
        assert_eq!(
            (f.kind.as_str(), f.message.as_str()),
            ("crashed", "exited with code 3")
        );
    }

    #[test]
    fn perf_without_counters_gives_the_kernels_reason() {
        let p = proto::PerfCounts {
            readings: vec![],
            unavailable: vec![],
            paranoid: Some(4),
        };
        let f = in_process(
            InProcess::Perf,
            &ok(),
            TIMEOUT,
            1,
            Ok(counters(None, Some(p.clone()))),
        )
        .err()
        .unwrap();
        assert_eq!(f.kind, "no-measurement");
        assert_eq!(f.message, perf::unavailable_reason(&p));
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
