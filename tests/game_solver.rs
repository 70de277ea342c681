//! Properties of the generic game solvers: quickcheck over random games, boards and presses,
//! with brute force and the Alien Tiles closed forms as oracles.

use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use tilecode::game::qstate::{QBoard, QSolver, effect_q};
use tilecode::game::{Board, Game, Pattern, Solve, Solver, Stencil, alien};
use tilecode::gf2::BitVec;

/// A small random game: any pattern, 1..=7 rows and columns, plain or torus.
#[derive(Clone, Debug)]
struct SmallGame(Game);

impl Arbitrary for SmallGame {
    fn arbitrary(g: &mut Gen) -> Self {
        let rows = usize::arbitrary(g) % 7 + 1;
        let cols = usize::arbitrary(g) % 7 + 1;
        let pattern = match u8::arbitrary(g) % 5 {
            0 => Pattern::LightsOut,
            1 => Pattern::Alien,
            2 => Pattern::Squares,
            3 => Pattern::GaleBerlekamp,
            _ => {
                let h = 2 * (usize::arbitrary(g) % 3) + 1;
                let w = 2 * (usize::arbitrary(g) % 3) + 1;
                let cells = (0..h * w).map(|_| bool::arbitrary(g)).collect();
                Pattern::Stencil(Stencil::new(h, w, cells).unwrap())
            }
        };
        SmallGame(Game::new(pattern, rows, cols).with_torus(bool::arbitrary(g)))
    }
}

fn random_bits(g: &mut Gen, len: usize) -> BitVec {
    BitVec::from_bools(&(0..len).map(|_| bool::arbitrary(g)).collect::<Vec<_>>())
}

/// Presses and a board for a game, drawn from a seed so that quickcheck can shrink the game.
fn draw(game: &Game, seed: u64) -> (BitVec, Board) {
    let mut g = Gen::new(64);
    // Burn `seed % 97` draws so that different seeds give different vectors.
    for _ in 0..seed % 97 {
        let _ = bool::arbitrary(&mut g);
    }
    let x = random_bits(&mut g, game.num_moves());
    let b = Board::from_bits(game.rows, game.cols, random_bits(&mut g, game.num_cells())).unwrap();
    (x, b)
}

fn certificate_is_valid(game: &Game, board: &Board, y: &BitVec) -> bool {
    y.dot(board.bits())
        && (0..game.num_moves())
            .all(|mv| game.move_cells(mv).iter().filter(|&&c| y.get(c)).count() % 2 == 0)
}

fn qc() -> QuickCheck {
    QuickCheck::new().tests(150)
}

#[test]
fn prop_effects_are_solved() {
    fn prop(game: SmallGame, seed: u64) -> bool {
        let game = game.0;
        let s = Solver::new(&game).unwrap();
        let (x, _) = draw(&game, seed);
        let b = game.effect(&x);
        match s.solve(&b) {
            Ok(y) => {
                // The canonical solution differs from x by a quiet pattern.
                let mut d = y.clone();
                d.xor_assign(&x);
                game.effect(&y) == b && game.effect(&d).bits().is_zero()
            }
            Err(_) => false,
        }
    }
    qc().quickcheck(prop as fn(SmallGame, u64) -> bool);
}

#[test]
fn prop_boards_are_solved_or_certified() {
    fn prop(game: SmallGame, seed: u64) -> bool {
        let game = game.0;
        let s = Solver::new(&game).unwrap();
        let (_, b) = draw(&game, seed);
        match s.solve(&b) {
            Ok(x) => game.effect(&x) == b,
            Err(y) => certificate_is_valid(&game, &b, &y),
        }
    }
    qc().quickcheck(prop as fn(SmallGame, u64) -> bool);
}

#[test]
fn prop_rank_nullity_and_counts() {
    fn prop(game: SmallGame) -> bool {
        let game = game.0;
        let s = Solver::new(&game).unwrap();
        let quiet_ok = s
            .quiet_patterns()
            .iter()
            .all(|k| game.effect(k).bits().is_zero());
        let rank = game.move_matrix().rank();
        s.rank() == rank
            && s.rank() + s.nullity() == game.num_moves()
            && s.solvable_count() * s.solutions_per_board()
                == num_bigint::BigUint::from(1u32) << game.num_moves()
            && quiet_ok
    }
    qc().quickcheck(prop as fn(SmallGame) -> bool);
}

