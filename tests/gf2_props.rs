//! Every fast GF(2) routine held to the slow reference in `tilecode::gf2::naive`.
//!
//! Matrices come in several kinds (dense, sparse, low rank, with repeated rows, permutations)
//! and sizes from empty to a few hundred rows and columns, so that both the direct path and the
//! Four Russians table path of the eliminator and the product, partial panels, ragged last words
//! and rank deficiency are all exercised.

use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tilecode::gf2::naive;
use tilecode::gf2::{BitMatrix, BitVec};

/// A test matrix with the seed it was made from (shown when a property fails).
#[derive(Clone, Debug)]
struct Mat(BitMatrix);

fn dim(rng: &mut ChaCha8Rng) -> usize {
    match rng.gen_range(0..10) {
        0 => rng.gen_range(0..=3),
        1..=5 => rng.gen_range(0..=80),
        _ => rng.gen_range(60..=230),
    }
}

fn make(rng: &mut ChaCha8Rng, rows: usize, cols: usize) -> BitMatrix {
    match rng.gen_range(0..5) {
        // Dense.
        0 => BitMatrix::random(rows, cols, rng),
        // Sparse: many empty panels and partial tables.
        1 => {
            let mut m = BitMatrix::zeros(rows, cols);
            let p = rng.gen_range(0.005..0.1);
            for i in 0..rows {
                for j in 0..cols {
                    if rng.gen_bool(p) {
                        m.set(i, j, true);
                    }
                }
            }
            m
        }
        // Low rank: a product through a thin middle.
        2 => {
            let k = rng.gen_range(0..=rows.min(cols).min(40));
            BitMatrix::random(rows, k, rng).mul(&BitMatrix::random(k, cols, rng))
        }
        // Repeated rows.
        3 => {
            let distinct = rng.gen_range(1..=8);
            let pool = BitMatrix::random(distinct, cols, rng);
            let mut m = BitMatrix::zeros(rows, cols);
            for i in 0..rows {
                let r = rng.gen_range(0..distinct);
                m.row_mut(i).copy_from_slice(pool.row(r));
            }
            m
        }
        // A partial permutation: one one per row at most, full-rank panels in odd places.
        _ => {
            let mut m = BitMatrix::zeros(rows, cols);
            if cols > 0 {
                for i in 0..rows {
                    if rng.gen_bool(0.9) {
                        m.set(i, rng.gen_range(0..cols), true);
                    }
                }
            }
            m
        }
    }
}

impl Arbitrary for Mat {
    fn arbitrary(g: &mut Gen) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(u64::arbitrary(g));
        let (rows, cols) = (dim(&mut rng), dim(&mut rng));
        Mat(make(&mut rng, rows, cols))
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let m = self.0.clone();
        let (r, c) = (m.rows(), m.cols());
        let mut smaller = Vec::new();
        for (rows, cols) in [
            (r / 2, c),
            (r, c / 2),
            (r.saturating_sub(1), c),
            (r, c.saturating_sub(1)),
        ] {
            if (rows, cols) != (r, c) {
                let mut s = BitMatrix::zeros(rows, cols);
                for i in 0..rows {
                    for j in 0..cols {
                        s.set(i, j, m.get(i, j));
                    }
                }
                smaller.push(Mat(s));
            }
        }
        Box::new(smaller.into_iter())
    }
}

fn reference(m: &BitMatrix) -> naive::Matrix {
    naive::Matrix::from_bit_matrix(m)
}

