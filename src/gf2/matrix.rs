//! Dense bit matrices over GF(2), row-major, each row padded to a whole number of `u64` words.

use super::bitvec::{BitVec, words_for};
use std::fmt;

/// A dense `rows x cols` matrix over GF(2).
#[derive(Clone, PartialEq, Eq)]
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
        let mut v = BitVec::zeros(self.rows);
        for i in 0..self.rows {
            if self.get(i, j) {
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

    /// All the packed data, mutably.
    #[inline]
    pub fn data_mut(&mut self) -> &mut [u64] {
        &mut self.data
    }

    /// Adds row `src` into row `dst` (`dst != src`).
    #[inline]
    pub fn xor_row_into(&mut self, src: usize, dst: usize) {
        debug_assert_ne!(src, dst);
        let s = self.stride;
        let (a, b) = if src < dst {
            let (lo, hi) = self.data.split_at_mut(dst * s);
            (&lo[src * s..src * s + s], &mut hi[..s])
        } else {
            let (lo, hi) = self.data.split_at_mut(src * s);
            (&hi[..s] as &[u64], &mut lo[dst * s..dst * s + s])
        };
        for (d, x) in b.iter_mut().zip(a) {
            *d ^= x;
        }
    }

    /// Swaps two rows.
    #[inline]
    pub fn swap_rows(&mut self, a: usize, b: usize) {
        if a != b {
            let s = self.stride;
            for k in 0..s {
                self.data.swap(a * s + k, b * s + k);
            }
        }
    }

    /// The transpose.
    pub fn transpose(&self) -> BitMatrix {
        let mut t = BitMatrix::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in BitVec::from_words(self.row(i).to_vec(), self.cols).ones_iter() {
                t.set(j, i, true);
            }
        }
        t
    }

    /// The product `self * v` (a vector of length `rows`).
    pub fn mul_vec(&self, v: &BitVec) -> BitVec {
        assert_eq!(
            v.len(),
            self.cols,
            "matrix has {} columns, vector {} bits",
            self.cols,
            v.len()
        );
        let mut out = BitVec::zeros(self.rows);
        for i in 0..self.rows {
            let p = self
                .row(i)
                .iter()
                .zip(v.words())
                .map(|(a, b)| (a & b).count_ones())
                .sum::<u32>();
            if p & 1 == 1 {
                out.set(i, true);
            }
        }
        out
    }

    /// The product `self * other`.
    pub fn mul(&self, other: &BitMatrix) -> BitMatrix {
        assert_eq!(
            self.cols, other.rows,
            "product of {}x{} and {}x{}",
            self.rows, self.cols, other.rows, other.cols
        );
        let mut out = BitMatrix::zeros(self.rows, other.cols);
        for i in 0..self.rows {
            for k in BitVec::from_words(self.row(i).to_vec(), self.cols).ones_iter() {
                let s = other.stride;
                let src = &other.data[k * s..k * s + s];
                for (d, x) in out.data[i * s..i * s + s].iter_mut().zip(src) {
                    *d ^= x;
                }
            }
        }
        out
    }

    /// Reduces `self` in place to reduced row echelon form; returns the pivot column of each
    /// nonzero row, in order (so the rank is the length of the result).
    pub fn rref_in_place(&mut self) -> Vec<usize> {
        let mut pivots = Vec::new();
        let mut r = 0;
        for c in 0..self.cols {
            if r == self.rows {
                break;
            }
            let Some(p) = (r..self.rows).find(|&i| self.get(i, c)) else {
                continue;
            };
            self.swap_rows(p, r);
            for i in 0..self.rows {
                if i != r && self.get(i, c) {
                    self.xor_row_into(r, i);
                }
            }
            pivots.push(c);
            r += 1;
        }
        pivots
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.clone().rref_in_place().len()
    }

    /// The reduced echelon form with the transform that produces it, for repeated solving.
    pub fn echelon(&self) -> Echelon {
        // Reduce [A | I] and split: T * A = R.
        let mut aug = BitMatrix::zeros(self.rows, self.cols + self.rows);
        for i in 0..self.rows {
            for j in BitVec::from_words(self.row(i).to_vec(), self.cols).ones_iter() {
                aug.set(i, j, true);
            }
            aug.set(i, self.cols + i, true);
        }
        let mut pivots = aug.rref_in_place();
        pivots.retain(|&c| c < self.cols);
        let mut rref = BitMatrix::zeros(self.rows, self.cols);
        let mut transform = BitMatrix::zeros(self.rows, self.rows);
        for i in 0..self.rows {
            for j in BitVec::from_words(aug.row(i).to_vec(), aug.cols).ones_iter() {
                if j < self.cols {
                    rref.set(i, j, true);
                } else {
                    transform.set(i, j - self.cols, true);
                }
            }
        }
        Echelon {
            rref,
            pivots,
            transform,
        }
    }

    /// One solution `x` of `self * x = b`, or a certificate `y` with `y^T self = 0` and
    /// `y . b = 1` proving that there is none.
    pub fn solve(&self, b: &BitVec) -> Result<BitVec, BitVec> {
        self.echelon().solve(b)
    }

    /// A basis of the kernel `{x : self * x = 0}`.
    pub fn kernel(&self) -> Vec<BitVec> {
        let mut r = self.clone();
        let pivots = r.rref_in_place();
        kernel_from_rref(&r, &pivots)
    }
}