#[test]
fn prop_transposed_games_have_equal_rank() {
    fn prop(game: SmallGame) -> TestResult {
        let game = game.0;
        let t = match &game.pattern {
            Pattern::Stencil(_) => return TestResult::discard(),
            p => Game::new(p.clone(), game.cols, game.rows).with_torus(game.torus),
        };
        let (a, b) = (Solver::new(&game).unwrap(), Solver::new(&t).unwrap());
        TestResult::from_bool(a.rank() == b.rank())
    }
    qc().quickcheck(prop as fn(SmallGame) -> TestResult);
}

/// The generic solver agrees with the paper's closed forms on Alien Tiles: solvability by
/// syndromes, the number of solvable games 2^mn, 2^(mn - m + 1), 2^(mn - m - n + 2).
#[test]
fn alien_agrees_with_closed_forms() {
    for m in 1..=7 {
        for n in 1..=7 {
            let game = Game::new(Pattern::Alien, m, n);
            let s = Solver::new(&game).unwrap();
            let expect = match (m % 2, n % 2) {
                (0, 0) => m * n,
                (0, 1) => m * n - m + 1,
                (1, 0) => m * n - n + 1,
                _ => m * n + 2 - m - n,
            };
            if m > 1 && n > 1 {
                assert_eq!(s.rank(), expect, "{m}x{n}");
            }
            let mut g = Gen::new(8);
            for _ in 0..40 {
                let b = Board::from_bits(m, n, random_bits(&mut g, m * n)).unwrap();
                assert_eq!(s.is_solvable(&b), alien::is_solvable(&b), "{m}x{n}\n{b}");
            }
        }
    }
}

/// Odd-by-odd solvable games are easy (presses = board) and even-by-even games are doubly
/// easy (presses = psi(board)), as Sections 3.2 and 3.4 prove.
#[test]
fn alien_easy_games() {
    let mut g = Gen::new(8);
    for (m, n) in [(3, 3), (3, 5), (5, 7), (4, 4), (2, 6), (6, 4)] {
        let game = Game::new(Pattern::Alien, m, n);
        for _ in 0..30 {
            let x = random_bits(&mut g, m * n);
            let b = game.effect(&x);
            let presses = if m % 2 == 1 {
                b.clone()
            } else {
                alien::psi(&b)
            };
            assert_eq!(game.effect(presses.bits()), b, "{m}x{n}");
        }
    }
}

/// Gale–Berlekamp: rank m + n - 1 (flipping every row and every column changes nothing).
#[test]
fn gale_berlekamp_rank() {
    for m in 1..=6 {
        for n in 1..=6 {
            let s = Solver::new(&Game::new(Pattern::GaleBerlekamp, m, n)).unwrap();
            assert_eq!((s.rank(), s.nullity()), (m + n - 1, 1), "{m}x{n}");
            assert_eq!(s.quiet_patterns()[0], BitVec::ones(m + n));
            // Solvable exactly when b_ij = b_i0 + b_0j + b_00.
            let mut g = Gen::new(8);
            for _ in 0..30 {
                let mut b = Board::from_bits(m, n, random_bits(&mut g, m * n)).unwrap();
                if bool::arbitrary(&mut g) {
                    // Make it solvable half of the time, so both answers are exercised.
                    for i in 1..m {
                        for j in 1..n {
                            let v = b.get(i, 0) ^ b.get(0, j) ^ b.get(0, 0);
                            b.set(i, j, v);
                        }
                    }
                }
                let rule = (0..m).all(|i| {
                    (0..n).all(|j| b.get(i, j) == b.get(i, 0) ^ b.get(0, j) ^ b.get(0, 0))
                });
                assert_eq!(s.is_solvable(&b), rule, "{m}x{n}\n{b}");
            }
        }
    }
}

