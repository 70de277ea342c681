//! q-state games: cells hold `0..Q-1` and a move adds 1 (mod `Q`) to every cell of its
//! footprint. Solving is linear algebra over the ring `Z/QZ`.
//!
//! `Q` is split into prime powers `p^r` (the Chinese remainder theorem, as in the paper's
//! Section 6). Over each local ring `Z/p^rZ` the move matrix is brought to Smith normal form
//! `U A V = D` by full pivoting on an entry of least `p`-valuation: such an entry divides every
//! other entry of the remaining block, so it clears its row and column exactly. `D` has
//! diagonal `p^e_1, ..., p^e_s` (and zeros), and `A x = c` becomes `D (V^-1 x) = U c`, which
//! is solved coordinate by coordinate: `p^e_i y_i = (U c)_i` needs `p^e_i | (U c)_i`. This
//! replaces the paper's lifting with kernel search by an exact decision, and the local answers
//! are recombined by CRT. For prime `Q` it is ordinary Gaussian elimination mod `Q`.
//!
//! When every part is a prime `p < 256` (`Q` square-free: 2, 3, 5, 6, 7, 10, ...), each part is
//! reduced instead by the packed elimination over `GF(p)` of `game::gfp` (bytes, blocked,
//! sparse-aware), much faster and up to [`MAX_PACKED_WORK`] rather than [`MAX_Q_SIZE`]; over a
//! field the Smith form is just the rank.
//!
//! A board `b` is solved by presses `x` when `b + A x = 0 (mod Q)`.

use super::board::{RowShape, states_hint};
use super::gfp::Gfp;
pub use super::solve::QuietPattern;
use super::solve::Solve;
use super::{Game, Pattern};
use crate::error::{Error, Result};
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Pow};
use rand::Rng;
use std::fmt;

/// The largest game [`QSolver::new`] reduces to Smith normal form, the reduction for a `Q`
/// with a prime-power part (4, 8, 9, 12, ...): `cells + moves <= 2048` (square games up to
/// 32 x 32; the reduction is cubic with modular arithmetic on every entry). It bounds what
/// needs the Smith form (invariant factors, quiet patterns with their orders, certificates,
/// counts); solving one board past it goes by [`decompose`](super::decompose), whose layers
/// are bounded by [`MAX_PACKED_WORK`].
pub const MAX_Q_SIZE: usize = 2048;

/// The largest game [`QSolver::new`] reduces by packed elimination, for `Q` square-free with
/// prime factors below 256 ([`packed_applies`]): `moves^2 x (cells + moves) <= 2^43`, the
/// two-state solver's limit (square games up to 128 x 128). A stencil game's elimination stays
/// sparse (lights-out 128 x 128 on a torus over `GF(3)` takes about 0.4 s); Alien Tiles fills
/// in to a dense matrix and takes about 19 s and 270 MB at 128 x 128. The same bound holds
/// for each layer of [`decompose`](super::decompose) (any `Q` with primes up to 251), with the
/// layer's unknowns (moves plus carried quiet-pattern coordinates) in place of the moves.
pub const MAX_PACKED_WORK: u128 = 1 << 43;

/// A board of a q-state game: `rows x cols` cells with values `0..states`, row-major.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct QBoard {
    rows: usize,
    cols: usize,
    states: u32,
    cells: Vec<u32>,
}

impl QBoard {
    /// The all-zero board.
    pub fn zeros(rows: usize, cols: usize, states: u32) -> Self {
        QBoard {
            rows,
            cols,
            states,
            cells: vec![0; rows * cols],
        }
    }

    /// A board from row-major cell values.
    ///
    /// # Errors
    /// [`Error::Length`] for a wrong number of cells, [`Error::Board`] for a value `>= states`.
    pub fn from_cells(rows: usize, cols: usize, states: u32, cells: Vec<u32>) -> Result<Self> {
        if cells.len() != rows * cols {
            return Err(Error::Length {
                expected: rows * cols,
                found: cells.len(),
            });
        }
        if let Some((i, v)) = cells.iter().enumerate().find(|&(_, &v)| v >= states) {
            return Err(Error::Board {
                reason: format!(
                    "cell ({}, {}): expected a value below {states}, found {v}",
                    i / cols,
                    i % cols
                ),
            });
        }
        Ok(QBoard {
            rows,
            cols,
            states,
            cells,
        })
    }

