//! The Alien Tiles closed forms of `game::alien` against brute force.
//!
//! * Every `m x n` board with `mn <= 16`: all `2^mn` games are enumerated (u64 bitmasks, Gray
//!   code); cosets of `S` are labelled independently of the library by reducing each game
//!   against an echelon basis of the toggle patterns, and the coset structure (syndromes,
//!   minimum weights and their multiplicities, covering radius, minimum distance, `|S|`) is
//!   compared with the closed forms.
//! * Mid-sized boards (syndrome space up to 2^16): a dynamic programme over the cells counts, for
//!   every syndrome and weight, the sets of cells with that syndrome; this gives every coset's
//!   leader weight and leader count and the minimum distance.
//! * Large boards (9x9, 15x17, 31x33, thin boards): random samples, the rank of `Psi`, and
//!   invariance of the syndrome under every move.
//! * The paper's own formulas, transcribed literally, are checked to agree with brute force
//!   exactly where docs/theory.md says they do.

use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use tilecode::code::{self, Status};
use tilecode::game::Board;
use tilecode::game::alien::{self, Located, Shape, Syndrome};
use tilecode::gf2::{BitMatrix, BitVec};

// ---------------------------------------------------------------------------------------------
// u64 boards

fn toggle_mask(m: usize, n: usize, y: usize, x: usize) -> u64 {
    let mut t = 0u64;
    for j in 0..n {
        t |= 1 << (y * n + j);
    }
    for i in 0..m {
        t |= 1 << (i * n + x);
    }
    t
}

fn toggles(m: usize, n: usize) -> Vec<u64> {
    (0..m * n)
        .map(|p| toggle_mask(m, n, p / n, p % n))
        .collect()
}

fn to_board(m: usize, n: usize, g: u64) -> Board {
    Board::from_bits(m, n, BitVec::from_words(vec![g], m * n)).unwrap()
}

fn to_mask(b: &Board) -> u64 {
    assert!(b.rows() * b.cols() <= 64);
    b.bits().words().first().copied().unwrap_or(0)
}

fn psi_mask(toggles: &[u64], k: u64) -> u64 {
    (0..toggles.len())
        .filter(|&p| k >> p & 1 == 1)
        .fold(0, |g, p| g ^ toggles[p])
}

/// A reduced echelon basis of the span of some vectors: `reduce` maps every vector to a
/// canonical representative of its coset modulo the span.
struct Reducer {
    basis: Vec<u64>,
}

impl Reducer {
    fn new(vectors: &[u64]) -> Self {
        let mut basis: Vec<u64> = Vec::new();
        for &v in vectors {
            let mut v = v;
            for &b in &basis {
                v = v.min(v ^ b);
            }
            if v != 0 {
                for b in basis.iter_mut() {
                    *b = (*b).min(*b ^ v);
                }
                basis.push(v);
                basis.sort_unstable_by(|a, b| b.cmp(a));
            }
        }
        Reducer { basis }
    }

    fn rank(&self) -> usize {
        self.basis.len()
    }

    /// With the basis sorted by leading bit, `v.min(v ^ b)` clears `b`'s leading bit from `v`.
    fn reduce(&self, mut v: u64) -> u64 {
        for &b in &self.basis {
            v = v.min(v ^ b);
        }
        v
    }
}

// ---------------------------------------------------------------------------------------------
// syndromes as integers

fn bits_of(v: &BitVec) -> u64 {
    v.ones_iter().fold(0, |a, i| a | 1 << i)
}

fn syndrome_index(m: usize, s: &Syndrome) -> u64 {
    match s {
        Syndrome::Trivial => 0,
        Syndrome::Rows(v) | Syndrome::Cols(v) => bits_of(v),
        Syndrome::Pair(r, c) => bits_of(r) | bits_of(c) << (m - 1),
    }
}

fn vec_of(bits: u64, len: usize) -> BitVec {
    BitVec::from_words(vec![bits], len)
}

