//! The worked examples and claims of the source documents in `shared/seeds/`, checked against
//! the game solver: the linear-algebra blog, the Lights Out lecture, the Toggle Squares notes,
//! the interactive Lights Out page and the Alien Tiles paper's Section 6.

use std::collections::HashSet;
use tilecode::game::chase::chase_solve;
use tilecode::game::qstate::{QBoard, QSolver, effect_q};
use tilecode::game::shortest::shortest_by_kernel;
use tilecode::game::squares::{squares_one_way, squares_two_way};
use tilecode::game::{Board, Game, Pattern, Solve, Solver, random_solvable};
use tilecode::gf2::BitVec;

fn game(spec: &str) -> Game {
    spec.parse().unwrap()
}

/// A vector from space-separated digits, as the documents print them.
fn bits(s: &str) -> BitVec {
    BitVec::parse(&s.replace(',', " ")).unwrap()
}

fn board(rows: usize, cols: usize, s: &str) -> Board {
    Board::from_bits(rows, cols, bits(s)).unwrap()
}

/// Every solution of a solvable board: the canonical one plus the span of the quiet patterns.
fn all_solutions(s: &Solver, b: &Board) -> Vec<BitVec> {
    let x = s.solve(b).expect("solvable");
    let k = s.quiet_patterns();
    (0u64..1 << k.len())
        .map(|mask| {
            let mut v = x.clone();
            for (i, q) in k.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    v.xor_assign(q);
                }
            }
            v
        })
        .collect()
}

fn assert_certificate(g: &Game, b: &Board, y: &BitVec) {
    assert!(y.dot(b.bits()), "certificate must meet the board oddly");
    for mv in 0..g.num_moves() {
        let overlap = g.move_cells(mv).iter().filter(|&&c| y.get(c)).count();
        assert_eq!(overlap % 2, 0, "certificate must meet move {mv} evenly");
    }
}

mod blog {
    use super::*;

    /// The 3x3 system `A x = b` of "Light's Out Game and Its Solution with Linear Algebra".
    #[test]
    fn three_by_three_system() {
        let g = game("lights-out:3x3");
        let a = g.move_matrix();
        let rows = [
            "1 1 0 1 0 0 0 0 0",
            "1 1 1 0 1 0 0 0 0",
            "0 1 1 0 0 1 0 0 0",
            "1 0 0 1 1 0 1 0 0",
            "0 1 0 1 1 1 0 1 0",
            "0 0 1 0 1 1 0 0 1",
            "0 0 0 1 0 0 1 1 0",
            "0 0 0 0 1 0 1 1 1",
            "0 0 0 0 0 1 0 1 1",
        ];
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(a.row_vec(i), bits(r), "row {i}");
        }
        // A is symmetric: A = [B I O; I B I; O I B].
        assert_eq!(a.transpose(), a);
        // Pushing the first and the last button.
        let x = bits("1 0 0 0 0 0 0 0 1");
        assert_eq!(g.effect(&x).into_bits(), bits("1 1 0 1 0 1 0 1 1"));
        // Example 1: the strategy for 100/111/111 is x = e4 + e9, and it is the only one.
        let s = Solver::new(&g).unwrap();
        let b = board(3, 3, "1 0 0 1 1 1 1 1 1");
        assert_eq!(s.solve(&b).unwrap(), bits("0 0 0 1 0 0 0 0 1"));
        assert_eq!((s.rank(), s.nullity()), (9, 0));
    }

    /// The 5x5 game: rank 23, two null-space vectors s1 and s2, hence the four solutions
    /// x, x + s1, x + s2, x + s1 + s2 of every solvable game.
    #[test]
    fn four_solutions_of_a_five_by_five_game() {
        let g = game("lights-out:5x5");
        let s = Solver::new(&g).unwrap();
        assert_eq!((s.rank(), s.nullity()), (23, 2));
        let s1 = bits("0 1 1 1 0 1 0 1 0 1 1 1 0 1 1 1 0 1 0 1 0 1 1 1 0");
        let s2 = bits("1 0 1 0 1 1 0 1 0 1 0 0 0 0 0 1 0 1 0 1 1 0 1 0 1");
        for v in [&s1, &s2] {
            assert!(g.effect(v).into_bits().is_zero());
        }
        // {s1, s2} spans exactly the solver's quiet patterns.
        let span = |basis: &[BitVec]| -> HashSet<BitVec> {
            (0..4)
                .map(|m| {
                    let mut v = BitVec::zeros(25);
                    for (i, b) in basis.iter().enumerate() {
                        if m >> i & 1 == 1 {
                            v.xor_assign(b);
                        }
                    }
                    v
                })
                .collect()
        };
        assert_eq!(span(&[s1.clone(), s2.clone()]), span(s.quiet_patterns()));
        // A solvable board is orthogonal to both, and has exactly these four solutions.
        let b = board(
            5,
            5,
            "1,1,0,0,1, 1,1,1,0,0, 1,0,0,0,1, 0,0,1,1,1, 1,0,0,1,1",
        );
        assert!(!s1.dot(b.bits()) && !s2.dot(b.bits()));
        let x = s.solve(&b).unwrap();
        let mut x1 = x.clone();
        x1.xor_assign(&s1);
        let mut x2 = x.clone();
        x2.xor_assign(&s2);
        let mut x12 = x1.clone();
        x12.xor_assign(&s2);
        let four: HashSet<BitVec> = [x, x1, x2, x12].into_iter().collect();
        assert_eq!(four.len(), 4);
        for v in &four {
            assert_eq!(&g.effect(v), &b);
        }
        assert_eq!(four, all_solutions(&s, &b).into_iter().collect());
        assert_eq!(s.solutions_per_board(), 4u32.into());
    }
}