/// The q-state solver: random games and moduli 2..=12; effects of random presses are solved,
/// and every other board is solved or certified.
#[test]
fn prop_q_state() {
    fn prop(game: SmallGame, q: u8, seed: u64) -> TestResult {
        let q = (q % 11) as u32 + 2;
        let game = game.0.with_states(q);
        if game.num_cells() > 25 {
            return TestResult::discard();
        }
        let s = QSolver::new(&game).unwrap();
        let mut g = Gen::new(64);
        for _ in 0..seed % 89 {
            let _ = u32::arbitrary(&mut g);
        }
        let x: Vec<u32> = (0..game.num_moves())
            .map(|_| u32::arbitrary(&mut g) % q)
            .collect();
        let target = effect_q(&game, &x);
        let Ok(Ok(_)) = s.try_solve(&target) else {
            return TestResult::failed();
        };
        let cells: Vec<u32> = (0..game.num_cells())
            .map(|_| u32::arbitrary(&mut g) % q)
            .collect();
        let b = QBoard::from_cells(game.rows, game.cols, q, cells.clone()).unwrap();
        let ok = match s.try_solve(&b).unwrap() {
            Ok(p) => {
                let e = effect_q(&game, &p);
                e.cells().iter().zip(&cells).all(|(a, c)| (a + c) % q == 0)
            }
            Err(w) => {
                let dot = |v: &[u32]| -> u64 {
                    w.iter()
                        .zip(v)
                        .map(|(&a, &b)| a as u64 * b as u64)
                        .sum::<u64>()
                        % q as u64
                };
                dot(&cells) != 0
                    && (0..game.num_moves()).all(|mv| {
                        let mut unit = vec![0; game.num_moves()];
                        unit[mv] = 1;
                        dot(effect_q(&game, &unit).cells()) == 0
                    })
            }
        };
        TestResult::from_bool(ok)
    }
    qc().quickcheck(prop as fn(SmallGame, u8, u64) -> TestResult);
}

/// For prime Q the q-state rank is the rank over GF(Q), and Q^rank boards are solvable.
#[test]
fn prime_moduli_are_fields() {
    for q in [3u32, 5, 7] {
        for spec in [
            "lights-out:4x4",
            "lights-out:5x5",
            "squares:4x5",
            "alien:3x4",
        ] {
            let game = spec.parse::<Game>().unwrap().with_states(q);
            let s = QSolver::new(&game).unwrap();
            assert_eq!(
                s.solvable_count(),
                num_bigint::BigUint::from(q).pow(s.rank() as u32),
                "{spec} mod {q}"
            );
            assert_eq!(
                s.solutions_per_board(),
                num_bigint::BigUint::from(q).pow(s.nullity() as u32)
            );
        }
    }
}

/// Light chasing (`game::chase`) and elimination agree on the structure of stencil games:
/// nullity, quiet patterns and solvability, plain and on a torus.
#[test]
fn chasing_agrees_with_elimination() {
    use tilecode::game::chase::Chaser;
    let mut games = Vec::new();
    for n in 1..=24 {
        games.push(Game::new(Pattern::LightsOut, n, n));
        games.push(Game::new(Pattern::LightsOut, n, n + 3));
        games.push(Game::new(Pattern::Squares, n, n));
    }
    for n in 3..=12 {
        games.push(Game::new(Pattern::LightsOut, n, n).with_torus(true));
        games.push(Game::new(Pattern::LightsOut, n, n + 1).with_torus(true));
    }
    games.push(
        "stencil:00100/00000/11011/00000/00100:9x11"
            .parse()
            .unwrap(),
    );
    let mut g = Gen::new(8);
    for game in games {
        let c = Chaser::new(&game).unwrap();
        let s = Solver::new(&game).unwrap();
        assert_eq!(c.nullity(), s.nullity(), "{game}");
        let quiet = c.quiet_patterns();
        assert_eq!(quiet.len(), s.nullity(), "{game}");
        for k in &quiet {
            assert!(game.effect(k).bits().is_zero(), "{game}");
        }
        for _ in 0..5 {
            let b = Board::from_bits(game.rows, game.cols, random_bits(&mut g, game.num_cells()))
                .unwrap();
            let chased = c.solve(&b).unwrap();
            assert_eq!(chased.is_some(), s.is_solvable(&b), "{game}");
            if let Some(x) = chased {
                assert_eq!(game.effect(&x), b, "{game}");
            }
        }
    }
}
