//! A query cache in the Readyset mould: rows of a materialised view kept in memory, keyed
//! reads answered by looking the key up in an open-addressing index, filtering the rows of the
//! key's group and projecting the requested columns. Answered two ways: with indexing that
//! the optimiser cannot prove in bounds (a bounds check per row, per column and per probe),
//! and with `get_unchecked` after validating the query once.
//!
//! A query is [`QUERY_BYTES`] bytes: the key (8 bytes, little-endian), the filter threshold
//! (8 bytes) and [`PROJECTED`] column numbers (1 byte each). The reply is the [`PROJECTED`]
//! sums over the group's rows that pass the filter, then the number of such rows: 8 bytes each.

use crate::data::XorShift;

/// Columns of every row.
pub const COLUMNS: usize = 16;
/// Rows sharing one key (one group of the view).
pub const GROUP: usize = 128;
/// Columns a query asks for.
pub const PROJECTED: usize = 8;
/// Bytes of one query.
pub const QUERY_BYTES: usize = 16 + PROJECTED;
/// Bytes of one reply.
pub const REPLY_BYTES: usize = 8 * (PROJECTED + 1);

/// The cached view: `keys.len()` groups of [`GROUP`] rows of [`COLUMNS`] columns, and an
/// open-addressing index from key to group.
#[derive(Debug, Clone)]
pub struct Cache {
    keys: Vec<u64>,
    /// Row-major, group after group.
    cells: Vec<u64>,
    /// `slot -> group + 1`, 0 for empty; a power of two, at most half full.
    index: Vec<u32>,
}

/// Fibonacci hashing of a key to an index slot.
fn slot(key: u64, mask: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask
}

impl Cache {
    /// A view of `groups` groups with fixed-seed contents.
    pub fn new(groups: usize, seed: u64) -> Cache {
        let mut g = XorShift::new(seed);
        let keys: Vec<u64> = (0..groups).map(|_| g.next_u64()).collect();
        let cells = (0..groups * GROUP * COLUMNS)
            .map(|_| g.next_u64() % 1000)
            .collect();
        let size = (groups * 2).next_power_of_two().max(2);
        let mut index = vec![0u32; size];
        for (i, &k) in keys.iter().enumerate() {
            let mut s = slot(k, size - 1);
            while index[s] != 0 {
                s = (s + 1) & (size - 1);
            }
            index[s] = i as u32 + 1;
        }
        Cache { keys, cells, index }
    }

    /// The cached keys, in group order.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Answers `query` into `reply`, indexing with bounds checks. `None` for a key that is not
    /// cached or a column that does not exist.
    #[inline(never)]
    pub fn answer_checked(
        &self,
        query: &[u8; QUERY_BYTES],
        reply: &mut [u8; REPLY_BYTES],
    ) -> Option<()> {
        let key = u64::from_le_bytes(query[0..8].try_into().expect("8 bytes"));
        let min = u64::from_le_bytes(query[8..16].try_into().expect("8 bytes"));
        let cols = &query[16..];
        let mask = self.index.len() - 1;
        let mut s = slot(key, mask);
        let group = loop {
            let g = self.index[s] as usize;
            if g == 0 {
                return None;
            }
            if self.keys[g - 1] == key {
                break g - 1;
            }
            s = (s + 1) & mask;
        };
        let mut sums = [0u64; PROJECTED];
        let mut matched = 0u64;
        for r in 0..GROUP {
            let row = (group * GROUP + r) * COLUMNS;
            // The filter column is the first projected one.
            if self.cells[row + cols[0] as usize] < min {
                continue;
            }
            matched += 1;
            for (p, &c) in cols.iter().enumerate() {
                if c as usize >= COLUMNS {
                    return None;
                }
                sums[p] += self.cells[row + c as usize];
            }
        }
        write_reply(&sums, matched, reply);
        Some(())
    }

