//! The two-state Alien Tiles game in closed form (the paper, Sections 3 and 4).
//!
//! A press on `(i, j)` toggles all of row `i` and column `j` (the cell itself once). With
//! `r_i` the row parities and `c_j` the column parities of a press pattern `k`, the game it
//! produces is `psi(k)_ij = r_i + c_j + k_ij`, computable in O(mn).
//!
//! The paper indexes from 1; here rows and columns are 0-based, so the paper's "first row" is
//! row 0.
//!
//! Besides the game itself (psi, parity pairs, the syndrome, solvability and an O(mn) solver),
//! the module gives the coding-theoretic closed forms of Section 4 for every board size,
//! including the thin `m x 1` and `1 x n` boards: minimum distance, coset leaders (one leader,
//! its weight and the number of leaders), covering radius, the number of syndromes and of
//! solvable games, and the single-error locator. Where the paper's formulas are wrong (the
//! number of coset leaders, the odd-by-odd covering radius) the functions here follow brute
//! force; `docs/theory.md` lists every correction.

use super::Board;
use crate::gf2::{BitMatrix, BitVec};
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Zero};

/// Parity class of an `m x n` board, which decides every closed form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Both dimensions even: every game is solvable (Section 3.2).
    EvenEven,
    /// `m` even, `n` odd (Section 3.3).
    EvenOdd,
    /// `m` odd, `n` even: the transpose of [`Shape::EvenOdd`].
    OddEven,
    /// Both odd (Section 3.4).
    OddOdd,
}

impl Shape {
    /// The shape of an `m x n` board.
    pub fn of(m: usize, n: usize) -> Shape {
        match (m % 2, n % 2) {
            (0, 0) => Shape::EvenEven,
            (0, _) => Shape::EvenOdd,
            (_, 0) => Shape::OddEven,
            _ => Shape::OddOdd,
        }
    }
}

/// The row parity vector `r(g)` (length `m`).
pub fn row_parities(g: &Board) -> BitVec {
    let (m, n) = (g.rows(), g.cols());
    let mut r = BitVec::zeros(m);
    let bits = g.bits();
    for i in 0..m {
        let mut p = false;
        for j in 0..n {
            p ^= bits.get(i * n + j);
        }
        r.set(i, p);
    }
    r
}

/// The column parity vector `c(g)` (length `n`).
pub fn col_parities(g: &Board) -> BitVec {
    let n = g.cols();
    let mut c = BitVec::zeros(n);
    for p in g.bits().ones_iter() {
        c.flip(p % n);
    }
    c
}

/// The parity pair `(r(g), c(g))`.
pub fn parity_pair(g: &Board) -> (BitVec, BitVec) {
    (row_parities(g), col_parities(g))
}

/// `psi(k)`: the game produced from the solved game by pressing the cells lit in `k`, in O(mn).
pub fn psi(k: &Board) -> Board {
    // On packed rows: the column parities are the XOR of the rows, and each row then takes
    // `c + r_i 1`; O(mn / 64) word operations.
    let (m, n) = (k.rows(), k.cols());
    let mut rows = BitMatrix::from_row_major(m, n, k.bits());
    let mut c = vec![0u64; rows.stride()];
    let r: Vec<bool> = (0..m)
        .map(|i| {
            let mut parity = 0;
            for (cw, &w) in c.iter_mut().zip(rows.row(i)) {
                *cw ^= w;
                parity ^= w.count_ones();
            }
            parity & 1 == 1
        })
        .collect();
    let ones = BitVec::ones(n);
    for (i, &ri) in r.iter().enumerate() {
        for (w, (&cw, &o)) in rows.row_mut(i).iter_mut().zip(c.iter().zip(ones.words())) {
            *w ^= cw ^ if ri { o } else { 0 };
        }
    }
    Board::from_bits(m, n, rows.to_row_major()).expect("same size")
}

/// The syndrome of a game: the paper's invariant, which identifies its coset of the solvable
/// space `S`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Syndrome {
    /// Even-by-even boards: every game is solvable, the syndrome space is trivial.
    Trivial,
    /// Even-by-odd boards: `r~(g) = (r_2..r_m) + r_1 * 1` (length `m - 1`).
    Rows(BitVec),
    /// Odd-by-even boards: `c~(g) = (c_2..c_n) + c_1 * 1` (length `n - 1`).
    Cols(BitVec),
    /// Odd-by-odd boards: `inv(g) = (r~(g), c~(g))`.
    Pair(BitVec, BitVec),
}

