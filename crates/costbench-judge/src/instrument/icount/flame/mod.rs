//! The differential flame graph of a flagged scenario (issue 27): both sides' call trees
//! ([`tree`]) merged by call path, each frame with its inclusive and own cost per op on both
//! sides ([`diff`]), for the HTML report to draw as flamegraph.pl's and inferno's differential
//! flame graphs are drawn (widths by the candidate's cost, colour by the change).
//! [`attach`](super::functions::attach) fills a comparison's flame graphs beside its movers,
//! from the same two profiles.
//!
//! Pure: the caller reads the profiles (`measure::instrument::icount::profile`); this module
//! reads no files and draws nothing (`costbench_report::html::svg::flame` draws).

#[cfg(test)]
mod tests;
pub mod tree;

use costbench_record::profile::Profile;
pub use tree::{CallTree, ROOT};

/// One call path of the merged tree, with both sides' costs per op.
#[derive(Debug, Clone, PartialEq)]
pub struct FlameFrame {
    /// The function at the end of the path.
    pub name: String,
    /// Its depth: 0 for the root, 1 for its callees...
    pub depth: usize,
    /// Inclusive cost per op in the baseline (0 when the path is the candidate's only).
    pub base: f64,
    /// Inclusive cost per op in the candidate (0 when the path is the baseline's only).
    pub cand: f64,
    /// Own cost per op in the baseline (inclusive less the callees drawn above it).
    pub base_self: f64,
    /// Own cost per op in the candidate.
    pub cand_self: f64,
}

/// How a frame changed, for readers that say it in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameChange {
    /// The path exists on both sides and its own cost grew.
    Grew,
    /// The path exists on both sides and its own cost shrank.
    Shrank,
    /// The path exists on both sides and its own cost is the same.
    Same,
    /// The path exists in the candidate only.
    New,
    /// The path exists in the baseline only: it has no width in the candidate's picture.
    Gone,
}

impl FlameFrame {
    /// Inclusive cost change per op.
    pub fn change(&self) -> f64 {
        self.cand - self.base
    }

    /// Own cost change per op: what colours the frame (flamegraph.pl's delta).
    pub fn self_change(&self) -> f64 {
        self.cand_self - self.base_self
    }

    /// Whether the frame is new, gone, or grew, shrank or stayed in its own cost.
    pub fn kind(&self) -> FrameChange {
        match (self.base > 0.0, self.cand > 0.0) {
            (false, true) => FrameChange::New,
            (true, false) => FrameChange::Gone,
            _ if self.self_change() > 0.0 => FrameChange::Grew,
            _ if self.self_change() < 0.0 => FrameChange::Shrank,
            _ => FrameChange::Same,
        }
    }
}

/// The differential flame graph of one scenario, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct FlameDiff {
    /// The measured id.
    pub id: String,
    /// The merged call tree in depth-first order, the root first, each frame's callees after it
    /// by name; empty when [`FlameDiff::unavailable`] says why.
    pub frames: Vec<FlameFrame>,
    /// Why there is no tree (a profile without [`ROOT`]).
    pub unavailable: Option<String>,
}

/// The differential flame graph of scenario `id` from both sides' profiles, each with the ops
/// its run counted (costs are per op, so that sides of different ops compare).
pub fn diff(id: String, base: &Profile, base_ops: u64, cand: &Profile, cand_ops: u64) -> FlameDiff {
    let trees = (CallTree::build(base, ROOT), CallTree::build(cand, ROOT));
    let (Some(b), Some(c)) = trees else {
        let side = if trees.0.is_none() {
            "baseline"
        } else {
            "candidate"
        };
        return FlameDiff {
            id,
            frames: Vec::new(),
            unavailable: Some(format!(
                "the {side}'s callgrind profile has no {ROOT}: no call tree to draw"
            )),
        };
    };
    FlameDiff {
        id,
        frames: merge(&b, base_ops, &c, cand_ops),
        unavailable: None,
    }
}

/// Both trees merged by call path (a function's callees matched by name), in depth-first order,
/// costs divided by each side's ops.
pub fn merge(base: &CallTree, base_ops: u64, cand: &CallTree, cand_ops: u64) -> Vec<FlameFrame> {
    let sides = [
        (base, base_ops.max(1) as f64),
        (cand, cand_ops.max(1) as f64),
    ];
    let mut out = Vec::new();
    let roots = [
        (!base.nodes.is_empty()).then_some(0),
        (!cand.nodes.is_empty()).then_some(0),
    ];
    if roots.iter().any(Option::is_some) {
        walk(&sides, roots, 0, &mut out);
    }
    out
}

/// Pushes the frame of `at` (the node on each side, if any) and, by name, its callees'.
fn walk(
    sides: &[(&CallTree, f64); 2],
    at: [Option<usize>; 2],
    depth: usize,
    out: &mut Vec<FlameFrame>,
) {
    let node = |k: usize| at[k].map(|i| &sides[k].0.nodes[i]);
    let cost = |k: usize| {
        node(k).map_or((0.0, 0.0), |n| {
            (
                n.inclusive / sides[k].1,
                n.self_cost(sides[k].0) / sides[k].1,
            )
        })
    };
    let name = node(1)
        .or(node(0))
        .expect("a frame on one side at least")
        .name
        .clone();
    let ((base, base_self), (cand, cand_self)) = (cost(0), cost(1));
    out.push(FlameFrame {
        name,
        depth,
        base,
        cand,
        base_self,
        cand_self,
    });
    // Callees of both sides by name; each side's children are already in name order.
    let children = |k: usize| -> Vec<(&str, usize)> {
        node(k).map_or_else(Vec::new, |n| {
            n.children
                .iter()
                .map(|&c| (sides[k].0.nodes[c].name.as_str(), c))
                .collect()
        })
    };
    let (b, c) = (children(0), children(1));
    let mut names: Vec<&str> = b.iter().chain(&c).map(|x| x.0).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let find = |v: &[(&str, usize)]| v.iter().find(|x| x.0 == name).map(|x| x.1);
        walk(sides, [find(&b), find(&c)], depth + 1, out);
    }
}
