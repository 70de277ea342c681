//! The generic two-state solver: one row reduction of the move space per game, then every board
//! in time linear in the reduced form.
//!
//! The rows of the transposed move matrix `A^T` (`moves x cells`, row `mv` the footprint of
//! move `mv`) are reduced together with an identity, `T A^T = R`. The first `rank` rows of `R`
//! are the reduced echelon basis of the solvable space `S` (the column space of `A`), and the
//! matching rows of `T` say which presses produce each basis vector; the remaining rows of `T`
//! span the quiet patterns (the kernel of `A`). Working on `A^T` keeps the transform
//! `moves x moves`, which matters for Gale–Berlekamp where the moves are far fewer than the
//! cells.
//!
//! A board `b` is solvable exactly when it reduces to zero against the basis of `S`. When it
//! does not, the residual `e` has a one at some non-pivot cell `f`, and the vector
//! `y = e_f + sum_{i : R_i[f] = 1} e_{pivot i}` is orthogonal to every basis vector (hence to
//! every move) and has `y . b = 1`: a certificate that no presses solve `b`.

use super::solve::{QuietPattern, Solve};
use super::{Board, Game, Pattern};
use crate::error::{Error, Result};
use crate::gf2::{BitMatrix, BitVec};
use num_bigint::BigUint;
use num_traits::One;
use rand::Rng;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The largest reduction [`Solver::new`] accepts, in bit operations:
/// `moves^2 x (cells + moves) <= 2^43`, which admits square stencil games up to 128 x 128
/// (16384 cells; about 270 MB at the limit).
pub const MAX_WORK: u128 = 1 << 43;

/// How many reduced games [`Solver::shared`] keeps.
const CACHE_SIZE: usize = 16;

/// A two-state game with its move space reduced once; solves boards, counts solvable boards and
/// lists quiet patterns.
#[derive(Clone, Debug)]
pub struct Solver {
    game: Game,
    /// `rank x cells`: the reduced echelon basis of the solvable space.
    basis: BitMatrix,
    /// The pivot cell of each basis row.
    pivots: Vec<usize>,
    /// `rank x moves`: row `i` holds presses whose effect is basis row `i`.
    combos: BitMatrix,
    /// The quiet patterns in reduced echelon form.
    kernel: Vec<BitVec>,
    /// The pivot move of each quiet pattern.
    kernel_pivots: Vec<usize>,
}

/// Reduces `rows` (vectors of length `len`) to reduced row echelon form in place and returns
/// the pivots, dropping zero rows.
fn reduce_vectors(rows: &mut Vec<BitVec>, len: usize) -> Vec<usize> {
    if rows.is_empty() {
        return Vec::new();
    }
    let mut m = BitMatrix::from_rows(rows, len);
    let pivots = m.rref_in_place();
    *rows = (0..pivots.len()).map(|i| m.row_vec(i)).collect();
    pivots
}

impl Solver {
    /// Reduces the move space of a two-state game.
    ///
    /// # Errors
    /// [`Error::Spec`] when `game.states != 2` (use the q-state solver); [`Error::Limit`] when
    /// the reduction exceeds [`MAX_WORK`].
    pub fn new(game: &Game) -> Result<Self> {
        if game.states != 2 {
            return Err(Error::spec(
                game.to_string(),
                format!(
                    "the two-state solver needs 2 states, found {} (use the q-state solver)",
                    game.states
                ),
            ));
        }
        let (cells, moves) = (game.num_cells(), game.num_moves());
        let work = (moves as u128).pow(2) * (cells as u128 + moves as u128);
        if work > MAX_WORK {
            return Err(Error::Limit {
                what: format!("reducing the move matrix of {}", game.spec()),
                reason: format!(
                    "expected at most 2^43 bit operations (moves^2 x (cells + moves)), found {work}; \
                     square stencil games are limited to 128x128"
                ),
            });
        }
        let mut at = BitMatrix::zeros(moves, cells);
        for mv in 0..moves {
            for c in game.move_cells(mv) {
                at.set(mv, c, true);
            }
        }
        let ech = at.echelon();
        let rank = ech.rank();
        let mut basis = BitMatrix::zeros(rank, cells);
        let mut combos = BitMatrix::zeros(rank, moves);
        for i in 0..rank {
            basis.row_mut(i).copy_from_slice(ech.rref.row(i));
            combos.row_mut(i).copy_from_slice(ech.transform.row(i));
        }
        let mut kernel: Vec<BitVec> = (rank..moves).map(|i| ech.transform.row_vec(i)).collect();
        let kernel_pivots = reduce_vectors(&mut kernel, moves);
        debug_assert_eq!(kernel.len(), moves - rank);
        Ok(Solver {
            game: game.clone(),
            basis,
            pivots: ech.pivots,
            combos,
            kernel,
            kernel_pivots,
        })
    }