mod lecture {
    use super::*;

    /// The matrix model: toggle matrices T(1,1), T(3,4), T(5,3) (1-based) and two rows of the
    /// system written out.
    #[test]
    fn matrix_model() {
        let g = game("lights-out:5x5");
        let t = |i: usize, j: usize| g.move_cells((i - 1) * 5 + (j - 1));
        assert_eq!(t(1, 1), vec![0, 1, 5]);
        assert_eq!(t(3, 4), vec![8, 12, 13, 14, 18]);
        assert_eq!(t(5, 3), vec![17, 21, 22, 23]);
        let a = g.move_matrix();
        // x11 + x12 + x21 = b11, and x24 + x33 + x34 + x35 + x44 = b34.
        assert_eq!(a.row_vec(0).ones_iter().collect::<Vec<_>>(), vec![0, 1, 5]);
        assert_eq!(
            a.row_vec(13).ones_iter().collect::<Vec<_>>(),
            vec![8, 12, 13, 14, 18]
        );
        // The SAGE construction lights_out(n): A[m, m], A[m, m -+ n], A[m, m -+ 1].
        for n in 3..=6 {
            let g = Game::new(Pattern::LightsOut, n, n);
            let a = g.move_matrix();
            for i in 0..n {
                for j in 0..n {
                    let m = n * i + j;
                    let mut expect = vec![m];
                    if i > 0 {
                        expect.push(m - n);
                    }
                    if i < n - 1 {
                        expect.push(m + n);
                    }
                    if j > 0 {
                        expect.push(m - 1);
                    }
                    if j < n - 1 {
                        expect.push(m + 1);
                    }
                    expect.sort_unstable();
                    assert_eq!(a.row_vec(m).ones_iter().collect::<Vec<_>>(), expect);
                }
            }
        }
        // Figure 1: B = T(4,4) + T(5,5).
        let b = board(5, 5, "00000 00000 00010 00110 00001");
        let mut x = BitVec::zeros(25);
        x.set(18, true);
        x.set(24, true);
        assert_eq!(g.effect(&x), b);
        assert!(all_solutions(&Solver::new(&g).unwrap(), &b).contains(&x));
    }