impl Syndrome {
    /// The syndrome of solvable `m x n` games.
    pub fn zero(m: usize, n: usize) -> Syndrome {
        match Shape::of(m, n) {
            Shape::EvenEven => Syndrome::Trivial,
            Shape::EvenOdd => Syndrome::Rows(BitVec::zeros(m - 1)),
            Shape::OddEven => Syndrome::Cols(BitVec::zeros(n - 1)),
            Shape::OddOdd => Syndrome::Pair(BitVec::zeros(m - 1), BitVec::zeros(n - 1)),
        }
    }

    /// True when this is a syndrome of some `m x n` game: the right variant with vectors of
    /// lengths `m - 1` and/or `n - 1`.
    pub fn fits(&self, m: usize, n: usize) -> bool {
        if m == 0 || n == 0 {
            return false;
        }
        match (Shape::of(m, n), self) {
            (Shape::EvenEven, Syndrome::Trivial) => true,
            (Shape::EvenOdd, Syndrome::Rows(r)) => r.len() == m - 1,
            (Shape::OddEven, Syndrome::Cols(c)) => c.len() == n - 1,
            (Shape::OddOdd, Syndrome::Pair(r, c)) => r.len() == m - 1 && c.len() == n - 1,
            _ => false,
        }
    }

    /// True for the syndrome of solvable games.
    pub fn is_zero(&self) -> bool {
        match self {
            Syndrome::Trivial => true,
            Syndrome::Rows(r) | Syndrome::Cols(r) => r.is_zero(),
            Syndrome::Pair(r, c) => r.is_zero() && c.is_zero(),
        }
    }
}

/// `v~ = (v_2, ..., v_len) + v_1 * 1`: the parity vector normalised by its first entry.
pub fn tilde(v: &BitVec) -> BitVec {
    if v.is_empty() {
        return BitVec::zeros(0);
    }
    let mut t = v.slice(1, v.len());
    if v.get(0) {
        t.xor_assign(&BitVec::ones(v.len() - 1));
    }
    t
}

/// The syndrome (invariant) of a game, in O(mn).
pub fn syndrome(g: &Board) -> Syndrome {
    match Shape::of(g.rows(), g.cols()) {
        Shape::EvenEven => Syndrome::Trivial,
        Shape::EvenOdd => Syndrome::Rows(tilde(&row_parities(g))),
        Shape::OddEven => Syndrome::Cols(tilde(&col_parities(g))),
        Shape::OddOdd => {
            let (r, c) = parity_pair(g);
            Syndrome::Pair(tilde(&r), tilde(&c))
        }
    }
}

/// True when `g` is solvable (in the code), in O(mn).
pub fn is_solvable(g: &Board) -> bool {
    syndrome(g).is_zero()
}

/// Outcome of the single-error locator of Section 4.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Located {
    /// The game is solvable: no error.
    Clean,
    /// Exactly one toggled light at `(row, col)` makes the game solvable.
    Single(usize, usize),
    /// The coset leader has weight above one: more than one error, not uniquely correctable.
    Multiple,
}

/// The single-error locator of Section 4.4 for odd-by-odd boards with `m, n > 1`, followed step
/// by step from the syndrome `(r~, c~)` of an `m x n` game.
///
/// # Panics
/// If `r_tilde`/`c_tilde` do not have lengths `m - 1`/`n - 1`, or `m`, `n` are not odd and > 1.
pub fn locate_single_error(m: usize, n: usize, r_tilde: &BitVec, c_tilde: &BitVec) -> Located {
    assert!(
        m > 1 && n > 1 && m % 2 == 1 && n % 2 == 1,
        "locator needs odd m, n > 1"
    );
    assert_eq!(r_tilde.len(), m - 1);
    assert_eq!(c_tilde.len(), n - 1);
    // r = (0, r~), c = (0, c~), A = |r|, B = |c|.
    let mut r = BitVec::zeros(m);
    for i in r_tilde.ones_iter() {
        r.set(i + 1, true);
    }
    let mut c = BitVec::zeros(n);
    for j in c_tilde.ones_iter() {
        c.set(j + 1, true);
    }
    let mut a = r.weight();
    let b = c.weight();
    // A valid parity pair has |r| - |c| even.
    if (a + b) % 2 == 1 {
        a = m - a;
        r.xor_assign(&BitVec::ones(m));
    }
    let near = a.max(b);
    let far = (m - a).max(n - b);
    if near == 0 || far == 0 {
        return Located::Clean;
    }
    if near > 1 && far > 1 {
        return Located::Multiple;
    }
    if near > far {
        r.xor_assign(&BitVec::ones(m));
        c.xor_assign(&BitVec::ones(n));
    }
    let y = r.ones_iter().next().expect("one row bit");
    let x = c.ones_iter().next().expect("one column bit");
    Located::Single(y, x)
}

