//! The scenario binary's side of the runner's child protocol (`--costbench-child MODE ...`):
//! list the scenarios, run one under the mode asked for, write its result. [`crate::entry`]
//! decides whether the runner or a test runner started the binary.
//!
//! Its command line is parsed in [`crate::child_args`], which the suite reads too. The measuring
//! modes are [`crate::instrument`]'s, one module per instrument, looked up by name
//! ([`crate::instrument::mode`]): this module names none of them, and keeps only `list` and
//! `once` (a smoke test) for itself.
//!
//! The library builds on every OS, but parts of the child protocol are Unix or Linux: `--peer`
//! and `--lockstep` name inherited pipe descriptors (Unix), and a mode that needs Linux says so
//! in its module. Elsewhere the child refuses them with "not available on this OS" (exit
//! [`EXIT_BAD_REQUEST`](proto::EXIT_BAD_REQUEST)); `cargo bench` and `cargo test --benches` work
//! everywhere.

use crate::body::once;
use crate::child_args::{bad, parse_child_args, ChildArgs, ChildError};
use crate::suite::{Scenario, Suite};
use costbench_protocol::{self as proto, Listing, ScenarioInfo, EXIT_PROTOCOL_MISMATCH};

/// Answers the runner: `args` are what follows `--costbench-child`. Returns the exit code.
pub(crate) fn serve(suite: &Suite, args: &[String]) -> i32 {
    match child(suite, args) {
        Ok(code) => code,
        Err(ChildError(code, msg)) => {
            eprintln!("costbench child: {msg}");
            code
        }
    }
}

fn child(suite: &Suite, args: &[String]) -> Result<i32, ChildError> {
    let a = parse_child_args(args)?;
    let protocol = a.protocol.ok_or_else(|| bad("missing --protocol"))?;
    proto::check_version(protocol).map_err(|m| ChildError(EXIT_PROTOCOL_MISMATCH, m))?;
    if a.mode == "list" {
        let listing = listing(suite);
        let json = serde_json::to_string(&listing).expect("a listing always serialises");
        println!("{json}");
        return Ok(0);
    }
    let name = a
        .scenario
        .as_deref()
        .ok_or_else(|| bad("missing scenario name"))?;
    let scenario = suite
        .find(name)
        .ok_or_else(|| bad(format!("no scenario named {name:?} in this binary")))?;
    // Every mode that runs the scenario starts it from the same heap and stack placement,
    // whatever else the binary registered or its path and arguments are.
    crate::placement::settled(|| run_mode(scenario, &a))
}

/// `once` (a smoke test, which measures nothing) is the child's own; every other mode is a
/// measuring mode of [`crate::instrument`], which says what it does.
fn run_mode(scenario: &Scenario, a: &ChildArgs) -> Result<i32, ChildError> {
    if a.mode == "once" {
        match a.perturb {
            Some(n) => crate::placement::perturbed(n, || once(scenario)),
            None => once(scenario),
        }
        return Ok(0);
    }
    match crate::instrument::mode(&a.mode) {
        Some(mode) => (mode.run)(scenario, a),
        None => Err(bad(format!("unknown mode {:?}", a.mode))),
    }
}

fn listing(suite: &Suite) -> Listing {
    Listing {
        protocol: proto::PROTOCOL_VERSION,
        library_version: env!("CARGO_PKG_VERSION").to_string(),
        scenarios: suite
            .scenarios
            .iter()
            .map(|s| ScenarioInfo {
                name: s.name.clone(),
                ops: s.ops.count(),
                unit: s.ops.unit().to_string(),
                parties: s.parties.iter().map(|(p, _)| p.clone()).collect(),
                internal: s.internal,
                service: s.service.as_ref().map(|d| proto::ServiceInfo {
                    ops_per_request: d.ops_per_request,
                    requests_per_run: d.requests_per_run,
                }),
            })
            .collect(),
        capabilities: vec![
            proto::CAPABILITY_LOCKSTEP.to_string(),
            proto::CAPABILITY_PERTURB.to_string(),
            proto::CAPABILITY_SERVICE.to_string(),
        ],
        budgets: suite.budgets.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops;

    #[test]
    fn listing_includes_parties_and_the_residual() {
        let mut s = Suite::new();
        s.multi("m", ops(2, "msgs"))
            .party("client", |b| b.iter(|| ()))
            .party("server", |b| b.iter(|| ()));
        let l = listing(&s);
        assert_eq!(l.scenarios.len(), 2);
        assert!(l.scenarios[0].internal);
        assert_eq!(l.scenarios[1].parties, ["client", "server"]);
        assert!(l.budgets.is_empty());
        s.budget("m_*", crate::Budget::new().allocations(0.0));
        let l = listing(&s);
        assert_eq!(l.budgets.len(), 1);
        assert_eq!(
            (l.budgets[0].scenario.as_str(), l.budgets[0].allocations),
            ("m_*", Some(0.0))
        );
    }
}
