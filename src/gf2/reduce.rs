//! Row reduction: reduced row echelon form with the pivot record, rank, solving with a
//! certificate of inconsistency, kernels, and the row transform for repeated solving.
//!
//! Two eliminators do the work: [`panel`](super::panel) (64 columns at a time; it alone tracks
//! the transform) and [`blocked`](super::blocked) (several panels per pass over the matrix, for
//! large matrices, where the panel eliminator is bound by memory traffic).

use super::bitvec::{BitVec, words_for};
use super::matrix::BitMatrix;
use super::panel::{Track, eliminate};
use super::{blocked, panel};

/// From this many rows and columns on the blocked eliminator is used: below, the matrix stays in
/// the caches and the panel eliminator's smaller tables win (measured: the panel eliminator is
/// faster at 8192 x 8192, the blocked one at 16384 x 16384).
const BLOCKED_MIN: usize = 12288;

/// Brings columns `0..ncols` of `m` to reduced row echelon form (`full`) or row echelon form
/// (`!full`) with whichever eliminator suits its size; returns the pivot columns.
fn reduce(m: &mut BitMatrix, ncols: usize, full: bool) -> Vec<usize> {
    let (rows, stride) = (m.rows(), m.stride());
    if rows >= BLOCKED_MIN && ncols >= BLOCKED_MIN {
        blocked::eliminate(m.data_mut(), rows, stride, ncols, full)
    } else {
        panel::eliminate(m.data_mut(), rows, stride, 0, ncols, full, None)
    }
}

impl BitMatrix {
    /// Reduces `self` in place to reduced row echelon form; returns the pivot column of each
    /// nonzero row, in order (so the rank is the length of the result).
    pub fn rref_in_place(&mut self) -> Vec<usize> {
        let cols = self.cols();
        reduce(self, cols, true)
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        let cols = self.cols();
        reduce(&mut self.clone(), cols, false).len()
    }

    /// The reduced echelon form with the transform that produces it, for repeated solving.
    pub fn echelon(&self) -> Echelon {
        let (rows, a_words) = (self.rows(), self.stride());
        let t_words = words_for(rows);
        let mut aug = BitMatrix::zeros(rows, 64 * (a_words + t_words));
        let s = aug.stride();
        for i in 0..rows {
            aug.data_mut()[i * s..i * s + a_words].copy_from_slice(self.row(i));
        }
        let mut track = Track {
            t_start: a_words,
            orig: (0..rows).collect(),
            chosen: Vec::with_capacity(rows),
        };
        let pivots = eliminate(
            aug.data_mut(),
            rows,
            s,
            0,
            self.cols(),
            true,
            Some(&mut track),
        );
        // The rows never chosen keep their identity columns; make them explicit too.
        for j in pivots.len()..rows {
            aug.data_mut()[j * s + a_words + j / 64] |= 1u64 << (j % 64);
            track.chosen.push(track.orig[j]);
        }
        let mut rref = BitMatrix::zeros(rows, self.cols());
        let mut compact = BitMatrix::zeros(rows, rows);
        for i in 0..rows {
            let row = &aug.data()[i * s..(i + 1) * s];
            rref.row_mut(i).copy_from_slice(&row[..a_words]);
            compact.row_mut(i).copy_from_slice(&row[a_words..]);
        }
        // transform[i][chosen[c]] = compact[i][c]: permute columns through the transpose.
        let by_col = compact.transpose();
        let mut permuted = BitMatrix::zeros(rows, rows);
        for (c, &o) in track.chosen.iter().enumerate() {
            permuted.row_mut(o).copy_from_slice(by_col.row(c));
        }
        Echelon {
            rref,
            pivots,
            transform: permuted.transpose(),
        }
    }

    /// One solution `x` of `self * x = b`, or a certificate `y` with `y^T self = 0` and
    /// `y . b = 1` proving that there is none.
    ///
    /// # Panics
    /// If `b` does not have `rows` bits.
    pub fn solve(&self, b: &BitVec) -> Result<BitVec, BitVec> {
        assert_eq!(
            b.len(),
            self.rows(),
            "right-hand side has {} bits, matrix {} rows",
            b.len(),
            self.rows()
        );
        // Bring [A | b] to row echelon form; the column of b sits in its own word after A's.
        let a_words = self.stride();
        let mut aug = BitMatrix::zeros(self.rows(), 64 * (a_words + 1));
        let s = aug.stride();
        for i in 0..self.rows() {
            let row = &mut aug.data_mut()[i * s..(i + 1) * s];
            row[..a_words].copy_from_slice(self.row(i));
            row[a_words] = u64::from(b.get(i));
        }
        let pivots = reduce(&mut aug, self.cols(), false);
        let rank = pivots.len();
        let rhs = |i: usize| aug.data()[i * s + a_words] & 1 == 1;
        if (rank..self.rows()).any(rhs) {
            // b is outside the column space, the orthogonal complement of ker(A^T): some
            // basis vector of ker(A^T) has an odd dot product with b.
            let cert = self
                .transpose()
                .kernel()
                .into_iter()
                .find(|y| y.dot(b))
                .unwrap_or_else(|| unreachable!("an inconsistent system has a certificate"));
            return Err(cert);
        }
        // Back substitution with the free variables zero: pivot row i has zeros in the pivot
        // columns before its own, so its variable follows from those of the rows below it.
        let mut x = BitVec::zeros(self.cols());
        for (i, &p) in pivots.iter().enumerate().rev() {
            let row = &aug.data()[i * s..i * s + a_words];
            let dot = row[p / 64..]
                .iter()
                .zip(&x.words()[p / 64..])
                .fold(0u64, |acc, (a, b)| acc ^ (a & b));
            if (dot.count_ones() & 1 == 1) != rhs(i) {
                x.set(p, true);
            }
        }
        Ok(x)
    }