/// One press pattern `k` with `psi(k) = g`, or `None` when `g` is not solvable; O(mn).
///
/// The paper's easy / doubly-easy structure (Sections 3.2 to 3.4) gives `k` directly:
///
/// * even-by-even: `psi^2 = I`, so `k = psi(g)`;
/// * odd-by-odd: `psi^2 = psi`, every solvable game is easy, so `k = g`;
/// * even-by-odd: `psi^3 = psi + J` (`J` all ones), so `psi(psi(g)) = g + |k0| * 1` for any
///   preimage `k0`; and the row parities of a solvable `g` all equal `|k0| mod 2 =: p`. So
///   `k = psi(g) + p * (row 0 all pressed)` (pressing a whole row of odd length toggles every
///   light), which is `k_ij = g_ij + c_j(g) + p * [i != 0]`;
/// * odd-by-even: the transpose, `k_ij = g_ij + r_i(g) + p * [j != 0]` with `p = c_0(g)`.
pub fn solve(g: &Board) -> Option<Board> {
    if !is_solvable(g) {
        return None;
    }
    let (m, n) = (g.rows(), g.cols());
    match Shape::of(m, n) {
        Shape::EvenEven => Some(psi(g)),
        Shape::OddOdd => Some(g.clone()),
        Shape::EvenOdd => {
            let c = col_parities(g);
            let p = row_parities(g).get(0);
            let mut k = g.clone();
            for i in 0..m {
                for j in 0..n {
                    if c.get(j) ^ (p && i != 0) {
                        k.flip(i, j);
                    }
                }
            }
            Some(k)
        }
        Shape::OddEven => {
            let r = row_parities(g);
            let p = col_parities(g).get(0);
            let mut k = g.clone();
            for i in 0..m {
                for j in 0..n {
                    if r.get(i) ^ (p && j != 0) {
                        k.flip(i, j);
                    }
                }
            }
            Some(k)
        }
    }
}

fn check_dims(m: usize, n: usize) {
    assert!(m >= 1 && n >= 1, "board needs m, n >= 1, got {m}x{n}");
}

/// The number of syndrome bits (the redundancy `mn - k`, also `dim ker psi`): `0`, `m - 1`,
/// `n - 1` or `m + n - 2` (Sections 3.2 to 3.4).
///
/// # Panics
/// If `m` or `n` is zero.
pub fn syndrome_dim(m: usize, n: usize) -> usize {
    check_dims(m, n);
    match Shape::of(m, n) {
        Shape::EvenEven => 0,
        Shape::EvenOdd => m - 1,
        Shape::OddEven => n - 1,
        Shape::OddOdd => m + n - 2,
    }
}

/// A basis of the quiet patterns (the kernel of psi), `syndrome_dim(m, n)` boards: a press
/// pattern is quiet exactly when it is `x_ij = R_i + C_j` for row and column choices that
/// each have even weight, where `R` must be zero unless `n` is odd and `C` unless `m` is odd.
/// The basis is rows `0` and `i` (`i = 1..m`, `n` odd) and columns `0` and `j` (`j = 1..n`,
/// `m` odd), each pair pressed in full.
///
/// # Panics
/// If `m` or `n` is zero.
pub fn quiet_basis(m: usize, n: usize) -> Vec<Board> {
    check_dims(m, n);
    let mut out = Vec::with_capacity(syndrome_dim(m, n));
    if n % 2 == 1 {
        for i in 1..m {
            let mut k = Board::zeros(m, n);
            for j in 0..n {
                k.set(0, j, true);
                k.set(i, j, true);
            }
            out.push(k);
        }
    }
    if m % 2 == 1 {
        for j in 1..n {
            let mut k = Board::zeros(m, n);
            for i in 0..m {
                k.set(i, 0, true);
                k.set(i, j, true);
            }
            out.push(k);
        }
    }
    out
}

