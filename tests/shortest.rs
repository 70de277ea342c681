//! Shortest solutions and light chasing against brute force.
//!
//! The oracle enumerates every press vector of a small game (Gray-code order, one XOR per step)
//! and keeps, for every board, the fewest presses that produce it. Past that size the oracle is
//! a plain enumeration of the kernel written here independently of the library.

use quickcheck::{QuickCheck, TestResult};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tilecode::game::alien;
use tilecode::game::chase::{Chaser, chase_solve, effect};
use tilecode::game::shortest::{
    Limits, alien_shortest, alien_shortest_with, shortest_by_kernel, shortest_by_kernel_with,
};
use tilecode::game::squares::{squares_one_way, squares_two_way};
use tilecode::game::{Board, Game};
use tilecode::gf2::BitVec;

const UNSOLVABLE: u8 = u8::MAX;

/// `table[board] = fewest presses producing board`, for games with at most 25 cells/moves.
fn brute_table(game: &Game) -> Vec<u8> {
    let cells = game.num_cells();
    let moves = game.num_moves();
    assert!(cells <= 25 && moves <= 25);
    let cols: Vec<u32> = (0..moves)
        .map(|mv| {
            game.move_cells(mv)
                .iter()
                .fold(0u32, |acc, &c| acc | 1 << c)
        })
        .collect();
    let mut table = vec![UNSOLVABLE; 1 << cells];
    table[0] = 0;
    let mut b = 0u32;
    for s in 1u64..1 << moves {
        b ^= cols[s.trailing_zeros() as usize];
        let w = (s ^ (s >> 1)).count_ones() as u8;
        let t = &mut table[b as usize];
        if w < *t {
            *t = w;
        }
    }
    table
}

fn board_of(game: &Game, mask: u64) -> Board {
    let cells = game.num_cells();
    let bits = BitVec::from_bools(&(0..cells).map(|i| (mask >> i) & 1 == 1).collect::<Vec<_>>());
    Board::from_bits(game.rows, game.cols, bits).unwrap()
}

fn random_bits(rng: &mut ChaCha8Rng, len: usize) -> BitVec {
    BitVec::from_bools(&(0..len).map(|_| rng.r#gen::<bool>()).collect::<Vec<_>>())
}

/// The boards to check: all of them for small games, a seeded sample (half of them solvable)
/// beyond.
fn boards(game: &Game, table: &[u8], rng: &mut ChaCha8Rng) -> Vec<u64> {
    let cells = game.num_cells();
    if cells <= 10 {
        return (0..1u64 << cells).collect();
    }
    let solvable: Vec<u64> = (0..table.len() as u64)
        .filter(|&b| table[b as usize] != UNSOLVABLE)
        .collect();
    (0..150)
        .map(|i| {
            if i % 2 == 0 {
                solvable[rng.gen_range(0..solvable.len())]
            } else {
                rng.gen_range(0..1u64 << cells)
            }
        })
        .collect()
}

/// Checks shortest_by_kernel (Gray walk and branch and bound), and light chasing where it
/// applies, on every sampled board of `game`.
fn check_game(game: &Game, rng: &mut ChaCha8Rng) {
    let table = brute_table(game);
    let a = game.move_matrix();
    let ech = a.echelon();
    let kernel = ech.kernel();
    let chaser = Chaser::new(game).ok();
    if let Some(c) = &chaser {
        assert_eq!(c.nullity(), kernel.len(), "{game}: chased nullity");
    }
    let bnb = Limits {
        gray_max_nullity: 0,
        ..Limits::default()
    };
    let walk = Limits {
        probe: false,
        ..Limits::default()
    };
    for mask in boards(game, &table, rng) {
        let board = board_of(game, mask);
        let want = table[mask as usize];
        let solution = ech.solve(board.bits());
        assert_eq!(
            solution.is_ok(),
            want != UNSOLVABLE,
            "{game} board {mask:b}"
        );
        if let Some(c) = &chaser {
            let chased = c.solve(&board).unwrap();
            assert_eq!(
                chased.is_some(),
                want != UNSOLVABLE,
                "{game} chase {mask:b}"
            );
            if let Some(p) = chased {
                assert_eq!(game.effect(&p), board, "{game} chase {mask:b}");
            }
        }
        let Ok(x) = solution else { continue };
        for limits in [&Limits::default(), &bnb, &walk] {
            let s = shortest_by_kernel_with(&x, &kernel, limits, None).unwrap();
            assert!(s.optimal);
            assert_eq!(
                s.weight(),
                want as usize,
                "{game} board {mask:b} ({})",
                s.method
            );
            assert_eq!(s.lower_bound, want as usize);
            assert_eq!(effect(game, &s.presses).unwrap(), board);
        }
    }
}

fn game(spec: &str, torus: bool) -> Game {
    spec.parse::<Game>().unwrap().with_torus(torus)
}

#[test]
fn lights_out_matches_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for m in 1..=4 {
        for n in 1..=4 {
            for torus in [false, true] {
                check_game(&game(&format!("lights-out:{m}x{n}"), torus), &mut rng);
            }
        }
    }
    check_game(&game("lights-out:2x7", false), &mut rng);
    check_game(&game("lights-out:3x6", true), &mut rng);
}

#[test]
fn lights_out_5x5_matches_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    check_game(&game("lights-out:5x5", false), &mut rng);
    check_game(&game("lights-out:4x5", true), &mut rng);
}