fn syndrome_of_index(m: usize, n: usize, i: u64) -> Syndrome {
    match Shape::of(m, n) {
        Shape::EvenEven => Syndrome::Trivial,
        Shape::EvenOdd => Syndrome::Rows(vec_of(i, m - 1)),
        Shape::OddEven => Syndrome::Cols(vec_of(i, n - 1)),
        Shape::OddOdd => Syndrome::Pair(vec_of(i, m - 1), vec_of(i >> (m - 1), n - 1)),
    }
}

/// A syndrome whose `r~` has its first `b` bits set and whose `c~` has its first `a` bits set.
fn syndrome_with_weights(m: usize, n: usize, b: usize, a: usize) -> Syndrome {
    let first =
        |k: usize, len: usize| BitVec::from_bools(&(0..len).map(|i| i < k).collect::<Vec<_>>());
    match Shape::of(m, n) {
        Shape::EvenEven => Syndrome::Trivial,
        Shape::EvenOdd => Syndrome::Rows(first(b, m - 1)),
        Shape::OddEven => Syndrome::Cols(first(a, n - 1)),
        Shape::OddOdd => Syndrome::Pair(first(b, m - 1), first(a, n - 1)),
    }
}

// ---------------------------------------------------------------------------------------------
// the paper's formulas, literally

/// Section 4.3 as printed.
fn paper_covering_radius(m: usize, n: usize) -> usize {
    match Shape::of(m, n) {
        Shape::EvenEven => 0,
        Shape::EvenOdd => m / 2,
        Shape::OddEven => n / 2,
        Shape::OddOdd => m.min(n) - usize::from(m == n),
    }
}

/// Section 4.2's direct formula for the odd-by-odd leader weight, with
/// `P = (|r~| - |c~|) mod 2` and `c` flipped.
fn paper_leader_weight_p(m: usize, n: usize, b: usize, a: usize) -> usize {
    let p = (b + a) % 2;
    let signed = |p: usize, len: usize, w: usize| if p == 0 { w } else { len - w };
    (b.max(signed(p, n, a))).min((m - b).max(signed(1 - p, n, a)))
}

fn factorial(k: usize) -> BigUint {
    (1..=k).map(BigUint::from).product()
}

/// Section 4.2's number of coset leaders for one valid parity pair, as printed:
/// `|r|!` when `|r| = |c|`, else `alpha! 2^{(beta - alpha)/2} q^{(alpha - beta)/2}` with `q = n`
/// when `|r| > |c|` and `q = m` otherwise (the per-group choice raised to the number of groups).
fn paper_pair_count(m: usize, n: usize, r: usize, c: usize) -> BigUint {
    if r == c {
        return factorial(r);
    }
    let (alpha, beta) = (r.max(c), r.min(c));
    let q = if r > c { n } else { m };
    let groups = (alpha - beta) / 2;
    (factorial(alpha) * BigUint::from(q).pow(groups as u32)) >> groups
}

/// The paper's Section 4.2 count for the whole coset: it takes the one minimising pair (the
/// procedure flips only on a strict improvement) and never adds a tying second pair.
fn paper_leader_count(m: usize, n: usize, s: &Syndrome) -> BigUint {
    match (Shape::of(m, n), s) {
        (Shape::EvenEven, _) => BigUint::from(1u32),
        (Shape::EvenOdd, Syndrome::Rows(t)) => {
            let w = t.weight().min(m - t.weight());
            BigUint::from(n).pow(w as u32)
        }
        (Shape::OddEven, Syndrome::Cols(t)) => {
            let w = t.weight().min(n - t.weight());
            BigUint::from(m).pow(w as u32)
        }
        (Shape::OddOdd, Syndrome::Pair(rt, ct)) => {
            let (mut a, b) = (rt.weight(), ct.weight());
            if (a + b) % 2 == 1 {
                a = m - a;
            }
            let (x, y) = if a.max(b) <= (m - a).max(n - b) {
                (a, b)
            } else {
                (m - a, n - b)
            };
            paper_pair_count(m, n, x, y)
        }
        _ => unreachable!(),
    }
}