/// The dimension of the solvable space `S` (the code's `k`): `mn`, `mn - m + 1`, `mn - n + 1`
/// or `mn - m - n + 2`.
///
/// # Panics
/// If `m` or `n` is zero.
pub fn solvable_dim(m: usize, n: usize) -> usize {
    m * n - syndrome_dim(m, n)
}

/// The number of syndromes (cosets of `S`), `2^syndrome_dim(m, n)`.
///
/// # Panics
/// If `m` or `n` is zero.
pub fn syndrome_count(m: usize, n: usize) -> BigUint {
    BigUint::one() << syndrome_dim(m, n)
}

/// The number of solvable games `|S|`, `2^solvable_dim(m, n)`.
///
/// # Panics
/// If `m` or `n` is zero.
pub fn solvable_count(m: usize, n: usize) -> BigUint {
    BigUint::one() << solvable_dim(m, n)
}

/// The minimum distance of `S` (Section 4.1, combined formula): `n` if `m = 1`, `m` if `n = 1`,
/// `3` for `3 x 3`, otherwise `(1 + m mod 2)(1 + n mod 2)`.
///
/// # Panics
/// If `m` or `n` is zero.
pub fn min_distance(m: usize, n: usize) -> usize {
    check_dims(m, n);
    match (m, n) {
        (1, _) => n,
        (_, 1) => m,
        (3, 3) => 3,
        _ => (1 + m % 2) * (1 + n % 2),
    }
}

/// The covering radius of `S`: the largest coset-leader weight (Section 4.3, corrected).
///
/// * even-by-even: `0`; even-by-odd: `m / 2`; odd-by-even: `n / 2`;
/// * odd-by-odd: `max(min(m, n) - [m = n], (max(m, n) - 1) / 2)`. The paper gives only the first
///   term, which is wrong for thin boards (`1 x n` is a repetition code with covering radius
///   `(n - 1) / 2`) and whenever `max(m, n) >= 2 min(m, n) + 3`, e.g. `3 x 9` has radius 4.
///
/// # Panics
/// If `m` or `n` is zero.
pub fn covering_radius(m: usize, n: usize) -> usize {
    check_dims(m, n);
    match Shape::of(m, n) {
        Shape::EvenEven => 0,
        Shape::EvenOdd => m / 2,
        Shape::OddEven => n / 2,
        Shape::OddOdd => {
            let (lo, hi) = (m.min(n), m.max(n));
            (lo - usize::from(m == n)).max((hi - 1) / 2)
        }
    }
}

/// The parity constraints a game of a coset may satisfy: a coset is the union of the games with
/// one of (at most two) prescribed row and/or column parity vectors.
enum Target {
    /// Even-by-even: no constraint.
    Free,
    /// Even-by-odd: row parity vector `r`, column parities free.
    Rows(BitVec),
    /// Odd-by-even: column parity vector `c`, row parities free.
    Cols(BitVec),
    /// Odd-by-odd: a valid parity pair `(r, c)` (`|r| - |c|` even).
    Pair(BitVec, BitVec),
}

/// `(0, t)`: the parity vector with first entry 0 whose tilde is `t`.
fn lift(t: &BitVec) -> BitVec {
    let mut v = BitVec::zeros(t.len() + 1);
    for i in t.ones_iter() {
        v.set(i + 1, true);
    }
    v
}

fn complement(v: &BitVec) -> BitVec {
    let mut w = v.clone();
    w.xor_assign(&BitVec::ones(v.len()));
    w
}

/// The parity targets of the coset with syndrome `s`: every game of the coset meets exactly one.
fn targets(m: usize, n: usize, s: &Syndrome) -> Vec<Target> {
    assert!(
        s.fits(m, n),
        "syndrome {s:?} does not belong to a {m}x{n} board"
    );
    match s {
        Syndrome::Trivial => vec![Target::Free],
        Syndrome::Rows(t) => {
            let r = lift(t);
            let r2 = complement(&r);
            vec![Target::Rows(r), Target::Rows(r2)]
        }
        Syndrome::Cols(t) => {
            let c = lift(t);
            let c2 = complement(&c);
            vec![Target::Cols(c), Target::Cols(c2)]
        }
        Syndrome::Pair(rt, ct) => {
            let mut r = lift(rt);
            let c = lift(ct);
            // Theorem 3: a parity pair is realised iff |r| - |c| is even. With m, n odd,
            // complementing r changes the parity of |r|, so exactly one of r, r + 1 fits c,
            // and the other valid pair is the complement of both.
            if (r.weight() + c.weight()) % 2 == 1 {
                r = complement(&r);
            }
            let (r2, c2) = (complement(&r), complement(&c));
            vec![Target::Pair(r, c), Target::Pair(r2, c2)]
        }
    }
}