    /// Parses the CLI board format for `states` states: one line per row; for `states <= 10`
    /// each cell is one digit `0..states-1` (`.` for 0) and spaces are ignored, for more states
    /// the cells are whitespace-separated decimal numbers. Blank lines are ignored; every row
    /// must have the same length.
    ///
    /// # Errors
    /// [`Error::Board`] saying where and what was expected.
    pub fn parse(text: &str, states: u32) -> Result<Self> {
        let mut cells = Vec::new();
        let mut shape = RowShape::default();
        for (lineno, line) in text.lines().enumerate() {
            let before = cells.len();
            if states <= 10 {
                for (col, ch) in line.chars().enumerate() {
                    let v = match ch {
                        '.' => 0,
                        c if c.is_whitespace() => continue,
                        c => match c.to_digit(10) {
                            Some(d) if d < states => d,
                            _ => {
                                return Err(Error::Board {
                                    reason: format!(
                                        "line {}, column {}: unexpected character {c:?} \
                                         (expected a digit 0..{}{})",
                                        lineno + 1,
                                        col + 1,
                                        states - 1,
                                        states_hint(c, states)
                                    ),
                                });
                            }
                        },
                    };
                    cells.push(v);
                }
            } else {
                for tok in line.split_whitespace() {
                    match tok.parse::<u32>() {
                        Ok(v) if v < states => cells.push(v),
                        _ => {
                            return Err(Error::Board {
                                reason: format!(
                                    "line {}: unexpected cell {tok:?} (expected a number 0..{})",
                                    lineno + 1,
                                    states - 1
                                ),
                            });
                        }
                    }
                }
            }
            shape.row(cells.len() - before, lineno)?;
        }
        let (rows, cols) = shape.finish()?;
        Ok(QBoard {
            rows,
            cols,
            states,
            cells,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Number of states `Q`.
    pub fn states(&self) -> u32 {
        self.states
    }

    /// The row-major cell values.
    pub fn cells(&self) -> &[u32] {
        &self.cells
    }

    /// Cell `(i, j)`.
    pub fn get(&self, i: usize, j: usize) -> u32 {
        self.cells[i * self.cols + j]
    }

    /// Sets cell `(i, j)` to `v mod states`.
    pub fn set(&mut self, i: usize, j: usize, v: u32) {
        self.cells[i * self.cols + j] = v % self.states;
    }

    /// True when every cell is 0 (the solved board).
    pub fn is_zero(&self) -> bool {
        self.cells.iter().all(|&v| v == 0)
    }
}

/// Writes row-major values as rows: digits side by side for `states <= 10`, otherwise numbers
/// separated by spaces.
fn write_grid(
    f: &mut fmt::Formatter<'_>,
    values: &[u32],
    rows: usize,
    cols: usize,
    states: u32,
) -> fmt::Result {
    for i in 0..rows {
        let row = &values[i * cols..(i + 1) * cols];
        if states <= 10 {
            for v in row {
                write!(f, "{v}")?;
            }
        } else {
            let s: Vec<String> = row.iter().map(u32::to_string).collect();
            f.write_str(&s.join(" "))?;
        }
        writeln!(f)?;
    }
    Ok(())
}

impl fmt::Display for QBoard {
    /// One line per row, in the format [`QBoard::parse`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_grid(f, &self.cells, self.rows, self.cols, self.states)
    }
}

/// Row-major values as one string: digits for `states <= 10`, otherwise comma-separated
/// numbers.
pub fn values_string(values: &[u32], states: u32) -> String {
    if states <= 10 {
        values.iter().map(|v| char::from(b'0' + *v as u8)).collect()
    } else {
        let s: Vec<String> = values.iter().map(u32::to_string).collect();
        s.join(",")
    }
}

/// `a * b mod m` for values below a modulus `< 2^32` (so the product fits in 64 bits).
#[inline]
fn mulmod(a: u64, b: u64, m: u64) -> u64 {
    a * b % m
}

/// The inverse of a unit `a` modulo `m`.
fn inverse(a: u64, m: u64) -> u64 {
    let e = (a as i128).extended_gcd(&(m as i128));
    debug_assert_eq!(e.gcd, 1, "{a} is not a unit mod {m}");
    e.x.rem_euclid(m as i128) as u64
}

/// The CRT idempotent of the factor `pr` of `q`: `1 (mod pr)`, `0 (mod q / pr)`.
pub(crate) fn crt_idempotent(pr: u64, q: u64) -> u64 {
    let m = q / pr;
    ((m as u128 * inverse(m % pr, pr) as u128) % q as u128) as u64
}

/// The prime factorisation `[(p, r)]` of `q`, by trial division.
pub(crate) fn factorize(mut q: u64) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut d = 2;
    while d * d <= q {
        if q.is_multiple_of(d) {
            let mut r = 0;
            while q.is_multiple_of(d) {
                q /= d;
                r += 1;
            }
            out.push((d, r));
        }
        d += if d == 2 { 1 } else { 2 };
    }
    if q > 1 {
        out.push((q, 1));
    }
    out
}

/// The Smith normal form `U A V = D` of the move matrix over one local ring `Z/p^rZ`.
#[derive(Clone, Debug)]
struct Local {
    p: u64,
    r: u32,
    pr: u64,
    /// The `p`-valuation `e_i` of each nonzero diagonal entry `D_ii = p^e_i` (`e_i < r`).
    exps: Vec<u32>,
    /// The CRT idempotent: `1 (mod p^r)`, `0 (mod Q / p^r)`.
    idem: u64,
    form: Form,
}

/// How a local ring's matrix was reduced.
#[derive(Clone, Debug)]
enum Form {
    /// The Smith normal form `U A V = D` with its transforms.
    Smith {
        /// `cells x cells`, row-major.
        u: Vec<u64>,
        /// `moves x moves`, row-major.
        v: Vec<u64>,
    },
    /// Packed elimination over the field `GF(p)` (`r = 1`, `p < 256`).
    Packed(Gfp),
}

impl Local {
    fn valuation(&self, mut x: u64) -> u32 {
        debug_assert!(x != 0);
        let mut e = 0;
        while x.is_multiple_of(self.p) {
            x /= self.p;
            e += 1;
        }
        e
    }

