//! Tree building and the merge of two trees on small profiles written by hand (the real callgrind
//! output's tree is tested where it is read, in the measuring crate's `icount::profile`).

use super::*;
use costbench_record::profile::{CallEdge, FunctionCost};

/// A profile from (function, self cost) and (caller, callee, calls, inclusive) lists.
fn profile(fns: &[(&str, u64)], edges: &[(&str, &str, u64, u64)]) -> Profile {
    let mut p = Profile::default();
    for &(name, own) in fns {
        let out: u64 = edges.iter().filter(|e| e.0 == name).map(|e| e.3).sum();
        p.functions.insert(
            name.into(),
            FunctionCost {
                self_cost: own,
                inclusive: own + out,
            },
        );
        p.total += own;
    }
    for &(from, to, calls, inclusive) in edges {
        p.edges
            .entry(from.into())
            .or_default()
            .insert(to.into(), CallEdge { calls, inclusive });
    }
    p
}

fn folded(t: &CallTree) -> Vec<(String, f64)> {
    t.folded()
}

/// A function reached from two callers splits its cost in proportion to what each caller's
/// calls into it cost: `shared` costs 60 from `a` and 20 from `b`, so of its callee `leaf`'s 40,
/// 30 go under `a` and 10 under `b`.
#[test]
fn a_function_with_two_callers_is_split_in_proportion() {
    let p = profile(
        &[(ROOT, 0), ("a", 10), ("b", 5), ("shared", 40), ("leaf", 40)],
        &[
            (ROOT, "a", 1, 70),
            (ROOT, "b", 1, 25),
            ("a", "shared", 3, 60),
            ("b", "shared", 1, 20),
            ("shared", "leaf", 4, 40),
        ],
    );
    let t = CallTree::build(&p, ROOT).unwrap();
    let want = [
        ("costbench_measured_region;a", 10.0),
        ("costbench_measured_region;a;shared", 30.0),
        ("costbench_measured_region;a;shared;leaf", 30.0),
        ("costbench_measured_region;b", 5.0),
        ("costbench_measured_region;b;shared", 10.0),
        ("costbench_measured_region;b;shared;leaf", 10.0),
    ];
    let got = folded(&t);
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((path, cost), (wp, wc)) in got.iter().zip(want) {
        assert_eq!(path, wp);
        assert!((cost - wc).abs() < 1e-9, "{path}: {cost} != {wc}");
    }
    // Every frame's callees add up to at most its own width, and the root is the whole.
    assert_eq!(t.nodes[0].inclusive, 95.0);
    for n in &t.nodes {
        let callees: f64 = n.children.iter().map(|&c| t.nodes[c].inclusive).sum();
        assert!(callees <= n.inclusive + 1e-9, "{n:?}");
    }
    assert!(CallTree::build(&p, "no_such_function").is_none());
}

/// Recursion: callgrind's inclusive cost of the outer call already holds the inner calls', so
/// the recursive edge is not expanded and not counted in the split: `f` recursing twice (self
/// 20 over both activations, 10 in `g`, the inner call's 15 inclusive) is 30, all of it shown.
#[test]
fn recursion_is_not_expanded_again() {
    let p = profile(
        &[(ROOT, 1), ("f", 20), ("g", 10)],
        &[
            (ROOT, "f", 1, 30),
            ("f", "g", 2, 10),
            ("f", "f", 1, 15),
            ("g", "f", 0, 0),
        ],
    );
    let t = CallTree::build(&p, ROOT).unwrap();
    let names: Vec<&str> = t.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, [ROOT, "f", "g"]);
    assert_eq!(t.nodes[1].inclusive, 30.0);
    assert_eq!(t.nodes[1].self_cost(&t), 20.0);
    assert_eq!(t.nodes[0].inclusive, 31.0);
}

/// Grew, shrank, new and gone frames, per op over different ops on each side.
#[test]
fn merged_frames_carry_both_sides_per_op() {
    // Baseline over 10 ops: work 100 (own 40, old_helper 20, shrinks 40); candidate over 20 ops:
    // work 400 (own 160, new_helper 200, shrinks 40): per op work 10 → 20, own 4 → 8, shrinks 4
    // → 2, old_helper 2 → gone, new_helper new at 10.
    let base = profile(
        &[(ROOT, 0), ("work", 40), ("old_helper", 20), ("shrinks", 40)],
        &[
            (ROOT, "work", 1, 100),
            ("work", "old_helper", 1, 20),
            ("work", "shrinks", 1, 40),
        ],
    );
    let cand = profile(
        &[
            (ROOT, 0),
            ("work", 160),
            ("new_helper", 200),
            ("shrinks", 40),
        ],
        &[
            (ROOT, "work", 1, 400),
            ("work", "new_helper", 1, 200),
            ("work", "shrinks", 1, 40),
        ],
    );
    let d = diff("x".into(), &base, 10, &cand, 20);
    assert_eq!(d.unavailable, None);
    let got: Vec<(&str, usize, f64, f64, FrameChange)> = d
        .frames
        .iter()
        .map(|f| (f.name.as_str(), f.depth, f.base, f.cand, f.kind()))
        .collect();
    assert_eq!(
        got,
        [
            (ROOT, 0, 10.0, 20.0, FrameChange::Same),
            ("work", 1, 10.0, 20.0, FrameChange::Grew),
            ("new_helper", 2, 0.0, 10.0, FrameChange::New),
            ("old_helper", 2, 2.0, 0.0, FrameChange::Gone),
            ("shrinks", 2, 4.0, 2.0, FrameChange::Shrank),
        ]
    );
    let work = &d.frames[1];
    assert_eq!((work.base_self, work.cand_self), (4.0, 8.0));
    assert_eq!(work.change(), 10.0);
    assert_eq!(work.self_change(), 4.0);

    // A profile without the measured region has no tree; the comparison says which side.
    let none = profile(&[("main", 5)], &[]);
    let d = diff("x".into(), &base, 10, &none, 10);
    assert!(d.frames.is_empty());
    assert!(
        d.unavailable
            .as_deref()
            .unwrap()
            .contains("candidate's callgrind profile has no costbench_measured_region"),
        "{d:?}"
    );
}

/// Paths far below a pixel are not expanded: their cost stays with their caller.
#[test]
fn paths_below_the_minimum_share_stay_with_their_caller() {
    let p = profile(
        &[(ROOT, 0), ("big", 1_000_000), ("tiny", 1)],
        &[(ROOT, "big", 1, 1_000_001), ("big", "tiny", 1, 1)],
    );
    let t = CallTree::build(&p, ROOT).unwrap();
    assert_eq!(t.nodes.len(), 2, "{t:?}");
    assert_eq!(t.nodes[1].self_cost(&t), 1_000_001.0);
}