/// True when both valid parity pairs (or both row/column parity vectors) of the coset reach the
/// least weight.
fn is_tie(m: usize, n: usize, s: &Syndrome) -> bool {
    match s {
        Syndrome::Trivial => false,
        Syndrome::Rows(t) => 2 * t.weight() == m,
        Syndrome::Cols(t) => 2 * t.weight() == n,
        Syndrome::Pair(rt, ct) => {
            let (mut a, b) = (rt.weight(), ct.weight());
            if (a + b) % 2 == 1 {
                a = m - a;
            }
            a.max(b) == (m - a).max(n - b)
        }
    }
}

/// The parity pair `(|r|, |c|)` of the leaders the paper's procedure picks (odd-by-odd).
fn chosen_pair(m: usize, n: usize, s: &Syndrome) -> (usize, usize) {
    let Syndrome::Pair(rt, ct) = s else {
        unreachable!()
    };
    let (mut a, b) = (rt.weight(), ct.weight());
    if (a + b) % 2 == 1 {
        a = m - a;
    }
    if a.max(b) <= (m - a).max(n - b) {
        (a, b)
    } else {
        (m - a, n - b)
    }
}

// ---------------------------------------------------------------------------------------------
// exhaustive oracle, mn <= 16

struct Coset {
    syndrome: Syndrome,
    min_weight: usize,
    minimizers: u64,
    first_minimizer: u64,
}

struct Exhaustive {
    m: usize,
    n: usize,
    /// `solvable[g]`: some press pattern produces `g` (the image of psi, by enumeration).
    solvable: Vec<bool>,
    cosets: HashMap<u64, Coset>,
    reducer: Reducer,
    min_distance: usize,
}

fn exhaustive(m: usize, n: usize) -> Exhaustive {
    let mn = m * n;
    let size = 1usize << mn;
    let t = toggles(m, n);
    // The image of psi: walk all press patterns in Gray-code order.
    let mut solvable = vec![false; size];
    let mut g = 0u64;
    solvable[0] = true;
    for step in 1..size {
        g ^= t[step.trailing_zeros() as usize];
        solvable[g as usize] = true;
    }
    let reducer = Reducer::new(&t);
    let mut cosets: HashMap<u64, Coset> = HashMap::new();
    let mut by_syndrome: HashMap<Syndrome, u64> = HashMap::new();
    let mut min_distance = usize::MAX;
    for g in 0..size as u64 {
        let label = reducer.reduce(g);
        assert_eq!(label == 0, solvable[g as usize], "{m}x{n}: {g:#x}");
        let w = g.count_ones() as usize;
        if label == 0 && g != 0 {
            min_distance = min_distance.min(w);
        }
        let c = cosets.entry(label).or_insert_with(|| {
            let s = alien::syndrome(&to_board(m, n, g));
            assert!(s.fits(m, n));
            if let Some(other) = by_syndrome.insert(s.clone(), label) {
                panic!("{m}x{n}: cosets {other:#x} and {label:#x} share the syndrome {s:?}");
            }
            Coset {
                syndrome: s,
                min_weight: usize::MAX,
                minimizers: 0,
                first_minimizer: 0,
            }
        });
        match w.cmp(&c.min_weight) {
            std::cmp::Ordering::Less => {
                c.min_weight = w;
                c.minimizers = 1;
                c.first_minimizer = g;
            }
            std::cmp::Ordering::Equal => c.minimizers += 1,
            std::cmp::Ordering::Greater => {}
        }
    }
    Exhaustive {
        m,
        n,
        solvable,
        cosets,
        reducer,
        min_distance,
    }
}

fn sizes_up_to_16() -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for m in 1..=16 {
        for n in 1..=16 / m {
            v.push((m, n));
        }
    }
    v
}

