//! The classic per-packet comparison: one small packet-processing kernel (parse a batch of
//! Ethernet/IPv4/TCP-UDP headers from a ring of fixed-size buffers, update per-flow counters)
//! written in C (`csrc/packet.c`, built with the `cc` crate), in idiomatic Rust with bounds
//! checks, and in Rust with unchecked access. The three do exactly the same work; the counters
//! tables show how many more instructions the checked version runs and how much of that shows
//! up as (simulated or hardware) cycles.

use crate::data::XorShift;

/// Bytes per ring slot: a minimum-size Ethernet frame.
pub const SLOT: usize = 64;

/// One flow's counters; the same layout as `struct costbench_flow` in C.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flow {
    pub packets: u64,
    pub bytes: u64,
}

extern "C" {
    fn costbench_packet_batch_c(
        ring: *const u8,
        slot_size: usize,
        slots: usize,
        head: usize,
        batch: usize,
        flows: *mut Flow,
        nflows: usize,
    ) -> u64;
}

/// A ring of `slots` packets (a power of two) with headers from a fixed seed: mostly IPv4 TCP
/// and UDP over a few hundred flows, some ARP and ICMP that the kernel skips.
pub fn ring(slots: usize, seed: u64) -> Vec<u8> {
    assert!(slots.is_power_of_two());
    let mut g = XorShift::new(seed);
    let mut ring = vec![0u8; slots * SLOT];
    for p in ring.chunks_exact_mut(SLOT) {
        let kind = g.below(20);
        let ethertype: u16 = if kind == 0 { 0x0806 } else { 0x0800 };
        p[12..14].copy_from_slice(&ethertype.to_be_bytes());
        p[14] = 0x45;
        let len = 40 + g.below(1400) as u16;
        p[16..18].copy_from_slice(&len.to_be_bytes());
        p[23] = match kind {
            1 => 1, // ICMP
            2..=9 => 17,
            _ => 6,
        };
        let flow = g.below(300) as u32;
        p[26..30].copy_from_slice(&(0x0a00_0000 | flow).to_be_bytes());
        p[30..34].copy_from_slice(&(0xc0a8_0001u32).to_be_bytes());
        p[34..36].copy_from_slice(&(1024 + flow as u16).to_be_bytes());
        p[36..38].copy_from_slice(&443u16.to_be_bytes());
    }
    ring
}

/// The C kernel over one batch.
pub fn batch_c(ring: &[u8], head: usize, batch: usize, flows: &mut [Flow]) -> u64 {
    let slots = ring.len() / SLOT;
    assert!(slots.is_power_of_two() && flows.len().is_power_of_two());
    // SAFETY: the ring holds `slots` slots of SLOT bytes, a power of two of them, so every
    // masked slot is in bounds, and every header offset the kernel reads is below SLOT; the
    // flow index is masked by `flows.len() - 1`, a power of two minus one.
    unsafe {
        costbench_packet_batch_c(
            ring.as_ptr(),
            SLOT,
            slots,
            head,
            batch,
            flows.as_mut_ptr(),
            flows.len(),
        )
    }
}

fn hash(src: u32, dst: u32, sport: u32, dport: u32, proto: u32) -> u32 {
    let mut h = src.wrapping_mul(0x9E37_79B1);
    h ^= dst.wrapping_mul(0x85EB_CA77);
    h ^= ((sport << 16) | dport).wrapping_mul(0xC2B2_AE3D);
    h ^= proto;
    h ^ (h >> 15)
}

fn be16(p: &[u8], i: usize) -> u32 {
    u32::from(u16::from_be_bytes([p[i], p[i + 1]]))
}

fn be32(p: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]])
}

/// Idiomatic Rust: slices and indexing, every access bounds-checked.
#[inline(never)]
pub fn batch_checked(
    ring: &[u8],
    slot_size: usize,
    head: usize,
    batch: usize,
    flows: &mut [Flow],
) -> u64 {
    let slots = ring.len() / slot_size;
    let mut accepted = 0;
    for i in 0..batch {
        let at = ((head + i) & (slots - 1)) * slot_size;
        let p = &ring[at..at + slot_size];
        if be16(p, 12) != 0x0800 {
            continue;
        }
        let proto = u32::from(p[23]);
        if proto != 6 && proto != 17 {
            continue;
        }
        let h = hash(be32(p, 26), be32(p, 30), be16(p, 34), be16(p, 36), proto);
        let f = &mut flows[h as usize & (flows.len() - 1)];
        f.packets += 1;
        f.bytes += u64::from(be16(p, 16));
        accepted += 1;
    }
    accepted
}

/// # Safety
/// `p` must point to at least `i + 2` readable bytes.
unsafe fn be16_unchecked(p: *const u8, i: usize) -> u32 {
    // SAFETY: guaranteed by the caller.
    unsafe { u32::from(u16::from_be_bytes([*p.add(i), *p.add(i + 1)])) }
}

/// # Safety
/// `p` must point to at least `i + 4` readable bytes.
unsafe fn be32_unchecked(p: *const u8, i: usize) -> u32 {
    // SAFETY: guaranteed by the caller.
    unsafe { u32::from_be_bytes([*p.add(i), *p.add(i + 1), *p.add(i + 2), *p.add(i + 3)]) }
}

/// The same kernel with unchecked access, as the C version does.
///
/// # Safety
/// `ring.len() / slot_size` must be a power of two, `slot_size` at least 38, and `flows.len()`
/// a power of two.
#[inline(never)]
pub unsafe fn batch_unchecked(
    ring: &[u8],
    slot_size: usize,
    head: usize,
    batch: usize,
    flows: &mut [Flow],
) -> u64 {
    let slots = ring.len() / slot_size;
    let mut accepted = 0;
    for i in 0..batch {
        // SAFETY: the slot index is masked below `slots`, so the slot lies in the ring, and
        // every offset read below is under 38 <= slot_size.
        unsafe {
            let p = ring.as_ptr().add(((head + i) & (slots - 1)) * slot_size);
            if be16_unchecked(p, 12) != 0x0800 {
                continue;
            }
            let proto = u32::from(*p.add(23));
            if proto != 6 && proto != 17 {
                continue;
            }
            let h = hash(
                be32_unchecked(p, 26),
                be32_unchecked(p, 30),
                be16_unchecked(p, 34),
                be16_unchecked(p, 36),
                proto,
            );
            let f = flows.get_unchecked_mut(h as usize & (flows.len() - 1));
            f.packets += 1;
            f.bytes += u64::from(be16_unchecked(p, 16));
        }
        accepted += 1;
    }
    accepted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_kernels_agree() {
        let r = ring(256, 1);
        let (mut a, mut b, mut c) = (
            vec![Flow::default(); 64],
            vec![Flow::default(); 64],
            vec![Flow::default(); 64],
        );
        let mut n = [0u64; 3];
        for head in (0..256).step_by(32) {
            n[0] += batch_c(&r, head, 32, &mut a);
            n[1] += batch_checked(&r, SLOT, head, 32, &mut b);
            // SAFETY: 256 slots of 64 bytes, 64 flows: powers of two.
            n[2] += unsafe { batch_unchecked(&r, SLOT, head, 32, &mut c) };
        }
        assert_eq!(n[0], n[1]);
        assert_eq!(n[0], n[2]);
        assert!(n[0] > 200 && n[0] < 256, "{n:?}");
        assert_eq!(a, b);
        assert_eq!(a, c);
    }
}
