//! What capnp's `unaligned` feature costs per message read, as a costbench variant pair
//! (`costbench variants` in this directory: see costbench.toml), and Miri over the unaligned
//! side (`costbench miri --features unaligned`).
//!
//! The messages are `CodeGeneratorRequest`s of capnp's own schema (`schema.capnp`, whose generated
//! code ships inside the capnp crate as `capnp::schema_capnp`): a list of struct nodes, each with
//! an id, a display name, a scope and a list of fields with names, code orders, slot offsets and
//! types. That is a real schema with structs, unions, texts and lists of structs, without the
//! `capnp` compiler binary at build time.
//!
//! "Reading a message" is what a receiver does: `read_message_from_flat_slice` over the bytes
//! (segment table, bounds), then a walk of every node and field reading each scalar and the
//! length of each text. Without the feature capnp requires 8-byte-aligned segments and checks
//! that they are; with it, it reads words with unaligned loads and accepts any address. The
//! `read/aligned` scenario reads the same 8-aligned buffers in both builds, so the difference
//! between the variants is the feature's own cost; `read/misaligned` (only with the feature)
//! reads them one byte past an 8-aligned address, which only the unaligned build accepts, and is
//! the input Miri checks the unaligned reads on.

use capnp::message::{Builder, ReaderOptions};
use capnp::schema_capnp::{code_generator_request, node, type_};
use capnp::serialize;
use costbench::{black_box, miri_size, ops, Suite};

/// Messages read per run of the body.
const MESSAGES: usize = miri_size(64, 2);
/// Struct nodes per message and fields per node.
const NODES: u32 = miri_size(16, 3) as u32;
const FIELDS: u32 = miri_size(8, 3) as u32;

/// Message `m` serialized (segment table and segments) into 8-byte words, so that the bytes sit
/// at an 8-aligned address as capnp's default build requires.
fn message(m: u32) -> Vec<capnp::Word> {
    let mut msg = Builder::new_default();
    let req = msg.init_root::<code_generator_request::Builder>();
    let mut nodes = req.init_nodes(NODES);
    for i in 0..NODES {
        let mut n = nodes.reborrow().get(i);
        n.set_id(0x8000_0000_0000_0000 | u64::from(m) << 16 | u64::from(i));
        n.set_display_name(format!("example/file{m}.capnp:Record{i}").as_str());
        n.set_display_name_prefix_length(20);
        n.set_scope_id(0x8000_0000_0000_0000 | u64::from(m));
        let mut s = n.init_struct();
        s.set_data_word_count(FIELDS.div_ceil(2) as u16);
        s.set_pointer_count(1);
        let mut fields = s.init_fields(FIELDS);
        for j in 0..FIELDS {
            let mut f = fields.reborrow().get(j);
            f.set_name(format!("field_{j}").as_str());
            f.set_code_order(j as u16);
            f.set_discriminant_value(0xffff);
            let mut slot = f.init_slot();
            slot.set_offset(j);
            if j % 2 == 0 {
                slot.init_type().set_uint64(());
            } else {
                slot.init_type().set_text(());
            }
        }
    }
    let bytes = serialize::write_message_to_words(&msg);
    let mut words = capnp::Word::allocate_zeroed_vec(bytes.len() / 8);
    capnp::Word::words_to_bytes_mut(&mut words).copy_from_slice(&bytes);
    words
}

/// Reads one serialized message and folds every scalar and text length it holds into a sum.
fn read(mut bytes: &[u8]) -> capnp::Result<u64> {
    let msg = serialize::read_message_from_flat_slice(&mut bytes, ReaderOptions::new())?;
    let req = msg.get_root::<code_generator_request::Reader>()?;
    let mut sum = 0u64;
    for n in req.get_nodes()? {
        sum = sum
            .wrapping_add(n.get_id())
            .wrapping_add(n.get_scope_id())
            .wrapping_add(n.get_display_name()?.as_bytes().len() as u64)
            .wrapping_add(u64::from(n.get_display_name_prefix_length()));
        if let node::Struct(s) = n.which()? {
            sum = sum.wrapping_add(u64::from(s.get_data_word_count()));
            for f in s.get_fields()? {
                sum = sum
                    .wrapping_add(f.get_name()?.as_bytes().len() as u64)
                    .wrapping_add(u64::from(f.get_code_order()))
                    .wrapping_add(u64::from(f.get_discriminant_value()));
                if let capnp::schema_capnp::field::Slot(slot) = f.which()? {
                    sum = sum.wrapping_add(u64::from(slot.get_offset()));
                    sum = sum.wrapping_add(match slot.get_type()?.which()? {
                        type_::Uint64(()) => 1,
                        type_::Text(()) => 2,
                        _ => 3,
                    });
                }
            }
        }
    }
    Ok(sum)
}

fn read_all<'a>(messages: impl Iterator<Item = &'a [u8]>) -> u64 {
    messages.fold(0u64, |acc, m| {
        acc.wrapping_add(read(black_box(m)).expect("a well-formed message"))
    })
}

fn main() {
    let mut suite = Suite::new();
    let per_message = ops(MESSAGES as u64, "messages");
    suite.bench("read/aligned", per_message.clone(), |b| {
        let messages: Vec<Vec<capnp::Word>> = (0..MESSAGES as u32).map(message).collect();
        b.iter(|| read_all(messages.iter().map(|w| capnp::Word::words_to_bytes(w))))
    });
    // Only the unaligned build can read a segment at an odd address: the default build refuses
    // it with `UnalignedSegment` before reading anything.
    #[cfg(feature = "unaligned")]
    suite.bench("read/misaligned", per_message, |b| {
        let messages: Vec<costbench::UnalignedBytes> = (0..MESSAGES as u32)
            .map(|m| costbench::UnalignedBytes::new(capnp::Word::words_to_bytes(&message(m))))
            .collect();
        b.iter(|| read_all(messages.iter().map(|u| u.as_slice())))
    });
    #[cfg(not(feature = "unaligned"))]
    drop(per_message);
    suite.main();
}