#[test]
fn exhaustive_closed_forms_for_every_board_with_at_most_16_cells() {
    let mut paper_radius_wrong = Vec::new();
    let mut paper_count_wrong = 0usize;
    for (m, n) in sizes_up_to_16() {
        let e = exhaustive(m, n);
        let t = toggles(m, n);
        let s_size = e.solvable.iter().filter(|&&b| b).count();
        assert_eq!(
            BigUint::from(s_size),
            alien::solvable_count(m, n),
            "{m}x{n}"
        );
        assert_eq!(1usize << alien::solvable_dim(m, n), s_size, "{m}x{n}");
        assert_eq!(e.reducer.rank(), alien::solvable_dim(m, n), "{m}x{n}");
        assert_eq!(
            BigUint::from(e.cosets.len()),
            alien::syndrome_count(m, n),
            "{m}x{n}"
        );
        assert_eq!(e.cosets.len(), 1 << alien::syndrome_dim(m, n), "{m}x{n}");
        assert_eq!(alien::min_distance(m, n), e.min_distance, "{m}x{n}");

        // Every game: solvability, the solver, psi against the toggle patterns.
        for g in 0..1u64 << (m * n) {
            let b = to_board(m, n, g);
            assert_eq!(
                alien::is_solvable(&b),
                e.solvable[g as usize],
                "{m}x{n} {g:#x}"
            );
            assert_eq!(to_mask(&alien::psi(&b)), psi_mask(&t, g), "{m}x{n} {g:#x}");
            match alien::solve(&b) {
                Some(k) => assert_eq!(psi_mask(&t, to_mask(&k)), g, "{m}x{n} {g:#x}"),
                None => assert!(!e.solvable[g as usize], "{m}x{n} {g:#x}"),
            }
        }

        // Every coset: leader weight, count, one leader, and the paper's formulas.
        let mut radius = 0;
        for (&label, c) in &e.cosets {
            let s = &c.syndrome;
            radius = radius.max(c.min_weight);
            assert_eq!(
                alien::coset_leader_weight(m, n, s),
                c.min_weight,
                "{m}x{n} {s:?}"
            );
            assert_eq!(
                alien::coset_leader_count(m, n, s),
                BigUint::from(c.minimizers),
                "{m}x{n} {s:?}"
            );
            let leader = to_mask(&alien::coset_leader(m, n, s));
            assert_eq!(leader.count_ones() as usize, c.min_weight, "{m}x{n} {s:?}");
            assert_eq!(e.reducer.reduce(leader), label, "{m}x{n} {s:?}");

            // The paper's count is right exactly when the coset has no tie and, for odd-by-odd
            // boards, the chosen pair has alpha = beta or (alpha, beta) = (2, 0).
            let paper = paper_leader_count(m, n, s);
            let paper_ok = !is_tie(m, n, s)
                && match Shape::of(m, n) {
                    Shape::OddOdd => {
                        let (x, y) = chosen_pair(m, n, s);
                        x == y || (x.max(y), x.min(y)) == (2, 0)
                    }
                    _ => true,
                };
            assert_eq!(
                paper == BigUint::from(c.minimizers),
                paper_ok,
                "{m}x{n} {s:?}"
            );
            if !paper_ok {
                paper_count_wrong += 1;
            }
            if let Syndrome::Pair(rt, ct) = s {
                assert_eq!(
                    paper_leader_weight_p(m, n, rt.weight(), ct.weight()),
                    c.min_weight,
                    "{m}x{n} {s:?}"
                );
            }

            // Section 4.4's locator, for odd-by-odd boards with m, n > 1.
            if let (Syndrome::Pair(rt, ct), true) = (s, m > 1 && n > 1) {
                let expect = match c.min_weight {
                    0 => Located::Clean,
                    1 => {
                        assert_eq!(c.minimizers, 1);
                        let p = c.first_minimizer.trailing_zeros() as usize;
                        Located::Single(p / n, p % n)
                    }
                    _ => Located::Multiple,
                };
                assert_eq!(
                    alien::locate_single_error(m, n, rt, ct),
                    expect,
                    "{m}x{n} {s:?}"
                );
            }
        }
        assert_eq!(alien::covering_radius(m, n), radius, "{m}x{n}");
        if paper_covering_radius(m, n) != radius {
            paper_radius_wrong.push((m, n));
        }
        let _ = (e.m, e.n);
    }
    // The paper's covering radius fails on exactly the thin odd boards of length >= 5.
    assert_eq!(
        paper_radius_wrong,
        vec![
            (1, 5),
            (1, 7),
            (1, 9),
            (1, 11),
            (1, 13),
            (1, 15),
            (5, 1),
            (7, 1),
            (9, 1),
            (11, 1),
            (13, 1),
            (15, 1)
        ]
    );
    assert!(paper_count_wrong > 0);
}

