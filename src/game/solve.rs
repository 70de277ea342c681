//! One interface for the solvers of both kinds of game: [`Solver`](super::Solver) over GF(2)
//! (two states, bit-packed, the fast case) and [`QSolver`](super::QSolver) over the ring `Z/QZ`
//! (any number of states).
//!
//! Each reduces its game's move matrix `A` once and supplies what only the reduction knows: the
//! rank, the size of the image, a solution or a certificate, the quiet patterns. Everything
//! that follows from those (the nullity, the solvable fraction, the solutions per board,
//! complete solvability, checked solving) is written here once, for both.

use super::Game;
use crate::error::Result;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::Pow;
use rand::Rng;

/// A quiet pattern: presses that change nothing, with the additive order of the pattern
/// (pressing it `order` times is the same as not pressing it; 2 for every nonzero two-state
/// pattern).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuietPattern<V = Vec<u32>> {
    /// The presses: counts `0..Q` per move (or one bit per move for two states).
    pub presses: V,
    /// The order of the pattern in the group of presses (a divisor of `Q`).
    pub order: u64,
}

/// A game with its move matrix reduced once: solves boards, counts solvable boards and lists
/// quiet patterns, over GF(2) or `Z/QZ` alike.
///
/// A board `b` is solved by presses `x` when pressing them clears it: `b + A x = 0` (over
/// GF(2), `A x = b`).
pub trait Solve {
    /// The boards of the game: [`Board`](super::Board) or [`QBoard`](super::QBoard).
    type Board;
    /// Press vectors (one entry per move) and certificates (one entry per cell):
    /// [`BitVec`](crate::gf2::BitVec) or `Vec<u32>`.
    type Vector;

    /// The game.
    fn game(&self) -> &Game;

    /// The rank of the move matrix: for two states, and any prime `Q`, the dimension of the
    /// solvable space; over `Z/QZ` McCoy's rank, the number of unit invariant factors.
    fn rank(&self) -> usize;

    /// The number of solvable boards: the size of the image of the move matrix.
    fn solvable_count(&self) -> BigUint;

    /// Checks a board's size (and number of states) against the game.
    ///
    /// # Errors
    /// [`crate::Error::Board`] naming what was expected and found.
    fn check_board(&self, board: &Self::Board) -> Result<()>;

    /// Presses solving `board`, or a certificate `y` of unsolvability: `y` (one weight per
    /// cell) sums to 0 over every move's footprint and to a nonzero value over the board.
    ///
    /// # Panics
    /// If the board does not fit the game (see [`Solve::check_board`]).
    fn solve(&self, board: &Self::Board) -> std::result::Result<Self::Vector, Self::Vector>;

    /// Generators of the quiet patterns (the kernel of the move matrix) with their orders; the
    /// product of the orders is [`Solve::solutions_per_board`].
    fn quiet_generators(&self) -> Vec<QuietPattern<Self::Vector>>;

    /// A uniformly random solvable board: the effect of uniformly random presses (a
    /// homomorphism onto the solvable boards whose fibres all have the same size).
    fn random_board<R: Rng + ?Sized>(&self, rng: &mut R) -> Self::Board;

    /// The number of states `Q` (2 for the GF(2) solver).
    fn states(&self) -> u32 {
        self.game().states
    }

    /// `moves - rank`: for two states (and any prime `Q`) the dimension of the quiet patterns.
    fn nullity(&self) -> usize {
        self.game().num_moves() - self.rank()
    }

    /// The number of boards, `Q^cells`.
    fn board_count(&self) -> BigUint {
        BigUint::from(self.states()).pow(self.game().num_cells())
    }

    /// The fraction of boards that are solvable, reduced.
    fn solvable_fraction(&self) -> (BigUint, BigUint) {
        let (num, den) = (self.solvable_count(), self.board_count());
        let g = num.gcd(&den);
        (num / &g, den / g)
    }

    /// The number of press vectors solving each solvable board: `Q^moves / solvable boards`
    /// (every solvable board has as many preimages as the zero board).
    fn solutions_per_board(&self) -> BigUint {
        BigUint::from(self.states()).pow(self.game().num_moves()) / self.solvable_count()
    }

    /// True when every board is solvable.
    fn is_completely_solvable(&self) -> bool {
        self.rank() == self.game().num_cells()
    }

