//! A function's machine code as plain data: each instruction at its offset from the function's
//! start, its text with addresses normalised (local targets as offsets, other code by symbol, data
//! as `DATA`), how often it executed in a measured run, and its source line. Reading a binary into
//! a [`Listing`] is the measuring layer's (`costbench_measure::asm`); diffing two is the judging
//! layer's (`compare::asm`); only the data they share lives here.

use serde::Serialize;

/// One function's instructions, in address order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Listing {
    /// The function's demangled name.
    pub function: String,
    /// Its instructions.
    pub insns: Vec<AsmInsn>,
    /// Whether executions were known (the run's callgrind output had per-instruction counts:
    /// `--dump-instr=yes`, which the census measures with).
    pub counted: bool,
}

/// One instruction of a [`Listing`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AsmInsn {
    /// Offset from the function's first byte.
    pub offset: u64,
    /// Intel syntax, addresses normalised: `jae +0x4a`, `call core::panicking::panic_bounds_check`,
    /// `lea rdi, [rip+DATA]`.
    pub text: String,
    /// Times it executed in the measured run (0 when it did not, or executions are unknown).
    pub executions: u64,
    /// The source file of its innermost frame, when the debug info says.
    pub file: Option<String>,
    /// The source line of its innermost frame.
    pub line: Option<u32>,
}
