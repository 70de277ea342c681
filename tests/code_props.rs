//! Properties of every code family, built through `tilecode::code::build` from random small
//! specs: roundtrip, correction of every error pattern within `t`, detection (never
//! miscorrection) of heavier patterns up to `d - 1 - t` (so every double error when `d = 4`),
//! and, for the Alien Tiles codes, the syndrome, `d`, `k` and the encoding against the paper and
//! against brute force.

use quickcheck::{Arbitrary, Gen, QuickCheck};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tilecode::code::{self, AlienCode, BlockCode, Spec, Status};
use tilecode::game::Board;
use tilecode::game::alien::{self, Syndrome};
use tilecode::gf2::BitVec;

/// A random small spec of any family.
#[derive(Clone, Debug)]
struct AnySpec(Spec);

fn below(g: &mut Gen, lo: usize, hi: usize) -> usize {
    lo + usize::arbitrary(g) % (hi - lo + 1)
}

impl Arbitrary for AnySpec {
    fn arbitrary(g: &mut Gen) -> Self {
        let spec = match u8::arbitrary(g) % 7 {
            // Alien boards get two shares: they are the subject of the crate.
            0 | 1 => Spec::Alien {
                rows: below(g, 1, 12),
                cols: below(g, 1, 12),
            },
            2 => Spec::Secded(below(g, 4, 200)),
            3 => Spec::Hamming(below(g, 3, 200)),
            4 => Spec::Repetition(below(g, 1, 40)),
            5 => Spec::Product {
                rows: below(g, 2, 12),
                cols: below(g, 2, 12),
            },
            _ => Spec::Parity(below(g, 2, 200)),
        };
        AnySpec(spec)
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let smaller: Vec<Spec> = match self.0 {
            Spec::Alien { rows, cols } => {
                let mut v = Vec::new();
                if rows > 1 {
                    v.push(Spec::Alien {
                        rows: rows - 1,
                        cols,
                    });
                }
                if cols > 1 {
                    v.push(Spec::Alien {
                        rows,
                        cols: cols - 1,
                    });
                }
                v
            }
            Spec::Secded(n) if n > 4 => vec![Spec::Secded(n - 1)],
            Spec::Hamming(n) if n > 3 => vec![Spec::Hamming(n - 1)],
            Spec::Repetition(n) if n > 1 => vec![Spec::Repetition(n - 1)],
            Spec::Parity(n) if n > 2 => vec![Spec::Parity(n - 1)],
            Spec::Product { rows, cols } => {
                let mut v = Vec::new();
                if rows > 2 {
                    v.push(Spec::Product {
                        rows: rows - 1,
                        cols,
                    });
                }
                if cols > 2 {
                    v.push(Spec::Product {
                        rows,
                        cols: cols - 1,
                    });
                }
                v
            }
            _ => Vec::new(),
        };
        Box::new(smaller.into_iter().map(AnySpec))
    }
}

/// A random odd-by-odd board size with `m, n >= 3`.
#[derive(Clone, Debug)]
struct OddOdd(usize, usize);

impl Arbitrary for OddOdd {
    fn arbitrary(g: &mut Gen) -> Self {
        OddOdd(2 * below(g, 1, 5) + 1, 2 * below(g, 1, 5) + 1)
    }
}

