//! A callgrind profile as plain data: each function's self and inclusive cost in the first
//! event (instructions) and the calls into it. Reading callgrind's file format into a
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
}

/// One scenario's profile in one run, with the ops that run counted (costs per op are the
/// profile's over these).
pub type ScenarioProfile = (Profile, u64);
