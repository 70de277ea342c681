//! The two-state Alien Tiles game in closed form (the paper, Sections 3 and 4).
//!
//! A press on `(i, j)` toggles all of row `i` and column `j` (the cell itself once). With
//! `r_i` the row parities and `c_j` the column parities of a press pattern `k`, the game it
//! produces is `psi(k)_ij = r_i + c_j + k_ij`, computable in O(mn).
//!
//! The paper indexes from 1; here rows and columns are 0-based, so the paper's "first row" is
//! row 0.

use super::Board;
use crate::gf2::BitVec;

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
    let (m, n) = (k.rows(), k.cols());
    let (r, c) = parity_pair(k);
    let mut g = k.clone();
    for i in 0..m {
        for j in 0..n {
            if r.get(i) ^ c.get(j) {
                g.flip(i, j);
            }
        }
    }
    g
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
