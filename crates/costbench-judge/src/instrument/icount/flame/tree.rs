//! The call tree of one callgrind profile: the measured region's root expanded along the call
//! graph's edges into call paths, each with its inclusive cost ([`CallTree::build`]), and the
//! same tree as folded stacks, the input format of flamegraph.pl and inferno
//! ([`CallTree::folded`]).
//!
//! Callgrind without `--separate-callers` keeps caller→callee edges with the calls' inclusive
//! cost, not whole stacks, so the cost of a function *per call path* is not in the file. The
//! tree is the approximation KCachegrind's call graph and gprof2dot draw: a function reached
//! from several callers splits its self cost and its callees' costs among them in proportion to
//! what each caller's calls into it cost. Exact for a function with one caller; for one with
//! several, exact when each call costs alike. Pure: profiles in, tree out.

use costbench_record::profile::Profile;

/// The function callgrind is told to count inside (`--toggle-collect`): the root of every
/// scenario's call tree.
pub const ROOT: &str = "costbench_measured_region";

/// Call paths costing less than this share of the root's are not expanded: their cost stays
/// with their caller (as its own, in the picture). A thousandth of a percent is far below a
/// pixel of any drawing and keeps the tree small when the call graph fans out.
pub const MIN_SHARE: f64 = 1e-5;

/// Deepest call path expanded: a guard against call graphs that fan out deep, not a limit any
/// scenario of the built-in suites reaches.
pub const MAX_DEPTH: usize = 256;

/// Most frames built, whatever the graph: past it, no frame is expanded further.
pub const MAX_FRAMES: usize = 100_000;

/// One call path's frame: the function and what it cost on this path, its callees' included.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The function.
    pub name: String,
    /// Its inclusive cost on this path (in the profile's unit: instructions of all its runs).
    pub inclusive: f64,
    /// Its callees on this path, by name (indices into [`CallTree::nodes`]).
    pub children: Vec<usize>,
}

impl Node {
    /// Its own cost on this path: its inclusive cost less its callees'.
    pub fn self_cost(&self, tree: &CallTree) -> f64 {
        let callees: f64 = self.children.iter().map(|&c| tree.nodes[c].inclusive).sum();
        (self.inclusive - callees).max(0.0)
    }
}

/// A profile's call tree from [`ROOT`]: node 0 is the root, every node's children follow it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallTree {
    /// The frames, the root first.
    pub nodes: Vec<Node>,
}

impl CallTree {
    /// The tree of `profile` from the function `root`, `None` when the profile has no such
    /// function (a file not written by costbench's runner). Each node's cost is split among its
    /// own code and its callees in proportion to the profile's costs of each (the function's
    /// self cost, the inclusive cost of its calls into each callee), so that the parts add up to
    /// the whole on every path. A callee already on the path (recursion) is not expanded again:
    /// its cost is left out of the split, because callgrind's inclusive cost of the outer call
    /// already holds the inner calls'.
    pub fn build(profile: &Profile, root: &str) -> Option<CallTree> {
        let (root, _) = profile.functions.get_key_value(root)?;
        let mut tree = CallTree { nodes: Vec::new() };
        let whole = split(profile, root, &[root.as_str()]).0;
        let mut path = vec![root.as_str()];
        tree.expand(profile, &mut path, whole, whole * MIN_SHARE);
        Some(tree)
    }

    /// Adds the frame of the last function of `path` at cost `amount`, and its callees.
    fn expand<'p>(
        &mut self,
        p: &'p Profile,
        path: &mut Vec<&'p str>,
        amount: f64,
        min: f64,
    ) -> usize {
        let name = *path.last().expect("a path has its function");
        let at = self.nodes.len();
        self.nodes.push(Node {
            name: name.to_string(),
            inclusive: amount,
            children: Vec::new(),
        });
        if path.len() >= MAX_DEPTH || self.nodes.len() >= MAX_FRAMES {
            return at;
        }
        let (whole, callees) = split(p, name, path);
        if whole <= 0.0 {
            return at;
        }
        let scale = amount / whole;
        for (callee, cost) in callees {
            let share = cost * scale;
            if share <= 0.0 || share < min {
                continue;
            }
            path.push(callee);
            let child = self.expand(p, path, share, min);
            path.pop();
            self.nodes[at].children.push(child);
        }
        at
    }

    /// The tree as folded stacks (`root;caller;callee COST` lines without the cost, and the
    /// cost), one per frame with a cost of its own, in the tree's order: the text flamegraph.pl
    /// and inferno read.
    pub fn folded(&self) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        if !self.nodes.is_empty() {
            self.fold(0, &mut Vec::new(), &mut out);
        }
        out
    }

    fn fold<'t>(&'t self, at: usize, stack: &mut Vec<&'t str>, out: &mut Vec<(String, f64)>) {
        let node = &self.nodes[at];
        stack.push(&node.name);
        let own = node.self_cost(self);
        if own > 0.0 {
            out.push((stack.join(";"), own));
        }
        for &c in &node.children {
            self.fold(c, stack, out);
        }
        stack.pop();
    }
}

/// What `name`'s cost is split into when it is reached on `path`: the whole (its self cost and
/// the inclusive cost of its calls into functions not on `path`) and those calls by callee, in
/// name order.
fn split<'p>(p: &'p Profile, name: &str, path: &[&str]) -> (f64, Vec<(&'p str, f64)>) {
    let own = p.functions.get(name).map_or(0, |f| f.self_cost) as f64;
    let mut callees: Vec<(&str, f64)> = p
        .edges
        .get(name)
        .into_iter()
        .flatten()
        .filter(|(callee, _)| !path.contains(&callee.as_str()))
        .map(|(callee, e)| (callee.as_str(), e.inclusive as f64))
        .collect();
    callees.sort_by(|a, b| a.0.cmp(b.0));
    let whole = own + callees.iter().map(|c| c.1).sum::<f64>();
    (whole, callees)
}