    /// Reduces `a` (`cells x moves`, entries already mod `p^r`).
    fn reduce(mut a: Vec<u64>, cells: usize, moves: usize, p: u64, r: u32, q: u64) -> Local {
        let pr = p.pow(r);
        let (rr, cc) = (cells, moves);
        let mut u = vec![0u64; rr * rr];
        for i in 0..rr {
            u[i * rr + i] = 1;
        }
        let mut v = vec![0u64; cc * cc];
        for i in 0..cc {
            v[i * cc + i] = 1;
        }
        let mut local = Local {
            p,
            r,
            pr,
            exps: Vec::new(),
            idem: crt_idempotent(pr, q),
            form: Form::Smith {
                u: Vec::new(),
                v: Vec::new(),
            },
        };
        for k in 0..rr.min(cc) {
            // Full pivoting on the least valuation; a unit ends the search at once.
            let mut best: Option<(u32, usize, usize)> = None;
            'search: for i in k..rr {
                for j in k..cc {
                    let x = a[i * cc + j];
                    if x != 0 {
                        let e = local.valuation(x);
                        if best.is_none_or(|(b, _, _)| e < b) {
                            best = Some((e, i, j));
                            if e == 0 {
                                break 'search;
                            }
                        }
                    }
                }
            }
            let Some((e, pi, pj)) = best else { break };
            if pi != k {
                for j in 0..cc {
                    a.swap(pi * cc + j, k * cc + j);
                }
                for j in 0..rr {
                    u.swap(pi * rr + j, k * rr + j);
                }
            }
            if pj != k {
                for i in 0..rr {
                    a.swap(i * cc + pj, i * cc + k);
                }
                for i in 0..cc {
                    v.swap(i * cc + pj, i * cc + k);
                }
            }
            // Scale row k so that the pivot is exactly p^e.
            let pe = p.pow(e);
            let unit = a[k * cc + k] / pe;
            let inv = inverse(unit % pr, pr);
            for j in k..cc {
                a[k * cc + j] = mulmod(a[k * cc + j], inv, pr);
            }
            for j in 0..rr {
                u[k * rr + j] = mulmod(u[k * rr + j], inv, pr);
            }
            // Clear column k below the pivot with row operations.
            for i in k + 1..rr {
                let x = a[i * cc + k];
                if x == 0 {
                    continue;
                }
                let f = pr - x / pe; // -(x / p^e) mod p^r
                let (top, bottom) = a.split_at_mut(i * cc);
                let src = &top[k * cc + k..k * cc + cc];
                for (d, s) in bottom[k..cc].iter_mut().zip(src) {
                    *d = (*d + f * *s) % pr;
                }
                let (top, bottom) = u.split_at_mut(i * rr);
                let src = &top[k * rr..k * rr + rr];
                for (d, s) in bottom[..rr].iter_mut().zip(src) {
                    *d = (*d + f * *s) % pr;
                }
            }
            // Clear row k right of the pivot with column operations; only row k has entries in
            // column k now, so on A this just zeroes them.
            for j in k + 1..cc {
                let x = a[k * cc + j];
                if x == 0 {
                    continue;
                }
                let f = pr - x / pe;
                a[k * cc + j] = 0;
                for i in 0..cc {
                    let s = v[i * cc + k];
                    v[i * cc + j] = (v[i * cc + j] + f * s) % pr;
                }
            }
            local.exps.push(e);
        }
        local.form = Form::Smith { u, v };
        local
    }

    /// The local part of a prime `p < 256` dividing `q` once, reduced by [`Gfp`].
    fn packed(g: Gfp, p: u64, q: u64) -> Local {
        Local {
            p,
            r: 1,
            pr: p,
            exps: vec![0; g.rank()],
            idem: crt_idempotent(p, q),
            form: Form::Packed(g),
        }
    }