    /// Example 24.1: the 12-press solution SAGE prints, and the four solutions with 12, 8, 8
    /// and 20 presses.
    #[test]
    fn example_24_1() {
        let g = game("lights-out:5x5");
        let s = Solver::new(&g).unwrap();
        let b = board(
            5,
            5,
            "1,1,0,0,1, 1,1,1,0,0, 1,0,0,0,1, 0,0,1,1,1, 1,0,0,1,1",
        );
        let x = s.solve(&b).unwrap();
        assert_eq!(x, bits("00100 10111 01010 11101 00100"));
        assert_eq!(x.weight(), 12);
        let mut weights: Vec<usize> = all_solutions(&s, &b).iter().map(BitVec::weight).collect();
        weights.sort_unstable();
        assert_eq!(weights, vec![8, 8, 12, 20]);
        // The optimal solution needs 8 presses, proven by the shortest search.
        let best = shortest_by_kernel(&x, s.quiet_patterns(), None).unwrap();
        assert!(best.optimal);
        assert_eq!(best.weight(), 8);
        assert_eq!(best.lower_bound, 8);
        assert_eq!(g.effect(&best.presses), b);
    }

    /// Figure 8: the optimal strategy of 8 presses is one of the four solutions, and the least.
    #[test]
    fn figure_8_optimal_strategy() {
        let g = game("lights-out:5x5");
        let s = Solver::new(&g).unwrap();
        let b = board(
            5,
            5,
            "0,1,0,0,0, 1,1,0,1,1, 1,1,1,1,0, 1,1,1,1,1, 1,0,1,0,1",
        );
        let optimal = bits("00001 01011 00010 10010 00010");
        let sols = all_solutions(&s, &b);
        assert!(sols.contains(&optimal));
        assert_eq!(sols.iter().map(BitVec::weight).min(), Some(8));
        let best = shortest_by_kernel(&s.solve(&b).unwrap(), s.quiet_patterns(), None).unwrap();
        assert!(best.optimal);
        assert_eq!(best.weight(), 8);
    }

    /// Section 24.2.3: rank 23, 2^23 solvable configurations, probability 1/4, four quiet
    /// patterns with the basis SAGE's right_kernel prints, and the unsolvable Figure 5.
    #[test]
    fn solvable_configurations_and_quiet_patterns() {
        let g = game("lights-out:5x5");
        let s = Solver::new(&g).unwrap();
        assert_eq!(s.rank(), 23);
        assert_eq!(s.solvable_count(), (1u64 << 23).into());
        assert_eq!(s.solvable_fraction(), (1u32.into(), 4u32.into()));
        assert_eq!(
            s.quiet_patterns(),
            &[
                bits("1 0 1 0 1 1 0 1 0 1 0 0 0 0 0 1 0 1 0 1 1 0 1 0 1"),
                bits("0 1 1 1 0 1 0 1 0 1 1 1 0 1 1 1 0 1 0 1 0 1 1 1 0"),
            ]
        );
        let fig5 = board(
            5,
            5,
            "1,0,1,0,1, 0,0,0,0,0, 0,0,0,0,0, 0,0,0,0,0, 0,0,0,0,0",
        );
        let y = s.solve(&fig5).unwrap_err();
        assert_certificate(&g, &fig5, &y);
    }

    /// Table 1: rank and nullity of A_n for n = 3..10.
    #[test]
    fn rank_nullity_table() {
        let table = [
            (3, 9, 0),
            (4, 12, 4),
            (5, 23, 2),
            (6, 36, 0),
            (7, 49, 0),
            (8, 64, 0),
            (9, 73, 8),
            (10, 100, 0),
        ];
        for (n, rank, nullity) in table {
            let s = Solver::new(&Game::new(Pattern::LightsOut, n, n)).unwrap();
            assert_eq!((s.rank(), s.nullity()), (rank, nullity), "n = {n}");
            assert_eq!(s.solutions_per_board(), (1u32 << nullity).into());
        }
    }
}

mod toggle_squares {
    use super::*;

