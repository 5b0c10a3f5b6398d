//! Decoding one function's x86-64 machine code (with `iced-x86`) into the instruction flows the
//! guard analysis needs, resolving every call and jump target to a local address, a panic entry
//! point or elsewhere.

use super::binary::{Function, Image};
use super::classify::{classify, Kind};
use super::guards::{Flow, Insn, Target};
use iced_x86::{Decoder, DecoderOptions, FlowControl, Mnemonic};

/// The function's instructions, in address order. Decoding stops at bytes that do not decode
/// (data in text, or padding past the symbol's real end).
pub fn decode(image: &Image<'_>, f: &Function) -> Vec<Insn> {
    let Some(bytes) = image.code(f.addr, f.size) else {
        return Vec::new();
    };
    let end = f.addr + f.size;
    let local_or = |t: u64| -> Target {
        if (f.addr..end).contains(&t) {
            Target::Local(t)
        } else {
            match image.callee_at(t).and_then(classify) {
                Some(k) => Target::Panic(k),
                None => Target::Elsewhere,
            }
        }
    };
    let mut out = Vec::with_capacity(bytes.len() / 4);
    let mut dec = Decoder::with_ip(64, bytes, f.addr, DecoderOptions::NONE);
    while dec.can_decode() {
        let i = dec.decode();
        if i.is_invalid() {
            break;
        }
        let flow = match i.flow_control() {
            FlowControl::Next | FlowControl::XbeginXabortXend => Flow::Next,
            FlowControl::UnconditionalBranch => Flow::Jump(local_or(i.near_branch_target())),
            FlowControl::ConditionalBranch => Flow::Branch(local_or(i.near_branch_target())),
            FlowControl::IndirectBranch => {
                // `jmp [rip + X]`: a tail call through the GOT, possibly to a panic function.
                match panic_through_slot(image, &i) {
                    Some(k) => Flow::Jump(Target::Panic(k)),
                    None => Flow::Stop,
                }
            }
            FlowControl::Return => Flow::Stop,
            FlowControl::Call => {
                Flow::Call(image.callee_at(i.near_branch_target()).and_then(classify))
            }
            FlowControl::IndirectCall => Flow::Call(panic_through_slot(image, &i)),
            FlowControl::Interrupt => match i.mnemonic() {
                Mnemonic::Int3 | Mnemonic::Int1 | Mnemonic::Into => Flow::Stop,
                // syscall and friends return.
                _ => Flow::Next,
            },
            FlowControl::Exception => match i.mnemonic() {
                Mnemonic::Ud2 | Mnemonic::Ud0 | Mnemonic::Ud1 => Flow::Trap,
                _ => Flow::Stop,
            },
        };
        out.push(Insn {
            addr: i.ip(),
            len: i.len() as u32,
            flow,
        });
    }
    out
}

/// The panic kind of a `call`/`jmp [rip + X]` whose GOT slot leads to a panic entry point.
fn panic_through_slot(image: &Image<'_>, i: &iced_x86::Instruction) -> Option<Kind> {
    if !i.is_ip_rel_memory_operand() {
        return None;
    }
    image
        .callee_in_slot(i.ip_rel_memory_address())
        .and_then(classify)
}
