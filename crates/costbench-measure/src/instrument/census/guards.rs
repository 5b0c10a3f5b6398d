//! Finding guards in one function's control-flow graph. Pure: decoded instructions in, guards out.
//!
//! A block is on the *failing side* when it reaches a panic (a call to a panic entry point, a
//! tail jump to one, or a `ud2` trap) before any other way out, or when every one of its
//! successors is on the failing side. A *guard* is a conditional branch in a block that is not on
//! the failing side, with exactly one successor that is. Counting guarding branches, not panic
//! calls, matters because LLVM tail-merges panic calls: a range slice has two guards and one call.

use costbench_record::instrument::census::classify::Kind;
use std::collections::BTreeMap;

/// Where a jump or branch goes, as the decoder resolved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An address inside the function being analysed.
    Local(u64),
    /// A panic entry point (directly, through the PLT or through the GOT).
    Panic(Kind),
    /// Anything else outside the function (a tail call, or an unresolvable target).
    Elsewhere,
}

/// How control leaves one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// A call: `Some(kind)` for a panic entry point, which never returns; `None` for anything
    /// else, which returns to the next instruction.
    Call(Option<Kind>),
    /// An unconditional jump.
    Jump(Target),
    /// A conditional branch: to the target, or on to the next instruction.
    Branch(Target),
    /// Leaves the function for good without panicking: `ret`, an indirect jump, `int3`, `hlt`.
    Stop,
    /// `ud2`: a trap standing in for a panic.
    Trap,
}

/// One decoded instruction, as much as the analysis needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    /// Address of the instruction.
    pub addr: u64,
    /// Length of the instruction in bytes.
    pub len: u32,
    /// How control leaves the instruction.
    pub flow: Flow,
}

/// A conditional branch whose failing side always panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoundGuard {
    /// Address of the conditional branch instruction.
    pub addr: u64,
    /// What the guard checks (bounds, overflow, ...).
    pub kind: Kind,
}

/// Successor of a block.
#[derive(Debug, Clone, Copy)]
enum Succ {
    Block(usize),
    Fails(Kind),
}

/// The guards among `insns` (one function's instructions in address order, without gaps the
/// decoder could not read).
pub fn find(insns: &[Insn]) -> Vec<FoundGuard> {
    analyse(insns).guards
}

/// What the analysis of one function found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The guards found, one per conditional branch on the failing side.
    pub guards: Vec<FoundGuard>,
    /// `Some(kind)` when the function's entry is on the failing side: every path through it
    /// panics, so a call to it is a panic too.
    pub diverges: Option<Kind>,
}