    /// Solves `A x = c (mod p^r)`, or returns a certificate row `w` (`w A = 0`, `w . c != 0`).
    fn solve(&self, c: &[u64], cells: usize, moves: usize) -> Result<Vec<u64>, Vec<u64>> {
        let (u, v) = match &self.form {
            Form::Smith { u, v } => (u, v),
            Form::Packed(g) => {
                let c: Vec<u8> = c.iter().map(|&x| x as u8).collect();
                let wide = |x: Vec<u8>| x.into_iter().map(u64::from).collect();
                return g.solve(&c).map(wide).map_err(wide);
            }
        };
        let pr = self.pr;
        let uc: Vec<u64> = (0..cells)
            .map(|i| {
                let row = &u[i * cells..(i + 1) * cells];
                (row.iter()
                    .zip(c)
                    .fold(0u128, |acc, (&a, &b)| acc + (a * b) as u128)
                    % pr as u128) as u64
            })
            .collect();
        let s = self.exps.len();
        let mut y = vec![0u64; moves];
        for i in 0..cells {
            let e = if i < s { self.exps[i] } else { self.r };
            let ci = uc[i];
            let ok = ci == 0 || (e < self.r && self.valuation(ci) >= e);
            if !ok {
                let mult = self.p.pow(self.r - e);
                let w = u[i * cells..(i + 1) * cells]
                    .iter()
                    .map(|&x| mulmod(x, mult, pr))
                    .collect();
                return Err(w);
            }
            if i < s {
                y[i] = ci / self.p.pow(e);
            }
        }
        let x = (0..moves)
            .map(|i| {
                let row = &v[i * moves..(i + 1) * moves];
                (row.iter()
                    .zip(&y)
                    .fold(0u128, |acc, (&a, &b)| acc + (a * b) as u128)
                    % pr as u128) as u64
            })
            .collect();
        Ok(x)
    }

    /// Generators of the kernel of `A` over `Z/p^rZ`, with their additive orders.
    fn kernel(&self, moves: usize) -> Vec<(Vec<u64>, u64)> {
        let v = match &self.form {
            Form::Smith { v, .. } => v,
            Form::Packed(g) => {
                return g
                    .kernel()
                    .into_iter()
                    .map(|x| (x.into_iter().map(u64::from).collect(), self.p))
                    .collect();
            }
        };
        let s = self.exps.len();
        let col = |k: usize, mult: u64| -> Vec<u64> {
            (0..moves)
                .map(|i| mulmod(v[i * moves + k], mult, self.pr))
                .collect()
        };
        let mut out = Vec::new();
        for (k, &e) in self.exps.iter().enumerate() {
            if e > 0 {
                out.push((col(k, self.p.pow(self.r - e)), self.p.pow(e)));
            }
        }
        for k in s..moves {
            out.push((col(k, 1), self.pr));
        }
        out
    }
}

/// Which reduction a [`ZqSystem`] applies to the parts of `Q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduction {
    /// The Smith normal form over every `Z/p^rZ`: any `Q`, up to [`MAX_Q_SIZE`].
    Smith,
    /// Packed elimination over `GF(p)` for every prime part ([`packed_applies`]), up to
    /// [`MAX_PACKED_WORK`].
    Packed,
}

/// True when every prime-power part of `q` is a prime below 256 (`q` square-free with small
/// factors: 2, 3, 5, 6, 7, 10, 15, ...), so [`QSolver`] reduces it by packed elimination over
/// each `GF(p)`.
pub fn packed_applies(q: u64) -> bool {
    q >= 2 && factorize(q).iter().all(|&(p, r)| r == 1 && p < 256)
}

/// A linear system `A x = c` over `Z/QZ` (`rows x cols`), reduced once per prime power (to
/// Smith normal form, or by packed elimination over `GF(p)` for a prime part): the arithmetic
/// of [`QSolver`], also used on light chasing's constraint systems.
#[derive(Clone, Debug)]
pub(crate) struct ZqSystem {
    q: u64,
    rows: usize,
    cols: usize,
    locals: Vec<Local>,
}

impl ZqSystem {
    /// Reduces the row-major `rows x cols` matrix `a` (entries below `q`).
    pub(crate) fn new(a: Vec<u64>, rows: usize, cols: usize, q: u64) -> ZqSystem {
        let locals = factorize(q)
            .into_iter()
            .map(|(p, r)| {
                let pr = p.pow(r);
                let local = a.iter().map(|&v| v % pr).collect();
                Local::reduce(local, rows, cols, p, r, q)
            })
            .collect();
        ZqSystem {
            q,
            rows,
            cols,
            locals,
        }
    }