#[test]
fn squares_and_stencils_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for (m, n) in [
        (1, 1),
        (1, 4),
        (2, 2),
        (2, 3),
        (3, 3),
        (3, 4),
        (4, 4),
        (2, 5),
        (4, 5),
    ] {
        for torus in [false, true] {
            check_game(&game(&format!("squares:{m}x{n}"), torus), &mut rng);
        }
    }
    for st in [
        "101/010/101",
        "111/101/111",
        "010/101/010",
        "1",
        "111",
        "001/010/100",
        "00100/00000/10101/00000/00100",
        "000/011/010",
        "0",
    ] {
        for (m, n) in [(1, 3), (3, 3), (3, 4), (4, 4), (2, 6), (4, 5)] {
            for torus in [false, true] {
                check_game(&game(&format!("stencil:{st}:{m}x{n}"), torus), &mut rng);
            }
        }
    }
}

#[test]
fn gale_berlekamp_matches_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for (m, n) in [(1, 1), (2, 2), (2, 3), (3, 3), (3, 4), (4, 4), (4, 5)] {
        check_game(&game(&format!("gale-berlekamp:{m}x{n}"), false), &mut rng);
    }
}

#[test]
fn alien_matches_brute_force_in_all_four_shapes() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for (m, n) in [
        (1, 1),
        (1, 2),
        (2, 1),
        (1, 3),
        (3, 1),
        (2, 2),
        (2, 3),
        (3, 2),
        (3, 3),
        (2, 4),
        (4, 2),
        (3, 4),
        (4, 3),
        (4, 4),
        (2, 5),
        (5, 2),
        (3, 5),
        (5, 3),
        (4, 5),
        (5, 4),
        (1, 7),
        (6, 3),
    ] {
        let g = game(&format!("alien:{m}x{n}"), false);
        let table = brute_table(&g);
        for mask in boards(&g, &table, &mut rng) {
            let board = board_of(&g, mask);
            let want = table[mask as usize];
            match alien_shortest(&board) {
                None => assert_eq!(want, UNSOLVABLE, "{m}x{n} board {mask:b}"),
                Some(k) => {
                    assert_eq!(k.weight(), want as usize, "{m}x{n} board {mask:b}");
                    assert_eq!(alien::psi(&k), board);
                }
            }
        }
    }
}

/// The kernel enumerated directly: the oracle for boards too big for a table.
fn kernel_oracle(x: &BitVec, kernel: &[BitVec]) -> usize {
    assert!(kernel.len() <= 20);
    (0..1u64 << kernel.len())
        .map(|c| {
            let mut v = x.clone();
            for (i, k) in kernel.iter().enumerate() {
                if (c >> i) & 1 == 1 {
                    v.xor_assign(k);
                }
            }
            v.weight()
        })
        .min()
        .unwrap()
}

