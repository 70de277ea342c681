//! Many-state shortest solutions and hardest boards against exhaustive search.
//!
//! The oracle enumerates every press vector (counts `0..Q` per move) of a small game and keeps,
//! for every board it produces, the fewest clicks; it shares nothing with the library but the
//! game's footprints.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use tilecode::game::Game;
use tilecode::game::hardest::{distances, hardest};
use tilecode::game::qshortest::{QLimits, shortest_q, shortest_q_with};
use tilecode::game::qstate::{QBoard, QSolver};

/// `fewest[board produced from zero] = fewest clicks`, over all `Q^moves` press vectors.
fn oracle(game: &Game) -> HashMap<Vec<u32>, u64> {
    let q = game.states;
    let (cells, moves) = (game.num_cells(), game.num_moves());
    let foot: Vec<Vec<usize>> = (0..moves).map(|mv| game.move_cells(mv)).collect();
    let mut out = HashMap::new();
    let mut x = vec![0u32; moves];
    loop {
        let mut b = vec![0u32; cells];
        for (mv, &k) in x.iter().enumerate() {
            for &c in &foot[mv] {
                b[c] = (b[c] + k) % q;
            }
        }
        let clicks: u64 = x.iter().map(|&k| k as u64).sum();
        let e = out.entry(b).or_insert(clicks);
        *e = (*e).min(clicks);
        let Some(i) = (0..moves).find(|&i| x[i] + 1 < q) else {
            return out;
        };
        x[i] += 1;
        x[..i].fill(0);
    }
}

fn negate(v: &[u32], q: u32) -> Vec<u32> {
    v.iter().map(|&x| (q - x) % q).collect()
}

fn game(spec: &str, q: u32, torus: bool) -> Game {
    spec.parse::<Game>()
        .unwrap()
        .with_states(q)
        .with_torus(torus)
}

/// The games checked: every pattern, plain and torus, `Q = 2..6`, `Q^moves` kept small.
fn games() -> Vec<Game> {
    let mut out = Vec::new();
    for spec in ["lights-out", "alien", "squares", "stencil:101/010/101"] {
        for (dims, qs) in [("3x3", &[2u32, 3][..]), ("2x3", &[4, 5, 6][..])] {
            for &q in qs {
                for torus in [false, true] {
                    out.push(game(&format!("{spec}:{dims}"), q, torus));
                }
            }
        }
    }
    out.push(game("alien:3x3", 4, false));
    out.push(game("lights-out:2x4", 4, false));
    for q in 2..=6 {
        out.push(game("gale-berlekamp:3x3", q, false));
    }
    out
}

#[test]
fn shortest_clicks_equal_exhaustive_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for g in games() {
        let q = g.states;
        let fewest = oracle(&g);
        let solver = QSolver::new(&g).unwrap();
        let boards: Vec<(&Vec<u32>, &u64)> = fewest.iter().collect();
        let picks: Vec<usize> = if boards.len() <= 400 {
            (0..boards.len()).collect()
        } else {
            (0..400).map(|_| rng.gen_range(0..boards.len())).collect()
        };
        for k in picks {
            let (made, &clicks) = boards[k];
            // Solving `board` means producing its negative.
            let board = QBoard::from_cells(g.rows, g.cols, q, negate(made, q)).unwrap();
            let best = shortest_q(&solver, &board, None)
                .unwrap()
                .expect("solvable");
            assert!(best.optimal, "{g} {made:?}: {best:?}");
            assert_eq!(best.clicks(), clicks, "{g} board {:?}", board.cells());
            assert_eq!(best.lower_bound, clicks);
            let back = tilecode::game::qstate::effect_q(&g, &best.presses);
            assert_eq!(
                back.cells(),
                &made[..],
                "{g}: the presses do not solve the board"
            );
        }
        // A board outside the image is reported unsolvable.
        if let Some(cells) = (0..200)
            .map(|_| {
                (0..g.num_cells())
                    .map(|_| rng.gen_range(0..q))
                    .collect::<Vec<u32>>()
            })
            .find(|c| !fewest.contains_key(&negate(c, q)))
        {
            let board = QBoard::from_cells(g.rows, g.cols, q, cells).unwrap();
            assert_eq!(shortest_q(&solver, &board, None).unwrap(), None);
        }
    }
}

#[test]
fn local_search_is_labelled_and_its_bound_holds() {
    let g = game("lights-out:3x3", 3, true);
    let fewest = oracle(&g);
    let solver = QSolver::new(&g).unwrap();
    let limits = QLimits {
        max_kernel: 1,
        max_alien_rows: 1,
    };
    for (made, &clicks) in fewest.iter().take(300) {
        let board = QBoard::from_cells(3, 3, 3, negate(made, 3)).unwrap();
        let best = shortest_q_with(&solver, &board, &limits, None)
            .unwrap()
            .unwrap();
        assert!(best.lower_bound <= clicks && clicks <= best.clicks());
        assert_eq!(best.optimal, best.lower_bound == best.clicks());
    }
}

#[test]
fn the_seven_by_seven_four_state_puzzle() {
    // All cells one colour to all another: a board of all `d = from - to`. Row sums and the
    // kernel walk (4096 quiet patterns) are independent exact methods.
    let g = game("alien:7x7", 4, false);
    let solver = QSolver::new(&g).unwrap();
    let walk_only = QLimits {
        max_kernel: 1 << 26,
        max_alien_rows: 0,
    };
    let mut found = Vec::new();
    for d in 1..4 {
        let board = QBoard::from_cells(7, 7, 4, vec![d; 49]).unwrap();
        let fast = shortest_q(&solver, &board, None).unwrap().unwrap();
        let walked = shortest_q_with(&solver, &board, &walk_only, None)
            .unwrap()
            .unwrap();
        assert_eq!((fast.method, walked.method), ("row-sums", "kernel-walk"));
        assert_eq!(fast.clicks(), walked.clicks());
        found.push(fast.clicks());
    }
    assert_eq!(found, [63, 14, 49]);
}

#[test]
fn hardest_equals_exhaustive_search() {
    for g in [
        game("alien:3x3", 2, false),
        game("alien:2x4", 2, false),
        game("alien:3x3", 3, false),
        game("alien:2x3", 4, false),
        game("lights-out:3x3", 2, false),
        game("lights-out:3x4", 2, false),
        game("lights-out:3x3", 3, false),
        game("lights-out:2x3", 5, true),
    ] {
        let q = g.states;
        let fewest = oracle(&g);
        let max = *fewest.values().max().unwrap();
        let h = hardest(&g, None).unwrap();
        assert_eq!(h.press_count, max, "{g}");
        assert_eq!(fewest[&negate(h.board.cells(), q)], max, "{g}");
        assert_eq!(h.solvable_boards, fewest.len() as u64);
        let at_max = fewest.values().filter(|&&c| c == max).count() as u64;
        assert_eq!(h.hardest_boards, at_max);
        assert_eq!(h.presses.iter().map(|&v| v as u64).sum::<u64>(), max);
        let back = tilecode::game::qstate::effect_q(&g, &h.presses);
        assert_eq!(back.cells(), &negate(h.board.cells(), q)[..]);
        // Every board's distance agrees too.
        let d = distances(&g, None).unwrap();
        for (made, &clicks) in &fewest {
            let board = QBoard::from_cells(g.rows, g.cols, q, negate(made, q)).unwrap();
            assert_eq!(d.shortest(&board), Some(clicks));
        }
    }
}