impl Target {
    /// The least weight of a game meeting the target.
    fn weight(&self) -> usize {
        match self {
            Target::Free => 0,
            Target::Rows(v) | Target::Cols(v) => v.weight(),
            Target::Pair(r, c) => r.weight().max(c.weight()),
        }
    }

    /// How many games of least weight meet the target.
    fn count(&self, m: usize, n: usize) -> BigUint {
        match self {
            Target::Free => BigUint::one(),
            // One light in each odd row, anywhere in it; nothing in even rows.
            Target::Rows(r) => BigUint::from(n).pow(r.weight() as u32),
            Target::Cols(c) => BigUint::from(m).pow(c.weight() as u32),
            Target::Pair(r, c) => {
                let (a, b) = (r.weight(), c.weight());
                if a >= b {
                    odd_fiber_count(a, b, n)
                } else {
                    odd_fiber_count(b, a, m)
                }
            }
        }
    }

    /// A game of least weight meeting the target (the construction of Theorem 3's proof).
    fn leader(&self, m: usize, n: usize) -> Board {
        let mut g = Board::zeros(m, n);
        match self {
            Target::Free => {}
            Target::Rows(r) => r.ones_iter().for_each(|y| g.set(y, 0, true)),
            Target::Cols(c) => c.ones_iter().for_each(|x| g.set(0, x, true)),
            Target::Pair(r, c) => {
                let ys: Vec<usize> = r.ones_iter().collect();
                let xs: Vec<usize> = c.ones_iter().collect();
                // Bit matching: one light per matched (row, column) pair.
                for (&y, &x) in ys.iter().zip(&xs) {
                    g.set(y, x, true);
                }
                // Bit pairing: leftover odd rows two by two in column 0 (or leftover odd
                // columns in row 0), which leaves that column's (row's) parity unchanged.
                let k = ys.len().min(xs.len());
                for &y in &ys[k..] {
                    g.set(y, 0, true);
                }
                for &x in &xs[k..] {
                    g.set(0, x, true);
                }
            }
        }
        g
    }
}

fn best_targets(m: usize, n: usize, s: &Syndrome) -> (usize, Vec<Target>) {
    let all = targets(m, n, s);
    let w = all
        .iter()
        .map(Target::weight)
        .min()
        .expect("a coset has a target");
    (w, all.into_iter().filter(|t| t.weight() == w).collect())
}

/// The weight of the coset leaders of the coset with syndrome `s`: the fewest lights a game of
/// that coset can show (Section 4.2). O(m + n).
///
/// Even-by-odd: `min(|r~|, m - |r~|)`. Odd-by-odd: with `(r, c)` a valid parity pair built from
/// `(0, r~), (0, c~)`, `min(max(|r|, |c|), max(m - |r|, n - |c|))`.
///
/// # Panics
/// If `s` does not [fit](Syndrome::fits) an `m x n` board.
pub fn coset_leader_weight(m: usize, n: usize, s: &Syndrome) -> usize {
    best_targets(m, n, s).0
}

/// A coset leader: a game of least weight with syndrome `s`, built in O(mn) by matching odd rows
/// with odd columns and pairing the rest (Section 4.2 and the proof of Theorem 3).
///
/// # Panics
/// If `s` does not [fit](Syndrome::fits) an `m x n` board.
pub fn coset_leader(m: usize, n: usize, s: &Syndrome) -> Board {
    let (_, best) = best_targets(m, n, s);
    best[0].leader(m, n)
}