// ---------------------------------------------------------------------------------------------
// dynamic-programming oracle over syndromes, mid-sized boards

/// For every syndrome index and weight `w <= cap`, the number of sets of `w` cells whose
/// syndromes add up to it (row `s` of the flat table is `table[s * (cap + 1)..][..cap + 1]`).
fn syndrome_weight_table(m: usize, n: usize, cap: usize) -> Vec<u128> {
    let dim = alien::syndrome_dim(m, n);
    let width = cap + 1;
    let mut table = vec![0u128; (1 << dim) * width];
    table[0] = 1;
    for p in 0..m * n {
        let mut unit = Board::zeros(m, n);
        unit.set(p / n, p % n, true);
        let v = syndrome_index(m, &alien::syndrome(&unit)) as usize;
        assert_ne!(v, 0, "{m}x{n}: a single light is a codeword");
        // Adding cell p pairs syndromes s and s ^ v; going down in weight keeps the old
        // values of weight w - 1 available while weight w is updated.
        for s in (0..1usize << dim).filter(|&s| s < s ^ v) {
            let (a, b) = (s * width, (s ^ v) * width);
            for w in (1..width).rev() {
                let (old_a, old_b) = (table[a + w - 1], table[b + w - 1]);
                table[a + w] += old_b;
                table[b + w] += old_a;
            }
        }
    }
    table
}

fn mid_sizes() -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for m in 1..=13 {
        for n in 1..=13 {
            let dim = alien::syndrome_dim(m, n);
            let cost = (1usize << dim) * m * n * (m.max(n) + 1);
            if m * n > 16 && cost <= 3_000_000 {
                v.push((m, n));
            }
        }
    }
    v.extend([
        (3, 13),
        (13, 3),
        (5, 13),
        (1, 20),
        (20, 1),
        (2, 19),
        (19, 2),
    ]);
    v
}

