//! Row reduction: reduced row echelon form with the pivot record, rank, solving with a
//! certificate of inconsistency, kernels, and the row transform for repeated solving.
//!
//! The eliminator works on panels of 64 columns (one word). For each panel it
//! 1. picks, scanning down from the current pivot row, rows whose panel words are independent
//!    (a basis kept by lowest set bit, one word per row: cheap);
//! 2. moves them up and reduces them among themselves (Gauss-Jordan on at most 64 rows), which
//!    fixes the panel's pivot columns, in order;
//! 3. clears the panel's pivot columns from every other row in one Four Russians pass: a row's
//!    coefficient for the pivot row of column `p` is just its own bit `p`, so the panel word,
//!    masked to the pivot columns, indexes the tables directly.
//!
//! Tracking the transform `T` (with `T A = R`) uses that only pivot rows are ever added to other
//! rows: the columns of `T` that are not identity columns are those of rows already chosen as
//! pivots. They are stored compactly, in the order the rows were chosen, so the transform part of
//! every pass is only as wide as the rank so far; one column permutation at the end restores the
//! original order.

use super::bitvec::{BitVec, words_for};
use super::matrix::{BitMatrix, swap_rows, tail_mask, xor_rows};
use super::russians::{CHUNK, Sources, Tables};

/// Below this many rows to update, building tables costs more than adding rows directly.
const TABLE_MIN_ROWS: usize = 128;

/// The compact transform carried along by [`eliminate`].
struct Track {
    /// First word of the transform part of each row; the matrix being reduced is before it.
    t_start: usize,
    /// `orig[i]`: the original index of the row now at position `i`.
    orig: Vec<usize>,
    /// `chosen[s]`: the original index of the `s`-th row chosen as a pivot; compact column `s`
    /// of the transform stands for original row `chosen[s]`.
    chosen: Vec<usize>,
}

/// Brings columns `0..ncols` of `m` to reduced row echelon form (`full`) or to row echelon form
/// with reduced pivot columns among the pivot rows only (`!full`, rows above a pivot are left
/// alone). Row operations apply to whole rows. Returns the pivot columns in order.
fn eliminate(
    m: &mut BitMatrix,
    ncols: usize,
    full: bool,
    mut track: Option<&mut Track>,
) -> Vec<usize> {
    let (rows, stride) = (m.rows(), m.stride());
    let a_end = track.as_ref().map_or(stride, |t| t.t_start);
    debug_assert!(ncols <= 64 * a_end);
    let data = m.data_mut();
    let mut pivots = Vec::new();
    let mut idx = vec![0u64; rows];
    let mut tables: Option<Tables> = None;
    let mut chosen_rows = Vec::with_capacity(64);
    let mut r = 0;
    for w in 0..words_for(ncols) {
        if r == rows {
            break;
        }
        let mask = if 64 * (w + 1) <= ncols {
            !0
        } else {
            tail_mask(ncols)
        };

        // 1. Rows with independent panel words.
        let limit = (mask.count_ones() as usize).min(rows - r);
        let mut basis = [0u64; 64];
        chosen_rows.clear();
        for i in r..rows {
            let mut x = data[i * stride + w] & mask;
            while x != 0 {
                let b = x.trailing_zeros() as usize;
                if basis[b] == 0 {
                    basis[b] = x;
                    chosen_rows.push(i);
                    break;
                }
                x ^= basis[b];
            }
            if chosen_rows.len() == limit {
                break;
            }
        }
        let k = chosen_rows.len();
        if k == 0 {
            continue;
        }
        // The chosen rows are increasing and each is at or below its target, so plain swaps
        // move them to r..r + k without disturbing the ones still to move.
        for (j, &i) in chosen_rows.iter().enumerate() {
            swap_rows(data, stride, r + j, i);
            if let Some(t) = track.as_deref_mut() {
                t.orig.swap(r + j, i);
            }
        }
        let t_range = match track.as_deref_mut() {
            Some(t) => {
                // The chosen rows' identity columns become explicit compact columns r..r + k.
                for j in r..r + k {
                    data[j * stride + t.t_start + j / 64] |= 1u64 << (j % 64);
                    t.chosen.push(t.orig[j]);
                }
                t.t_start..t.t_start + words_for(r + k)
            }
            None => 0..0,
        };
        let segments = [w..a_end, t_range];

        // 2. Gauss-Jordan among the chosen rows, on the panel's columns in order.
        let mut sources: Sources = [None; 64];
        let mut pivot_mask = 0u64;
        let mut done = 0;
        let mut bits = mask;
        while bits != 0 && done < k {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let bit = 1u64 << b;
            let Some(j) = (r + done..r + k).find(|&j| data[j * stride + w] & bit != 0) else {
                continue;
            };
            let p = r + done;
            swap_rows(data, stride, p, j);
            if let Some(t) = track.as_deref_mut() {
                t.orig.swap(p, j);
            }
            for j in r..r + k {
                if j != p && data[j * stride + w] & bit != 0 {
                    for seg in &segments {
                        xor_rows(data, stride, p, j, seg.clone());
                    }
                }
            }
            sources[b] = Some(p);
            pivot_mask |= bit;
            pivots.push(64 * w + b);
            done += 1;
        }
        debug_assert_eq!(done, k, "the chosen rows are independent on the panel");

        // 3. Clear the pivot columns from the other rows.
        let lo = if full { 0 } else { r + k };
        let mut targets = 0;
        for (i, x) in idx.iter_mut().enumerate().skip(lo) {
            *x = if (r..r + k).contains(&i) {
                0
            } else {
                data[i * stride + w] & pivot_mask
            };
            targets += usize::from(*x != 0);
        }
        if targets < TABLE_MIN_ROWS {
            for (i, &x) in idx.iter().enumerate().skip(lo) {
                let mut x = x;
                while x != 0 {
                    let b = x.trailing_zeros() as usize;
                    x &= x - 1;
                    let p =
                        sources[b].unwrap_or_else(|| unreachable!("indices are masked to pivots"));
                    for seg in &segments {
                        xor_rows(data, stride, p, i, seg.clone());
                    }
                }
            }
        } else {
            let tables = tables.get_or_insert_with(Tables::new);
            tables.set_sources(&sources);
            for seg in &segments {
                let mut off = seg.start;
                while off < seg.end {
                    let len = CHUNK.min(seg.end - off);
                    tables.build(data, stride, &sources, off, len);
                    tables.apply(data, stride, &idx, lo..rows, off, len);
                    off += len;
                }
            }
        }
        r += k;
    }
    pivots
}

impl BitMatrix {
    /// Reduces `self` in place to reduced row echelon form; returns the pivot column of each
    /// nonzero row, in order (so the rank is the length of the result).
    pub fn rref_in_place(&mut self) -> Vec<usize> {
        let cols = self.cols();
        eliminate(self, cols, true, None)
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        let cols = self.cols();
        eliminate(&mut self.clone(), cols, false, None).len()
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
        let pivots = eliminate(&mut aug, self.cols(), true, Some(&mut track));
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
        let pivots = eliminate(&mut aug, self.cols(), false, None);
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