/// The number of coset leaders of the coset with syndrome `s` (Section 4.2, corrected).
///
/// * even-by-odd: `n^w` with `w = min(|r~|, m - |r~|)`, doubled when `|r~| = m / 2` (both row
///   parity vectors then reach the minimum); odd-by-even likewise with `m^w`;
/// * odd-by-odd: for the parity pair `(r, c)` that reaches the minimum with `|r| >= |c|`, the
///   leaders are the maps from the `|r|` odd rows to the `n` columns whose odd-sized fibres are
///   exactly the odd columns: [`odd_fiber_count`]`(|r|, |c|, n)` (rows and columns swap when
///   `|c| > |r|`); the two pairs' counts add when both reach the minimum. The paper's
///   `alpha! 2^{(beta - alpha)/2} n^{(alpha - beta)/2}` is right only when `alpha = beta` or
///   `(alpha, beta) = (2, 0)`: it counts ordered groupings and counts twice the games where a
///   column receives more than one group.
///
/// # Panics
/// If `s` does not [fit](Syndrome::fits) an `m x n` board.
pub fn coset_leader_count(m: usize, n: usize, s: &Syndrome) -> BigUint {
    let (_, best) = best_targets(m, n, s);
    best.iter().map(|t| t.count(m, n)).sum()
}