fn random_vec(seed: u64, len: usize) -> BitVec {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    BitVec::from_bools(&(0..len).map(|_| rng.r#gen::<bool>()).collect::<Vec<_>>())
}

fn qc() -> QuickCheck {
    QuickCheck::new().tests(150)
}

#[test]
fn rref_and_rank_match_naive() {
    fn prop(a: Mat) -> bool {
        let (r, p) = reference(&a.0).rref();
        let mut fast = a.0.clone();
        let pivots = fast.rref_in_place();
        pivots == p && fast == r.to_bit_matrix() && a.0.rank() == p.len()
    }
    qc().quickcheck(prop as fn(Mat) -> bool);
}

#[test]
fn echelon_transform_reduces_and_is_invertible() {
    fn prop(a: Mat) -> bool {
        let e = a.0.echelon();
        let (r, p) = reference(&a.0).rref();
        e.rref == r.to_bit_matrix()
            && e.pivots == p
            && e.transform.mul(&a.0) == e.rref
            && e.transform.rank() == a.0.rows()
            && e.rank() == p.len()
    }
    qc().quickcheck(prop as fn(Mat) -> bool);
}

/// `x` solves `A x = b`, or `y` certifies that nothing does.
fn valid(a: &BitMatrix, b: &BitVec, got: &Result<BitVec, BitVec>) -> bool {
    match got {
        Ok(x) => x.len() == a.cols() && &a.mul_vec(x) == b,
        Err(y) => y.len() == a.rows() && a.transpose().mul_vec(y).is_zero() && y.dot(b),
    }
}

#[test]
fn solve_gives_a_solution_or_a_certificate() {
    fn prop(a: Mat, seed: u64, in_range: bool) -> bool {
        let a = a.0;
        // Half the right-hand sides are in the column space by construction.
        let b = if in_range {
            a.mul_vec(&random_vec(seed, a.cols()))
        } else {
            random_vec(seed, a.rows())
        };
        let naive = reference(&a).solve(&b.to_bools());
        let fast = a.solve(&b);
        let e = a.echelon();
        let via_echelon = e.solve(&b);
        valid(&a, &b, &fast)
            && valid(&a, &b, &via_echelon)
            && fast.is_ok() == naive.is_ok()
            && via_echelon.is_ok() == naive.is_ok()
            && (!in_range || fast.is_ok())
    }
    qc().quickcheck(prop as fn(Mat, u64, bool) -> bool);
}

#[test]
fn solve_many_matches_one_at_a_time() {
    fn prop(a: Mat, seed: u64) -> TestResult {
        let a = a.0;
        let e = a.echelon();
        let bs: Vec<BitVec> = (0..12)
            .map(|j| {
                if j % 3 == 0 {
                    a.mul_vec(&random_vec(seed ^ j, a.cols()))
                } else {
                    random_vec(seed ^ j, a.rows())
                }
            })
            .collect();
        let many = e.solve_many(&bs);
        TestResult::from_bool(
            many.len() == bs.len()
                && bs
                    .iter()
                    .zip(&many)
                    .all(|(b, got)| valid(&a, b, got) && got == &e.solve(b)),
        )
    }
    qc().tests(60)
        .quickcheck(prop as fn(Mat, u64) -> TestResult);
}

#[test]
fn kernel_spans_exactly_the_null_space() {
    fn prop(a: Mat) -> bool {
        let a = a.0;
        let k = a.kernel();
        let rank = reference(&a).rank();
        let basis = BitMatrix::from_rows(&k, a.cols());
        // Right dimension, inside the null space, independent: then it spans all of it.
        let spans = k.len() == a.cols() - rank
            && k.iter().all(|v| a.mul_vec(v).is_zero())
            && basis.rank() == k.len();
        // The same space as the reference's basis.
        let theirs: Vec<BitVec> = reference(&a)
            .kernel()
            .iter()
            .map(|v| BitVec::from_bools(v))
            .collect();
        let mut both = k.clone();
        both.extend(theirs);
        let same = BitMatrix::from_rows(&both, a.cols()).rank() == k.len();
        spans && same && a.echelon().kernel() == k
    }
    qc().quickcheck(prop as fn(Mat) -> bool);
}

#[test]
fn product_and_transpose_match_naive() {
    fn prop(a: Mat, seed: u64) -> bool {
        let a = a.0;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let cols = dim(&mut rng);
        let b = make(&mut rng, a.cols(), cols);
        let (na, nb) = (reference(&a), reference(&b));
        let v = random_vec(seed, a.cols());
        a.mul(&b) == na.mul(&nb).to_bit_matrix()
            && a.transpose() == na.transpose().to_bit_matrix()
            && a.mul_vec(&v).to_bools() == na.mul_vec(&v.to_bools())
    }
    qc().quickcheck(prop as fn(Mat, u64) -> bool);
}

#[test]
fn inverse_exists_exactly_for_full_rank_square() {
    fn prop(a: Mat) -> bool {
        let a = a.0;
        let full = a.rows() == a.cols() && reference(&a).rank() == a.rows();
        match a.inverse() {
            Some(inv) => full && a.mul(&inv) == BitMatrix::identity(a.rows()),
            None => !full,
        }
    }
    qc().quickcheck(prop as fn(Mat) -> bool);
}

#[test]
fn large_random_matrix_agrees_with_naive() {
    // One matrix past a few panels in every direction, with a ragged last word.
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let a = BitMatrix::random(300, 333, &mut rng);
    let (r, p) = reference(&a).rref();
    let mut fast = a.clone();
    assert_eq!(fast.rref_in_place(), p);
    assert_eq!(fast, r.to_bit_matrix());
    let e = a.echelon();
    assert_eq!(e.transform.mul(&a), e.rref);
}
