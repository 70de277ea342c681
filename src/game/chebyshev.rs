//! The constraint matrix of plain (not torus) Lights Out by its polynomial, in `O(m^2 + n^2)`
//! word operations instead of the chase over affine forms' `O(m n^2)`.
//!
//! With the presses of row 0 as the unknowns `x_0`, light chasing over the dark board gives
//! press row `p` as `x_p = f_p(T) x_0`, where `T` is the `n x n` tridiagonal matrix of ones (a
//! press lights its row neighbours and itself) and `f_{-1} = 0`, `f_0 = 1`,
//! `f_p = x f_{p-1} + f_{p-2}` over GF(2). The constraint lights are those of row `m - 1`, whose
//! forms are the rows of `f_m(T)`: light `(m-1, k)` sees presses `(m-1, k-1..=k+1)` and
//! `(m-2, k)`, row `k` of `T f_{m-1}(T) + f_{m-2}(T)`.
//!
//! `f_m(T)` is read off one Laurent polynomial. On the infinite line `T` is `z + 1 + z^-1`, so
//! `g = f_m(z + 1 + z^-1)` (exponents `-m..=m`, by the same recurrence) is the infinite line's
//! `f_m(T)`. A vector on `0..n` extended with zeros at `-1` and `n`, mirrored about `-1` and
//! repeated with period `P = 2 (n + 1)` (the method of images; over GF(2) the mirror image needs
//! no sign) keeps that shape under `z + 1 + z^-1`, which then acts on `0..n` as `T` does. So
//! column `v` of `f_m(T)`, which is row `v` as `f_m(T)` is symmetric, is
//! `f_m(T)[j][v] = sum over t of g[j - v - t P] + g[j + v + 2 - t P]`.
//! The derivation is in docs/theory.md; the chase over affine forms is the test oracle.

use crate::gf2::{BitMatrix, extract_xor_bits, words_for};

/// `f_m(T)` for the `n x n` tridiagonal `T`: row `k` is the form of constraint light `(m-1, k)`
/// over the presses of row 0.
pub(crate) fn lights_out_constraints(m: usize, n: usize) -> BitMatrix {
    let g = laurent(m);
    let period = 2 * (n as isize + 1);
    let span = 2 * m as isize + 1;
    let mut l = BitMatrix::zeros(n, n);
    let mut tmp = vec![0u64; words_for(n) + 1];
    for v in 0..n {
        let row = l.row_mut(v);
        // Bit j of the row takes g's bit j + s0 (its exponent j + s0 - m) for every image.
        for base in [m as isize - v as isize, m as isize + v as isize + 2] {
            // Images whose window j + s0, j in 0..n, meets 0..span.
            let t_lo = (base - span + 1).div_euclid(period) - 1;
            let t_hi = (base + n as isize).div_euclid(period) + 1;
            for t in t_lo..=t_hi {
                let s0 = base - t * period;
                if s0 + n as isize <= 0 || s0 >= span {
                    continue;
                }
                xor_window(row, &g, s0, n, &mut tmp);
            }
        }
    }
    l
}

/// `row ^= ` bits `s0..s0 + n` of `g` (zero outside it), bit `s0 + j` to bit `j`.
fn xor_window(row: &mut [u64], g: &[u64], s0: isize, n: usize, tmp: &mut [u64]) {
    if s0 >= 0 {
        extract_xor_bits(g, s0 as usize, n, row);
    } else {
        // Bits j >= -s0 come from g's bits 0..: extract them, then move them up.
        let shift = (-s0) as usize;
        let len = n - shift;
        tmp.fill(0);
        extract_xor_bits(g, 0, len, tmp);
        let (ws, bs) = (shift / 64, shift % 64);
        for i in (0..row.len()).rev() {
            if i < ws {
                break;
            }
            let mut v = tmp[i - ws] << bs;
            if bs > 0 && i > ws {
                v |= tmp[i - ws - 1] >> (64 - bs);
            }
            row[i] ^= v;
        }
        if !n.is_multiple_of(64) {
            row[n / 64] &= (1u64 << (n % 64)) - 1;
        }
    }
}

/// The coefficients of `g_m = f_m(z + 1 + z^-1)`, bit `d + m` for exponent `d` in `-m..=m`.
fn laurent(m: usize) -> Vec<u64> {
    let words = words_for(2 * m + 1);
    let (mut prev, mut cur) = (vec![0u64; words], vec![0u64; words]);
    cur[m / 64] |= 1 << (m % 64);
    for _ in 0..m {
        // next = (z + 1 + z^-1) cur + prev, written over prev.
        for i in 0..words {
            let c = cur[i];
            let up = (c << 1) | if i > 0 { cur[i - 1] >> 63 } else { 0 };
            let down = (c >> 1) | if i + 1 < words { cur[i + 1] << 63 } else { 0 };
            prev[i] ^= c ^ up ^ down;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f_m(T)` by the recurrence on matrices, the obviously correct way.
    fn by_matrices(m: usize, n: usize) -> BitMatrix {
        let mut t = BitMatrix::zeros(n, n);
        for j in 0..n {
            for k in j.saturating_sub(1)..(j + 2).min(n) {
                t.set(j, k, true);
            }
        }
        let (mut prev, mut cur) = (BitMatrix::zeros(n, n), BitMatrix::identity(n));
        for _ in 0..m {
            let mut next = t.mul(&cur);
            for (d, p) in next.data_mut().iter_mut().zip(prev.data()) {
                *d ^= p;
            }
            prev = std::mem::replace(&mut cur, next);
        }
        cur
    }

    #[test]
    fn agrees_with_the_matrix_recurrence() {
        for m in 1..=24 {
            for n in 1..=24 {
                assert_eq!(lights_out_constraints(m, n), by_matrices(m, n), "{m}x{n}");
            }
        }
        for (m, n) in [
            (1, 200),
            (200, 1),
            (130, 70),
            (70, 130),
            (257, 255),
            (64, 64),
            (65, 127),
        ] {
            assert_eq!(lights_out_constraints(m, n), by_matrices(m, n), "{m}x{n}");
        }
    }
}