    /// Like [`Cache::answer_checked`], validating the query's columns once and indexing the
    /// index, the keys and the rows with `get_unchecked`.
    #[inline(never)]
    pub fn answer_unchecked(
        &self,
        query: &[u8; QUERY_BYTES],
        reply: &mut [u8; REPLY_BYTES],
    ) -> Option<()> {
        let key = u64::from_le_bytes(query[0..8].try_into().expect("8 bytes"));
        let min = u64::from_le_bytes(query[8..16].try_into().expect("8 bytes"));
        let cols: [u8; PROJECTED] = query[16..].try_into().expect("PROJECTED bytes");
        if cols.iter().any(|&c| c as usize >= COLUMNS) {
            return None;
        }
        let mask = self.index.len() - 1;
        let mut s = slot(key, mask);
        let group = loop {
            // SAFETY: `s` is masked to the index's power-of-two length.
            let g = unsafe { *self.index.get_unchecked(s) } as usize;
            if g == 0 {
                return None;
            }
            // SAFETY: the index holds group numbers + 1 of existing groups.
            if unsafe { *self.keys.get_unchecked(g - 1) } == key {
                break g - 1;
            }
            s = (s + 1) & mask;
        };
        let mut sums = [0u64; PROJECTED];
        let mut matched = 0u64;
        for r in 0..GROUP {
            let row = (group * GROUP + r) * COLUMNS;
            // SAFETY: `group` exists, so its rows are in `cells`, and every column is below
            // COLUMNS (checked above).
            if unsafe { *self.cells.get_unchecked(row + cols[0] as usize) } < min {
                continue;
            }
            matched += 1;
            for (p, &c) in cols.iter().enumerate() {
                // SAFETY: as above.
                sums[p] += unsafe { *self.cells.get_unchecked(row + c as usize) };
            }
        }
        write_reply(&sums, matched, reply);
        Some(())
    }
}

/// The reply: the projected sums, then the number of rows that passed the filter.
fn write_reply(sums: &[u64; PROJECTED], matched: u64, reply: &mut [u8; REPLY_BYTES]) {
    for (p, s) in sums.iter().enumerate() {
        reply[p * 8..p * 8 + 8].copy_from_slice(&s.to_le_bytes());
    }
    reply[PROJECTED * 8..].copy_from_slice(&matched.to_le_bytes());
}

/// Query number `i` of client `client` over `keys`: a fixed-seed choice of key, threshold and
/// columns.
pub fn query(keys: &[u64], client: u32, i: u64) -> [u8; QUERY_BYTES] {
    let mut g =
        XorShift::new((u64::from(client) << 40) ^ i.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 7);
    let mut q = [0u8; QUERY_BYTES];
    q[0..8].copy_from_slice(&keys[g.below(keys.len())].to_le_bytes());
    q[8..16].copy_from_slice(&(g.next_u64() % 500).to_le_bytes());
    for c in &mut q[16..] {
        *c = g.below(COLUMNS) as u8;
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways_give_the_same_replies_and_refuse_the_same_queries() {
        let cache = Cache::new(500, 3);
        for i in 0..2000 {
            let q = query(cache.keys(), (i % 3) as u32, i);
            let (mut a, mut b) = ([0u8; REPLY_BYTES], [0u8; REPLY_BYTES]);
            assert_eq!(cache.answer_checked(&q, &mut a), Some(()));
            assert_eq!(cache.answer_unchecked(&q, &mut b), Some(()));
            assert_eq!(a, b);
        }
        let mut q = query(cache.keys(), 0, 1);
        q[0..8].copy_from_slice(&12345u64.to_le_bytes());
        let mut r = [0u8; REPLY_BYTES];
        assert_eq!(cache.answer_checked(&q, &mut r), None);
        assert_eq!(cache.answer_unchecked(&q, &mut r), None);
        let mut q = query(cache.keys(), 0, 1);
        q[20] = COLUMNS as u8;
        assert_eq!(cache.answer_checked(&q, &mut r), None);
        assert_eq!(cache.answer_unchecked(&q, &mut r), None);
    }

    #[test]
    fn a_reply_sums_the_matching_rows() {
        let cache = Cache::new(10, 5);
        let mut q = query(cache.keys(), 0, 0);
        // Threshold 0: every row of the group matches.
        q[8..16].copy_from_slice(&0u64.to_le_bytes());
        let mut r = [0u8; REPLY_BYTES];
        cache.answer_checked(&q, &mut r).unwrap();
        assert_eq!(
            u64::from_le_bytes(r[PROJECTED * 8..].try_into().unwrap()),
            GROUP as u64
        );
    }
}
