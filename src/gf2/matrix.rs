//! Dense bit matrices over GF(2), row-major, each row padded to a whole number of `u64` words.
//!
//! Entry `(i, j)` is bit `j % 64` of word `i * stride + j / 64`; bits past `cols` in a row's last
//! word are always zero. Products and transposes live in `product.rs`, row reduction in
//! `reduce.rs`.

use super::bitvec::{BitVec, words_for};
use rand::RngCore;
use std::fmt;

/// A dense `rows x cols` matrix over GF(2).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitMatrix {
    rows: usize,
    cols: usize,
    stride: usize,
    data: Vec<u64>,
}

impl BitMatrix {
    /// The zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        let stride = words_for(cols);
        BitMatrix {
            rows,
            cols,
            stride,
            data: vec![0; rows * stride],
        }
    }

    /// The `n x n` identity.
    pub fn identity(n: usize) -> Self {
        let mut m = Self::zeros(n, n);
        for i in 0..n {
            m.set(i, i, true);
        }
        m
    }

    /// A matrix whose rows are the given vectors (all of length `cols`).
    ///
    /// # Panics
    /// If a vector's length is not `cols`.
    pub fn from_rows(rows: &[BitVec], cols: usize) -> Self {
        let mut m = Self::zeros(rows.len(), cols);
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(
                r.len(),
                cols,
                "row {i} has {} bits, expected {cols}",
                r.len()
            );
            m.row_mut(i).copy_from_slice(r.words());
        }
        m
    }

    /// A uniformly random matrix: one `rng.next_u64()` per word, rows in order and each row's
    /// words in order, bits past `cols` cleared.
    ///
    /// The fill order is fixed, so a seeded generator gives the same matrix everywhere; with
    /// [`SplitMix64`](super::SplitMix64) it is the matrix that `scripts/m4ri/bench.c` builds.
    /// Use a generator that is not linear over GF(2) (SplitMix64, ChaCha), or the matrix will
    /// have structure that elimination notices.
    pub fn random<R: RngCore + ?Sized>(rows: usize, cols: usize, rng: &mut R) -> Self {
        let mut m = Self::zeros(rows, cols);
        let tail = tail_mask(cols);
        for i in 0..rows {
            let row = m.row_mut(i);
            for w in row.iter_mut() {
                *w = rng.next_u64();
            }
            if let Some(last) = row.last_mut() {
                *last &= tail;
            }
        }
        m
    }

    /// The `rows x cols` matrix whose entries are `bits` in row-major order (a board's layout:
    /// entry `(i, j)` is bit `i * cols + j`).
    ///
    /// # Panics
    /// If `bits` does not have `rows * cols` bits.
    pub fn from_row_major(rows: usize, cols: usize, bits: &BitVec) -> Self {
        assert_eq!(
            bits.len(),
            rows * cols,
            "{rows}x{cols} entries from {} bits",
            bits.len()
        );
        let mut m = Self::zeros(rows, cols);
        if cols.is_multiple_of(64) {
            m.data.copy_from_slice(bits.words());
            return m;
        }
        for i in 0..rows {
            extract_bits(bits.words(), i * cols, cols, m.row_mut(i));
        }
        m
    }

    /// The entries in row-major order, the inverse of [`from_row_major`](Self::from_row_major).
    pub fn to_row_major(&self) -> BitVec {
        let (m, n) = (self.rows, self.cols);
        if n.is_multiple_of(64) {
            return BitVec::from_words(self.data.clone(), m * n);
        }
        let mut words = vec![0u64; words_for(m * n)];
        for i in 0..m {
            deposit_bits(&mut words, i * n, n, self.row(i));
        }
        BitVec::from_words(words, m * n)
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Words per row.
    #[inline]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Entry `(i, j)`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> bool {
        debug_assert!(i < self.rows && j < self.cols);
        (self.data[i * self.stride + j / 64] >> (j % 64)) & 1 == 1
    }

    /// Sets entry `(i, j)`.
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, b: bool) {
        debug_assert!(i < self.rows && j < self.cols);
        let w = &mut self.data[i * self.stride + j / 64];
        let m = 1u64 << (j % 64);
        if b { *w |= m } else { *w &= !m }
    }

    /// Flips entry `(i, j)`.
    #[inline]
    pub fn flip(&mut self, i: usize, j: usize) {
        debug_assert!(i < self.rows && j < self.cols);
        self.data[i * self.stride + j / 64] ^= 1u64 << (j % 64);
    }

    /// Row `i` as packed words.
    #[inline]
    pub fn row(&self, i: usize) -> &[u64] {
        &self.data[i * self.stride..(i + 1) * self.stride]
    }

    /// Row `i` as packed words, mutably. Callers must keep bits past `cols` zero.
    #[inline]
    pub fn row_mut(&mut self, i: usize) -> &mut [u64] {
        &mut self.data[i * self.stride..(i + 1) * self.stride]
    }

    /// Row `i` as a vector.
    pub fn row_vec(&self, i: usize) -> BitVec {
        BitVec::from_words(self.row(i).to_vec(), self.cols)
    }

    /// Column `j` as a vector.
    pub fn col_vec(&self, j: usize) -> BitVec {
        assert!(
            j < self.cols,
            "column {j} of a matrix with {} columns",
            self.cols
        );
        let mut v = BitVec::zeros(self.rows);
        let (w, shift) = (j / 64, j % 64);
        for i in 0..self.rows {
            if (self.data[i * self.stride + w] >> shift) & 1 == 1 {
                v.set(i, true);
            }
        }
        v
    }

    /// All the packed data, row after row.
    #[inline]
    pub fn data(&self) -> &[u64] {
        &self.data
    }

    /// All the packed data, mutably. Callers must keep bits past `cols` zero.
    #[inline]
    pub fn data_mut(&mut self) -> &mut [u64] {
        &mut self.data
    }

    /// Adds row `src` into row `dst` (`dst != src`).
    #[inline]
    pub fn xor_row_into(&mut self, src: usize, dst: usize) {
        assert_ne!(src, dst, "xor_row_into needs two different rows");
        xor_rows(&mut self.data, self.stride, src, dst, 0..self.stride);
    }

    /// Swaps two rows.
    #[inline]
    pub fn swap_rows(&mut self, a: usize, b: usize) {
        swap_rows(&mut self.data, self.stride, a, b);
    }

    /// The number of ones.
    pub fn weight(&self) -> usize {
        self.data.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True when every entry is zero.
    pub fn is_zero(&self) -> bool {
        self.data.iter().all(|&w| w == 0)
    }
}