    /// Lemma 2 and its determinant sequence 1 0 1 1 0 1 1 0 1: the 1-D board of size N is
    /// completely solvable unless N = 3k + 2, and then its presses span a space of dimension
    /// N - 1 (the dimension section's 1-D remark).
    #[test]
    fn one_dimensional_lemmas() {
        let dets: Vec<u8> = (1..=9)
            .map(|n| Solver::new(&Game::new(Pattern::Squares, 1, n)).unwrap())
            .map(|s| s.is_completely_solvable() as u8)
            .collect();
        assert_eq!(dets, vec![1, 0, 1, 1, 0, 1, 1, 0, 1]);
        for n in 1..=20 {
            let s = Solver::new(&Game::new(Pattern::Squares, 1, n)).unwrap();
            let expect = if n % 3 == 2 { n - 1 } else { n };
            assert_eq!(s.rank(), expect, "N = {n}");
        }
    }

    /// Theorems 1 and 2: n x n boards are completely solvable exactly when n = 3k or 3k + 1.
    #[test]
    fn completely_solvable_sizes() {
        for n in 1..=14 {
            let s = Solver::new(&Game::new(Pattern::Squares, n, n)).unwrap();
            assert_eq!(s.is_completely_solvable(), n % 3 != 2, "n = {n}");
        }
    }

    /// The dimension of the presses span of (3k+2) x (3k+2) boards is (3k+1)^2, spanned by the
    /// presses of a (3k+1) x (3k+1) corner.
    #[test]
    fn dimension_for_3k_plus_2() {
        for k in 0..=4 {
            let n = 3 * k + 2;
            let g = Game::new(Pattern::Squares, n, n);
            let s = Solver::new(&g).unwrap();
            assert_eq!(s.rank(), (n - 1) * (n - 1), "n = {n}");
            // The corner presses are independent: only the zero combination of them is quiet,
            // i.e. every quiet pattern has a press outside the corner, and the quiet patterns
            // restricted to the outer row and column are independent.
            let outside: Vec<usize> = (0..n * n)
                .filter(|&c| c / n == n - 1 || c % n == n - 1)
                .collect();
            let restricted: Vec<BitVec> = s
                .quiet_patterns()
                .iter()
                .map(|q| BitVec::from_bools(&outside.iter().map(|&c| q.get(c)).collect::<Vec<_>>()))
                .collect();
            let m = tilecode::gf2::BitMatrix::from_rows(&restricted, outside.len());
            assert_eq!(m.rank(), s.nullity(), "n = {n}");
        }
    }
}

mod toggle_squares_algorithms {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// Theorem 3: solvable 3k+2 boards are cleared by the one-way algorithm; Theorems 4 and 5:
    /// 3k and 3k+1 boards by the two-way algorithm; light chasing agrees.
    #[test]
    fn sweeps_clear_the_sizes_the_notes_claim() {
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        for n in 2..=12 {
            let g = Game::new(Pattern::Squares, n, n);
            for _ in 0..10 {
                let b = random_solvable(&g, &mut rng);
                let x = if n % 3 == 2 {
                    squares_one_way(&b)
                } else {
                    squares_two_way(&b)
                }
                .unwrap_or_else(|| panic!("n = {n}\n{b}"));
                assert_eq!(g.effect(&x), b, "n = {n}");
                let c = chase_solve(&g, &b).unwrap().unwrap();
                assert_eq!(g.effect(&c), b);
            }
        }
    }

    /// "A Note about Efficiency" believes the one-way algorithm is as efficient as it could be
    /// on 3k+2 boards. It is not: on 5x5 boards the shortest solution is often shorter.
    #[test]
    fn one_way_is_not_always_shortest() {
        let g = Game::new(Pattern::Squares, 5, 5);
        let s = Solver::new(&g).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut longer = 0;
        for _ in 0..50 {
            let b = random_solvable(&g, &mut rng);
            let one_way = squares_one_way(&b).unwrap();
            let best = shortest_by_kernel(&one_way, s.quiet_patterns(), None).unwrap();
            assert!(best.optimal);
            assert!(best.weight() <= one_way.weight());
            if best.weight() < one_way.weight() {
                longer += 1;
            }
        }
        assert!(longer > 0, "one-way was shortest on every board drawn");
    }
}