#[test]
fn alien_larger_boards_match_kernel_enumeration() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for (m, n) in [
        (5, 5),
        (5, 7),
        (7, 5),
        (3, 9),
        (6, 7),
        (7, 6),
        (6, 6),
        (7, 7),
        (9, 5),
    ] {
        let g = game(&format!("alien:{m}x{n}"), false);
        let a = g.move_matrix();
        let ech = a.echelon();
        let kernel = ech.kernel();
        for _ in 0..12 {
            let k = Board::from_bits(m, n, random_bits(&mut rng, m * n)).unwrap();
            let board = alien::psi(&k);
            let best = alien_shortest(&board).unwrap();
            assert_eq!(alien::psi(&best), board);
            let x = ech.solve(board.bits()).unwrap();
            assert_eq!(best.weight(), kernel_oracle(&x, &kernel), "{m}x{n}");
            let s = shortest_by_kernel(&x, &kernel, None).unwrap();
            assert_eq!(s.weight(), best.weight());
        }
    }
}

#[test]
fn lecture_5x5_example_needs_8_presses() {
    let g = game("lights-out:5x5", false);
    let a = g.move_matrix();
    let ech = a.echelon();
    // Example 24.1: the solver's first answer has 12 presses; the optimum is 8.
    let b = Board::from_rows(&["11001", "11100", "10001", "00111", "10011"]).unwrap();
    let x = ech.solve(b.bits()).unwrap();
    let s = shortest_by_kernel(&x, &ech.kernel(), None).unwrap();
    assert_eq!(s.weight(), 8);
    assert!(s.optimal);
    assert_eq!(effect(&g, &s.presses).unwrap(), b);
    let chased = chase_solve(&g, &b).unwrap().unwrap();
    assert_eq!(effect(&g, &chased).unwrap(), b);
    // Figure 8: also 8 presses.
    let b = Board::from_rows(&["01000", "11011", "11110", "11111", "10101"]).unwrap();
    let x = ech.solve(b.bits()).unwrap();
    let s = shortest_by_kernel(&x, &ech.kernel(), None).unwrap();
    assert_eq!(s.weight(), 8);
    // Figure 5 is unsolvable, and chasing says so.
    let b = Board::from_rows(&["10101", "00000", "00000", "00000", "00000"]).unwrap();
    assert!(ech.solve(b.bits()).is_err());
    assert_eq!(chase_solve(&g, &b).unwrap(), None);
}

#[test]
fn lights_out_nullities_of_the_lecture_table() {
    // Table 1 of the lecture: nullity of n x n Lights Out for n = 3..10.
    for (n, nullity) in [
        (3, 0),
        (4, 4),
        (5, 2),
        (6, 0),
        (7, 0),
        (8, 0),
        (9, 8),
        (10, 0),
    ] {
        let c = Chaser::new(&game(&format!("lights-out:{n}x{n}"), false)).unwrap();
        assert_eq!(c.nullity(), nullity, "{n}x{n}");
        assert_eq!(c.unknowns(), n);
        let quiet = c.quiet_patterns();
        assert_eq!(quiet.len(), nullity);
        for q in &quiet {
            assert!(!q.is_zero());
            assert!(
                effect(&game(&format!("lights-out:{n}x{n}"), false), q)
                    .unwrap()
                    .bits()
                    .is_zero()
            );
        }
    }
}

#[test]
fn chasing_solves_larger_boards() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let specs = [
        ("lights-out:17x23", false),
        ("lights-out:20x20", true),
        ("lights-out:33x65", false),
        ("squares:19x17", false),
        ("stencil:010/111/111:14x16", true),
        ("stencil:101/010/101:21x18", false),
        ("stencil:00100/01110/11011/01110/00100:17x19", false),
        ("stencil:010/111/010:9x70", true),
        ("stencil:11111/11111/11111:12x13", false),
        ("stencil:000/111/010:15x15", true),
    ];
    for (spec, torus) in specs {
        let g = game(spec, torus);
        let chaser = Chaser::new(&g).unwrap();
        let a = g.move_matrix();
        let ech = a.echelon();
        assert_eq!(chaser.nullity(), g.num_moves() - ech.rank(), "{spec}");
        for _ in 0..4 {
            // A solvable board, and a random one.
            let presses = random_bits(&mut rng, g.num_moves());
            let solvable = effect(&g, &presses).unwrap();
            let p = chaser.solve(&solvable).unwrap().expect("solvable");
            assert_eq!(effect(&g, &p).unwrap(), solvable, "{spec}");
            let random =
                Board::from_bits(g.rows, g.cols, random_bits(&mut rng, g.num_cells())).unwrap();
            let chased = chaser.solve(&random).unwrap();
            assert_eq!(chased.is_some(), ech.solve(random.bits()).is_ok(), "{spec}");
            if let Some(p) = chased {
                assert_eq!(effect(&g, &p).unwrap(), random);
            }
        }
    }
}

