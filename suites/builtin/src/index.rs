//! Indexing three ways: with bounds checks, with `get_unchecked`, and with iterators that need
//! no index at all. Sum over indirect indices, binary search, small matrix multiply.

/// Sums `data[i]` for every `i` in `idx`: one bounds check per element.
#[inline(never)]
pub fn sum_indirect_checked(data: &[u64], idx: &[usize]) -> u64 {
    let mut s = 0u64;
    for &i in idx {
        s = s.wrapping_add(data[i]);
    }
    s
}

/// Like [`sum_indirect_checked`] without bounds checks.
///
/// # Safety
/// Every index in `idx` must be below `data.len()`.
#[inline(never)]
pub unsafe fn sum_indirect_unchecked(data: &[u64], idx: &[usize]) -> u64 {
    let mut s = 0u64;
    for &i in idx {
        // SAFETY: the caller guarantees i < data.len().
        s = s.wrapping_add(unsafe { *data.get_unchecked(i) });
    }
    s
}

/// Like [`sum_indirect_checked`] with `get`, skipping out-of-range indices instead of panicking.
#[inline(never)]
pub fn sum_indirect_iter(data: &[u64], idx: &[usize]) -> u64 {
    idx.iter()
        .filter_map(|&i| data.get(i))
        .fold(0u64, |s, &x| s.wrapping_add(x))
}

/// Binary search for `needle` in sorted `hay`, indexing with bounds checks.
#[inline(never)]
pub fn binary_search_checked(hay: &[u64], needle: u64) -> Option<usize> {
    let (mut lo, mut hi) = (0usize, hay.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let v = hay[mid];
        if v == needle {
            return Some(mid);
        } else if v < needle {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    None
}

/// [`binary_search_checked`] with `get_unchecked`: `mid < hi <= len` always holds, so this one
/// is sound for every input.
#[inline(never)]
pub fn binary_search_unchecked(hay: &[u64], needle: u64) -> Option<usize> {
    let (mut lo, mut hi) = (0usize, hay.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // SAFETY: lo <= mid < hi <= hay.len().
        let v = unsafe { *hay.get_unchecked(mid) };
        if v == needle {
            return Some(mid);
        } else if v < needle {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    None
}

/// The position of `needle` in `hay`, looked for element after element from the front: `n`
/// comparisons when it is absent.
#[inline(never)]
pub fn linear_search(hay: &[u64], needle: u64) -> Option<usize> {
    hay.iter().position(|&x| x == needle)
}

/// The standard library's `binary_search`.
#[inline(never)]
pub fn binary_search_std(hay: &[u64], needle: u64) -> Option<usize> {
    hay.binary_search(&needle).ok()
}

/// `c = a × b` for row-major `n × n` matrices, with index arithmetic and bounds checks.
#[inline(never)]
pub fn matmul_checked(a: &[f64], b: &[f64], c: &mut [f64], n: usize) {
    for i in 0..n {
        for j in 0..n {
            let mut acc = 0.0;
            for k in 0..n {
                acc += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = acc;
        }
    }
}

/// [`matmul_checked`] without bounds checks.
///
/// # Safety
/// `a`, `b` and `c` must each hold at least `n * n` elements.
#[inline(never)]
pub unsafe fn matmul_unchecked(a: &[f64], b: &[f64], c: &mut [f64], n: usize) {
    for i in 0..n {
        for j in 0..n {
            let mut acc = 0.0;
            for k in 0..n {
                // SAFETY: i, j, k < n and the caller guarantees n * n elements.
                acc += unsafe { *a.get_unchecked(i * n + k) * *b.get_unchecked(k * n + j) };
            }
            // SAFETY: as above.
            unsafe { *c.get_unchecked_mut(i * n + j) = acc };
        }
    }
}

/// [`matmul_checked`] with iterators: rows of `a` zipped with a transposed copy of `b`.
#[inline(never)]
pub fn matmul_iter(a: &[f64], b_transposed: &[f64], c: &mut [f64], n: usize) {
    for (a_row, c_row) in a.chunks_exact(n).zip(c.chunks_exact_mut(n)) {
        for (b_col, out) in b_transposed.chunks_exact(n).zip(c_row.iter_mut()) {
            *out = a_row.iter().zip(b_col).map(|(x, y)| x * y).sum();
        }
    }
}

/// The transpose of a row-major `n × n` matrix.
pub fn transpose(m: &[f64], n: usize) -> Vec<f64> {
    (0..n * n).map(|k| m[(k % n) * n + k / n]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data;

    #[test]
    fn the_three_sums_agree() {
        let d = data::words(1000, 1);
        let idx = data::indices(500, 1000, 2);
        let c = sum_indirect_checked(&d, &idx);
        // SAFETY: indices() yields values below 1000.
        assert_eq!(c, unsafe { sum_indirect_unchecked(&d, &idx) });
        assert_eq!(c, sum_indirect_iter(&d, &idx));
    }

    #[test]
    fn the_three_searches_agree() {
        let mut hay = data::words(777, 3);
        hay.sort_unstable();
        for needle in hay
            .iter()
            .copied()
            .step_by(7)
            .chain([0, u64::MAX, hay[5] + 1])
        {
            let c = binary_search_checked(&hay, needle);
            assert_eq!(c, binary_search_unchecked(&hay, needle));
            assert_eq!(c.is_some(), binary_search_std(&hay, needle).is_some());
        }
    }

    #[test]
    fn the_three_products_agree() {
        let n = 8;
        let a: Vec<f64> = (0..n * n).map(|x| x as f64).collect();
        let b: Vec<f64> = (0..n * n).map(|x| (x % 5) as f64).collect();
        let (mut c1, mut c2, mut c3) = (vec![0.0; n * n], vec![0.0; n * n], vec![0.0; n * n]);
        matmul_checked(&a, &b, &mut c1, n);
        // SAFETY: all three hold n * n elements.
        unsafe { matmul_unchecked(&a, &b, &mut c2, n) };
        matmul_iter(&a, &transpose(&b, n), &mut c3, n);
        assert_eq!(c1, c2);
        assert_eq!(c1, c3);
    }
}
