//! Packed Gaussian elimination over a prime field `GF(p)`, `p < 256`: the reduction behind
//! [`QSolver`](super::QSolver) for every prime part of a square-free number of states.
//!
//! Entries are bytes in rows padded to a multiple of [`LANE`] bytes. A row operation
//! `row_i += g * row_k (mod p)` widens each byte to 16 bits (`255 + 254 * 254 < 2^16`) and
//! reduces with a Barrett step (`x - p * floor(x * floor(2^16 / p) / 2^16)`, then at most one
//! subtraction of `p`), a loop LLVM vectorises (with AVX2 when the CPU has it, chosen at run
//! time).
//!
//! The elimination is a sparse-aware LU factorisation `P A = L U` in place: column by column,
//! the rows whose first nonzero entry is in that column are the candidates (kept in buckets by
//! first nonzero, so no column is ever scanned); the one whose last nonzero entry comes first
//! becomes the pivot (a Markowitz-like choice that keeps banded matrices banded), and every
//! other candidate is cleared with it over the pivot row's span only, its multiplier stored
//! in the cleared entry. Rows are never moved. Columns with no candidate are free. The work is
//! `sum over pivots of (rows cleared x span)`: a few band widths per pivot for stencil games
//! on plain boards, up to the dense `cells x moves^2 / 3` byte operations when fill-in spreads
//! (alien tiles, or the wrap-around rows of a torus).
//!
//! From the factorisation: a solve is a forward pass through `L` (a contiguous dot product per
//! row, the multipliers' columns matched with the values found so far) and a back substitution
//! through `U`; a board is unsolvable exactly when some row that reduced to zero gets a nonzero
//! value, and the combination of original rows that made that row zero is the certificate.
//! Each free column gives one kernel vector by back substitution. Over a field the Smith form
//! is just the rank: `rank` invariant factors 1, the rest 0.

mod kernels;
mod trailing;

use kernels::Kernels;
#[cfg(test)]
use kernels::Modulus;
use trailing::Trailing;

/// Rows are padded to a multiple of this many bytes (one AVX2 register).
pub const LANE: usize = 32;

/// `a - b (mod p)` for `a, b < p`.
fn sub(a: u8, b: u8, p: u8) -> u8 {
    ((a as u16 + p as u16 - b as u16) % p as u16) as u8
}

/// Columns per panel: the trailing part of a row takes the panel's pivots at once.
const PANEL: usize = 32;

/// The inverses modulo `p` (index 0 holds 0).
fn inverses(p: u8) -> Vec<u8> {
    let p = p as u32;
    let mut inv = vec![0u8; p as usize];
    for a in 1..p {
        inv[a as usize] = (1..p).find(|&b| a * b % p == 1).expect("p is prime") as u8;
    }
    inv
}

/// A `rows x cols` matrix over `GF(p)` factorised once as `P A = L U` (see the module doc):
/// solves `A x = c` with a certificate when there is none, and lists a kernel basis.
#[derive(Clone, Debug)]
pub(crate) struct Gfp {
    k: Kernels,
    rows: usize,
    cols: usize,
    stride: usize,
    /// Row-major, `rows x stride`: `U` right of each pivot row's pivot, the multipliers of `L`
    /// in the pivot columns left of it (and everywhere in the rows that reduced to zero).
    a: Vec<u8>,
    inv: Vec<u8>,
    /// The pivot row and column of each step.
    prow: Vec<usize>,
    pcol: Vec<usize>,
    /// Rows that reduced to zero.
    zero_rows: Vec<usize>,
    /// The first column of each row's multipliers (its first nonzero entry in `A`).
    lstart: Vec<usize>,
    /// One past the last column of each row's multipliers.
    lend: Vec<usize>,
    /// One past each row's last nonzero entry (the end of a pivot row's `U` part).
    hi: Vec<usize>,
}

impl Gfp {
    /// Factorises the `rows x cols` matrix whose column `j` has a 1 added in each row
    /// `column(j)` lists (entries mod `p`, a prime below 256).
    pub(crate) fn from_columns(
        rows: usize,
        cols: usize,
        p: u8,
        column: impl Fn(usize) -> Vec<usize>,
    ) -> Gfp {
        Gfp::from_entries(rows, cols, p, |j| {
            column(j).into_iter().map(|i| (i, 1)).collect()
        })
    }

    /// Factorises the `rows x cols` matrix whose column `j` has `v` added in row `i` for each
    /// `(i, v)` that `column(j)` lists (entries mod `p`, a prime below 256): a sparse column
    /// costs only its entries.
    pub(crate) fn from_entries(
        rows: usize,
        cols: usize,
        p: u8,
        column: impl Fn(usize) -> Vec<(usize, u64)>,
    ) -> Gfp {
        let stride = cols.next_multiple_of(LANE);
        let mut a = vec![0u8; rows * stride];
        for j in 0..cols {
            for (i, v) in column(j) {
                let e = &mut a[i * stride + j];
                *e = ((*e as u64 + v % p as u64) % p as u64) as u8;
            }
        }
        Gfp::factorize(a, rows, cols, p)
    }

