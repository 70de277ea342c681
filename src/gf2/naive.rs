//! A slow, obviously correct reference for the fast routines: matrices as `Vec<Vec<bool>>`,
//! textbook Gauss-Jordan elimination one entry at a time.
//!
//! Nothing here is meant to be fast; it exists so that tests can hold every packed routine of
//! [`BitMatrix`] and [`Echelon`](super::Echelon) to it.

use super::BitMatrix;

/// A `rows x cols` matrix over GF(2) stored entry by entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matrix {
    /// Number of columns (kept separately so that matrices with no rows still have a width).
    pub cols: usize,
    /// The rows; each has `cols` entries.
    pub entries: Vec<Vec<bool>>,
}

impl Matrix {
    /// The zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Matrix {
            cols,
            entries: vec![vec![false; cols]; rows],
        }
    }

    /// The entries of a packed matrix.
    pub fn from_bit_matrix(m: &BitMatrix) -> Self {
        Matrix {
            cols: m.cols(),
            entries: (0..m.rows())
                .map(|i| (0..m.cols()).map(|j| m.get(i, j)).collect())
                .collect(),
        }
    }

    /// The packed matrix with these entries.
    pub fn to_bit_matrix(&self) -> BitMatrix {
        let mut m = BitMatrix::zeros(self.rows(), self.cols);
        for (i, row) in self.entries.iter().enumerate() {
            for (j, &b) in row.iter().enumerate() {
                m.set(i, j, b);
            }
        }
        m
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.entries.len()
    }

    /// The transpose.
    pub fn transpose(&self) -> Matrix {
        let mut t = Matrix::zeros(self.cols, self.rows());
        for (i, row) in self.entries.iter().enumerate() {
            for (j, &b) in row.iter().enumerate() {
                t.entries[j][i] = b;
            }
        }
        t
    }

    /// The product `self * other`, entry by entry.
    pub fn mul(&self, other: &Matrix) -> Matrix {
        assert_eq!(self.cols, other.rows(), "inner dimensions differ");
        let mut c = Matrix::zeros(self.rows(), other.cols);
        for i in 0..self.rows() {
            for j in 0..other.cols {
                let mut s = false;
                for k in 0..self.cols {
                    s ^= self.entries[i][k] & other.entries[k][j];
                }
                c.entries[i][j] = s;
            }
        }
        c
    }

    /// The product `self * v`.
    pub fn mul_vec(&self, v: &[bool]) -> Vec<bool> {
        assert_eq!(
            self.cols,
            v.len(),
            "vector length differs from the column count"
        );
        self.entries
            .iter()
            .map(|row| row.iter().zip(v).fold(false, |s, (&a, &b)| s ^ (a & b)))
            .collect()
    }

    /// The reduced row echelon form and the pivot column of each nonzero row, by Gauss-Jordan
    /// elimination: for each column, take the first row at or below the current one with a one
    /// there, swap it up, and clear the column in every other row.
    pub fn rref(&self) -> (Matrix, Vec<usize>) {
        let mut m = self.clone();
        let mut pivots = Vec::new();
        let mut r = 0;
        for c in 0..self.cols {
            if r == m.rows() {
                break;
            }
            let Some(p) = (r..m.rows()).find(|&i| m.entries[i][c]) else {
                continue;
            };
            m.entries.swap(r, p);
            for i in 0..m.rows() {
                if i != r && m.entries[i][c] {
                    for j in 0..self.cols {
                        let x = m.entries[r][j];
                        m.entries[i][j] ^= x;
                    }
                }
            }
            pivots.push(c);
            r += 1;
        }
        (m, pivots)
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.rref().1.len()
    }

    /// One solution of `self * x = b`, or a certificate `y` with `y^T self = 0` and `y . b = 1`:
    /// reduce `[A | b | I]` on the columns of `A`; a row that is zero on `A` with a one at `b`
    /// carries the certificate in its `I` part.
    pub fn solve(&self, b: &[bool]) -> Result<Vec<bool>, Vec<bool>> {
        let (m, n) = (self.rows(), self.cols);
        assert_eq!(
            b.len(),
            m,
            "right-hand side length differs from the row count"
        );
        let mut aug = Matrix::zeros(m, n + 1 + m);
        for (i, (row, &bit)) in aug.entries.iter_mut().zip(b).enumerate() {
            row[..n].copy_from_slice(&self.entries[i]);
            row[n] = bit;
            row[n + 1 + i] = true;
        }
        // Eliminate on the first n columns only.
        let mut r = 0;
        let mut pivots = Vec::new();
        for c in 0..n {
            let Some(p) = (r..m).find(|&i| aug.entries[i][c]) else {
                continue;
            };
            aug.entries.swap(r, p);
            for i in 0..m {
                if i != r && aug.entries[i][c] {
                    for j in 0..aug.cols {
                        let x = aug.entries[r][j];
                        aug.entries[i][j] ^= x;
                    }
                }
            }
            pivots.push(c);
            r += 1;
        }
        if let Some(i) = (r..m).find(|&i| aug.entries[i][n]) {
            return Err(aug.entries[i][n + 1..].to_vec());
        }
        let mut x = vec![false; n];
        for (i, &p) in pivots.iter().enumerate() {
            x[p] = aug.entries[i][n];
        }
        Ok(x)
    }

    /// A basis of the kernel: one vector per free column of the reduced form.
    pub fn kernel(&self) -> Vec<Vec<bool>> {
        let (r, pivots) = self.rref();
        (0..self.cols)
            .filter(|f| !pivots.contains(f))
            .map(|f| {
                let mut v = vec![false; self.cols];
                v[f] = true;
                for (i, &p) in pivots.iter().enumerate() {
                    v[p] = r.entries[i][f];
                }
                v
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: &[&str]) -> Matrix {
        Matrix {
            cols: rows.first().map_or(0, |r| r.len()),
            entries: rows
                .iter()
                .map(|r| r.chars().map(|c| c == '1').collect())
                .collect(),
        }
    }

    #[test]
    fn hand_worked_rref() {
        let a = m(&["0110", "1101", "1011"]);
        let (r, p) = a.rref();
        // Row 3 = row 1 + row 2, so the rank is 2.
        assert_eq!(r, m(&["1011", "0110", "0000"]));
        assert_eq!(p, vec![0, 1]);
        assert_eq!(a.rank(), 2);
        let k = a.kernel();
        assert_eq!(k.len(), 2);
        for v in &k {
            assert_eq!(a.mul_vec(v), vec![false; 3]);
        }
    }

    #[test]
    fn hand_worked_solve() {
        let a = m(&["0110", "1101", "1011"]);
        let x = a.solve(&[true, false, true]).unwrap();
        assert_eq!(a.mul_vec(&x), vec![true, false, true]);
        let y = a.solve(&[true, false, false]).unwrap_err();
        // The only certificate is rows 1 + 2 + 3.
        assert_eq!(y, vec![true, true, true]);
    }

    #[test]
    fn product_and_transpose() {
        let a = m(&["10", "11", "01"]);
        let b = m(&["011", "110"]);
        assert_eq!(a.mul(&b), m(&["011", "101", "110"]));
        assert_eq!(a.transpose(), m(&["110", "011"]));
        let packed = a.to_bit_matrix();
        assert_eq!(Matrix::from_bit_matrix(&packed), a);
        assert_eq!(Matrix::zeros(0, 3).transpose(), Matrix::zeros(3, 0));
    }
}