#[test]
fn chasing_rejects_what_it_cannot_chase() {
    let cases = [
        ("alien:4x4", false),
        ("gale-berlekamp:3x3", false),
        ("squares:6x6", true),
        ("lights-out:2x2", true),
        ("stencil:111/111/111:9x9", true),
    ];
    for (spec, torus) in cases {
        let err = Chaser::new(&game(spec, torus)).unwrap_err();
        assert!(err.to_string().contains("light chasing"), "{spec}: {err}");
    }
    let three = game("lights-out:3x3", false).with_states(3);
    assert!(Chaser::new(&three).is_err());
    let c = Chaser::new(&game("lights-out:3x3", false)).unwrap();
    assert!(c.solve(&Board::zeros(3, 4)).is_err());
}

#[test]
fn squares_one_way_is_exact_on_3k_plus_2_boards() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for (m, n) in [(2, 2), (2, 5), (5, 2), (5, 5), (5, 8), (8, 8)] {
        let g = game(&format!("squares:{m}x{n}"), false);
        let ech = g.move_matrix().echelon();
        let count = if m * n <= 10 { 1 << (m * n) } else { 200 };
        for i in 0..count {
            let bits = if m * n <= 10 {
                BitVec::from_bools(&(0..m * n).map(|b| (i >> b) & 1 == 1).collect::<Vec<_>>())
            } else if i % 2 == 0 {
                effect(&g, &random_bits(&mut rng, m * n))
                    .unwrap()
                    .into_bits()
            } else {
                random_bits(&mut rng, m * n)
            };
            let board = Board::from_bits(m, n, bits).unwrap();
            let swept = squares_one_way(&board);
            assert_eq!(swept.is_some(), ech.solve(board.bits()).is_ok(), "{m}x{n}");
            if let Some(p) = swept {
                assert_eq!(effect(&g, &p).unwrap(), board);
                // Theorem 3's presses are a basis: the answer is the unique one among them.
                assert!((0..n).all(|j| !p.get(j)));
                assert!((0..m).all(|i| !p.get(i * n + n - 1)));
            }
        }
    }
}

#[test]
fn squares_two_way_clears_every_board_when_no_side_is_3k_plus_2() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for (m, n) in [
        (1, 1),
        (1, 3),
        (3, 1),
        (3, 3),
        (3, 4),
        (4, 3),
        (4, 4),
        (6, 6),
        (6, 7),
        (7, 7),
        (9, 10),
        (12, 13),
    ] {
        let g = game(&format!("squares:{m}x{n}"), false);
        let count = if m * n <= 12 { 1 << (m * n) } else { 100 };
        for i in 0..count {
            let bits = if m * n <= 12 {
                BitVec::from_bools(&(0..m * n).map(|b| (i >> b) & 1 == 1).collect::<Vec<_>>())
            } else {
                random_bits(&mut rng, m * n)
            };
            let board = Board::from_bits(m, n, bits).unwrap();
            let p = squares_two_way(&board).unwrap_or_else(|| panic!("{m}x{n}: {board}"));
            assert_eq!(effect(&g, &p).unwrap(), board, "{m}x{n}");
        }
    }
    // On 3k + 2 sides the sweep can fail, and then the board really is not cleared by it.
    let g = game("squares:5x5", false);
    let ech = g.move_matrix().echelon();
    for _ in 0..50 {
        let board = Board::from_bits(5, 5, random_bits(&mut rng, 25)).unwrap();
        if let Some(p) = squares_two_way(&board) {
            assert_eq!(effect(&g, &p).unwrap(), board);
        } else {
            assert!(squares_one_way(&board).is_none() || ech.solve(board.bits()).is_ok());
        }
    }
}