    /// The system whose column `j` has a 1 in each row `column(j)` lists, reduced by `how`.
    ///
    /// # Panics
    /// With [`Reduction::Packed`] when `!packed_applies(q)`.
    pub(crate) fn from_columns(
        rows: usize,
        cols: usize,
        q: u64,
        column: impl Fn(usize) -> Vec<usize>,
        how: Reduction,
    ) -> ZqSystem {
        if how == Reduction::Smith {
            let mut a = vec![0u64; rows * cols];
            for j in 0..cols {
                for i in column(j) {
                    a[i * cols + j] = (a[i * cols + j] + 1) % q;
                }
            }
            return ZqSystem::new(a, rows, cols, q);
        }
        assert!(packed_applies(q), "packed elimination over Z/{q}Z");
        let locals = factorize(q)
            .into_iter()
            .map(|(p, _)| Local::packed(Gfp::from_columns(rows, cols, p as u8, &column), p, q))
            .collect();
        ZqSystem {
            q,
            rows,
            cols,
            locals,
        }
    }

    fn invariant_factors(&self) -> Vec<(u64, usize)> {
        let n = self.rows.min(self.cols);
        let mut factors = vec![1u64; n];
        for l in &self.locals {
            let mut exps = l.exps.clone();
            exps.sort_unstable();
            exps.resize(n, l.r);
            for (f, e) in factors.iter_mut().zip(exps) {
                *f *= l.p.pow(e);
            }
        }
        let mut out: Vec<(u64, usize)> = Vec::new();
        for f in factors {
            let f = if f == self.q { 0 } else { f };
            match out.iter_mut().find(|(d, _)| *d == f) {
                Some((_, c)) => *c += 1,
                None => out.push((f, 1)),
            }
        }
        out.sort_by_key(|&(d, _)| if d == 0 { u64::MAX } else { d });
        out
    }

    /// The size of the image of `A`.
    fn image_size(&self) -> BigUint {
        let mut n = BigUint::one();
        for (d, c) in self.invariant_factors() {
            if let Some(index) = self.q.checked_div(d) {
                n *= BigUint::from(index).pow(c);
            }
        }
        n
    }

    /// The number of solutions of each solvable `A x = c`: `Q^cols / |image|`.
    pub(crate) fn solutions(&self) -> BigUint {
        BigUint::from(self.q).pow(self.cols) / self.image_size()
    }

    /// The value `= x (mod p^r)`, `= 0 (mod Q / p^r)`.
    fn lift(&self, l: &Local, x: u64) -> u32 {
        ((x as u128 * l.idem as u128) % self.q as u128) as u32
    }

    fn kernel(&self) -> Vec<QuietPattern> {
        let mut out = Vec::new();
        for l in &self.locals {
            for (g, order) in l.kernel(self.cols) {
                out.push(QuietPattern {
                    presses: g.iter().map(|&x| self.lift(l, x)).collect(),
                    order,
                });
            }
        }
        out
    }

    /// `x` with `A x = target (mod Q)`, or `w` with `w A = 0` and `w . target != 0`.
    pub(crate) fn attain(&self, target: &[u32]) -> Result<Vec<u32>, Vec<u32>> {
        assert_eq!(target.len(), self.rows, "one value per row");
        let mut x = vec![0u64; self.cols];
        for l in &self.locals {
            let c: Vec<u64> = target.iter().map(|&v| v as u64 % l.pr).collect();
            match l.solve(&c, self.rows, self.cols) {
                Ok(xl) => {
                    for (xi, v) in x.iter_mut().zip(xl) {
                        *xi = (*xi + self.lift(l, v) as u64) % self.q;
                    }
                }
                Err(w) => return Err(w.iter().map(|&v| self.lift(l, v)).collect()),
            }
        }
        Ok(x.into_iter().map(|v| v as u32).collect())
    }
}

/// A q-state game with its move matrix reduced once over `Z/QZ`.
#[derive(Clone, Debug)]
pub struct QSolver {
    game: Game,
    q: u64,
    sys: ZqSystem,
}

impl QSolver {
    /// Reduces the move matrix of `game` over `Z/QZ`, `Q = game.states`.
    ///
    /// Packed elimination over `GF(p)` when [`packed_applies`] to `Q`, the Smith normal form
    /// otherwise.
    ///
    /// # Errors
    /// [`Error::Spec`] when `Q < 2`; [`Error::Limit`] past [`MAX_PACKED_WORK`] (packed) or
    /// [`MAX_Q_SIZE`] (Smith normal form).
    pub fn new(game: &Game) -> Result<Self> {
        let how = if packed_applies(game.states as u64) {
            Reduction::Packed
        } else {
            Reduction::Smith
        };
        QSolver::with_reduction(game, how)
    }

