//! The packed decomposition against the Smith normal form (the oracle).

use super::*;
use crate::game::qstate::{QSolver, random_solvable_q};
use crate::game::solve::Solve;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Every small game with a prime-power part of `Q`: lights-out, alien, squares and two
/// stencils, plain and torus, up to 5x5, on random solvable and random boards. The
/// decomposition agrees with the Smith normal form on solvability and its presses solve the
/// board; the number of solutions, where the layers give it, is the Smith form's.
#[test]
fn agrees_with_the_smith_normal_form() {
    let mut rng = ChaCha20Rng::seed_from_u64(17);
    let mut checked = 0;
    let mut unsolvable = 0;
    // Boards of games with quiet patterns whose number of solutions the layers counted.
    let mut counted = 0;
    for pattern in [
        "lights-out",
        "alien",
        "squares",
        "stencil:111/101/111",
        "stencil:11011",
    ] {
        for rows in 1..=5 {
            for cols in rows..=5 {
                for torus in [false, true] {
                    if torus && pattern == "alien" {
                        continue;
                    }
                    for q in [4u32, 8, 9, 12] {
                        let spec = format!("{pattern}:{rows}x{cols}");
                        let game = spec
                            .parse::<Game>()
                            .unwrap()
                            .with_torus(torus)
                            .with_states(q);
                        let s = QSolver::new(&game).unwrap();
                        for t in 0..6 {
                            let b = if t % 2 == 0 {
                                random_solvable_q(&game, &mut rng)
                            } else {
                                let v = (0..game.num_cells()).map(|_| rng.gen_range(0..q));
                                QBoard::from_cells(rows, cols, q, v.collect()).unwrap()
                            };
                            let d = solve(&game, &b).unwrap();
                            assert_eq!(d.is_some(), s.solve(&b).is_ok(), "{game}: {b}");
                            let Some(d) = d else {
                                unsolvable += 1;
                                continue;
                            };
                            let e = effect_q(&game, &d.presses);
                            for (a, c) in e.cells().iter().zip(b.cells()) {
                                assert_eq!((a + c) % q, 0, "{game}: {b}");
                            }
                            let count = s.solutions_per_board();
                            assert_eq!(d.unique(), count == 1u32.into(), "{game}");
                            match d.solutions() {
                                Some(n) => {
                                    counted += usize::from(n != 1u32.into());
                                    assert_eq!(n, count, "{game}");
                                }
                                None => assert!(q == 8 && !d.unique(), "{game}"),
                            }
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    // 15 sizes, torus for four patterns, four Q.
    assert_eq!(checked, 15 * 9 * 4);
    assert!(unsolvable > 100, "{unsolvable}");
    assert!(counted > 100, "{counted}");
}

/// A game whose layers carry quiet-pattern columns: the factorisation is rebuilt for them,
/// and reused for a layer without.
#[test]
fn quiet_patterns_join_the_next_layer() {
    // Odd-by-odd alien tiles have quiet patterns mod 2.
    let game = Game::new(crate::game::Pattern::Alien, 5, 7).with_states(8);
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut adjusted = 0;
    for _ in 0..20 {
        let b = random_solvable_q(&game, &mut rng);
        let d = solve(&game, &b).unwrap().expect("solvable");
        assert_eq!(d.layers.len(), 3);
        assert!(d.layers[0].kernel_dim > 0);
        adjusted += d.layers.iter().filter(|l| l.adjusted).count();
        let e = effect_q(&game, &d.presses);
        assert!(
            e.cells()
                .iter()
                .zip(b.cells())
                .all(|(a, c)| (a + c) % 8 == 0)
        );
    }
    assert!(adjusted > 0);
}

#[test]
fn limits_name_the_bound() {
    let big = Game::new(crate::game::Pattern::Alien, 129, 129).with_states(4);
    let e = check(&big).unwrap_err().to_string();
    assert!(e.contains("unknowns^2 x (cells + unknowns) <= 2^43"), "{e}");
    let prime = Game::new(crate::game::Pattern::LightsOut, 2, 2).with_states(257 * 257);
    let e = check(&prime).unwrap_err().to_string();
    assert!(e.contains("primes of Q up to 251"), "{e}");
    assert!(check(&Game::new(crate::game::Pattern::Alien, 128, 128).with_states(4)).is_ok());
}
