//! Products and transposes.
//!
//! The matrix product is the Method of Four Russians (M4RM): the rows of the right factor are
//! taken 64 at a time, and each row of the left factor picks its combination of them from eight
//! byte-indexed tables. The transpose works on 64 x 64 blocks, each transposed inside 64 words.

use super::bitvec::BitVec;
use super::matrix::BitMatrix;
use super::russians::{CHUNK, Sources, Tables};

/// Below this many destination rows, building tables costs more than adding rows directly.
const TABLE_MIN_ROWS: usize = 128;

/// Blocks per side of a transpose tile: 8 words are one 64-byte cache line.
const TILE: usize = 8;

impl BitMatrix {
    /// The transpose.
    pub fn transpose(&self) -> BitMatrix {
        let (rows, cols) = (self.rows(), self.cols());
        let mut t = BitMatrix::zeros(cols, rows);
        let (s, ts) = (self.stride(), t.stride());
        let mut block = [0u64; 64];
        // Tiles of TILE x TILE blocks: a tile reads and writes whole cache lines that stay in L1.
        for bi0 in (0..rows.div_ceil(64)).step_by(TILE) {
            for bj0 in (0..s).step_by(TILE) {
                for bi in bi0..(bi0 + TILE).min(rows.div_ceil(64)) {
                    let r0 = bi * 64;
                    let rn = (rows - r0).min(64);
                    for bj in bj0..(bj0 + TILE).min(s) {
                        let c0 = bj * 64;
                        let cn = (cols - c0).min(64);
                        for (k, b) in block.iter_mut().enumerate() {
                            *b = if k < rn {
                                self.data()[(r0 + k) * s + bj]
                            } else {
                                0
                            };
                        }
                        transpose64(&mut block);
                        let td = t.data_mut();
                        for (k, &b) in block.iter().enumerate().take(cn) {
                            td[(c0 + k) * ts + bi] = b;
                        }
                    }
                }
            }
        }
        t
    }

    /// The product `self * v` (a vector of length `rows`).
    ///
    /// # Panics
    /// If `v` does not have `cols` bits.
    pub fn mul_vec(&self, v: &BitVec) -> BitVec {
        assert_eq!(
            v.len(),
            self.cols(),
            "matrix has {} columns, vector {} bits",
            self.cols(),
            v.len()
        );
        let mut out = BitVec::zeros(self.rows());
        for i in 0..self.rows() {
            let p = self
                .row(i)
                .iter()
                .zip(v.words())
                .fold(0u64, |acc, (a, b)| acc ^ (a & b));
            if p.count_ones() & 1 == 1 {
                out.set(i, true);
            }
        }
        out
    }

    /// The product `self * other`.
    ///
    /// # Panics
    /// If `self.cols() != other.rows()`.
    pub fn mul(&self, other: &BitMatrix) -> BitMatrix {
        assert_eq!(
            self.cols(),
            other.rows(),
            "product of {}x{} and {}x{}",
            self.rows(),
            self.cols(),
            other.rows(),
            other.cols()
        );
        let mut out = BitMatrix::zeros(self.rows(), other.cols());
        let os = other.stride();
        if self.rows() < TABLE_MIN_ROWS {
            for i in 0..self.rows() {
                for (w, &word) in self.row(i).iter().enumerate() {
                    let mut x = word;
                    while x != 0 {
                        let k = w * 64 + x.trailing_zeros() as usize;
                        x &= x - 1;
                        let src = &other.data()[k * os..(k + 1) * os];
                        for (d, s) in out.row_mut(i).iter_mut().zip(src) {
                            *d ^= s;
                        }
                    }
                }
            }
            return out;
        }
        let mut tables = Tables::new();
        let mut idx = vec![0u64; self.rows()];
        for w in 0..self.stride() {
            let mut sources: Sources = [None; 64];
            for (b, src) in sources.iter_mut().enumerate() {
                let k = w * 64 + b;
                if k < other.rows() {
                    *src = Some(k);
                }
            }
            if !tables.set_sources(&sources) {
                continue;
            }
            for (i, x) in idx.iter_mut().enumerate() {
                *x = self.data()[i * self.stride() + w];
            }
            let mut off = 0;
            while off < os {
                let len = CHUNK.min(os - off);
                tables.build(other.data(), os, &sources, off, len);
                tables.apply(out.data_mut(), os, &idx, 0..self.rows(), off, len);
                off += len;
            }
        }
        out
    }
}

/// Transposes a 64 x 64 block held as 64 words (bit `j` of word `i` is entry `(i, j)`) in place:
/// swaps the off-diagonal 32 x 32 blocks, then the 16 x 16 blocks inside each quarter, and so on.
#[inline]
pub(super) fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gf2::SplitMix64;
    use rand::RngCore;

    fn slow_transpose(a: &BitMatrix) -> BitMatrix {
        let mut t = BitMatrix::zeros(a.cols(), a.rows());
        for i in 0..a.rows() {
            for j in 0..a.cols() {
                t.set(j, i, a.get(i, j));
            }
        }
        t
    }

    fn slow_mul(a: &BitMatrix, b: &BitMatrix) -> BitMatrix {
        let mut c = BitMatrix::zeros(a.rows(), b.cols());
        for i in 0..a.rows() {
            for j in 0..b.cols() {
                let s = (0..a.cols())
                    .filter(|&k| a.get(i, k) && b.get(k, j))
                    .count();
                c.set(i, j, s % 2 == 1);
            }
        }
        c
    }

    #[test]
    fn transpose64_swaps_entries() {
        let mut g = SplitMix64::new(3);
        let a = BitMatrix::random(64, 64, &mut g);
        let mut block = [0u64; 64];
        block.copy_from_slice(a.data());
        transpose64(&mut block);
        for i in 0..64 {
            for (j, &word) in block.iter().enumerate() {
                assert_eq!((word >> i) & 1 == 1, a.get(i, j));
            }
        }
    }

    #[test]
    fn transpose_matches_entrywise() {
        let mut g = SplitMix64::new(4);
        for (r, c) in [
            (0, 0),
            (0, 5),
            (7, 0),
            (1, 1),
            (65, 3),
            (3, 130),
            (129, 200),
            (64, 64),
        ] {
            let a = BitMatrix::random(r, c, &mut g);
            let t = a.transpose();
            assert_eq!(t, slow_transpose(&a), "{r}x{c}");
            assert_eq!(t.transpose(), a);
        }
    }

    #[test]
    fn products_match_entrywise() {
        let mut g = SplitMix64::new(5);
        // Both the direct path (few rows) and the table path (>= 128 rows), with ragged sizes.
        for (m, k, n) in [
            (0, 3, 4),
            (3, 0, 4),
            (5, 70, 9),
            (130, 67, 75),
            (200, 129, 10),
        ] {
            let a = BitMatrix::random(m, k, &mut g);
            let b = BitMatrix::random(k, n, &mut g);
            assert_eq!(a.mul(&b), slow_mul(&a, &b), "{m}x{k} * {k}x{n}");
        }
        let a = BitMatrix::random(150, 90, &mut g);
        let v = BitVec::from_words(vec![g.next_u64(), g.next_u64()], 90);
        let col = BitMatrix::from_rows(std::slice::from_ref(&v), 90).transpose();
        assert_eq!(a.mul_vec(&v), a.mul(&col).col_vec(0));
    }
}