/// The number of maps `f: {1..a} -> {1..n}` whose set of columns with an odd number of
/// preimages is one given `b`-set `B`.
///
/// This is `a!` times the coefficient of `x^a` in `sinh(x)^b cosh(x)^(n - b)`, so with the
/// binary Krawtchouk polynomials `K_k(b) = sum_j (-1)^j C(b, j) C(n - b, k - j)`:
///
/// `N(a, b, n) = 2^-n * sum_{k=0..n} K_k(b) (n - 2k)^a`.
///
/// It is zero unless `b <= a`, `b <= n` and `a - b` is even, and `a!` when `a = b`.
pub fn odd_fiber_count(a: usize, b: usize, n: usize) -> BigUint {
    if b > a || b > n || (a - b) % 2 == 1 {
        return BigUint::zero();
    }
    if a == b {
        return (1..=a).map(BigUint::from).product();
    }
    // K_0 = 1, K_1 = n - 2b, (k + 1) K_{k+1} = (n - 2b) K_k - (n - k + 1) K_{k-1}.
    let nb = BigInt::from(n as i64 - 2 * b as i64);
    let mut prev = BigInt::zero();
    let mut cur = BigInt::one();
    let mut sum = BigInt::zero();
    for k in 0..=n {
        let base = BigInt::from(n as i64 - 2 * k as i64);
        sum += &cur * base.pow(a as u32);
        let next = (&nb * &cur - BigInt::from(n - k + 1) * &prev) / BigInt::from(k + 1);
        prev = cur;
        cur = next;
    }
    let total = sum.to_biguint().expect("a count is non-negative");
    debug_assert!((&total % (BigUint::one() << n)).is_zero());
    total >> n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quiet_basis_is_a_basis_of_the_kernel() {
        for m in 1..=5 {
            for n in 1..=5 {
                let basis = quiet_basis(m, n);
                assert_eq!(basis.len(), syndrome_dim(m, n), "{m}x{n}");
                for k in &basis {
                    assert!(psi_naive(k).bits().is_zero(), "{m}x{n}: {k:?} is not quiet");
                }
                let rows: Vec<BitVec> = basis.iter().map(|k| k.bits().clone()).collect();
                let rank = crate::gf2::BitMatrix::from_rows(&rows, m * n)
                    .echelon()
                    .rank();
                assert_eq!(rank, basis.len(), "{m}x{n}: dependent");
            }
        }
    }

    fn board(rows: &[&str]) -> Board {
        Board::from_rows(rows).unwrap()
    }

    fn bits(s: &str) -> BitVec {
        BitVec::parse(s).unwrap()
    }

    /// Naive psi: XOR of the toggle patterns of the pressed cells.
    fn psi_naive(k: &Board) -> Board {
        let (m, n) = (k.rows(), k.cols());
        let mut g = Board::zeros(m, n);
        for p in k.bits().ones_iter() {
            let (y, x) = (p / n, p % n);
            for j in 0..n {
                g.flip(y, j);
            }
            for i in 0..m {
                if i != y {
                    g.flip(i, x);
                }
            }
        }
        g
    }

    #[test]
    fn psi_matches_toggle_patterns() {
        let k = board(&["1001", "0110", "0011"]);
        assert_eq!(psi(&k), psi_naive(&k));
        let k = board(&["10011"]);
        assert_eq!(psi(&k), psi_naive(&k));
    }

    #[test]
    fn paper_example_5_3_syndrome_and_locator() {
        let w = board(&["001", "011", "001"]);
        assert_eq!(syndrome(&w), Syndrome::Pair(bits("10"), bits("11")));
        assert_eq!(
            locate_single_error(3, 3, &bits("10"), &bits("11")),
            Located::Single(1, 0)
        );
        let s = syndrome(&w);
        assert_eq!(coset_leader(3, 3, &s), board(&["000", "100", "000"]));
        assert_eq!(coset_leader_weight(3, 3, &s), 1);
        assert_eq!(coset_leader_count(3, 3, &s), BigUint::one());
    }

    #[test]
    fn solve_each_shape() {
        for k in [
            board(&["1001", "0110"]),
            board(&["100", "011", "111", "010"]),
            board(&["1011", "0110", "0001"]),
            board(&["10011", "01100", "00101"]),
            board(&["1", "0", "1", "1"]),
            board(&["1101"]),
            board(&["1"]),
        ] {
            let g = psi(&k);
            let sol = solve(&g).expect("psi(k) is solvable");
            assert_eq!(psi(&sol), g, "{k:?}");
        }
        assert_eq!(solve(&board(&["100", "000"])), None);
        assert_eq!(solve(&board(&["10", "00", "00"])), None);
        assert_eq!(solve(&board(&["100", "000", "000"])), None);
        assert_eq!(solve(&board(&["10"])), None);
    }

    #[test]
    fn dimensions_and_counts() {
        assert_eq!((syndrome_dim(4, 6), solvable_dim(4, 6)), (0, 24));
        assert_eq!((syndrome_dim(4, 5), solvable_dim(4, 5)), (3, 17));
        assert_eq!((syndrome_dim(5, 4), solvable_dim(5, 4)), (3, 17));
        assert_eq!((syndrome_dim(3, 5), solvable_dim(3, 5)), (6, 9));
        assert_eq!((syndrome_dim(1, 1), solvable_dim(1, 1)), (0, 1));
        assert_eq!(solvable_count(3, 3), BigUint::from(32u32));
        assert_eq!(syndrome_count(9, 9), BigUint::from(1u32 << 16));
    }

    #[test]
    fn distance_and_radius_edges() {
        assert_eq!(min_distance(1, 1), 1);
        assert_eq!(min_distance(1, 8), 8);
        assert_eq!(min_distance(7, 1), 7);
        assert_eq!(min_distance(3, 3), 3);
        assert_eq!(min_distance(3, 5), 4);
        assert_eq!(min_distance(4, 5), 2);
        assert_eq!(min_distance(4, 4), 1);
        assert_eq!(covering_radius(1, 1), 0);
        assert_eq!(covering_radius(1, 9), 4);
        assert_eq!(covering_radius(8, 1), 4);
        assert_eq!(covering_radius(3, 3), 2);
        assert_eq!(covering_radius(3, 5), 3);
        assert_eq!(covering_radius(3, 9), 4);
        assert_eq!(covering_radius(6, 7), 3);
    }

    /// `N(a, b, n)` by the recursion on the last element of the domain.
    fn odd_fiber_dp(a: usize, b: usize, n: usize) -> BigUint {
        let mut row: Vec<BigUint> = (0..=n).map(|j| BigUint::from(u8::from(j == 0))).collect();
        for _ in 0..a {
            row = (0..=n)
                .map(|j| {
                    let mut v = BigUint::zero();
                    if j > 0 {
                        v += &row[j - 1] * BigUint::from(j);
                    }
                    if j < n {
                        v += &row[j + 1] * BigUint::from(n - j);
                    }
                    v
                })
                .collect();
        }
        row[b].clone()
    }

    #[test]
    fn odd_fiber_count_matches_recursion() {
        for n in 0..=9 {
            for a in 0..=10 {
                for b in 0..=n {
                    assert_eq!(
                        odd_fiber_count(a, b, n),
                        odd_fiber_dp(a, b, n),
                        "{a} {b} {n}"
                    );
                }
            }
        }
        assert_eq!(odd_fiber_count(3, 1, 5), BigUint::from(13u32));
        assert_eq!(odd_fiber_count(40, 6, 33), odd_fiber_dp(40, 6, 33));
    }

    #[test]
    fn syndrome_fits() {
        assert!(Syndrome::zero(3, 5).fits(3, 5));
        assert!(!Syndrome::zero(3, 5).fits(5, 3));
        assert!(!Syndrome::Trivial.fits(3, 3));
        assert!(Syndrome::zero(2, 1).fits(2, 1));
        assert!(!Syndrome::zero(2, 1).fits(0, 1));
    }
}