    /// A basis of the kernel `{x : self * x = 0}`.
    pub fn kernel(&self) -> Vec<BitVec> {
        let mut r = self.clone();
        let pivots = r.rref_in_place();
        kernel_from_rref(&r, &pivots)
    }

    /// The inverse, or `None` when the matrix is not square or is singular.
    pub fn inverse(&self) -> Option<BitMatrix> {
        if self.rows() != self.cols() {
            return None;
        }
        let e = self.echelon();
        (e.rank() == self.rows()).then_some(e.transform)
    }
}

/// The kernel basis read off a reduced row echelon form: one vector per free column `f`, with a
/// one at `f` and at the pivot of every row that has a one in column `f`.
fn kernel_from_rref(r: &BitMatrix, pivots: &[usize]) -> Vec<BitVec> {
    let mut is_pivot = vec![false; r.cols()];
    for &p in pivots {
        is_pivot[p] = true;
    }
    (0..r.cols())
        .filter(|&f| !is_pivot[f])
        .map(|f| {
            let mut v = BitVec::unit(r.cols(), f);
            for (i, &p) in pivots.iter().enumerate() {
                if r.get(i, f) {
                    v.set(p, true);
                }
            }
            v
        })
        .collect()
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
    ///
    /// # Panics
    /// If `b` does not have as many bits as `A` has rows.
    pub fn solve(&self, b: &BitVec) -> Result<BitVec, BitVec> {
        self.solve_transformed(&self.transform.mul_vec(b))
    }

    /// [`solve`](Self::solve) for many right-hand sides at once: `T B` is one matrix product
    /// instead of one matrix-vector product per vector.
    ///
    /// # Panics
    /// If some `b` does not have as many bits as `A` has rows.
    pub fn solve_many(&self, bs: &[BitVec]) -> Vec<Result<BitVec, BitVec>> {
        let rows = self.rref.rows();
        if bs.len() < 8 {
            return bs.iter().map(|b| self.solve(b)).collect();
        }
        // Rows of (T B)^T are the vectors T b.
        let tb = self
            .transform
            .mul(&BitMatrix::from_rows(bs, rows).transpose())
            .transpose();
        (0..bs.len())
            .map(|j| self.solve_transformed(&tb.row_vec(j)))
            .collect()
    }

    fn solve_transformed(&self, tb: &BitVec) -> Result<BitVec, BitVec> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gf2::SplitMix64;

    fn check_echelon(a: &BitMatrix) {
        let e = a.echelon();
        assert_eq!(
            e.transform.mul(a),
            e.rref,
            "T A = R for {}x{}",
            a.rows(),
            a.cols()
        );
        let mut r = a.clone();
        let p = r.rref_in_place();
        assert_eq!(r, e.rref);
        assert_eq!(p, e.pivots);
        assert_eq!(a.rank(), p.len());
        assert_eq!(e.transform.rank(), a.rows(), "T is invertible");
    }

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
        let y = a.echelon().solve(&bad).unwrap_err();
        assert!(a.transpose().mul_vec(&y).is_zero());
        assert!(y.dot(&bad));
        assert_eq!(a.rank(), 2);
        let k = a.kernel();
        assert_eq!(k.len(), 1);
        assert!(a.mul_vec(&k[0]).is_zero());
    }

    #[test]
    fn echelon_transform_on_table_and_direct_paths() {
        let mut g = SplitMix64::new(11);
        for (r, c) in [
            (0, 0),
            (0, 7),
            (5, 0),
            (1, 1),
            (9, 70),
            (70, 9),
            (200, 200),
            (300, 150),
            (150, 300),
        ] {
            check_echelon(&BitMatrix::random(r, c, &mut g));
        }
        // Rank deficient: a product through a thin middle, and repeated rows.
        let a = BitMatrix::random(260, 40, &mut g).mul(&BitMatrix::random(40, 190, &mut g));
        check_echelon(&a);
        assert_eq!(a.rank(), 40);
    }

    #[test]
    fn inverse() {
        let mut g = SplitMix64::new(12);
        let mut found = 0;
        while found < 3 {
            let a = BitMatrix::random(140, 140, &mut g);
            if let Some(inv) = a.inverse() {
                assert_eq!(a.mul(&inv), BitMatrix::identity(140));
                found += 1;
            } else {
                assert!(a.rank() < 140);
            }
        }
        assert!(BitMatrix::zeros(3, 3).inverse().is_none());
        assert!(BitMatrix::identity(3).transpose().inverse().is_some());
        assert!(BitMatrix::zeros(2, 3).inverse().is_none());
    }

    #[test]
    fn solve_many_agrees_with_solve() {
        let mut g = SplitMix64::new(13);
        let a = BitMatrix::random(150, 60, &mut g).mul(&BitMatrix::random(60, 140, &mut g));
        let e = a.echelon();
        let bs: Vec<BitVec> = (0..20)
            .map(|j| {
                if j % 2 == 0 {
                    // In the column space.
                    a.mul_vec(&BitMatrix::random(1, 140, &mut g).row_vec(0))
                } else {
                    BitMatrix::random(1, 150, &mut g).row_vec(0)
                }
            })
            .collect();
        for (b, got) in bs.iter().zip(e.solve_many(&bs)) {
            assert_eq!(got, e.solve(b));
            match got {
                Ok(x) => assert_eq!(&a.mul_vec(&x), b),
                Err(y) => {
                    assert!(a.transpose().mul_vec(&y).is_zero());
                    assert!(y.dot(b));
                }
            }
        }
    }
}