/// Guards, and whether the function itself always panics.
pub fn analyse(insns: &[Insn]) -> Analysis {
    if insns.is_empty() {
        return Analysis {
            guards: Vec::new(),
            diverges: None,
        };
    }
    let index: BTreeMap<u64, usize> = insns.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();
    // Leaders: the entry, every local target, and every instruction after one that ends a block.
    let mut leader = vec![false; insns.len()];
    leader[0] = true;
    for (i, x) in insns.iter().enumerate() {
        let ends = match x.flow {
            Flow::Jump(t) | Flow::Branch(t) => {
                if let Target::Local(a) = t {
                    if let Some(&j) = index.get(&a) {
                        leader[j] = true;
                    }
                }
                true
            }
            Flow::Stop | Flow::Trap | Flow::Call(Some(_)) => true,
            Flow::Next | Flow::Call(None) => false,
        };
        if ends && i + 1 < insns.len() {
            leader[i + 1] = true;
        }
    }
    // Blocks as index ranges [start, end).
    let starts: Vec<usize> = (0..insns.len()).filter(|&i| leader[i]).collect();
    let block_of_insn = {
        let mut b = vec![0usize; insns.len()];
        for (k, &s) in starts.iter().enumerate() {
            let e = starts.get(k + 1).copied().unwrap_or(insns.len());
            b[s..e].fill(k);
        }
        b
    };
    let local = |t: Target| -> Option<Succ> {
        match t {
            Target::Local(a) => index.get(&a).map(|&j| Succ::Block(block_of_insn[j])),
            Target::Panic(k) => Some(Succ::Fails(k)),
            Target::Elsewhere => None,
        }
    };
    let n = starts.len();
    // For each block: its successors, and whether it ends in a conditional branch (and where).
    let mut succs: Vec<Vec<Succ>> = Vec::with_capacity(n);
    let mut branch_at: Vec<Option<(u64, usize)>> = Vec::with_capacity(n);
    for k in 0..n {
        let end = starts.get(k + 1).copied().unwrap_or(insns.len());
        let last = &insns[end - 1];
        let fallthrough = (end < insns.len() && insns[end].addr == last.addr + u64::from(last.len))
            .then(|| Succ::Block(block_of_insn[end]));
        let mut s = Vec::new();
        let mut branch = None;
        match last.flow {
            Flow::Call(Some(kind)) => s.push(Succ::Fails(kind)),
            Flow::Trap => s.push(Succ::Fails(Kind::Trap)),
            Flow::Stop => {}
            Flow::Jump(t) => s.extend(local(t)),
            Flow::Branch(t) => {
                // A branch to somewhere unknown is a way out that does not panic: the block
                // then has a successor we cannot see, so it must not count as failing.
                match local(t) {
                    Some(x) => s.push(x),
                    None => s.push(Succ::Block(usize::MAX)),
                }
                match fallthrough {
                    Some(f) => s.push(f),
                    None => s.push(Succ::Block(usize::MAX)),
                }
                branch = Some((last.addr, 0));
            }
            Flow::Next | Flow::Call(None) => s.extend(fallthrough),
        }
        succs.push(s);
        branch_at.push(branch);
    }
    // Least fixpoint: a block fails when all its successors fail (and it has at least one).
    // `usize::MAX` stands for "leaves the function" and never fails.
    let mut fails: Vec<Option<Kind>> = vec![None; n];
    let succ_kind = |fails: &[Option<Kind>], s: &Succ| -> Option<Kind> {
        match *s {
            Succ::Fails(k) => Some(k),
            Succ::Block(b) if b == usize::MAX => None,
            Succ::Block(b) => fails[b],
        }
    };
    loop {
        let mut changed = false;
        for k in 0..n {
            if fails[k].is_some() || succs[k].is_empty() {
                continue;
            }
            let kinds: Option<Vec<Kind>> = succs[k].iter().map(|s| succ_kind(&fails, s)).collect();
            if let Some(kinds) = kinds {
                fails[k] = kinds.into_iter().min();
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut guards = Vec::new();
    for k in 0..n {
        let Some((addr, _)) = branch_at[k] else {
            continue;
        };
        if fails[k].is_some() {
            continue;
        }
        let kinds: Vec<Option<Kind>> = succs[k].iter().map(|s| succ_kind(&fails, s)).collect();
        if let [a, b] = kinds[..] {
            if let (Some(kind), None) | (None, Some(kind)) = (a, b) {
                guards.push(FoundGuard { addr, kind });
            }
        }
    }
    Analysis {
        guards,
        diverges: fails[0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds instructions of length 1 at consecutive addresses from 0x100.
    fn prog(flows: &[Flow]) -> Vec<Insn> {
        flows
            .iter()
            .enumerate()
            .map(|(i, &flow)| Insn {
                addr: 0x100 + i as u64,
                len: 1,
                flow,
            })
            .collect()
    }

    const BOUNDS: Flow = Flow::Call(Some(Kind::SliceIndex));

    #[test]
    fn index_check_with_cold_panic_block_after_ret() {
        // 0x100 cmp; 0x101 jae 0x104; 0x102 mov; 0x103 ret; 0x104 lea; 0x105 call panic; 0x106 int3
        let insns = prog(&[
            Flow::Next,
            Flow::Branch(Target::Local(0x104)),
            Flow::Next,
            Flow::Stop,
            Flow::Next,
            BOUNDS,
            Flow::Stop,
        ]);
        assert_eq!(
            find(&insns),
            vec![FoundGuard {
                addr: 0x101,
                kind: Kind::SliceIndex
            }]
        );
    }

    #[test]
    fn failing_side_on_the_fallthrough() {
        // jb over the panic call: the fall-through side fails.
        let insns = prog(&[
            Flow::Branch(Target::Local(0x103)),
            Flow::Next,
            Flow::Call(Some(Kind::Overflow)),
            Flow::Stop,
        ]);
        assert_eq!(
            find(&insns),
            vec![FoundGuard {
                addr: 0x100,
                kind: Kind::Overflow
            }]
        );
    }

    #[test]
    fn merged_panic_block_serves_two_guards() {
        // Two guards branch to one call block (tail-merged, as for `&v[a..b]`).
        let insns = prog(&[
            Flow::Branch(Target::Local(0x104)),
            Flow::Branch(Target::Local(0x104)),
            Flow::Next,
            Flow::Stop,
            Flow::Call(Some(Kind::SliceRange)),
        ]);
        let g = find(&insns);
        assert_eq!(g.len(), 2);
        assert!(g.iter().all(|g| g.kind == Kind::SliceRange));
    }

    #[test]
    fn block_whose_every_successor_panics_is_failing_side() {
        // 0x100 jae 0x103 (guard); 0x101 ...; 0x102 ret;
        // 0x103 ja 0x106 (inside failing side: both ways panic); 0x104 call range; 0x105 int3
        // 0x106 call range
        let insns = prog(&[
            Flow::Branch(Target::Local(0x103)),
            Flow::Next,
            Flow::Stop,
            Flow::Branch(Target::Local(0x106)),
            Flow::Call(Some(Kind::SliceRange)),
            Flow::Stop,
            Flow::Call(Some(Kind::SliceRange)),
        ]);
        assert_eq!(
            find(&insns),
            vec![FoundGuard {
                addr: 0x100,
                kind: Kind::SliceRange
            }]
        );
    }

    #[test]
    fn ud2_and_tail_jumps_to_panics_are_failing_sides() {
        let insns = prog(&[
            Flow::Branch(Target::Local(0x103)),
            Flow::Branch(Target::Panic(Kind::Unwrap)),
            Flow::Stop,
            Flow::Trap,
        ]);
        let g = find(&insns);
        assert_eq!(
            g,
            vec![
                FoundGuard {
                    addr: 0x100,
                    kind: Kind::Trap
                },
                FoundGuard {
                    addr: 0x101,
                    kind: Kind::Unwrap
                }
            ]
        );
    }

    #[test]
    fn a_function_that_always_panics_diverges() {
        let insns = prog(&[
            Flow::Branch(Target::Local(0x102)),
            Flow::Call(Some(Kind::Unwrap)),
            Flow::Call(Some(Kind::OtherPanic)),
        ]);
        let a = analyse(&insns);
        assert_eq!(a.diverges, Some(Kind::Unwrap));
        assert!(a.guards.is_empty(), "inside the failing side: no guards");
        let returns = prog(&[Flow::Branch(Target::Local(0x102)), Flow::Stop, BOUNDS]);
        assert_eq!(analyse(&returns).diverges, None);
    }

    #[test]
    fn ordinary_branches_calls_and_loops_are_not_guards() {
        // A loop with an exit, a call that returns, a branch to a tail call elsewhere.
        let insns = prog(&[
            Flow::Call(None),
            Flow::Branch(Target::Local(0x100)),
            Flow::Branch(Target::Elsewhere),
            Flow::Stop,
        ]);
        assert!(find(&insns).is_empty());
        // An infinite loop never reaches a panic: not failing, so no guard into it.
        let insns = prog(&[
            Flow::Branch(Target::Local(0x102)),
            Flow::Stop,
            Flow::Jump(Target::Local(0x102)),
        ]);
        assert!(find(&insns).is_empty());
        // A block that panics after a call that returns still fails.
        let insns = prog(&[
            Flow::Branch(Target::Local(0x102)),
            Flow::Stop,
            Flow::Call(None),
            Flow::Call(Some(Kind::OtherPanic)),
        ]);
        assert_eq!(find(&insns)[0].kind, Kind::OtherPanic);
    }
}