/// Copies bits `start..start + len` of the packed bits `src` (zero past its end) into `dst`
/// from bit 0; bits of `dst` past `len` are cleared.
pub fn extract_bits(src: &[u64], start: usize, len: usize, dst: &mut [u64]) {
    for_extracted(src, start, len, dst, |d, v| *d = v);
    for d in dst.iter_mut().skip(words_for(len)) {
        *d = 0;
    }
}

/// XORs bits `start..start + len` of the packed bits `src` (zero past its end) into `dst`
/// from bit 0; bits of `dst` past `len` are left as they are.
pub fn extract_xor_bits(src: &[u64], start: usize, len: usize, dst: &mut [u64]) {
    for_extracted(src, start, len, dst, |d, v| *d ^= v);
}

/// Hands each word of bits `start..start + len` of `src` (zero past its end, the last word
/// masked to `len`) to `f` with the matching word of `dst`.
fn for_extracted(
    src: &[u64],
    start: usize,
    len: usize,
    dst: &mut [u64],
    f: impl Fn(&mut u64, u64),
) {
    let (q, r) = (start / 64, start % 64);
    for (w, d) in dst.iter_mut().enumerate().take(words_for(len)) {
        let i = q + w;
        let lo = src.get(i).copied().unwrap_or(0) >> r;
        let hi = if r != 0 {
            src.get(i + 1).copied().unwrap_or(0) << (64 - r)
        } else {
            0
        };
        let mut v = lo | hi;
        if w == len / 64 {
            v &= (1u64 << (len % 64)) - 1;
        }
        f(d, v);
    }
}