#[test]
fn syndrome_dp_closed_forms_on_mid_sized_boards() {
    let mut paper_radius_wrong = Vec::new();
    for (m, n) in mid_sizes() {
        if alien::syndrome_dim(m, n) == 0 {
            continue;
        }
        let cap = m.max(n);
        let table = syndrome_weight_table(m, n, cap);
        // Minimum distance: the least positive weight of a set with syndrome zero. The syndrome
        // is exactly the coset label by the rank test below (S = kernel of the syndrome map).
        let d = (1..=cap).find(|&w| table[w] > 0);
        assert_eq!(d, Some(alien::min_distance(m, n)), "{m}x{n}");
        let mut radius = 0;
        for (i, row) in table.chunks(cap + 1).enumerate() {
            let s = syndrome_of_index(m, n, i as u64);
            let w = (0..=cap)
                .find(|&w| row[w] > 0)
                .expect("every syndrome is reached");
            radius = radius.max(w);
            assert_eq!(alien::coset_leader_weight(m, n, &s), w, "{m}x{n} {s:?}");
            assert_eq!(
                alien::coset_leader_count(m, n, &s),
                BigUint::from(row[w]),
                "{m}x{n} {s:?}"
            );
            let leader = alien::coset_leader(m, n, &s);
            assert_eq!(leader.weight(), w);
            assert_eq!(alien::syndrome(&leader), s);
        }
        assert_eq!(alien::covering_radius(m, n), radius, "{m}x{n}");
        if paper_covering_radius(m, n) != radius {
            paper_radius_wrong.push((m, n));
        }
    }
    // Beyond the thin boards, the paper's radius also fails when max(m, n) >= 2 min(m, n) + 3.
    assert!(
        paper_radius_wrong.contains(&(3, 9)),
        "{paper_radius_wrong:?}"
    );
    assert!(
        paper_radius_wrong.contains(&(5, 13)),
        "{paper_radius_wrong:?}"
    );
    assert!(
        !paper_radius_wrong.contains(&(3, 7)),
        "{paper_radius_wrong:?}"
    );
    for &(m, n) in &paper_radius_wrong {
        let (lo, hi) = (m.min(n), m.max(n));
        assert!(
            m % 2 == 1 && n % 2 == 1 && (lo == 1 || hi >= 2 * lo + 3),
            "{m}x{n}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// large boards: structure and random samples

fn psi_matrix(m: usize, n: usize) -> BitMatrix {
    let mut a = BitMatrix::zeros(m * n, m * n);
    for p in 0..m * n {
        let (y, x) = (p / n, p % n);
        for j in 0..n {
            a.set(y * n + j, p, true);
        }
        for i in 0..m {
            a.set(i * n + x, p, true);
        }
    }
    a
}

fn random_board(rng: &mut ChaCha8Rng, m: usize, n: usize) -> Board {
    let mut b = Board::zeros(m, n);
    for i in 0..m {
        for j in 0..n {
            if rng.r#gen::<bool>() {
                b.set(i, j, true);
            }
        }
    }
    b
}

fn psi_naive(k: &Board) -> Board {
    let (m, n) = (k.rows(), k.cols());
    let mut g = Board::zeros(m, n);
    for p in k.bits().ones_iter() {
        let (y, x) = (p / n, p % n);
        for j in 0..n {
            g.flip(y, j);
        }
        for i in 0..m {
            if i != y {
                g.flip(i, x);
            }
        }
    }
    g
}

const LARGE: [(usize, usize); 12] = [
    (9, 9),
    (15, 17),
    (31, 33),
    (1, 8),
    (8, 1),
    (1, 17),
    (17, 1),
    (16, 9),
    (9, 16),
    (12, 14),
    (3, 41),
    (6, 7),
];

#[test]
fn psi_rank_equals_solvable_dimension_and_moves_keep_the_syndrome() {
    for (m, n) in LARGE {
        let rank = psi_matrix(m, n).rank();
        assert_eq!(rank, alien::solvable_dim(m, n), "{m}x{n}");
        // Every toggle pattern has the zero syndrome, so S lies in the kernel of the syndrome
        // map; with the rank above and the surjectivity checked below, S is that kernel.
        for p in 0..m * n {
            let mut k = Board::zeros(m, n);
            k.set(p / n, p % n, true);
            assert!(alien::is_solvable(&alien::psi(&k)), "{m}x{n} press {p}");
        }
        // Surjectivity: the single cells' syndromes span the syndrome space.
        let dim = alien::syndrome_dim(m, n);
        let rows: Vec<BitVec> = (0..m * n)
            .map(|p| {
                let mut unit = Board::zeros(m, n);
                unit.set(p / n, p % n, true);
                let v = match alien::syndrome(&unit) {
                    Syndrome::Trivial => BitVec::zeros(0),
                    Syndrome::Rows(v) | Syndrome::Cols(v) => v,
                    Syndrome::Pair(r, c) => {
                        let mut v = r;
                        for i in 0..c.len() {
                            v.push(c.get(i));
                        }
                        v
                    }
                };
                assert_eq!(v.len(), dim);
                v
            })
            .collect();
        assert_eq!(BitMatrix::from_rows(&rows, dim).rank(), dim, "{m}x{n}");
    }
}

#[test]
fn random_games_on_large_boards() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x7111_c0de);
    for (m, n) in LARGE {
        for _ in 0..12 {
            let k = random_board(&mut rng, m, n);
            let g = alien::psi(&k);
            assert_eq!(g, psi_naive(&k), "{m}x{n}");
            assert!(alien::is_solvable(&g));
            let sol = alien::solve(&g).expect("psi(k) is solvable");
            assert_eq!(alien::psi(&sol), g, "{m}x{n}");

            let h = random_board(&mut rng, m, n);
            let s = alien::syndrome(&h);
            match alien::solve(&h) {
                Some(k) => {
                    assert!(s.is_zero());
                    assert_eq!(alien::psi(&k), h);
                }
                None => assert!(!s.is_zero()),
            }
            let leader = alien::coset_leader(m, n, &s);
            assert_eq!(alien::syndrome(&leader), s, "{m}x{n}");
            let w = alien::coset_leader_weight(m, n, &s);
            assert_eq!(leader.weight(), w, "{m}x{n}");
            assert!(w <= alien::covering_radius(m, n), "{m}x{n}");
            assert!(w <= h.weight(), "{m}x{n}");
            // Adding a codeword keeps the coset: same leader weight and count.
            let mut moved = h.clone();
            moved.bits_mut().xor_assign(g.bits());
            assert_eq!(alien::syndrome(&moved), s);
            assert!(alien::coset_leader_count(m, n, &s) >= BigUint::from(1u32));
        }
    }
}

