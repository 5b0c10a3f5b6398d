//! Instruction counts built in code, for the tests of this crate and of the crates above it
//! (the `testing` feature; `crate::testing` re-exports them). Test-only.

use super::figure::Icount;
use crate::model::ScenarioResult;

/// `r` with an instruction count of `ir_per_op` per op (its callgrind output named after the id).
pub fn with_icount(mut r: ScenarioResult, ir_per_op: f64) -> ScenarioResult {
    r.icount = Some(Icount {
        ir: (ir_per_op * r.ops as f64).round() as u64,
        ir_per_op,
        callgrind_out: format!("callgrind/{}.out", r.id),
        placement: None,
    });
    r
}
