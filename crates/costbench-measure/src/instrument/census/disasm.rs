//! Decoding one function's x86-64 machine code (with `iced-x86`) into the instruction flows the
//! guard analysis needs, with every call and jump target resolved to a local address or to the
//! function it leaves for (directly, through the PLT, or through the GOT).
//!
//! Decoding happens once per function; [`lower`] then turns exits into panics or not, given the
//! functions known so far to always panic, so that the census can iterate to a fixpoint without
//! decoding again.

use crate::elf::{Function, Image};
use super::guards::{Flow, Insn, Target};
use costbench_record::instrument::census::classify::{classify, Kind};
use iced_x86::{Decoder, DecoderOptions, FlowControl, Mnemonic};
use std::collections::HashMap;

/// A way out of the function: the callee's address when known, and its kind when its name is a
/// panic entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// Address control goes to, when it is known statically; `None` for an indirect exit.
    pub addr: Option<u64>,
    /// The kind of check whose panic path the destination is, when its symbol names one.
    pub named: Option<Kind>,
}

/// Where a jump or branch goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dest {
    /// A destination inside the function, at this address.
    Local(u64),
    /// A destination outside the function.
    Out(Exit),
}

/// How control leaves one instruction, before deciding which exits panic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawFlow {
    /// Falls through to the next instruction.
    Next,
    /// Calls out and returns to the next instruction.
    Call(Exit),
    /// Jumps unconditionally.
    Jump(Dest),
    /// Branches conditionally, else falls through.
    Branch(Dest),
    /// Ends the function's flow (a return).
    Stop,
    /// Traps (an undefined or breakpoint instruction).
    Trap,
}

/// One decoded instruction, before its destinations are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw {
    /// Address of the instruction.
    pub addr: u64,
    /// Length of the instruction in bytes.
    pub len: u32,
    /// How control leaves the instruction.
    pub flow: RawFlow,
}

const UNKNOWN: Exit = Exit {
    addr: None,
    named: None,
};

/// The function's instructions, in address order. Decoding stops at bytes that do not decode
/// (data in text, or padding past the symbol's real end).
pub fn decode(image: &Image<'_>, f: &Function) -> Vec<Raw> {
    let Some(bytes) = image.code(f.addr, f.size) else {
        return Vec::new();
    };
    let end = f.addr + f.size;
    let exit = |(addr, name): (Option<u64>, Option<&str>)| Exit {
        addr,
        named: name.and_then(classify),
    };
    let dest = |t: u64| -> Dest {
        if (f.addr..end).contains(&t) {
            Dest::Local(t)
        } else {
            Dest::Out(exit(image.callee_at(t)))
        }
    };
    // `call`/`jmp [rip + X]`: through a GOT slot.
    let through_slot = |i: &iced_x86::Instruction| -> Option<Exit> {
        i.is_ip_rel_memory_operand()
            .then(|| exit(image.callee_in_slot(i.ip_rel_memory_address())))
    };
    let mut out = Vec::with_capacity(bytes.len() / 4);
    let mut dec = Decoder::with_ip(64, bytes, f.addr, DecoderOptions::NONE);
    while dec.can_decode() {
        let i = dec.decode();
        if i.is_invalid() {
            break;
        }
        let flow = match i.flow_control() {
            FlowControl::Next | FlowControl::XbeginXabortXend => RawFlow::Next,
            FlowControl::UnconditionalBranch => RawFlow::Jump(dest(i.near_branch_target())),
            FlowControl::ConditionalBranch => RawFlow::Branch(dest(i.near_branch_target())),
            // A tail call through the GOT, possibly to a panic function; a jump table otherwise.
            FlowControl::IndirectBranch => match through_slot(&i) {
                Some(e) => RawFlow::Jump(Dest::Out(e)),
                None => RawFlow::Stop,
            },
            FlowControl::Return => RawFlow::Stop,
            FlowControl::Call => RawFlow::Call(exit(image.callee_at(i.near_branch_target()))),
            FlowControl::IndirectCall => RawFlow::Call(through_slot(&i).unwrap_or(UNKNOWN)),
            FlowControl::Interrupt => match i.mnemonic() {
                Mnemonic::Int3 | Mnemonic::Int1 | Mnemonic::Into => RawFlow::Stop,
                // syscall and friends return.
                _ => RawFlow::Next,
            },
            FlowControl::Exception => match i.mnemonic() {
                Mnemonic::Ud2 | Mnemonic::Ud0 | Mnemonic::Ud1 => RawFlow::Trap,
                _ => RawFlow::Stop,
            },
        };
        out.push(Raw {
            addr: i.ip(),
            len: i.len() as u32,
            flow,
        });
    }
    out
}

/// Addresses of the functions `raw` calls or jumps to whose names are not panic entry points:
/// the functions whose status as "always panics" can change what `raw` is.
pub fn unnamed_exits(raw: &[Raw]) -> impl Iterator<Item = u64> + '_ {
    raw.iter().filter_map(|r| match r.flow {
        RawFlow::Call(e) | RawFlow::Jump(Dest::Out(e)) | RawFlow::Branch(Dest::Out(e))
            if e.named.is_none() =>
        {
            e.addr
        }
        _ => None,
    })
}

/// Decides which exits panic: those to panic entry points by name, and those to functions in
/// `diverging` (functions found to panic on every path, with the kind they panic with).
pub fn lower(raw: &[Raw], diverging: &HashMap<u64, Kind>) -> Vec<Insn> {
    let kind = |e: Exit| {
        e.named
            .or_else(|| e.addr.and_then(|a| diverging.get(&a).copied()))
    };
    let target = |d: Dest| match d {
        Dest::Local(a) => Target::Local(a),
        Dest::Out(e) => kind(e).map_or(Target::Elsewhere, Target::Panic),
    };
    raw.iter()
        .map(|r| Insn {
            addr: r.addr,
            len: r.len,
            flow: match r.flow {
                RawFlow::Next => Flow::Next,
                RawFlow::Call(e) => Flow::Call(kind(e)),
                RawFlow::Jump(d) => Flow::Jump(target(d)),
                RawFlow::Branch(d) => Flow::Branch(target(d)),
                RawFlow::Stop => Flow::Stop,
                RawFlow::Trap => Flow::Trap,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exits_to_diverging_functions_become_panics() {
        let raw = [
            Raw {
                addr: 0x10,
                len: 2,
                flow: RawFlow::Branch(Dest::Local(0x13)),
            },
            Raw {
                addr: 0x12,
                len: 1,
                flow: RawFlow::Stop,
            },
            Raw {
                addr: 0x13,
                len: 5,
                flow: RawFlow::Call(Exit {
                    addr: Some(0x900),
                    named: None,
                }),
            },
        ];
        assert_eq!(unnamed_exits(&raw).collect::<Vec<_>>(), vec![0x900]);
        let plain = lower(&raw, &HashMap::new());
        assert_eq!(plain[2].flow, Flow::Call(None));
        let diverging: HashMap<u64, Kind> = [(0x900, Kind::OtherPanic)].into_iter().collect();
        let lowered = lower(&raw, &diverging);
        assert_eq!(lowered[2].flow, Flow::Call(Some(Kind::OtherPanic)));
        assert_eq!(super::super::guards::find(&lowered).len(), 1);
    }
}
