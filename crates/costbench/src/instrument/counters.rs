//! What the modes that count in process around one run of the body (`memory`, `perf`) share:
//! one run of the body (or of one party, in its own process as under callgrind) in the
//! [`Mode`] that counts, and the [`CountersResult`] written to `--result`, holding the figures
//! of the mode that ran (each mode fills its own field).

use crate::bench::{Counted, Mode};
use crate::body::process_body;
use crate::child_args::{bad, ChildArgs, ChildError};
use crate::suite::Scenario;
use costbench_protocol::{self as proto, CountersResult};

/// Runs the body once in `mode`, lets `fill` put what it counted into the result, and writes the
/// result to `--result`. `fill` is a function pointer, not a generic closure, so the binary holds
/// one copy of this function (and of the result's serialisation) for every mode.
pub(super) fn run(
    s: &Scenario,
    a: &ChildArgs,
    mode: Mode,
    fill: fn(Counted, &mut CountersResult),
) -> Result<i32, ChildError> {
    let path = a
        .result
        .as_deref()
        .ok_or_else(|| bad(format!("{} needs --result FILE", a.mode)))?;
    let mut bench = process_body(s, a, mode)?;
    let mut result = CountersResult {
        protocol: proto::PROTOCOL_VERSION,
        scenario: s.name.clone(),
        party: a.party.clone(),
        memory: None,
        perf: None,
    };
    match bench.take_counted() {
        Some(counted) => fill(counted, &mut result),
        None => unreachable!("run_body checked that the body ran"),
    }
    let json = serde_json::to_vec(&result).expect("a result always serialises");
    std::fs::write(path, json)
        .map_err(|e| ChildError(1, format!("cannot write result file {path}: {e}")))?;
    Ok(0)
}