    /// True when `board` is solvable.
    ///
    /// # Panics
    /// If the board does not fit the game.
    fn is_solvable(&self, board: &Self::Board) -> bool {
        self.solve(board).is_ok()
    }

    /// [`Solve::solve`] for a board that may not fit the game.
    ///
    /// # Errors
    /// As [`Solve::check_board`].
    fn try_solve(
        &self,
        board: &Self::Board,
    ) -> Result<std::result::Result<Self::Vector, Self::Vector>> {
        self.check_board(board)?;
        Ok(self.solve(board))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::qstate::effect_q;
    use crate::game::{QBoard, QSolver, Solver};
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use std::collections::HashSet;

    /// What the trait says about a game, through the trait alone.
    fn summary<S: Solve>(s: &S) -> (usize, usize, BigUint, (BigUint, BigUint), BigUint, bool) {
        (
            s.rank(),
            s.nullity(),
            s.solvable_count(),
            s.solvable_fraction(),
            s.solutions_per_board(),
            s.is_completely_solvable(),
        )
    }

    /// Random boards are solvable, and the quiet generators' orders multiply to the number of
    /// solutions per board.
    fn consistent<S: Solve>(s: &S, seed: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        for _ in 0..5 {
            let b = s.random_board(&mut rng);
            assert!(s.is_solvable(&b), "{}", s.game());
            assert!(s.try_solve(&b).unwrap().is_ok());
        }
        let orders: BigUint = s.quiet_generators().iter().map(|k| k.order).product();
        assert_eq!(orders, s.solutions_per_board(), "{}", s.game());
    }

    #[test]
    fn both_solvers_say_the_same_of_two_state_games() {
        for spec in [
            "lights-out:5x5",
            "lights-out:4x4",
            "alien:3x5",
            "squares:4x4",
            "gale-berlekamp:3x4",
        ] {
            for torus in [false, true] {
                let game = spec.parse::<Game>().unwrap().with_torus(torus);
                let (s2, sq) = (Solver::new(&game).unwrap(), QSolver::new(&game).unwrap());
                assert_eq!(summary(&s2), summary(&sq), "{game}");
                consistent(&s2, 1);
                consistent(&sq, 2);
            }
        }
    }

    #[test]
    fn counts_agree_with_brute_force() {
        // lights-out 2x3 over Z/4 and Z/3, alien 2x2 over Z/6: every press vector.
        for (spec, q) in [
            ("lights-out:2x3", 4u32),
            ("lights-out:2x3", 3),
            ("alien:2x2", 6),
        ] {
            let game = spec.parse::<Game>().unwrap().with_states(q);
            let s = QSolver::new(&game).unwrap();
            let moves = game.num_moves();
            let mut reach = HashSet::new();
            for mut t in 0..(q as usize).pow(moves as u32) {
                let x: Vec<u32> = (0..moves)
                    .map(|_| {
                        let v = (t % q as usize) as u32;
                        t /= q as usize;
                        v
                    })
                    .collect();
                reach.insert(effect_q(&game, &x));
            }
            let total = BigUint::from(q).pow(game.num_cells());
            assert_eq!(s.solvable_count(), BigUint::from(reach.len()), "{game}");
            let (num, den) = s.solvable_fraction();
            assert_eq!(num * &total, den * BigUint::from(reach.len()), "{game}");
            assert_eq!(
                s.solutions_per_board() * BigUint::from(reach.len()),
                BigUint::from(q).pow(moves),
                "{game}"
            );
            assert_eq!(s.is_completely_solvable(), total == reach.len().into());
            consistent(&s, 3);
        }
    }

    #[test]
    fn try_solve_refuses_boards_that_do_not_fit() {
        let game = "lights-out:3x2".parse::<Game>().unwrap().with_states(4);
        let s = QSolver::new(&game).unwrap();
        let e = s
            .try_solve(&QBoard::zeros(2, 3, 4))
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a 3x2 board"), "{e}");
        let e = s
            .try_solve(&QBoard::zeros(3, 2, 3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a 4-state board"), "{e}");
        let two = Solver::new(&"lights-out:3x2".parse().unwrap()).unwrap();
        assert!(two.try_solve(&crate::game::Board::zeros(2, 3)).is_err());
        assert!(
            two.try_solve(&crate::game::Board::zeros(3, 2))
                .unwrap()
                .is_ok()
        );
    }
}