fn random_bits(rng: &mut ChaCha8Rng, len: usize) -> BitVec {
    BitVec::from_bools(&(0..len).map(|_| rng.r#gen::<bool>()).collect::<Vec<_>>())
}

fn qc() -> QuickCheck {
    QuickCheck::new().tests(100)
}

// ---------------------------------------------------------------------------------------------
// every family

fn roundtrip(spec: AnySpec, seed: u64) {
    let code = code::build(&spec.0);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let msg = random_bits(&mut rng, code.k());
    let cw = code.encode(&msg);
    assert_eq!(cw.len(), code.n());
    assert_eq!(code.extract(&cw), msg, "{}", spec.0);
    for (i, &p) in code.message_positions().iter().enumerate() {
        assert_eq!(cw.get(p), msg.get(i), "{}: systematic position {p}", spec.0);
    }
    let d = code.decode(&cw);
    assert_eq!(d.status, Status::Clean, "{}", spec.0);
    assert!(d.errors.is_empty());
    assert_eq!(d.codeword, cw);
    assert_eq!(d.message, Some(msg), "{}", spec.0);
}

#[test]
fn decode_of_encode_is_the_message() {
    qc().quickcheck(roundtrip as fn(AnySpec, u64));
}

/// Decodes `cw + e` for the error positions `e` and checks the bounded-distance promise:
/// corrected exactly when `|e| <= t`, detected when `t < |e| <= d - 1 - t`.
fn check_pattern(code: &dyn BlockCode, msg: &BitVec, cw: &BitVec, errors: &[usize]) {
    let (d, t) = (code.d(), code.t());
    let w = errors.len();
    let mut word = cw.clone();
    for &p in errors {
        word.flip(p);
    }
    let out = code.decode(&word);
    let spec = code.spec();
    if w <= t {
        let mut sorted = errors.to_vec();
        sorted.sort_unstable();
        assert_eq!(out.status, Status::Corrected, "{spec}: errors {errors:?}");
        assert_eq!(out.errors, sorted, "{spec}: errors {errors:?}");
        assert_eq!(&out.codeword, cw, "{spec}: errors {errors:?}");
        assert_eq!(out.message.as_ref(), Some(msg), "{spec}: errors {errors:?}");
    } else if w + t < d {
        assert_eq!(out.status, Status::Detected, "{spec}: errors {errors:?}");
        assert_eq!(out.message, None, "{spec}: errors {errors:?}");
        assert_eq!(
            out.codeword, word,
            "{spec}: a detected word comes back unchanged"
        );
    }
}

fn errors_within_capability(spec: AnySpec, seed: u64) {
    let code = code::build(&spec.0);
    let (n, d) = (code.n(), code.d());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let msg = random_bits(&mut rng, code.k());
    let cw = code.encode(&msg);
    if d >= 2 {
        // Every single-bit error: corrected at its position when d >= 3, detected when d = 2.
        for p in 0..n {
            check_pattern(code.as_ref(), &msg, &cw, &[p]);
        }
    }
    if d >= 4 {
        // Double errors: every pair on short codes, a sample on long ones.
        if n <= 64 {
            for a in 0..n {
                for b in a + 1..n {
                    check_pattern(code.as_ref(), &msg, &cw, &[a, b]);
                }
            }
        } else {
            for _ in 0..300 {
                let e = sample(&mut rng, n, 2).into_vec();
                check_pattern(code.as_ref(), &msg, &cw, &e);
            }
        }
    }
    // Heavier patterns the promise still covers (repetition-like codes with large d).
    for w in 3..d.min(n + 1) {
        for _ in 0..4 {
            let e = sample(&mut rng, n, w).into_vec();
            check_pattern(code.as_ref(), &msg, &cw, &e);
        }
    }
}

#[test]
fn errors_within_t_are_corrected_and_up_to_d_minus_1_minus_t_detected() {
    qc().quickcheck(errors_within_capability as fn(AnySpec, u64));
}

#[test]
fn double_errors_are_detected_by_every_distance_4_family() {
    // Deterministic companions of the random property, one per d = 4 family.
    for spec in [
        "secded:72",
        "secded:13",
        "alien:3x5",
        "alien:9x9",
        "alien:1x4",
        "alien:4x1",
    ] {
        let code = code::from_spec_str(spec).unwrap();
        assert_eq!(code.d(), 4, "{spec}");
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let msg = random_bits(&mut rng, code.k());
        let cw = code.encode(&msg);
        let n = code.n();
        for a in 0..n {
            for b in a + 1..n {
                check_pattern(code.as_ref(), &msg, &cw, &[a, b]);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// alien codes against the paper and brute force

/// The paper's invariant computed from scratch: row and column parities, normalised by their
/// first entry (`r~` for even-by-odd, `c~` for odd-by-even, both for odd-by-odd).
fn invariant(m: usize, n: usize, word: &BitVec) -> Syndrome {
    let r: Vec<bool> = (0..m)
        .map(|i| (0..n).filter(|&j| word.get(i * n + j)).count() % 2 == 1)
        .collect();
    let c: Vec<bool> = (0..n)
        .map(|j| (0..m).filter(|&i| word.get(i * n + j)).count() % 2 == 1)
        .collect();
    let tilde =
        |v: &[bool]| BitVec::from_bools(&v[1..].iter().map(|&x| x ^ v[0]).collect::<Vec<_>>());
    match (m % 2, n % 2) {
        (0, 0) => Syndrome::Trivial,
        (0, _) => Syndrome::Rows(tilde(&r)),
        (_, 0) => Syndrome::Cols(tilde(&c)),
        _ => Syndrome::Pair(tilde(&r), tilde(&c)),
    }
}

fn toggles(m: usize, n: usize) -> Vec<u64> {
    (0..m * n)
        .map(|p| {
            let (y, x) = (p / n, p % n);
            let mut t = 0u64;
            for j in 0..n {
                t |= 1 << (y * n + j);
            }
            for i in 0..m {
                t |= 1 << (i * n + x);
            }
            t
        })
        .collect()
}

/// The solvable games of a board with `mn <= 20`, as a membership table, by walking every press
/// pattern in Gray-code order.
fn solvable_table(m: usize, n: usize) -> Vec<bool> {
    let t = toggles(m, n);
    let mut seen = vec![false; 1 << (m * n)];
    let mut g = 0u64;
    seen[0] = true;
    for step in 1..1usize << (m * n) {
        g ^= t[step.trailing_zeros() as usize];
        seen[g as usize] = true;
    }
    seen
}

fn mask(v: &BitVec) -> u64 {
    v.ones_iter().fold(0, |a, i| a | 1 << i)
}

fn alien_dims(g: &mut Gen) -> (usize, usize) {
    (below(g, 1, 12), below(g, 1, 12))
}

#[derive(Clone, Debug)]
struct Dims(usize, usize);

impl Arbitrary for Dims {
    fn arbitrary(g: &mut Gen) -> Self {
        let (m, n) = alien_dims(g);
        Dims(m, n)
    }
}

fn syndrome_is_the_invariant(dims: Dims, seed: u64) {
    let Dims(m, n) = dims;
    let code = AlienCode::new(m, n);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..20 {
        let w = random_bits(&mut rng, m * n);
        assert_eq!(code.syndrome(&w), invariant(m, n, &w), "{m}x{n} {w}");
    }
    // Coset membership by brute force: equal syndromes iff the difference is solvable.
    if m * n <= 16 {
        let solvable = solvable_table(m, n);
        for _ in 0..50 {
            let u = random_bits(&mut rng, m * n);
            let mut v = random_bits(&mut rng, m * n);
            if rng.r#gen::<bool>() {
                // Half the time, v = u + a codeword: the same coset.
                v = code.encode(&random_bits(&mut rng, code.k()));
                v.xor_assign(&u);
            }
            let same = code.syndrome(&u) == code.syndrome(&v);
            let mut diff = u.clone();
            diff.xor_assign(&v);
            assert_eq!(same, solvable[mask(&diff) as usize], "{m}x{n} {u} {v}");
        }
    }
}

#[test]
fn alien_syndrome_is_the_papers_invariant_and_labels_cosets() {
    qc().quickcheck(syndrome_is_the_invariant as fn(Dims, u64));
}

/// `d()` is the least weight of a non-zero solvable game and `k()` is `log2 |S|`, with `S` the
/// image of psi enumerated by brute force; every codeword is solvable.
fn check_parameters_by_brute_force(m: usize, n: usize) {
    let code = AlienCode::new(m, n);
    let solvable = solvable_table(m, n);
    let size = solvable.iter().filter(|&&b| b).count();
    assert!(size.is_power_of_two());
    assert_eq!(1usize << code.k(), size, "{m}x{n}: k");
    let d = (1..solvable.len())
        .filter(|&g| solvable[g])
        .map(|g| g.count_ones() as usize)
        .min()
        .expect("S has a non-zero game");
    assert_eq!(code.d(), d, "{m}x{n}: d");
    let mut rng = ChaCha8Rng::seed_from_u64((m * 100 + n) as u64);
    for _ in 0..20 {
        let cw = code.encode(&random_bits(&mut rng, code.k()));
        assert!(
            solvable[mask(&cw) as usize],
            "{m}x{n}: {cw} is not solvable"
        );
    }
}

#[test]
fn alien_d_and_k_match_brute_force_on_every_board_with_at_most_16_cells() {
    for m in 1..=16 {
        for n in 1..=16 / m {
            check_parameters_by_brute_force(m, n);
        }
    }
}

fn parameters_random(dims: Dims) {
    let Dims(m, n) = dims;
    let code = code::build(&Spec::Alien { rows: m, cols: n });
    assert_eq!(code.k(), alien::solvable_dim(m, n), "{m}x{n}");
    assert_eq!(code.d(), alien::min_distance(m, n), "{m}x{n}");
    if m * n <= 16 {
        check_parameters_by_brute_force(m, n);
    }
}

#[test]
fn alien_parameters_match_the_closed_forms() {
    qc().quickcheck(parameters_random as fn(Dims));
}

/// Table 1 and the closed form after it (Section 5.2), written out literally: with `(r, c)`
/// the parity pair of `D` and `b` the last message bit, cell (0, 0) is `b`, row 0 is
/// `c + (|r| mod 2 XOR b) 1` and column 0 is `r + (|r| mod 2 XOR b) 1`.
fn table_1(dims: OddOdd, seed: u64) {
    let OddOdd(m, n) = dims;
    let code = code::build(&Spec::Alien { rows: m, cols: n });
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let msg = random_bits(&mut rng, code.k());
    let k = code.k();
    let b = msg.get(k - 1);
    // D is (m - 1) x (n - 1), filled row-major by b_1 .. b_{k-1}.
    let d = |i: usize, j: usize| msg.get(i * (n - 1) + j);
    let r: Vec<bool> = (0..m - 1)
        .map(|i| (0..n - 1).filter(|&j| d(i, j)).count() % 2 == 1)
        .collect();
    let c: Vec<bool> = (0..n - 1)
        .map(|j| (0..m - 1).filter(|&i| d(i, j)).count() % 2 == 1)
        .collect();
    let r_odd = r.iter().filter(|&&x| x).count() % 2 == 1;
    let flip = r_odd ^ b; // Table 1: the truth table of XOR.
    let mut expect = Board::zeros(m, n);
    expect.set(0, 0, b);
    for j in 1..n {
        expect.set(0, j, c[j - 1] ^ flip);
    }
    for i in 1..m {
        expect.set(i, 0, r[i - 1] ^ flip);
        for j in 1..n {
            expect.set(i, j, d(i - 1, j - 1));
        }
    }
    assert_eq!(&code.encode(&msg), expect.bits(), "{m}x{n}");
    assert!(alien::is_solvable(&expect));
}

#[test]
fn odd_by_odd_encoding_is_table_1_literally() {
    qc().quickcheck(table_1 as fn(OddOdd, u64));
}

/// Section 5.1 for even-by-odd boards, literally: `D` is `m x (n - 1)`, `r` its row parity
/// vector, and column 0 is `r` when `b = r_1`, else `r + 1`; odd-by-even boards likewise with
/// rows and columns exchanged.
fn section_5_1(dims: Dims, seed: u64) {
    let Dims(a, b_) = dims;
    // An even number of rows and an odd number of columns, from any random pair.
    let (m, n) = (2 * a.div_ceil(2), 2 * (b_ / 2) + 1);
    let code = code::build(&Spec::Alien { rows: m, cols: n });
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let msg = random_bits(&mut rng, code.k());
    let b = msg.get(code.k() - 1);
    let d = |i: usize, j: usize| msg.get(i * (n - 1) + j);
    let r: Vec<bool> = (0..m)
        .map(|i| (0..n - 1).filter(|&j| d(i, j)).count() % 2 == 1)
        .collect();
    let mut expect = Board::zeros(m, n);
    for i in 0..m {
        expect.set(i, 0, if b == r[0] { r[i] } else { !r[i] });
        for j in 1..n {
            expect.set(i, j, d(i, j - 1));
        }
    }
    assert_eq!(&code.encode(&msg), expect.bits(), "{m}x{n}");
    assert_eq!(
        expect.get(0, 0),
        b,
        "the (1, 1) entry carries the last message bit"
    );

    // Odd-by-even, the transpose of the construction: D is rows 1.. of an n x m board
    // (n odd, m even), c its column parity vector, and row 0 is c when b = c_1, else c + 1.
    let (m, n) = (n, m);
    let code = code::build(&Spec::Alien { rows: m, cols: n });
    let msg = random_bits(&mut rng, code.k());
    let b = msg.get(code.k() - 1);
    let d = |i: usize, j: usize| msg.get(i * n + j);
    let c: Vec<bool> = (0..n)
        .map(|j| (0..m - 1).filter(|&i| d(i, j)).count() % 2 == 1)
        .collect();
    let mut expect = Board::zeros(m, n);
    for j in 0..n {
        expect.set(0, j, if b == c[0] { c[j] } else { !c[j] });
        for i in 1..m {
            expect.set(i, j, d(i - 1, j));
        }
    }
    assert_eq!(&code.encode(&msg), expect.bits(), "{m}x{n}");
}

#[test]
fn even_by_odd_encoding_is_section_5_1_literally() {
    qc().quickcheck(section_5_1 as fn(Dims, u64));
}