    /// [`QSolver::new`] with the reduction chosen by the caller.
    pub(crate) fn with_reduction(game: &Game, how: Reduction) -> Result<Self> {
        let q = game.states as u64;
        if q < 2 {
            return Err(Error::spec(
                game.to_string(),
                format!("expected at least 2 states, found {q}"),
            ));
        }
        let (cells, moves) = (game.num_cells(), game.num_moves());
        let what = || format!("solving {} over Z/{q}Z", game.spec());
        let work = (moves as u128).pow(2) * (cells as u128 + moves as u128);
        if how == Reduction::Packed && work > MAX_PACKED_WORK {
            return Err(Error::Limit {
                what: what(),
                reason: format!(
                    "expected moves^2 x (cells + moves) <= 2^43 for packed elimination, found \
                     {work}; square games are limited to 128x128"
                ),
            });
        }
        if how == Reduction::Smith && cells + moves > MAX_Q_SIZE {
            let why = if packed_applies(q) {
                String::new()
            } else {
                let parts: Vec<String> = factorize(q)
                    .iter()
                    .filter(|&&(p, r)| r > 1 || p >= 256)
                    .map(|&(p, r)| {
                        if r > 1 {
                            format!("{p}^{r}")
                        } else {
                            p.to_string()
                        }
                    })
                    .collect();
                format!(
                    " (Q = {q} has the part {}, which needs the Smith normal form for the \
                     invariant factors, the quiet patterns and their orders, and the count of \
                     solvable boards; a board is still solved at this size by decomposition, \
                     game::decompose or `tilecode solve` with --method auto or decompose, up \
                     to 128x128; square-free Q with prime factors below 256, such as 2, 3, 5, \
                     6, 7, 10, are reduced by packed elimination up to 128x128)",
                    parts.join(", ")
                )
            };
            return Err(Error::Limit {
                what: what(),
                reason: format!(
                    "expected cells + moves <= {MAX_Q_SIZE} for a q-state game, found {}{why}",
                    cells + moves
                ),
            });
        }
        let column = |mv| game.move_cells(mv);
        Ok(QSolver {
            game: game.clone(),
            q,
            sys: ZqSystem::from_columns(cells, moves, q, column, how),
        })
    }

    /// The invariant factors of the move matrix over `Z/QZ` (its Smith normal form), as
    /// `(d, count)` pairs with `d` a divisor of `Q` in increasing order and `d = 0` standing for
    /// a zero factor. There are `min(cells, moves)` factors in all.
    pub fn invariant_factors(&self) -> Vec<(u64, usize)> {
        self.sys.invariant_factors()
    }

    /// Solves `A x = target (mod Q)`: presses that produce `target` from the zero board (the
    /// paper's convention), or a certificate `w` with `w A = 0` and `w . target != 0 (mod Q)`.
    ///
    /// # Panics
    /// If `target` does not have one value per cell.
    pub fn attain(&self, target: &[u32]) -> Result<Vec<u32>, Vec<u32>> {
        assert_eq!(target.len(), self.game.num_cells(), "one value per cell");
        self.sys.attain(target)
    }
}

impl Solve for QSolver {
    type Board = QBoard;
    type Vector = Vec<u32>;

    fn game(&self) -> &Game {
        &self.game
    }

    /// McCoy's rank: the number of invariant factors equal to 1 (the largest `k` whose `k x k`
    /// minors generate the whole ring). For prime `Q` it is the rank over the field `GF(Q)`.
    fn rank(&self) -> usize {
        self.invariant_factors()
            .iter()
            .find(|&&(d, _)| d == 1)
            .map_or(0, |&(_, c)| c)
    }

    /// `prod Q / d` over the nonzero invariant factors `d`.
    fn solvable_count(&self) -> BigUint {
        self.sys.image_size()
    }

    /// Checks the board's size and number of states.
    fn check_board(&self, board: &QBoard) -> Result<()> {
        self.game.check_size(board.rows(), board.cols())?;
        if board.states() as u64 != self.q {
            return Err(Error::Board {
                reason: format!(
                    "expected a {}-state board, found {} states",
                    self.q,
                    board.states()
                ),
            });
        }
        Ok(())
    }

    /// Presses `x` (counts `0..Q` per move) with `board + A x = 0 (mod Q)`, or a certificate
    /// `w` (one value per cell): `w . footprint = 0 (mod Q)` for every move and
    /// `w . board != 0 (mod Q)`.
    fn solve(&self, board: &QBoard) -> Result<Vec<u32>, Vec<u32>> {
        self.check_board(board).unwrap_or_else(|e| panic!("{e}"));
        let q = self.q as u32;
        let neg: Vec<u32> = board.cells().iter().map(|&v| (q - v) % q).collect();
        self.attain(&neg)
    }

