//! Toggle Squares (3x3-block presses): the one-way and two-way clearing sweeps of the notes
//! (`seeds/toggle-squares-analysis.txt`, Theorems 3 to 5). Each sweep clears the board row by
//! row like a player would, and is checked against elimination and light chasing in
//! `tests/shortest.rs` and `tests/sources.rs`.

use super::Board;
use crate::gf2::BitVec;

/// A board being cleared by 3x3-block presses, with the presses made so far (mod 2).
struct Sweep {
    g: Board,
    presses: BitVec,
}

impl Sweep {
    fn new(board: &Board) -> Sweep {
        Sweep {
            g: board.clone(),
            presses: BitVec::zeros(board.rows() * board.cols()),
        }
    }

    fn press(&mut self, r: usize, c: usize) {
        let (m, n) = (self.g.rows(), self.g.cols());
        self.presses.flip(r * n + c);
        for i in r.saturating_sub(1)..(r + 2).min(m) {
            for j in c.saturating_sub(1)..(c + 2).min(n) {
                self.g.flip(i, j);
            }
        }
    }

    fn row_clear(&self, i: usize) -> bool {
        (0..self.g.cols()).all(|j| !self.g.get(i, j))
    }

    /// Clears row `i` with presses in row `p` (one of `i - 1, i, i + 1`), the two-way way:
    /// right to left pressing below-left (or above-left) of each lit cell, which leaves at most
    /// the first cell lit; on `3k + 1` columns a lone first light is first shifted one cell
    /// right by pressing above or below it; then left to right pressing below-right of each
    /// lit cell, which walks a lone light to the end, where `..11` is cleared by the last
    /// press.
    fn clear_row(&mut self, i: usize, p: usize) {
        let n = self.g.cols();
        for j in (1..n).rev() {
            if self.g.get(i, j) {
                self.press(p, j - 1);
            }
        }
        if n % 3 == 1 && self.g.get(i, 0) {
            self.press(p, 0);
        }
        for j in 0..n {
            if self.g.get(i, j) && j + 1 < n {
                self.press(p, j + 1);
            }
        }
    }

    fn done(self) -> Option<BitVec> {
        self.g.bits().is_zero().then_some(self.presses)
    }
}

/// The one-way algorithm of the Toggle Squares notes (Theorem 3): rows top to bottom, cells
/// right to left, press the cell below-left of every lit cell; the last row must come out dark.
///
/// The presses it uses (rows `1..m`, columns `0..n-1`) are independent, and when both sides
/// are `3k + 2` they span every solvable board, so there `None` means unsolvable. On other
/// sizes `None` only means the sweep left lights on (the board may still be solvable: use
/// [`squares_two_way`] or [`super::chase::chase_solve`]).
pub fn squares_one_way(board: &Board) -> Option<BitVec> {
    let (m, n) = (board.rows(), board.cols());
    let mut s = Sweep::new(board);
    for i in 0..m.saturating_sub(1) {
        for j in (0..n).rev() {
            if s.g.get(i, j) {
                if j == 0 {
                    return None;
                }
                s.press(i + 1, j - 1);
            }
        }
    }
    s.done()
}

/// The two-way algorithm of the Toggle Squares notes (Theorems 4 and 5): clear rows top to
/// bottom with presses in the row below, then bottom to top with presses in the row above
/// (each row cleared two-way, see the module docs); on `3k + 1` rows the bottom row is first
/// moved up by presses in the bottom row itself.
///
/// Every board is solvable when neither side is `3k + 2`, and there it always succeeds. On
/// other sizes `None` means the sweep left lights on.
///
/// The notes say the second pass of a row runs "from right to left"; their proof walks a lone
/// light from the left edge to the right one, which needs left to right, as done here.
pub fn squares_two_way(board: &Board) -> Option<BitVec> {
    let m = board.rows();
    let mut s = Sweep::new(board);
    for i in 0..m.saturating_sub(1) {
        if !s.row_clear(i) {
            s.clear_row(i, i + 1);
        }
    }
    if m % 3 == 1 && !s.row_clear(m - 1) {
        s.clear_row(m - 1, m - 1);
    }
    for i in (1..m).rev() {
        if !s.row_clear(i) {
            s.clear_row(i, i - 1);
        }
    }
    s.done()
}