    /// A solver from a process-wide cache of the last few games reduced, so that repeated
    /// queries on one game pay for the reduction once.
    ///
    /// # Errors
    /// As [`Solver::new`].
    pub fn shared(game: &Game) -> Result<Arc<Solver>> {
        static CACHE: OnceLock<Mutex<HashMap<Game, Arc<Solver>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        if let Some(s) = cache.lock().map_err(|_| poisoned())?.get(game) {
            return Ok(Arc::clone(s));
        }
        let solver = Arc::new(Solver::new(game)?);
        let mut map = cache.lock().map_err(|_| poisoned())?;
        if map.len() >= CACHE_SIZE {
            map.clear();
        }
        map.insert(game.clone(), Arc::clone(&solver));
        Ok(solver)
    }

    /// A basis of the quiet patterns (the presses that change nothing), in reduced echelon form
    /// over the move space.
    pub fn quiet_patterns(&self) -> &[BitVec] {
        &self.kernel
    }
}

impl Solve for Solver {
    type Board = Board;
    type Vector = BitVec;

    fn game(&self) -> &Game {
        &self.game
    }

    fn rank(&self) -> usize {
        self.pivots.len()
    }

    /// `2^rank`.
    fn solvable_count(&self) -> BigUint {
        BigUint::one() << self.rank()
    }

    fn check_board(&self, board: &Board) -> Result<()> {
        self.game.check_board(board)
    }

    /// The canonical solution (zero on the pivots of the quiet patterns), or a certificate `y`
    /// with an even overlap with every move's footprint and an odd overlap with `board`.
    fn solve(&self, board: &Board) -> std::result::Result<BitVec, BitVec> {
        self.game
            .check_board(board)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut residual = board.bits().clone();
        let mut x = BitVec::zeros(self.game.num_moves());
        for (i, &p) in self.pivots.iter().enumerate() {
            if board.bits().get(p) {
                for (r, b) in residual.words_mut().iter_mut().zip(self.basis.row(i)) {
                    *r ^= b;
                }
                for (r, b) in x.words_mut().iter_mut().zip(self.combos.row(i)) {
                    *r ^= b;
                }
            }
        }
        if let Some(f) = residual.ones_iter().next() {
            let mut y = BitVec::unit(self.game.num_cells(), f);
            for (i, &p) in self.pivots.iter().enumerate() {
                if self.basis.get(i, f) {
                    y.set(p, true);
                }
            }
            return Err(y);
        }
        for (k, &kp) in self.kernel.iter().zip(&self.kernel_pivots) {
            if x.get(kp) {
                x.xor_assign(k);
            }
        }
        Ok(x)
    }

    /// The basis of [`Solver::quiet_patterns`], each of order 2.
    fn quiet_generators(&self) -> Vec<QuietPattern<BitVec>> {
        self.kernel
            .iter()
            .map(|k| QuietPattern {
                presses: k.clone(),
                order: 2,
            })
            .collect()
    }

    /// See [`random_solvable`].
    fn random_board<R: Rng + ?Sized>(&self, rng: &mut R) -> Board {
        random_solvable(&self.game, rng)
    }
}

fn poisoned() -> Error {
    Error::Limit {
        what: "the solver cache".into(),
        reason: "a thread panicked while holding it".into(),
    }
}