/// Writes the first `len` bits of `src` into bits `start..start + len` of `dst` (which must be
/// zero there).
fn deposit_bits(dst: &mut [u64], start: usize, len: usize, src: &[u64]) {
    let (q, r) = (start / 64, start % 64);
    for w in 0..words_for(len) {
        let mut v = src[w];
        if w == len / 64 && !len.is_multiple_of(64) {
            v &= (1u64 << (len % 64)) - 1;
        }
        dst[q + w] |= v << r;
        if r != 0 && q + w + 1 < dst.len() {
            dst[q + w + 1] |= v >> (64 - r);
        }
    }
}

/// The mask of the valid bits in the last word of a row of `cols` bits.
#[inline]
pub(super) fn tail_mask(cols: usize) -> u64 {
    match cols % 64 {
        0 => !0,
        r => (1u64 << r) - 1,
    }
}

/// Adds words `range` of row `src` into row `dst` (`src != dst`) of row-major `data`.
#[inline]
pub(super) fn xor_rows(
    data: &mut [u64],
    stride: usize,
    src: usize,
    dst: usize,
    range: std::ops::Range<usize>,
) {
    debug_assert_ne!(src, dst);
    let (s, d) = if src < dst {
        let (lo, hi) = data.split_at_mut(dst * stride);
        (&lo[src * stride..][range.clone()], &mut hi[range])
    } else {
        let (lo, hi) = data.split_at_mut(src * stride);
        (&hi[range.clone()] as &[u64], &mut lo[dst * stride..][range])
    };
    for (d, x) in d.iter_mut().zip(s) {
        *d ^= x;
    }
}

/// Swaps rows `a` and `b` of row-major `data`.
#[inline]
pub(super) fn swap_rows(data: &mut [u64], stride: usize, a: usize, b: usize) {
    if a == b {
        return;
    }
    let (a, b) = (a.min(b), a.max(b));
    let (lo, hi) = data.split_at_mut(b * stride);
    lo[a * stride..(a + 1) * stride].swap_with_slice(&mut hi[..stride]);
}

impl fmt::Debug for BitMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "BitMatrix {}x{}", self.rows, self.cols)?;
        for i in 0..self.rows {
            writeln!(f, "{}", self.row_vec(i))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gf2::SplitMix64;

    #[test]
    fn random_fill_order_and_tail() {
        let m = BitMatrix::random(3, 70, &mut SplitMix64::new(5));
        let mut g = SplitMix64::new(5);
        for i in 0..3 {
            assert_eq!(m.row(i)[0], g.next_u64());
            assert_eq!(m.row(i)[1], g.next_u64() & 0x3f);
        }
        assert!(m.weight() > 60);
        assert_eq!(BitMatrix::random(0, 5, &mut g), BitMatrix::zeros(0, 5));
    }

    #[test]
    fn row_major_roundtrip() {
        let mut g = SplitMix64::new(6);
        for (m, n) in [(0, 3), (1, 1), (3, 5), (2, 64), (3, 65), (4, 130), (5, 200)] {
            let bits = BitMatrix::random(1, m * n, &mut g).row_vec(0);
            let a = BitMatrix::from_row_major(m, n, &bits);
            for i in 0..m {
                for j in 0..n {
                    assert_eq!(a.get(i, j), bits.get(i * n + j));
                }
            }
            assert_eq!(a.to_row_major(), bits);
        }
    }

    #[test]
    fn row_operations() {
        let mut m = BitMatrix::identity(3);
        m.xor_row_into(0, 2);
        m.xor_row_into(2, 1);
        assert_eq!(m.row_vec(1).to_string(), "111");
        m.swap_rows(0, 1);
        assert_eq!(m.row_vec(0).to_string(), "111");
        assert_eq!(m.row_vec(1).to_string(), "100");
        assert_eq!(m.col_vec(2).to_string(), "101");
        m.flip(1, 2);
        assert!(m.get(1, 2));
        m.set(1, 2, false);
        assert_eq!(m.weight(), 6);
        assert!(!m.is_zero());
        assert!(BitMatrix::zeros(4, 9).is_zero());
    }
}