    /// Factorises the row-major `rows x cols` matrix `dense` (entries reduced mod `p`).
    #[cfg(test)]
    pub(crate) fn from_dense(dense: &[u64], rows: usize, cols: usize, p: u8) -> Gfp {
        let stride = cols.next_multiple_of(LANE);
        let mut a = vec![0u8; rows * stride];
        for i in 0..rows {
            for j in 0..cols {
                a[i * stride + j] = (dense[i * cols + j] % p as u64) as u8;
            }
        }
        Gfp::factorize(a, rows, cols, p)
    }

    fn factorize(mut a: Vec<u8>, rows: usize, cols: usize, p: u8) -> Gfp {
        let k = Kernels::new(p);
        let stride = cols.next_multiple_of(LANE);
        let inv = inverses(p);
        // The first nonzero entry of `row[from..to]`.
        let first = |row: &[u8], from: usize, to: usize| {
            row.get(from..to)?
                .iter()
                .position(|&v| v != 0)
                .map(|x| from + x)
        };
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); cols + 1];
        let mut lstart = vec![cols; rows];
        let mut lend = vec![cols; rows];
        let mut hi = vec![0; rows];
        for i in 0..rows {
            let row = &a[i * stride..i * stride + cols];
            let f = first(row, 0, cols).unwrap_or(cols);
            hi[i] = row.iter().rposition(|&v| v != 0).map_or(0, |x| x + 1);
            lstart[i] = f;
            buckets[f].push(i);
        }
        let (mut prow, mut pcol) = (Vec::new(), Vec::new());
        let mut pivot = Vec::new();
        let mut pending = Vec::new();
        let mut trail = Trailing::new(k);
        for c0 in (0..cols).step_by(PANEL) {
            let c1 = (c0 + PANEL).min(cols);
            let first_step = prow.len();
            // The panel: pivots and multipliers from the columns `c0..c1` alone.
            pending.clear();
            for c in c0..c1 {
                let cands = std::mem::take(&mut buckets[c]);
                let Some(&pr) = cands.iter().min_by_key(|&&i| (hi[i], i)) else {
                    continue;
                };
                prow.push(pr);
                pcol.push(c);
                lend[pr] = c;
                let end = hi[pr].clamp(c + 1, c1);
                pivot.clear();
                pivot.extend_from_slice(&a[pr * stride + c + 1..pr * stride + end]);
                let pinv = inv[a[pr * stride + c] as usize] as u32;
                for &i in cands.iter().filter(|&&i| i != pr) {
                    let row = &mut a[i * stride..(i + 1) * stride];
                    let f = (row[c] as u32 * pinv % p as u32) as u8;
                    row[c] = f;
                    k.axpy(&mut row[c + 1..end], &pivot, p - f);
                    hi[i] = hi[i].max(hi[pr]);
                    match first(row, c + 1, hi[i].min(c1)) {
                        Some(nf) => buckets[nf].push(i),
                        None => pending.push(i),
                    }
                }
            }
            // The rest of the panel's rows: the pivot rows in order (each needs the earlier
            // ones), then the rows cleared in the panel.
            let width = prow[first_step..]
                .iter()
                .map(|&i| hi[i].saturating_sub(c1))
                .max()
                .unwrap_or(0);
            trail.start(c1, width);
            for s in first_step..prow.len() {
                let i = prow[s];
                let row = &mut a[i * stride..(i + 1) * stride];
                trail.update(row, hi[i], &pcol[first_step..s]);
                trail.push(&row[c1..hi[i].max(c1)]);
            }
            for &i in &pending {
                let row = &mut a[i * stride..(i + 1) * stride];
                trail.update(row, hi[i], &pcol[first_step..]);
                let nf = first(row, c1, hi[i]).unwrap_or(cols);
                if nf == cols {
                    lend[i] = c1;
                }
                buckets[nf].push(i);
            }
        }
        let zero_rows = std::mem::take(&mut buckets[cols]);
        Gfp {
            k,
            rows,
            cols,
            stride,
            a,
            inv,
            prow,
            pcol,
            zero_rows,
            lstart,
            lend,
            hi,
        }
    }

    /// The rank of the matrix.
    pub(crate) fn rank(&self) -> usize {
        self.prow.len()
    }

    fn p(&self) -> u8 {
        self.k.p()
    }

    fn row(&self, i: usize) -> &[u8] {
        &self.a[i * self.stride..i * self.stride + self.cols]
    }

    /// The multipliers of row `i` with the values of the earlier steps (by pivot column).
    fn forward_value(&self, i: usize, c: u8, by_col: &[u8]) -> u8 {
        let (s, e) = (self.lstart[i], self.lend[i]);
        if s >= e {
            return c;
        }
        let d = self.k.dot(&self.row(i)[s..e], &by_col[s..e]);
        sub(c, d, self.p())
    }

    /// Back substitution through `U`: `x` (by column) holds the free values and the values of
    /// the steps (`y`, by pivot column) on entry, and the solution on return.
    fn back(&self, x: &mut [u8], upto: usize) {
        let p = self.p();
        for r in (0..upto).rev() {
            let (i, j) = (self.prow[r], self.pcol[r]);
            let row = self.row(i);
            let s = self.k.dot(&row[j + 1..self.hi[i]], &x[j + 1..self.hi[i]]);
            let v = sub(x[j], s, p);
            x[j] = (v as u32 * self.inv[row[j] as usize] as u32 % p as u32) as u8;
        }
    }

    /// `x` with `A x = c`, or `w` with `w A = 0` and `w . c != 0` (entries below `p`).
    pub(crate) fn solve(&self, c: &[u8]) -> Result<Vec<u8>, Vec<u8>> {
        assert_eq!(c.len(), self.rows, "one value per row");
        let mut by_col = vec![0u8; self.cols.next_multiple_of(LANE)];
        for (&i, &j) in self.prow.iter().zip(&self.pcol) {
            by_col[j] = self.forward_value(i, c[i], &by_col);
        }
        if let Some(&z) = self
            .zero_rows
            .iter()
            .find(|&&z| self.forward_value(z, c[z], &by_col) != 0)
        {
            return Err(self.certificate(z));
        }
        by_col.truncate(self.cols);
        self.back(&mut by_col, self.rank());
        Ok(by_col)
    }

    /// The combination `w` of the original rows that the elimination turned into the zero row
    /// `z`: `w A = 0`, and `w . c` is `z`'s forward value for every `c`.
    fn certificate(&self, z: usize) -> Vec<u8> {
        let p = self.p();
        let mut w = vec![0u8; self.rows];
        w[z] = 1;
        // `t` (by pivot column): the coefficient of each step's row combination `E_r` still to
        // expand; `E_r = e_prow[r] - sum_{r' < r} L[prow[r]][r'] E_r'`.
        let mut t = vec![0u8; self.cols];
        let (s, e) = (self.lstart[z], self.lend[z]);
        for (x, &l) in t[s..e].iter_mut().zip(&self.row(z)[s..e]) {
            *x = (p - l) % p;
        }
        for r in (0..self.rank()).rev() {
            let (i, j) = (self.prow[r], self.pcol[r]);
            let tr = t[j];
            if tr == 0 {
                continue;
            }
            w[i] = tr;
            let (s, e) = (self.lstart[i], self.lend[i]);
            if s < e {
                self.k.axpy(&mut t[s..e], &self.row(i)[s..e], p - tr);
            }
        }
        w
    }

    /// A basis of the kernel: one vector per free column (1 there, 0 in the other free
    /// columns).
    pub(crate) fn kernel(&self) -> Vec<Vec<u8>> {
        let mut is_pivot = vec![false; self.cols];
        for &j in &self.pcol {
            is_pivot[j] = true;
        }
        (0..self.cols)
            .filter(|&f| !is_pivot[f])
            .map(|f| {
                let mut x = vec![0u8; self.cols];
                x[f] = 1;
                // Steps whose pivot is right of `f` get 0.
                self.back(&mut x, self.pcol.partition_point(|&j| j < f));
                x
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    fn mul(a: &[u64], rows: usize, cols: usize, x: &[u8], p: u64) -> Vec<u64> {
        (0..rows)
            .map(|i| {
                (0..cols)
                    .map(|j| a[i * cols + j] * x[j] as u64)
                    .sum::<u64>()
                    % p
            })
            .collect()
    }

    /// The packed path against the Smith normal form (the oracle) on every small lights-out,
    /// alien and squares game, plain and torus, for square-free `Q`.
    #[test]
    fn packed_agrees_with_smith_normal_form() {
        use crate::game::qstate::{QBoard, QSolver, Reduction, effect_q};
        use crate::game::{Game, Solve};
        let mut rng = ChaCha20Rng::seed_from_u64(17);
        let mut checked = 0;
        for pattern in ["lights-out", "alien", "squares"] {
            for rows in 1..=6 {
                for cols in rows..=6 {
                    for torus in [false, true] {
                        if torus && pattern == "alien" {
                            continue;
                        }
                        for q in [2u32, 3, 5, 6, 7] {
                            let spec = format!("{pattern}:{rows}x{cols}");
                            let game = spec
                                .parse::<Game>()
                                .unwrap()
                                .with_torus(torus)
                                .with_states(q);
                            let s = QSolver::with_reduction(&game, Reduction::Smith).unwrap();
                            let g = QSolver::with_reduction(&game, Reduction::Packed).unwrap();
                            assert_eq!(g.invariant_factors(), s.invariant_factors(), "{game}");
                            assert_eq!(g.rank(), s.rank(), "{game}");
                            assert_eq!(g.solvable_count(), s.solvable_count(), "{game}");
                            assert_eq!(g.solutions_per_board(), s.solutions_per_board(), "{game}");
                            let quiet = g.quiet_generators();
                            let orders: num_bigint::BigUint =
                                quiet.iter().map(|k| k.order).product();
                            assert_eq!(orders, s.solutions_per_board(), "{game}");
                            for k in &quiet {
                                assert!(effect_q(&game, &k.presses).is_zero(), "{game}");
                            }
                            let cells = game.num_cells();
                            for t in 0..8 {
                                let b = if t % 2 == 0 {
                                    g.random_board(&mut rng)
                                } else {
                                    let v = (0..cells).map(|_| rng.gen_range(0..q)).collect();
                                    QBoard::from_cells(rows, cols, q, v).unwrap()
                                };
                                let (ps, pg) = (s.solve(&b), g.solve(&b));
                                assert_eq!(ps.is_ok(), pg.is_ok(), "{game}: {b}");
                                match pg {
                                    Ok(x) => {
                                        let e = effect_q(&game, &x);
                                        for (a, c) in e.cells().iter().zip(b.cells()) {
                                            assert_eq!((a + c) % q, 0, "{game}: {b}");
                                        }
                                    }
                                    Err(w) => {
                                        let dot = |v: &[u32]| {
                                            w.iter()
                                                .zip(v)
                                                .map(|(&a, &b)| a as u64 * b as u64)
                                                .sum::<u64>()
                                                % q as u64
                                        };
                                        assert_ne!(dot(b.cells()), 0, "{game}: {b}");
                                        for mv in 0..game.num_moves() {
                                            let mut unit = vec![0; game.num_moves()];
                                            unit[mv] = 1;
                                            let col = effect_q(&game, &unit);
                                            assert_eq!(dot(col.cells()), 0, "{game}");
                                        }
                                    }
                                }
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 21 * 5 * 5);
    }

    #[test]
    fn barrett_reduction_is_exact() {
        for p in [2u8, 3, 5, 7, 11, 13, 127, 251] {
            let md = Modulus::new(p);
            for x in 0..=(255 + 254 * 254u16) {
                assert_eq!(md.reduce(x) as u16, x % p as u16, "{x} mod {p}");
            }
            for x in 0..=255u8 {
                assert_eq!(md.reduce8(x), x % p, "{x} mod {p}");
            }
        }
    }

    #[test]
    fn random_matrices_solve_and_certify() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        // 11 and 13 reduce part way through a panel's trailing update in bytes, 251 after
        // every term in 16-bit lanes.
        for p in [2u8, 3, 5, 7, 11, 13, 251] {
            for _ in 0..40 {
                let (rows, cols) = (rng.gen_range(1..40), rng.gen_range(1..70));
                let density = rng.gen_range(0.05..0.9);
                let a: Vec<u64> = (0..rows * cols)
                    .map(|_| {
                        if rng.gen_bool(density) {
                            rng.gen_range(0..p as u64)
                        } else {
                            0
                        }
                    })
                    .collect();
                let g = Gfp::from_dense(&a, rows, cols, p);
                for x in g.kernel() {
                    assert!(mul(&a, rows, cols, &x, p as u64).iter().all(|&v| v == 0));
                }
                assert_eq!(g.kernel().len(), cols - g.rank());
                for _ in 0..5 {
                    let c: Vec<u8> = (0..rows).map(|_| rng.gen_range(0..p)).collect();
                    match g.solve(&c) {
                        Ok(x) => {
                            let ax = mul(&a, rows, cols, &x, p as u64);
                            assert!(ax.iter().zip(&c).all(|(&u, &v)| u == v as u64));
                        }
                        Err(w) => {
                            for j in 0..cols {
                                let s: u64 = (0..rows).map(|i| w[i] as u64 * a[i * cols + j]).sum();
                                assert_eq!(s % p as u64, 0);
                            }
                            let s: u64 = w.iter().zip(&c).map(|(&u, &v)| u as u64 * v as u64).sum();
                            assert_ne!(s % p as u64, 0);
                        }
                    }
                }
            }
        }
    }
}
