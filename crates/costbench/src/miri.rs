//! Inputs for checking scenarios under Miri (`costbench miri`): a size knob that gives Miri a
//! smaller input, and byte buffers at 1-byte alignment for code that reads words out of bytes.
//!
//! `costbench miri` runs each scenario's setup and one run of its body under Miri, an
//! interpreter that reports undefined behaviour (out-of-bounds `get_unchecked`, misaligned
//! reads, use after free, data races) where it happens. Miri is thousands of times slower than
//! native code, so a scenario sized for measurement (a million lookups) would take minutes:
//! [`miri_size`] picks a smaller size when the code is compiled for Miri. Nothing here changes
//! what `costbench run` measures: outside Miri every function returns its normal input.

/// `full` normally, `small` when compiled for Miri (`cfg(miri)`): the size knob of a scenario
/// that `costbench miri` should check on a smaller input. A `const fn`, so it can size consts.
///
/// Keep `small` large enough to reach every branch of the unsafe code (odd lengths, a partial
/// last block, more than one loop iteration): Miri only sees the paths the input takes.
///
/// ```
/// use costbench::{black_box, miri_size, ops, Suite};
///
/// const LOOKUPS: usize = miri_size(100_000, 100);
///
/// let mut suite = Suite::new();
/// suite.bench("lookup/unchecked", ops(LOOKUPS as u64, "lookups"), |b| {
///     let data: Vec<u64> = (0..1024).collect();
///     let idx: Vec<usize> = (0..LOOKUPS).map(|i| i * 7 % 1024).collect();
///     // SAFETY: every index is below 1024 = data.len().
///     b.iter(|| idx.iter().map(|&i| unsafe { *black_box(&data).get_unchecked(i) }).sum::<u64>())
/// });
/// # assert_eq!(LOOKUPS, 100_000);
/// ```
pub const fn miri_size(full: usize, small: usize) -> usize {
    if cfg!(miri) {
        small
    } else {
        full
    }
}

/// Whether this code was compiled for Miri: for a scenario that wants an input of its own
/// under Miri beyond a smaller size.
///
/// ```
/// let rounds = if costbench::under_miri() { 1 } else { 16 };
/// # assert_eq!(rounds, 16);
/// ```
pub const fn under_miri() -> bool {
    cfg!(miri)
}

/// A copy of some bytes whose first byte sits exactly one byte past an 8-aligned address, so
/// that the data is aligned to 1 byte and to nothing more (as a buffer received from the
/// network or sliced out of a message can be). Give it to code that must not assume alignment:
/// under `costbench miri`, an aligned `u16`, `u32` or `u64` read at the start of the data, or at
/// any whole number of such words past it, is at an odd address and is reported as undefined
/// behaviour (a read that merely *happens* to be aligned on the heap is not).
///
/// The offset is the same in every run and every build, so instruction counts of a scenario
/// using it repeat; the backing allocation is 16-aligned, in native code and under Miri (whose
/// allocations can land at any address their alignment allows) alike, so the one-byte offset
/// always holds.
///
/// ```
/// use costbench::UnalignedBytes;
///
/// let data: Vec<u8> = (0..64).collect();
/// let odd = UnalignedBytes::new(&data);
/// assert_eq!(odd.as_slice(), &data[..]);
/// assert_eq!(odd.as_slice().as_ptr() as usize % 2, 1);
/// let first = u64::from_le_bytes(odd.as_slice()[..8].try_into().unwrap());
/// // SAFETY: 8 bytes are in bounds; read_unaligned needs no alignment.
/// let same = unsafe { odd.as_slice().as_ptr().cast::<u64>().read_unaligned() };
/// assert_eq!(first, u64::from_le(same));
/// ```
#[derive(Clone)]
pub struct UnalignedBytes {
    /// Backing store: 16-byte blocks so that the start is 16-aligned wherever the allocator
    /// (or Miri) puts it, and byte 1 is aligned to exactly 1.
    blocks: Vec<Align16>,
    len: usize,
}

#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Align16([u8; 16]);

impl UnalignedBytes {
    /// Copies `data` to one byte past a 16-aligned address.
    pub fn new(data: &[u8]) -> UnalignedBytes {
        let mut blocks = vec![Align16([0; 16]); (data.len() + 1).div_ceil(16)];
        // SAFETY: the blocks hold at least data.len() + 1 bytes, are plain bytes, and do not
        // overlap `data` (a fresh allocation).
        unsafe {
            let start = blocks.as_mut_ptr().cast::<u8>().add(1);
            std::ptr::copy_nonoverlapping(data.as_ptr(), start, data.len());
        }
        UnalignedBytes {
            blocks,
            len: data.len(),
        }
    }

    /// The bytes, starting at an odd address.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `new` copied `len` initialised bytes to offset 1 of the blocks, which stay
        // alive and unchanged while `self` is borrowed.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast::<u8>().add(1), self.len) }
    }

    /// Number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::ops::Deref for UnalignedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl std::fmt::Debug for UnalignedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnalignedBytes")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_at_an_odd_address_at_every_length() {
        for n in [0, 1, 15, 16, 17, 100] {
            let data: Vec<u8> = (0..n as u8).map(|b| b.wrapping_mul(37)).collect();
            let u = UnalignedBytes::new(&data);
            assert_eq!(u.as_slice(), &data[..]);
            assert_eq!(u.len(), n);
            assert_eq!(u.as_ptr() as usize % 16, 1, "length {n}");
        }
    }

    #[test]
    fn sizes_are_full_outside_miri() {
        assert_eq!(miri_size(1000, 10), if cfg!(miri) { 10 } else { 1000 });
        assert_eq!(under_miri(), cfg!(miri));
    }
}