    /// The kernel over `Z/QZ`, a direct sum of the cyclic groups of these generators.
    fn quiet_generators(&self) -> Vec<QuietPattern> {
        self.sys.kernel()
    }

    /// See [`random_solvable_q`].
    fn random_board<R: Rng + ?Sized>(&self, rng: &mut R) -> QBoard {
        random_solvable_q(&self.game, rng)
    }
}

/// The board `A x (mod Q)` produced from the zero board by `presses` (press counts per move),
/// in O(cells x footprint) (O(mn) for alien and Gale–Berlekamp).
///
/// # Panics
/// If `presses` does not have one count per move.
pub fn effect_q(game: &Game, presses: &[u32]) -> QBoard {
    assert_eq!(presses.len(), game.num_moves(), "one count per move");
    let q = game.states as u64;
    let (m, n) = (game.rows, game.cols);
    let mut acc = vec![0u64; m * n];
    match &game.pattern {
        Pattern::Alien => {
            let mut row = vec![0u64; m];
            let mut col = vec![0u64; n];
            for i in 0..m {
                for j in 0..n {
                    let x = presses[i * n + j] as u64;
                    row[i] += x;
                    col[j] += x;
                }
            }
            for i in 0..m {
                for j in 0..n {
                    acc[i * n + j] = row[i] + col[j] + q - presses[i * n + j] as u64;
                }
            }
        }
        Pattern::GaleBerlekamp => {
            for i in 0..m {
                for j in 0..n {
                    acc[i * n + j] = presses[i] as u64 + presses[m + j] as u64;
                }
            }
        }
        _ => {
            for (mv, &x) in presses.iter().enumerate() {
                if x != 0 {
                    for c in game.move_cells(mv) {
                        acc[c] += x as u64;
                    }
                }
            }
        }
    }
    let cells = acc.into_iter().map(|v| (v % q) as u32).collect();
    QBoard::from_cells(m, n, game.states, cells).expect("values reduced mod Q")
}