#[test]
fn quickcheck_alien_shortest_is_a_shortest_solution() {
    fn prop(m: u8, n: u8, seed: u64) -> TestResult {
        let (m, n) = (1 + m as usize % 7, 1 + n as usize % 7);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let k = Board::from_bits(m, n, random_bits(&mut rng, m * n)).unwrap();
        let board = alien::psi(&k);
        let Some(best) = alien_shortest(&board) else {
            return TestResult::failed();
        };
        let g: Game = format!("alien:{m}x{n}").parse().unwrap();
        let ech = g.move_matrix().echelon();
        let x = ech.solve(board.bits()).unwrap();
        let kernel = ech.kernel();
        if kernel.len() > 14 {
            return TestResult::discard();
        }
        TestResult::from_bool(
            alien::psi(&best) == board
                && best.weight() <= k.weight()
                && best.weight() == kernel_oracle(&x, &kernel),
        )
    }
    QuickCheck::new()
        .tests(150)
        .quickcheck(prop as fn(u8, u8, u64) -> TestResult);
}

#[test]
fn alien_with_limits_reports_exactness_honestly() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let k = Board::from_bits(9, 11, random_bits(&mut rng, 99)).unwrap();
    let board = alien::psi(&k);
    let exact = alien_shortest_with(&board, &Limits::default(), None).unwrap();
    assert!(exact.optimal);
    assert_eq!(exact.method, "row-enumeration");
    assert_eq!(exact.lower_bound, exact.weight());
    let tight = Limits {
        alien_max_enum_bits: 4,
        ..Limits::default()
    };
    let approx = alien_shortest_with(&board, &tight, None).unwrap();
    assert!(approx.lower_bound <= exact.weight());
    assert!(approx.weight() >= exact.weight());
    assert_eq!(approx.optimal, approx.weight() == approx.lower_bound);
    // Even-by-odd and even-by-even are exact at any size.
    for (m, n) in [(40, 41), (41, 40), (30, 30)] {
        let k = Board::from_bits(m, n, random_bits(&mut rng, m * n)).unwrap();
        let board = alien::psi(&k);
        let s = alien_shortest_with(&board, &tight, None).unwrap();
        assert!(s.optimal);
        assert_eq!(
            alien::psi(&Board::from_bits(m, n, s.presses).unwrap()),
            board
        );
    }
}

#[test]
fn squares_rank_is_the_product_of_the_one_dimensional_ranks() {
    // The 3x3 block is 111 (x) 111, so rank = r(m) r(n) with r(k) = k - 1 on 3j + 2 sides.
    let r = |k: usize| if k % 3 == 2 { k - 1 } else { k };
    for m in 1..=11 {
        for n in 1..=11 {
            let g = game(&format!("squares:{m}x{n}"), false);
            let c = Chaser::new(&g).unwrap();
            assert_eq!(c.unknowns(), m + n - 1, "{m}x{n}");
            assert_eq!(m * n - c.nullity(), r(m) * r(n), "{m}x{n}");
        }
    }
}

#[test]
fn alien_wide_odd_boards_match_the_exact_kernel_search() {
    // More than 32 columns: the counts no longer fit four words; the oracle is the exact branch
    // and bound over the (easy) Alien kernel, itself checked against brute force above.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for (m, n) in [(3, 35), (35, 3), (5, 41), (3, 67)] {
        let g = game(&format!("alien:{m}x{n}"), false);
        let ech = g.move_matrix().echelon();
        let kernel = ech.kernel();
        for _ in 0..3 {
            let k = Board::from_bits(m, n, random_bits(&mut rng, m * n)).unwrap();
            let board = alien::psi(&k);
            let best = alien_shortest(&board).unwrap();
            assert_eq!(alien::psi(&best), board);
            let x = ech.solve(board.bits()).unwrap();
            let s = shortest_by_kernel(&x, &kernel, None).unwrap();
            assert_eq!(s.optimal, kernel.len() <= 64, "{m}x{n}: {}", s.method);
            if s.optimal {
                assert_eq!(best.weight(), s.weight(), "{m}x{n}");
            } else {
                assert!(s.lower_bound <= best.weight() && best.weight() <= s.weight());
            }
        }
    }
}

#[test]
fn packed_effect_matches_the_game_effect() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for (spec, torus) in [
        ("lights-out:70x130", false),
        ("lights-out:3x3", true),
        ("squares:65x64", true),
        ("stencil:00100/00000/11011:9x200", false),
        ("stencil:111/101/111:2x2", true),
        ("alien:5x6", false),
        ("gale-berlekamp:4x7", false),
    ] {
        let g = game(spec, torus);
        for _ in 0..5 {
            let x = random_bits(&mut rng, g.num_moves());
            assert_eq!(effect(&g, &x).unwrap(), g.effect(&x), "{g}");
        }
    }
}
