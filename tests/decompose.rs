//! The states decomposition (the paper, Section 6) against the direct Z/QZ solver.

use tilecode::game::decompose::{attain, attain_naive};
use tilecode::game::qstate::{QSolver, effect_q};
use tilecode::game::{Game, Solve};

fn game(spec: &str, q: u32) -> Game {
    spec.parse::<Game>().unwrap().with_states(q)
}

fn digits(s: &str) -> Vec<u32> {
    s.chars().filter_map(|c| c.to_digit(10)).collect()
}

#[test]
fn the_papers_four_state_example_step_by_step() {
    let g = game("alien:4x4", 4);
    let target = digits("0000 0120 0300 0000");
    let d = attain(&g, &target).unwrap().expect("solvable");
    assert_eq!(d.layers.len(), 2);
    let (first, second) = (&d.layers[0], &d.layers[1]);
    assert_eq!((first.prime, first.level, second.level), (2, 0, 1));
    // g mod 2, and the two-state solution k.
    assert_eq!(first.target, digits("0000 0100 0100 0000"));
    assert_eq!(first.presses, digits("0000 1011 1011 0000"));
    // z = (Psi k - g) / 2 mod 2, and the two-state solution y of it.
    assert_eq!(second.target, digits("1011 0110 0000 1011"));
    assert_eq!(second.presses, digits("0010 0000 0110 0010"));
    // Even by even: no quiet patterns mod 2, so no choice to make.
    assert_eq!((first.kernel_dim, first.adjusted), (0, false));
    assert_eq!(d.presses, digits("0020 1011 1231 0020"));
    assert_eq!(effect_q(&g, &d.presses).cells(), &target[..]);
}

/// Every target of `game`: decomposition succeeds exactly on the solvable ones, with presses
/// that produce them; returns how many solvable targets the paper's choice fails on.
fn check_every_board(g: &Game) -> usize {
    let q = g.states;
    let cells = g.num_cells();
    let solver = QSolver::new(g).unwrap();
    let mut target = vec![0u32; cells];
    let mut naive_failures = 0;
    loop {
        let direct = solver.attain(&target);
        let d = attain(g, &target).unwrap();
        match (&direct, &d) {
            (Ok(x), Some(d)) => {
                assert_eq!(
                    effect_q(g, &d.presses).cells(),
                    &target[..],
                    "{g} {target:?}"
                );
                if solver.solutions_per_board() == 1u32.into() {
                    assert_eq!(&d.presses, x);
                }
                match attain_naive(g, &target).unwrap() {
                    Some(n) => assert_eq!(effect_q(g, &n.presses).cells(), &target[..]),
                    None => naive_failures += 1,
                }
            }
            (Err(_), None) => {}
            _ => panic!("{g} {target:?}: direct {direct:?}, decomposed {d:?}"),
        }
        let Some(i) = (0..cells).find(|&i| target[i] + 1 < q) else {
            return naive_failures;
        };
        target[i] += 1;
        target[..i].fill(0);
    }
}

#[test]
fn never_fails_on_a_solvable_board_and_agrees_with_the_direct_solver() {
    let mut naive_failures = Vec::new();
    for (spec, q) in [
        ("alien:2x3", 4),
        ("alien:3x3", 4),
        ("lights-out:2x3", 4),
        ("squares:2x3", 4),
        ("alien:2x2", 8),
        ("lights-out:2x2", 8),
        ("gale-berlekamp:2x2", 8),
        ("alien:2x2", 9),
        ("lights-out:2x2", 9),
        ("alien:1x3", 9),
        ("alien:2x2", 12),
        ("lights-out:2x2", 12),
        ("squares:2x2", 12),
    ] {
        let g = game(spec, q);
        let f = check_every_board(&g);
        eprintln!("{g}: the paper's choice fails on {f} solvable boards");
        naive_failures.push((spec, q, f));
    }
    // The paper's open problem is real: its choice fails on some solvable boards, for
    // instance on four-state 3x3 Alien Tiles (odd by odd, quiet patterns mod 2).
    assert!(
        naive_failures.contains(&("alien:3x3", 4, 15360)),
        "{naive_failures:?}"
    );
}