mod interactive_page {
    use super::*;

    /// The page's 2x2 example: the moves m11, m12, m21, m22 read off row by row.
    #[test]
    fn two_by_two_moves() {
        let g = game("lights-out:2x2");
        let cols: Vec<String> = (0..4)
            .map(|mv| g.move_matrix().col_vec(mv).to_string())
            .collect();
        assert_eq!(cols, ["1110", "1101", "1011", "0111"]);
    }

    /// "Dimension of solvable space" is the rank of the move matrix (the dimension of its
    /// column space) and the probability of a random board being solvable is
    /// 2^(dim solvable - dim whole): checked by enumerating every press set for editable
    /// neighbour patterns on small boards.
    #[test]
    fn solvable_space_dimension() {
        let patterns = [
            "010/111/010",
            "111/111/111",
            "010/101/010",
            "101/010/101",
            "00100/00100/11111/00100/00100",
            "1",
            "11111",
            "0/1/1",
        ];
        for p in patterns {
            for (m, n) in [(2, 2), (3, 3), (3, 4), (4, 4), (2, 5)] {
                let g = game(&format!("stencil:{p}:{m}x{n}"));
                let s = Solver::new(&g).unwrap();
                let reach: HashSet<BitVec> = (0u64..1 << g.num_moves())
                    .map(|x| {
                        g.effect(&BitVec::from_words(vec![x], g.num_moves()))
                            .into_bits()
                    })
                    .collect();
                assert_eq!(reach.len(), 1 << s.rank(), "{g}");
                let (num, den) = s.solvable_fraction();
                assert_eq!(num, 1u32.into());
                assert_eq!(den, (1u64 << (m * n - s.rank())).into(), "{g}");
            }
        }
    }

    /// "To choose a random solvable board uniformly ...": every board drawn is solvable, and
    /// solving it after the one reduction reproduces it.
    #[test]
    fn random_solvable_boards() {
        use rand::SeedableRng;
        let g = game("stencil:010/101/010:6x6");
        let s = Solver::new(&g).unwrap();
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        for _ in 0..50 {
            let b = s.random_board(&mut rng);
            let x = s.solve(&b).unwrap();
            assert_eq!(g.effect(&x), b);
        }
    }
}

mod paper {
    use super::*;

    fn q_board(rows: &[[u32; 4]; 4]) -> QBoard {
        QBoard::from_cells(4, 4, 4, rows.iter().flatten().copied().collect()).unwrap()
    }

    /// Section 6: the four-state 4x4 Alien Tiles example, solved by states decomposition step
    /// by step (k, z, y, k + 2y), and by the Z/4Z solver directly.
    #[test]
    fn four_state_states_decomposition() {
        let g = q_board(&[[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 0, 0], [0, 0, 0, 0]]);
        let two = game("alien:4x4");
        let s2 = Solver::new(&two).unwrap();
        // Step 1: k solves the two-state game g mod 2.
        let g2 = board(4, 4, "0000 0100 0100 0000");
        let k = s2.solve(&g2).unwrap();
        assert_eq!(k, bits("0000 1011 1011 0000"));
        // Step 2: z = (Psi k - g) / 2, computed in the integers from Psi k mod 4.
        let four = two.clone().with_states(4);
        let k_counts: Vec<u32> = k.to_bools().iter().map(|&b| b as u32).collect();
        let psi_k = effect_q(&four, &k_counts);
        assert_eq!(
            psi_k.cells(),
            &[2, 0, 2, 2, 0, 3, 0, 0, 0, 3, 0, 0, 2, 0, 2, 2]
        );
        let z: Vec<bool> = psi_k
            .cells()
            .iter()
            .zip(g.cells())
            .map(|(&a, &b)| {
                let d = a as i64 - b as i64;
                assert_eq!(d.rem_euclid(2), 0);
                (d / 2).rem_euclid(2) == 1
            })
            .collect();
        assert_eq!(BitVec::from_bools(&z), bits("1011 0110 0000 1011"));
        // Step 3: y solves z mod 2.
        let zb = Board::from_bits(4, 4, BitVec::from_bools(&z)).unwrap();
        let y = s2.solve(&zb).unwrap();
        assert_eq!(y, bits("0010 0000 0110 0010"));
        // Step 4: k + 2y attains g.
        let attain: Vec<u32> = (0..16)
            .map(|i| k.get(i) as u32 + 2 * y.get(i) as u32)
            .collect();
        assert_eq!(attain, vec![0, 0, 2, 0, 1, 0, 1, 1, 1, 2, 3, 1, 0, 0, 2, 0]);
        assert_eq!(effect_q(&four, &attain), g);
        // The Z/4Z solver finds the same (unique) move sequence, and the presses that clear
        // g are its negative.
        let sq = QSolver::new(&four).unwrap();
        assert_eq!(sq.solutions_per_board(), 1u32.into());
        assert_eq!(sq.attain(g.cells()).unwrap(), attain);
        let clear = sq.try_solve(&g).unwrap().unwrap();
        let neg: Vec<u32> = attain.iter().map(|&v| (4 - v) % 4).collect();
        assert_eq!(clear, neg);
    }

