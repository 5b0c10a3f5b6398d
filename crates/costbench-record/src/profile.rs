//! A callgrind profile as plain data: each function's self and inclusive cost in the first
//! event (instructions), the calls into it, and the call graph's edges (caller to callee, with
//! the calls' inclusive cost). Reading callgrind's file format into a
//! [`Profile`] is the measuring layer's job (`instrument::icount::profile`); diffing two
//! profiles is the judging layer's (`compare::functions`). Only the data they share lives here.

use std::collections::{BTreeSet, HashMap};

/// Costs of one function, in the first event of the file (instructions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FunctionCost {
    /// Instructions of the function's own code.
    pub self_cost: u64,
    /// Its own instructions plus those of every call it made.
    pub inclusive: u64,
}

/// Every function of a profile by name (functions of the same name in several objects are
/// summed: they cannot be told apart across two builds anyway).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Costs of every function by name.
    pub functions: HashMap<String, FunctionCost>,
    /// Calls into each function by name (the `calls=COUNT` lines after `cfn=`): how often it was
    /// entered, whatever its callers.
    pub calls: HashMap<String, u64>,
    /// Sum of every self cost: the file's total.
    pub total: u64,
    /// The source files each function's own instructions came from (its `fl=`, and the `fi=`
    /// and `fe=` of code inlined into it), as the profile names them.
    pub sources: HashMap<String, BTreeSet<String>>,
    /// The call graph: for each caller, its callees with the calls it made into each and their
    /// inclusive cost (the cost line after `calls=`). Callgrind without `--separate-callers`
    /// keeps edges, not whole stacks: a callee's cost per call path is not in the file.
    pub edges: HashMap<String, HashMap<String, CallEdge>>,
}

/// The calls from one function into another, summed over every call site.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallEdge {
    /// How many calls.
    pub calls: u64,
    /// Their inclusive cost: the callee's instructions and those of everything it called, on
    /// these calls only.
    pub inclusive: u64,
}

/// One scenario's profile in one run, with the ops that run counted (costs per op are the
/// profile's over these).
pub type ScenarioProfile = (Profile, u64);