/// The covering radius is the largest leader weight over all cosets; since the leader weight
/// depends only on `(|r~|, |c~|)`, every weight class can be tried on any board size.
#[test]
fn covering_radius_is_the_largest_leader_weight_on_large_boards() {
    let mut sizes: Vec<(usize, usize)> = LARGE.to_vec();
    sizes.extend([
        (3, 9),
        (5, 13),
        (5, 15),
        (7, 21),
        (1, 31),
        (31, 1),
        (11, 11),
        (21, 5),
    ]);
    for (m, n) in sizes {
        let mut best = 0;
        for b in 0..m {
            for a in 0..n {
                let s = syndrome_with_weights(m, n, b, a);
                best = best.max(alien::coset_leader_weight(m, n, &s));
            }
        }
        assert_eq!(alien::covering_radius(m, n), best, "{m}x{n}");
    }
}

// ---------------------------------------------------------------------------------------------
// the paper's worked examples and constructions

fn bits(s: &str) -> BitVec {
    BitVec::parse(s).unwrap()
}

#[test]
fn paper_section_5_3_example() {
    let code = code::build(&"alien:3x3".parse().unwrap());
    // Message (1, 1, 0, 1, 0): D = [[1, 1], [0, 1]], parity pair ((0, 1), (1, 0)).
    let cw = code.encode(&bits("11010"));
    assert_eq!(to_board(3, 3, bits_of(&cw)).to_string(), "001\n111\n001\n");
    let w = Board::from_rows(&["001", "011", "001"]).unwrap();
    let s = alien::syndrome(&w);
    assert_eq!(s, Syndrome::Pair(bits("10"), bits("11")));
    let Syndrome::Pair(rt, ct) = &s else {
        unreachable!()
    };
    assert_eq!(
        alien::locate_single_error(3, 3, rt, ct),
        Located::Single(1, 0)
    );
    assert_eq!(
        alien::coset_leader(3, 3, &s),
        Board::from_rows(&["000", "100", "000"]).unwrap()
    );
    let d = code.decode(w.bits());
    assert_eq!(d.status, Status::Corrected);
    assert_eq!(d.errors, vec![3]);
    assert_eq!(d.codeword, cw);
    assert_eq!(d.message, Some(bits("11010")));
}