    /// Section 7: in odd-by-odd four-state games, double clicks on two rows, two columns, or a
    /// row and a column change nothing. The kernel over Z/4Z is counted independently by
    /// lifting: `x = x0 + 2 x1` is quiet exactly when `x0` is quiet mod 2 and `Psi x0 / 2` is a
    /// solvable two-state game; then every `x1` solving it works.
    #[test]
    fn four_state_odd_by_odd_kernel() {
        for (m, n) in [(3, 3), (3, 5), (5, 3)] {
            let g = Game::new(Pattern::Alien, m, n).with_states(4);
            let s = QSolver::new(&g).unwrap();
            // Two clicks on every cell of rows 0 and 1, or of columns 0 and 1, or of row 0 and
            // then column 0 (the shared cell clicked four times, i.e. not at all).
            let mut rows = vec![0u32; m * n];
            let mut cols = vec![0u32; m * n];
            let mut cross = vec![0u32; m * n];
            for i in 0..m {
                for j in 0..n {
                    if i < 2 {
                        rows[i * n + j] = 2;
                    }
                    if j < 2 {
                        cols[i * n + j] = 2;
                    }
                    if (i == 0) != (j == 0) {
                        cross[i * n + j] = 2;
                    }
                }
            }
            for x in [&rows, &cols, &cross] {
                assert!(effect_q(&g, x).is_zero(), "{m}x{n}");
            }
            let two = Game::new(Pattern::Alien, m, n);
            let s2 = Solver::new(&two).unwrap();
            let mut lifts = 0u64;
            for v in 0u64..1 << (m * n) {
                let x0: Vec<u32> = (0..m * n).map(|i| (v >> i & 1) as u32).collect();
                let psi = effect_q(&Game::new(Pattern::Alien, m, n).with_states(1 << 20), &x0);
                if psi.cells().iter().any(|&c| c % 2 == 1) {
                    continue;
                }
                let half: Vec<bool> = psi.cells().iter().map(|&c| (c / 2) % 2 == 1).collect();
                let hb = Board::from_bits(m, n, BitVec::from_bools(&half)).unwrap();
                if s2.is_solvable(&hb) {
                    lifts += 1;
                }
            }
            let kernel = lifts << s2.nullity();
            assert_eq!(s.solutions_per_board(), kernel.into(), "{m}x{n}");
        }
        // For 3x3 the double clicks are the whole kernel, 2^(m + n - 2) patterns; for 3x5 the
        // kernel is larger (256 = 2^8), which the paper leaves open.
        let k33 = QSolver::new(&Game::new(Pattern::Alien, 3, 3).with_states(4)).unwrap();
        assert_eq!(k33.solutions_per_board(), 16u32.into());
        let k35 = QSolver::new(&Game::new(Pattern::Alien, 3, 5).with_states(4)).unwrap();
        assert_eq!(k35.solutions_per_board(), 256u32.into());
    }
}