fn kernel_from_rref(r: &BitMatrix, pivots: &[usize]) -> Vec<BitVec> {
    let mut is_pivot = vec![false; r.cols];
    for &p in pivots {
        is_pivot[p] = true;
    }
    let mut basis = Vec::new();
    for f in (0..r.cols).filter(|&c| !is_pivot[c]) {
        let mut v = BitVec::zeros(r.cols);
        v.set(f, true);
        for (i, &p) in pivots.iter().enumerate() {
            if r.get(i, f) {
                v.set(p, true);
            }
        }
        basis.push(v);
    }
    basis
}

/// A reduced row echelon form `R = T * A` with its pivots and transform `T` (invertible).
#[derive(Clone, Debug)]
pub struct Echelon {
    /// The reduced row echelon form of `A`.
    pub rref: BitMatrix,
    /// The pivot column of each of the first `rank` rows.
    pub pivots: Vec<usize>,
    /// The invertible row transform with `transform * A = rref`.
    pub transform: BitMatrix,
}

impl Echelon {
    /// The rank of `A`.
    pub fn rank(&self) -> usize {
        self.pivots.len()
    }

    /// One solution of `A x = b`, or a certificate `y` (`y^T A = 0`, `y . b = 1`).
    pub fn solve(&self, b: &BitVec) -> Result<BitVec, BitVec> {
        let tb = self.transform.mul_vec(b);
        let rank = self.rank();
        if let Some(i) = (rank..self.rref.rows()).find(|&i| tb.get(i)) {
            return Err(self.transform.row_vec(i));
        }
        let mut x = BitVec::zeros(self.rref.cols());
        for (i, &p) in self.pivots.iter().enumerate() {
            if tb.get(i) {
                x.set(p, true);
            }
        }
        Ok(x)
    }

    /// A basis of the kernel of `A`.
    pub fn kernel(&self) -> Vec<BitVec> {
        kernel_from_rref(&self.rref, &self.pivots)
    }
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

    #[test]
    fn solve_and_certificate() {
        // x0 + x1 = 1, x1 + x2 = 0, x0 + x2 = 1 (consistent); then b = 1,1,1 inconsistent.
        let a = BitMatrix::from_rows(
            &[
                BitVec::parse("110").unwrap(),
                BitVec::parse("011").unwrap(),
                BitVec::parse("101").unwrap(),
            ],
            3,
        );
        let b = BitVec::parse("101").unwrap();
        let x = a.solve(&b).unwrap();
        assert_eq!(a.mul_vec(&x), b);
        let bad = BitVec::parse("111").unwrap();
        let y = a.solve(&bad).unwrap_err();
        assert!(a.transpose().mul_vec(&y).is_zero());
        assert!(y.dot(&bad));
        assert_eq!(a.rank(), 2);
        let k = a.kernel();
        assert_eq!(k.len(), 1);
        assert!(a.mul_vec(&k[0]).is_zero());
    }
}