#[test]
fn paper_section_3_constructions() {
    // 3.2: in an even-by-even board, pressing all of row i and column j toggles only (i, j).
    let (m, n) = (4, 6);
    let mut k = Board::zeros(m, n);
    for j in 0..n {
        k.set(2, j, true);
    }
    for i in 0..m {
        k.set(i, 3, true);
    }
    let mut single = Board::zeros(m, n);
    single.set(2, 3, true);
    assert_eq!(alien::psi(&k), single);

    // 3.3: in an even-by-odd board, pressing a whole row toggles every light, and pressing
    // column j and row 0 except (0, j) toggles exactly column j.
    let (m, n) = (4, 5);
    let mut row = Board::zeros(m, n);
    for j in 0..n {
        row.set(1, j, true);
    }
    let ones = to_board(m, n, (1u64 << (m * n)) - 1);
    assert_eq!(alien::psi(&row), ones);
    let mut k = Board::zeros(m, n);
    for i in 1..m {
        k.set(i, 2, true);
    }
    for j in 0..n {
        if j != 2 {
            k.set(0, j, true);
        }
    }
    let mut column = Board::zeros(m, n);
    for i in 0..m {
        column.set(i, 2, true);
    }
    assert_eq!(alien::psi(&k), column);

    // 3.4: odd-by-odd solvable games are easy, psi(s) = s.
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    for (m, n) in [(3, 3), (5, 7), (1, 9)] {
        let s = alien::psi(&random_board(&mut rng, m, n));
        assert_eq!(alien::psi(&s), s);
    }
}

#[test]
fn paper_section_4_1_minimum_weight_codewords() {
    // [I_m | 0 over 1] has weight max(m, n) and all parities odd, so it is a codeword.
    for (m, n) in [(3, 5), (3, 7), (5, 9), (3, 3), (5, 5)] {
        let mut g = Board::zeros(m, n);
        for i in 0..m {
            g.set(i, i, true);
        }
        for j in m..n {
            g.set(m - 1, j, true);
        }
        assert_eq!(g.weight(), n);
        assert!(alien::is_solvable(&g), "{m}x{n}");
    }
    // Four corners of a rectangle: weight 4, all parities even.
    let g = Board::from_rows(&["10100", "00000", "10100"]).unwrap();
    assert!(alien::is_solvable(&g));
    assert_eq!(alien::min_distance(3, 5), 4);
}

#[test]
fn paper_count_examples_and_corrections() {
    // 3x5, syndrome with |r| = 3, |c| = 1: the leaders are the 13 maps from the three rows to
    // the five columns with odd fibre set {x}; the paper's formula gives 3! / 2 * 5 = 15.
    let s = Syndrome::Pair(bits("11"), bits("0000"));
    // r = (0, 1, 1) and c = (0, 0, 0, 0, 0): |r| - |c| even; the other pair is (3 - 2, 5 - 0).
    assert_eq!(alien::coset_leader_weight(3, 5, &s), 2);
    let s = Syndrome::Pair(bits("00"), bits("1000"));
    // r = 0 has |r| = 0, c = (0, 1, 0, 0, 0) has 1: odd, so r is flipped to all ones (3 bits).
    assert_eq!(alien::coset_leader_weight(3, 5, &s), 3);
    assert_eq!(alien::coset_leader_count(3, 5, &s), BigUint::from(13u32));
    assert_eq!(paper_leader_count(3, 5, &s), BigUint::from(15u32));
    // A tie in an even-by-odd board: |r~| = m / 2 doubles n^(m/2).
    let s = Syndrome::Rows(bits("110"));
    assert_eq!(alien::coset_leader_weight(4, 3, &s), 2);
    assert_eq!(alien::coset_leader_count(4, 3, &s), BigUint::from(18u32));
    // 3x9 has covering radius 4, not 3: r~ = 0 and |c~| = 4.
    let s = Syndrome::Pair(bits("00"), bits("11110000"));
    assert_eq!(alien::coset_leader_weight(3, 9, &s), 4);
    assert_eq!(alien::covering_radius(3, 9), 4);
    assert_eq!(paper_covering_radius(3, 9), 3);
}
