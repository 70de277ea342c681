//! Unit tests of the shortest-solution searches against brute force.

use super::*;
use crate::game::{Board, alien};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random_vec(rng: &mut ChaCha8Rng, len: usize) -> BitVec {
    BitVec::from_bools(&(0..len).map(|_| rng.r#gen::<bool>()).collect::<Vec<_>>())
}

/// Plain enumeration of the coset: the oracle.
fn brute(solution: &BitVec, kernel: &[BitVec]) -> usize {
    let basis = independent_basis(kernel, solution.len());
    (0..1u64 << basis.len())
        .map(|c| combine(solution, &basis, c).weight())
        .min()
        .unwrap()
}

#[test]
fn gray_and_bnb_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for trial in 0..200 {
        let len = rng.gen_range(1..150);
        let d = rng.gen_range(0..12);
        let mut kernel: Vec<BitVec> = (0..d).map(|_| random_vec(&mut rng, len)).collect();
        if trial % 3 == 0 && d > 1 {
            // Dependent and sparse vectors too.
            kernel[0] = kernel[1].clone();
            for v in kernel.iter_mut().skip(2).step_by(2) {
                for i in 0..len {
                    if rng.gen_range(0..4) != 0 {
                        v.set(i, false);
                    }
                }
            }
        }
        let x = random_vec(&mut rng, len);
        let want = brute(&x, &kernel);
        let auto = shortest_by_kernel(&x, &kernel, None).unwrap();
        assert_eq!(auto.weight(), want, "default, trial {trial}");
        assert!(auto.optimal);
        let walk_only = Limits {
            probe: false,
            ..Limits::default()
        };
        let gray = shortest_by_kernel_with(&x, &kernel, &walk_only, None).unwrap();
        assert_eq!(gray.weight(), want, "gray, trial {trial}");
        assert!(gray.optimal);
        let d = independent_basis(&kernel, len).len();
        assert_eq!(gray.method, if d == 0 { "unique" } else { "gray-code" });
        let bnb_limits = Limits {
            gray_max_nullity: 0,
            ..Limits::default()
        };
        let bnb = shortest_by_kernel_with(&x, &kernel, &bnb_limits, None).unwrap();
        assert_eq!(bnb.weight(), want, "bnb, trial {trial}");
        assert!(bnb.optimal);
        // Both are in the coset.
        for s in [&gray, &bnb] {
            let mut diff = s.presses.clone();
            diff.xor_assign(&x);
            let mut span = kernel.clone();
            span.push(diff);
            assert_eq!(
                independent_basis(&span, len).len(),
                independent_basis(&kernel, len).len()
            );
        }
    }
}

#[test]
fn bnb_with_tiny_budget_reports_a_valid_bound() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..30 {
        let len = 120;
        let kernel: Vec<BitVec> = (0..14).map(|_| random_vec(&mut rng, len)).collect();
        let x = random_vec(&mut rng, len);
        let want = brute(&x, &kernel);
        let limits = Limits {
            gray_max_nullity: 0,
            node_budget: 20,
            ..Limits::default()
        };
        let s = shortest_by_kernel_with(&x, &kernel, &limits, None).unwrap();
        assert!(s.lower_bound <= want, "{} > {want}", s.lower_bound);
        assert!(s.weight() >= want);
        if s.optimal {
            assert_eq!(s.weight(), want);
        } else {
            assert_eq!(s.method, "local-search");
        }
    }
}

#[test]
fn weighted_groups_in_the_gray_walk() {
    // Repeated positions make group weights above 1 (several bit planes).
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..50 {
        let base_len = 12;
        let reps = rng.gen_range(1..6);
        let kb: Vec<BitVec> = (0..6).map(|_| random_vec(&mut rng, base_len)).collect();
        let kernel: Vec<BitVec> = kb
            .iter()
            .map(|v| {
                let mut out = BitVec::zeros(0);
                for _ in 0..reps {
                    for i in 0..base_len {
                        out.push(v.get(i));
                    }
                }
                out
            })
            .collect();
        let x = random_vec(&mut rng, base_len * reps);
        let walk_only = Limits {
            probe: false,
            ..Limits::default()
        };
        let s = shortest_by_kernel_with(&x, &kernel, &walk_only, None).unwrap();
        assert_eq!(s.weight(), brute(&x, &kernel));
        let s = shortest_by_kernel(&x, &kernel, None).unwrap();
        assert_eq!(s.weight(), brute(&x, &kernel));
    }
}

#[test]
fn progress_is_reported_and_lengths_checked() {
    let x = BitVec::zeros(10);
    let k = vec![BitVec::ones(9)];
    assert!(matches!(
        shortest_by_kernel(&x, &k, None),
        Err(Error::Length {
            expected: 10,
            found: 9
        })
    ));
    let calls = std::cell::Cell::new(0);
    let cb = |d: u64, t: u64| {
        assert!(d <= t);
        calls.set(calls.get() + 1);
    };
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let kernel: Vec<BitVec> = (0..8).map(|_| random_vec(&mut rng, 40)).collect();
    let x = random_vec(&mut rng, 40);
    let s = shortest_by_kernel(&x, &kernel, Some(&cb)).unwrap();
    assert!(calls.get() >= 1);
    assert_eq!(s.weight(), brute(&x, &kernel));
}

#[test]
fn packed_psi_matches_the_definition() {
    // psi(k)_ij = k_ij + r_i + c_j, cell by cell.
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for (m, n) in [(1, 1), (2, 3), (5, 7), (3, 64), (4, 65), (7, 130)] {
        let b = Board::from_bits(m, n, random_vec(&mut rng, m * n)).unwrap();
        let (r, c) = alien::parity_pair(&b);
        let mut want = b.clone();
        for i in 0..m {
            for j in 0..n {
                if r.get(i) ^ c.get(j) {
                    want.flip(i, j);
                }
            }
        }
        assert_eq!(alien::psi(&b), want, "{m}x{n}");
    }
}

#[test]
fn alien_solutions_solve() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for (m, n) in [
        (2, 2),
        (2, 3),
        (3, 2),
        (3, 3),
        (4, 5),
        (5, 4),
        (6, 7),
        (7, 7),
        (1, 4),
    ] {
        for _ in 0..20 {
            let k = Board::from_bits(m, n, random_vec(&mut rng, m * n)).unwrap();
            let board = alien::psi(&k);
            let sol = alien_solution(&board).expect("solvable");
            assert_eq!(alien::psi(&sol), board);
            let best = alien_shortest(&board).unwrap();
            assert_eq!(alien::psi(&best), board);
            assert!(best.weight() <= sol.weight());
        }
    }
    let lone = Board::from_rows(&["100", "000", "000"]).unwrap();
    assert!(alien_solution(&lone).is_none());
    assert!(alien_shortest(&lone).is_none());
}

#[test]
fn odd_odd_local_search_is_labelled_with_a_valid_bound() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let limits = Limits {
        alien_max_enum_bits: 2,
        ..Limits::default()
    };
    for _ in 0..10 {
        let k = Board::from_bits(7, 9, random_vec(&mut rng, 63)).unwrap();
        let board = alien::psi(&k);
        let exact = alien_shortest(&board).unwrap().weight();
        let s = alien_shortest_with(&board, &limits, None).unwrap();
        let presses = Board::from_bits(7, 9, s.presses.clone()).unwrap();
        assert_eq!(alien::psi(&presses), board);
        assert!(s.lower_bound <= exact && exact <= s.weight());
        assert_eq!(s.optimal, s.lower_bound == s.weight());
        if !s.optimal {
            assert_eq!(s.method, "local-search");
        }
    }
}