/// Uniformly random presses (one bit per move).
pub fn random_presses<R: Rng + ?Sized>(game: &Game, rng: &mut R) -> BitVec {
    let moves = game.num_moves();
    let words = (0..moves.div_ceil(64))
        .map(|_| rng.r#gen::<u64>())
        .collect();
    BitVec::from_words(words, moves)
}

/// A uniformly random solvable board of a two-state game, without any reduction: the effect
/// `psi(x)` of uniformly random presses `x`. The effect is linear and onto the solvable space,
/// and every solvable board has the same number (`2^nullity`) of preimages, so the result is
/// uniform over the solvable boards. O(cells x footprint), O(mn) for alien.
pub fn random_solvable<R: Rng + ?Sized>(game: &Game, rng: &mut R) -> Board {
    let x = random_presses(game, rng);
    game.effect(&x)
}

/// Solves a two-state board in O(mn) when the game has a closed form: Alien Tiles (the paper's
/// Sections 3.2 to 3.4, through [`super::alien::solve`]) and Gale–Berlekamp. Returns `None` for
/// other games (and q-state games), otherwise the presses or a certificate as
/// [`Solver::solve`] does, on boards of any size.
///
/// Certificates: for Alien Tiles, two rows `0` and `i` of different parity when `n` is odd, or
/// two columns of different parity when `m` is odd (a press meets them `n + 1`, `m + 1` or 2
/// times); for Gale–Berlekamp the four corners `(0, 0), (0, j), (i, 0), (i, j)` of a cell
/// breaking `b_ij = b_i0 + b_0j + b_00` (every row and column meets them twice or never).
///
/// # Panics
/// If the board does not have the game's size.
pub fn solve_closed_form(game: &Game, board: &Board) -> Option<Result<BitVec, BitVec>> {
    if game.states != 2 {
        return None;
    }
    game.check_board(board).unwrap_or_else(|e| panic!("{e}"));
    let (m, n) = (game.rows, game.cols);
    match game.pattern {
        Pattern::Alien => Some(match super::alien::solve(board) {
            Some(k) => Ok(k.into_bits()),
            None => Err(alien_certificate(board)),
        }),
        Pattern::GaleBerlekamp => {
            let b = |i: usize, j: usize| board.get(i, j);
            for i in 1..m {
                for j in 1..n {
                    if b(i, j) != b(i, 0) ^ b(0, j) ^ b(0, 0) {
                        let mut y = BitVec::zeros(m * n);
                        for c in [0, j, i * n, i * n + j] {
                            y.set(c, true);
                        }
                        return Some(Err(y));
                    }
                }
            }
            // Row 0 unflipped: columns copy row 0, rows follow column 0.
            let mut x = BitVec::zeros(m + n);
            for i in 1..m {
                x.set(i, b(i, 0) ^ b(0, 0));
            }
            for j in 0..n {
                x.set(m + j, b(0, j));
            }
            Some(Ok(x))
        }
        _ => None,
    }
}

/// A certificate for an unsolvable Alien Tiles board (see [`solve_closed_form`]).
fn alien_certificate(board: &Board) -> BitVec {
    let (m, n) = (board.rows(), board.cols());
    let (r, c) = super::alien::parity_pair(board);
    let mut y = BitVec::zeros(m * n);
    if n % 2 == 1
        && let Some(i) = (1..m).find(|&i| r.get(i) != r.get(0))
    {
        for j in 0..n {
            y.set(j, true);
            y.set(i * n + j, true);
        }
        return y;
    }
    let j = (1..n)
        .filter(|_| m % 2 == 1)
        .find(|&j| c.get(j) != c.get(0))
        .expect("an unsolvable Alien Tiles board has rows or columns of unequal parity");
    for i in 0..m {
        y.set(i * n, true);
        y.set(i * n + j, true);
    }
    y
}

/// Presses laid out for display: the board grid for pressed-cell games; for Gale–Berlekamp the
/// flipped rows and columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PressLayout {
    /// One press per cell, as a board.
    Cells(Board),
    /// Gale–Berlekamp: the rows and the columns flipped (0-based).
    Lines {
        /// Rows flipped.
        rows: Vec<usize>,
        /// Columns flipped.
        cols: Vec<usize>,
    },
}