/// A uniformly random solvable board of a q-state game: the effect of uniformly random press
/// counts (a homomorphism onto the solvable boards with equal-sized fibres).
pub fn random_solvable_q<R: Rng + ?Sized>(game: &Game, rng: &mut R) -> QBoard {
    let presses: Vec<u32> = (0..game.num_moves())
        .map(|_| rng.gen_range(0..game.states))
        .collect();
    effect_q(game, &presses)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use std::collections::HashSet;

    /// Every vector of `len` values mod `q`.
    fn all(len: usize, q: u32) -> Vec<Vec<u32>> {
        let total = (q as usize).pow(len as u32);
        (0..total)
            .map(|mut t| {
                (0..len)
                    .map(|_| {
                        let v = (t % q as usize) as u32;
                        t /= q as usize;
                        v
                    })
                    .collect()
            })
            .collect()
    }

    fn dot(w: &[u32], v: &[u32], q: u32) -> u64 {
        w.iter()
            .zip(v)
            .map(|(&a, &b)| a as u64 * b as u64)
            .sum::<u64>()
            % q as u64
    }

    #[test]
    fn factorization() {
        assert_eq!(factorize(2), vec![(2, 1)]);
        assert_eq!(factorize(360), vec![(2, 3), (3, 2), (5, 1)]);
        assert_eq!(factorize(4_294_967_291), vec![(4_294_967_291, 1)]);
    }

    #[test]
    fn agrees_with_brute_force() {
        let cases = [
            ("lights-out:2x2", false, 3),
            ("lights-out:2x2", true, 4),
            ("lights-out:2x3", false, 4),
            ("lights-out:2x2", false, 6),
            ("alien:2x2", false, 4),
            ("alien:2x3", false, 4),
            ("alien:3x3", false, 2),
            ("alien:2x2", false, 9),
            ("squares:2x3", false, 3),
            ("gale-berlekamp:2x2", false, 4),
            ("gale-berlekamp:2x3", false, 6),
            ("stencil:111:1x4", false, 8),
            ("stencil:111:1x3", true, 12),
        ];
        for (spec, torus, q) in cases {
            let game = spec
                .parse::<Game>()
                .unwrap()
                .with_torus(torus)
                .with_states(q);
            let s = QSolver::new(&game).unwrap();
            let moves = game.num_moves();
            let mut reach = HashSet::new();
            let mut quiet = 0u64;
            for x in all(moves, q) {
                let b = effect_q(&game, &x);
                if b.is_zero() {
                    quiet += 1;
                }
                reach.insert(b);
            }
            assert_eq!(s.solvable_count(), BigUint::from(reach.len()), "{game}");
            if factorize(q as u64).len() == 1 && factorize(q as u64)[0].1 == 1 {
                // Over a field the image has q^rank elements.
                assert_eq!(reach.len(), (q as usize).pow(s.rank() as u32), "{game}");
            }
            assert_eq!(s.solutions_per_board(), BigUint::from(quiet), "{game}");
            let orders: u64 = s.quiet_generators().iter().map(|k| k.order).product();
            assert_eq!(orders, quiet, "{game}");
            for k in s.quiet_generators() {
                assert!(effect_q(&game, &k.presses).is_zero(), "{game}");
            }
            for cells in all(game.num_cells(), q) {
                let b = QBoard::from_cells(game.rows, game.cols, q, cells.clone()).unwrap();
                match s.solve(&b) {
                    Ok(x) => {
                        let e = effect_q(&game, &x);
                        for (a, c) in e.cells().iter().zip(&cells) {
                            assert_eq!((a + c) % q, 0, "{game}");
                        }
                    }
                    Err(w) => {
                        assert!(!reach.contains(&b), "{game}: {b}");
                        assert_ne!(dot(&w, &cells, q), 0, "{game}");
                        for mv in 0..moves {
                            let mut unit = vec![0; moves];
                            unit[mv] = 1;
                            let col = effect_q(&game, &unit);
                            assert_eq!(dot(&w, col.cells(), q), 0, "{game}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn two_states_agree_with_gf2() {
        use crate::game::{Board, Solver};
        use crate::gf2::BitVec;
        for spec in [
            "lights-out:5x5",
            "alien:3x5",
            "squares:5x5",
            "gale-berlekamp:3x4",
        ] {
            let game: Game = spec.parse().unwrap();
            let s2 = Solver::new(&game).unwrap();
            let sq = QSolver::new(&game).unwrap();
            assert_eq!(sq.rank(), s2.rank(), "{spec}");
            assert_eq!(sq.solvable_count(), s2.solvable_count(), "{spec}");
            let mut rng = ChaCha20Rng::seed_from_u64(3);
            for _ in 0..30 {
                let bits: Vec<bool> = (0..game.num_cells()).map(|_| rng.r#gen()).collect();
                let b = Board::from_bits(game.rows, game.cols, BitVec::from_bools(&bits)).unwrap();
                let cells: Vec<u32> = bits.iter().map(|&x| x as u32).collect();
                let qb = QBoard::from_cells(game.rows, game.cols, 2, cells).unwrap();
                assert_eq!(s2.is_solvable(&b), sq.is_solvable(&qb), "{spec}");
            }
        }
    }

    #[test]
    fn invariant_factors_of_four_state_alien() {
        // Odd-by-odd four-state Alien Tiles: the paper's Section 7 kernel of double clicks.
        let game = Game::new(Pattern::Alien, 3, 3).with_states(4);
        let s = QSolver::new(&game).unwrap();
        // Over GF(2) the 3x3 alien matrix has rank 9 - 4 = 5; mod 4 the kernel is made of
        // the order-2 double clicks.
        let f = s.invariant_factors();
        // The determinant over Z is 5 * 2^4, so mod 4 the four non-units are all 2.
        assert_eq!(f, vec![(1, 5), (2, 4)]);
        assert_eq!((s.rank(), s.nullity()), (5, 4));
        let quiet: u64 = s.quiet_generators().iter().map(|k| k.order).product();
        assert_eq!(BigUint::from(quiet), s.solutions_per_board());
    }

    #[test]
    fn random_q_boards_are_solvable() {
        let game = Game::new(Pattern::LightsOut, 4, 4).with_states(6);
        let s = QSolver::new(&game).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        for _ in 0..20 {
            let b = random_solvable_q(&game, &mut rng);
            assert!(s.solve(&b).is_ok());
        }
    }

    #[test]
    fn parse_and_display() {
        let b = QBoard::parse("0 1 2\n\n3.1\n", 4).unwrap();
        assert_eq!((b.rows(), b.cols()), (2, 3));
        assert_eq!(b.to_string(), "012\n301\n");
        assert!(QBoard::parse("014", 4).is_err());
        let e = QBoard::parse("016", 4).unwrap_err().to_string();
        assert!(e.contains("pass --states 7"), "{e}");
        assert!(QBoard::parse("01\n0", 4).is_err());
        let big = QBoard::parse("10 0 11\n3 4 5", 12).unwrap();
        assert_eq!(big.to_string(), "10 0 11\n3 4 5\n");
        assert!(QBoard::parse("12 0", 12).is_err());
        assert_eq!(values_string(big.cells(), 12), "10,0,11,3,4,5");
        let s = QSolver::new(&Game::new(Pattern::LightsOut, 3, 2).with_states(4)).unwrap();
        assert!(s.try_solve(&b).is_err());
        assert!(s.try_solve(&QBoard::zeros(3, 2, 3)).is_err());
        assert!(s.try_solve(&QBoard::zeros(3, 2, 4)).unwrap().is_ok());
    }
}