impl PressLayout {
    /// The layout of `presses` in `game`.
    ///
    /// # Panics
    /// If `presses` does not have `num_moves` bits.
    pub fn of(game: &Game, presses: &BitVec) -> PressLayout {
        assert_eq!(presses.len(), game.num_moves());
        match game.pattern {
            Pattern::GaleBerlekamp => PressLayout::Lines {
                rows: presses.ones_iter().filter(|&i| i < game.rows).collect(),
                cols: presses
                    .ones_iter()
                    .filter(|&i| i >= game.rows)
                    .map(|i| i - game.rows)
                    .collect(),
            },
            _ => PressLayout::Cells(
                Board::from_bits(game.rows, game.cols, presses.clone()).expect("sizes match"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn all_vectors(len: usize) -> impl Iterator<Item = BitVec> {
        (0u64..1 << len).map(move |v| BitVec::from_words(vec![v], len))
    }

    /// Brute force over every press set: the set of reachable boards and the quiet patterns.
    fn brute(game: &Game) -> (std::collections::HashSet<BitVec>, usize) {
        let mut reach = std::collections::HashSet::new();
        let mut quiet = 0;
        for x in all_vectors(game.num_moves()) {
            let b = game.effect(&x).into_bits();
            if b.is_zero() {
                quiet += 1;
            }
            reach.insert(b);
        }
        (reach, quiet)
    }

    #[test]
    fn agrees_with_brute_force_on_small_games() {
        let specs = [
            "lights-out:1x1",
            "lights-out:2x2",
            "lights-out:3x3",
            "lights-out:2x5",
            "lights-out:3x4",
            "alien:2x3",
            "alien:3x3",
            "alien:2x4",
            "squares:2x2",
            "squares:3x4",
            "squares:2x5",
            "gale-berlekamp:3x4",
            "gale-berlekamp:1x5",
            "stencil:101/010/101:3x4",
            "stencil:010/101/010:3x3",
            "stencil:1/0/1:4x3",
        ];
        for spec in specs {
            for torus in [false, true] {
                let game = spec.parse::<Game>().unwrap().with_torus(torus);
                let s = Solver::new(&game).unwrap();
                let (reach, quiet) = brute(&game);
                assert_eq!(BigUint::from(reach.len()), s.solvable_count(), "{game}");
                assert_eq!(BigUint::from(quiet), s.solutions_per_board(), "{game}");
                for k in s.quiet_patterns() {
                    assert!(game.effect(k).into_bits().is_zero(), "{game}");
                }
                for b in all_vectors(game.num_cells()) {
                    let board = Board::from_bits(game.rows, game.cols, b.clone()).unwrap();
                    match s.solve(&board) {
                        Ok(x) => {
                            assert!(reach.contains(&b), "{game}");
                            assert_eq!(game.effect(&x).into_bits(), b, "{game}");
                        }
                        Err(y) => {
                            assert!(!reach.contains(&b), "{game}");
                            assert!(y.dot(&b), "{game}");
                            for mv in 0..game.num_moves() {
                                let overlap =
                                    game.move_cells(mv).iter().filter(|&&c| y.get(c)).count();
                                assert_eq!(overlap % 2, 0, "{game}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn solution_is_canonical() {
        let game: Game = "lights-out:5x5".parse().unwrap();
        let s = Solver::new(&game).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        for _ in 0..20 {
            let x = random_presses(&game, &mut rng);
            let b = game.effect(&x);
            let sol = s.solve(&b).unwrap();
            // Every solution of b reduces to the same one.
            let mut other = sol.clone();
            other.xor_assign(&s.quiet_patterns()[0]);
            let b2 = game.effect(&other);
            assert_eq!(s.solve(&b2).unwrap(), sol);
            for &kp in &s.kernel_pivots {
                assert!(!sol.get(kp));
            }
        }
    }

    #[test]
    fn counts_and_limits() {
        let s = Solver::new(&"lights-out:5x5".parse().unwrap()).unwrap();
        assert_eq!((s.rank(), s.nullity()), (23, 2));
        assert_eq!(s.solvable_count(), BigUint::from(1u32 << 23));
        assert_eq!(s.solvable_fraction(), (1u32.into(), 4u32.into()));
        assert!(!s.is_completely_solvable());
        let big: Game = "lights-out:129x128".parse().unwrap();
        assert!(matches!(Solver::new(&big), Err(Error::Limit { .. })));
        let q = Game::new(Pattern::LightsOut, 3, 3).with_states(3);
        assert!(matches!(Solver::new(&q), Err(Error::Spec { .. })));
        let a = Solver::shared(&"alien:4x4".parse().unwrap()).unwrap();
        let b = Solver::shared(&"alien:4x4".parse().unwrap()).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(a.is_completely_solvable());
    }

    #[test]
    fn random_boards_are_solvable_and_seeded() {
        for spec in [
            "lights-out:5x5",
            "alien:3x5",
            "gale-berlekamp:4x6",
            "squares:5x5",
        ] {
            let game: Game = spec.parse().unwrap();
            let s = Solver::new(&game).unwrap();
            let mut r1 = ChaCha20Rng::seed_from_u64(42);
            let mut r2 = ChaCha20Rng::seed_from_u64(42);
            for _ in 0..10 {
                let b = s.random_board(&mut r1);
                assert!(s.is_solvable(&b), "{spec}");
                assert_eq!(b, random_solvable(&game, &mut r2));
            }
        }
    }

    #[test]
    fn random_boards_are_uniform() {
        // alien 2x3 has 2^(6-1) = 32 solvable boards; 32000 draws should hit each about 1000
        // times.
        let game: Game = "alien:2x3".parse().unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut hits: HashMap<BitVec, usize> = HashMap::new();
        for _ in 0..32_000 {
            *hits
                .entry(random_solvable(&game, &mut rng).into_bits())
                .or_default() += 1;
        }
        assert_eq!(hits.len(), 32);
        // Chi-square with 31 degrees of freedom: 70 is far in the tail (p < 1e-4).
        let chi: f64 = hits
            .values()
            .map(|&h| (h as f64 - 1000.0).powi(2) / 1000.0)
            .sum();
        assert!(chi < 70.0, "chi-square {chi}");
    }

    #[test]
    fn closed_forms_agree_with_elimination() {
        for m in 1..=4 {
            for n in 1..=4 {
                for pattern in [Pattern::Alien, Pattern::GaleBerlekamp] {
                    let game = Game::new(pattern, m, n);
                    let s = Solver::new(&game).unwrap();
                    for b in all_vectors(m * n) {
                        let board = Board::from_bits(m, n, b.clone()).unwrap();
                        let closed = solve_closed_form(&game, &board).unwrap();
                        let gauss = s.solve(&board);
                        assert_eq!(closed.is_ok(), gauss.is_ok(), "{game}\n{board}");
                        if game.pattern == Pattern::GaleBerlekamp && closed.is_ok() {
                            // Row 0 unflipped is the canonical solution.
                            assert_eq!(closed, gauss);
                        }
                        match closed {
                            Ok(x) => assert_eq!(game.effect(&x), board),
                            Err(y) => {
                                assert!(y.dot(&b), "{game}\n{board}");
                                for mv in 0..game.num_moves() {
                                    let overlap =
                                        game.move_cells(mv).iter().filter(|&&c| y.get(c)).count();
                                    assert_eq!(overlap % 2, 0, "{game}\n{board}");
                                }
                            }
                        }
                    }
                }
            }
        }
        let lo = Game::new(Pattern::LightsOut, 2, 2);
        assert!(solve_closed_form(&lo, &Board::zeros(2, 2)).is_none());
    }

    #[test]
    fn gale_berlekamp_layout() {
        let game: Game = "gale-berlekamp:2x3".parse().unwrap();
        let x = BitVec::parse("10011").unwrap();
        assert_eq!(
            PressLayout::of(&game, &x),
            PressLayout::Lines {
                rows: vec![0],
                cols: vec![1, 2]
            }
        );
    }
}
