//! Weight distributions through the dual code and the MacWilliams identity.
//!
//! Every code of this crate has a dual whose weight enumerator is known in closed form (alien
//! codes: binomial sums over the row and column weights of `(a, b)`) or is small enough to list
//! (the `2^r` words of a Hamming dual). The weight distribution of the code itself is then
//!
//! ```text
//! A_j = 2^(-dim dual) * sum_w B_w K_j(w),   K_j(w) = sum_s (-1)^s C(w, s) C(N - w, j - s),
//! ```
//!
//! with the Krawtchouk polynomials `K_j` computed by their three-term recurrence, one pass per
//! distinct dual weight `w`, in exact integers.

use super::krawtchouk;
use crate::code::spec::ceil_log2;
use crate::code::{BlockCode, Spec};
use crate::error::{Error, Result};
use crate::game::alien::Shape;
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, Zero};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// The weight enumerator of a dual code: how many dual words have each weight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DualEnumerator {
    /// Length of the code (and of its dual).
    pub n: usize,
    /// `log2` of the number of dual words (the dual's dimension, `n - k`).
    pub dim: usize,
    /// `weight -> count`, zero counts left out.
    pub weights: BTreeMap<usize, BigUint>,
}

impl DualEnumerator {
    fn new(n: usize, dim: usize) -> Self {
        DualEnumerator {
            n,
            dim,
            weights: BTreeMap::new(),
        }
    }

    fn add(&mut self, w: usize, count: BigUint) {
        if !count.is_zero() {
            *self.weights.entry(w).or_default() += count;
        }
    }
}

/// `C(n, 0..=n)` as exact integers.
pub(crate) fn binomial_row(n: usize) -> Vec<BigUint> {
    let mut row = Vec::with_capacity(n + 1);
    let mut c = BigUint::one();
    row.push(c.clone());
    for i in 1..=n {
        c = c * BigUint::from(n - i + 1) / BigUint::from(i);
        row.push(c.clone());
    }
    row
}

/// `C(n, 0..=upto)` as exact integers (zeros past `n`).
pub(crate) fn binomial_prefix(n: usize, upto: usize) -> Vec<BigUint> {
    let mut row = Vec::with_capacity(upto + 1);
    let mut c = BigUint::one();
    row.push(c.clone());
    for i in 1..=upto {
        if i > n {
            c = BigUint::zero();
        } else {
            c = c * BigUint::from(n - i + 1) / BigUint::from(i);
        }
        row.push(c.clone());
    }
    row
}

/// The dual enumerator of `alien:MxN`, from the paper's description of the dual:
///
/// * odd-by-odd: `{u_ij = a_i + b_j : |a| + |b| even}`, each `u` counted by `(a, b)` and
///   `(a + 1, b + 1)`; `u` has weight `alpha (n - beta) + (m - alpha) beta`;
/// * even-by-odd: `{u_ij = a_i : |a| even}`, weight `alpha n`; odd-by-even by transposition;
/// * even-by-even: `{0}`.
pub fn alien_dual(m: usize, n: usize) -> DualEnumerator {
    let big_n = m * n;
    match Shape::of(m, n) {
        Shape::EvenEven => {
            let mut e = DualEnumerator::new(big_n, 0);
            e.add(0, BigUint::one());
            e
        }
        Shape::EvenOdd | Shape::OddEven => {
            // The parity vector runs along the even dimension `len`; each of its ones covers a
            // full line of `other` cells.
            let (len, other) = if Shape::of(m, n) == Shape::EvenOdd {
                (m, n)
            } else {
                (n, m)
            };
            let mut e = DualEnumerator::new(big_n, len - 1);
            for (alpha, c) in binomial_row(len).into_iter().enumerate().step_by(2) {
                e.add(alpha * other, c);
            }
            e
        }
        Shape::OddOdd => {
            let mut e = DualEnumerator::new(big_n, m + n - 2);
            let rm = binomial_row(m);
            let rn = binomial_row(n);
            let mut doubled: BTreeMap<usize, BigUint> = BTreeMap::new();
            for (alpha, ca) in rm.iter().enumerate() {
                for (beta, cb) in rn.iter().enumerate() {
                    if (alpha + beta) % 2 == 0 {
                        let w = alpha * (n - beta) + (m - alpha) * beta;
                        *doubled.entry(w).or_default() += ca * cb;
                    }
                }
            }
            for (w, c) in doubled {
                e.add(w, c >> 1u32);
            }
            e
        }
    }
}

/// `#{p in [1, limit] : popcount(s & p) is odd}`, by a digit walk over `limit` in O(64).
pub(crate) fn count_odd_overlaps(s: u64, limit: u64) -> u64 {
    let mut total = 0u64;
    let mut prefix_parity = 0u64;
    for k in (0..64).rev() {
        if (limit >> k) & 1 == 1 {
            // Numbers that agree with `limit` above bit k, have 0 at bit k, free below.
            let low = (1u64 << k) - 1;
            if s & low != 0 {
                total += 1u64 << (k - 1);
            } else if prefix_parity == 1 {
                total += 1u64 << k;
            }
            prefix_parity ^= (s >> k) & 1;
        }
    }
    total + prefix_parity
}

/// The largest Hamming redundancy `r` whose `2^r` dual words are listed one by one.
pub const MAX_LISTED_DUAL_BITS: usize = 26;

/// The dual enumerator of the shortened Hamming code `hamming:N`: the dual words are
/// `u_i = <s, i + 1>` for the `2^r` vectors `s`.
pub fn hamming_dual(n: usize) -> Result<DualEnumerator> {
    let r = ceil_log2(n + 1);
    listed_dual(n, r, |s| count_odd_overlaps(s, n as u64) as usize)
}

/// The dual enumerator of `secded:N`: the words `u_0 = e`, `u_i = <s, i> + e` (`i >= 1`) for the
/// `2^r` vectors `s` and `e` in `{0, 1}` (the all-ones row is the overall parity check).
pub fn secded_dual(n: usize) -> Result<DualEnumerator> {
    let r = ceil_log2(n);
    let mut e = listed_dual(n, r, |s| count_odd_overlaps(s, n as u64 - 1) as usize)?;
    let plain = e.weights.clone();
    e.dim += 1;
    for (w, c) in plain {
        e.add(n - w, c);
    }
    Ok(e)
}

fn listed_dual(n: usize, r: usize, weight: impl Fn(u64) -> usize + Sync) -> Result<DualEnumerator> {
    if r > MAX_LISTED_DUAL_BITS {
        return Err(Error::Limit {
            what: format!("the dual of a length-{n} hamming code"),
            reason: format!(
                "it has 2^{r} words, more than the 2^{MAX_LISTED_DUAL_BITS} this lists"
            ),
        });
    }
    let counts = (0..1u64 << r)
        .into_par_iter()
        .fold(BTreeMap::<usize, u64>::new, |mut acc, s| {
            *acc.entry(weight(s)).or_default() += 1;
            acc
        })
        .reduce(BTreeMap::new, |mut a, b| {
            for (w, c) in b {
                *a.entry(w).or_default() += c;
            }
            a
        });
    let mut e = DualEnumerator::new(n, r);
    for (w, c) in counts {
        e.add(w, BigUint::from(c));
    }
    Ok(e)
}

/// The dual enumerator of `product:MxN`: the dual is spanned by the row and column checks,
/// `{u_ij = a_i + b_j}` for all `(a, b)`, each `u` counted by `(a, b)` and `(a + 1, b + 1)`
/// (the odd-by-odd alien dual without its parity condition on `|a| + |b|`); `u` has weight
/// `alpha (n - beta) + (m - alpha) beta`.
pub fn product_dual(m: usize, n: usize) -> DualEnumerator {
    let mut e = DualEnumerator::new(m * n, m + n - 1);
    let rm = binomial_row(m);
    let rn = binomial_row(n);
    let mut doubled: BTreeMap<usize, BigUint> = BTreeMap::new();
    for (alpha, ca) in rm.iter().enumerate() {
        for (beta, cb) in rn.iter().enumerate() {
            let w = alpha * (n - beta) + (m - alpha) * beta;
            *doubled.entry(w).or_default() += ca * cb;
        }
    }
    for (w, c) in doubled {
        e.add(w, c >> 1u32);
    }
    e
}

/// The dual of `parity:N`: `{0, 1^N}`.
pub fn parity_dual(n: usize) -> DualEnumerator {
    let mut e = DualEnumerator::new(n, 1);
    e.add(0, BigUint::one());
    e.add(n, BigUint::one());
    e
}

/// The dual of `repetition:N`: the even-weight words.
pub fn repetition_dual(n: usize) -> DualEnumerator {
    let mut e = DualEnumerator::new(n, n - 1);
    for (w, c) in binomial_row(n).into_iter().enumerate().step_by(2) {
        e.add(w, c);
    }
    e
}

/// The dual enumerator of any code of this crate.
pub fn dual_enumerator(code: &dyn BlockCode) -> Result<DualEnumerator> {
    Ok(match code.spec() {
        Spec::Alien { rows, cols } => alien_dual(rows, cols),
        Spec::Hamming(n) => hamming_dual(n)?,
        Spec::Secded(n) => secded_dual(n)?,
        Spec::Parity(n) => parity_dual(n),
        Spec::Repetition(n) => repetition_dual(n),
        Spec::Product { rows, cols } => product_dual(rows, cols),
    })
}

/// A rough count of the 64-bit limb operations MacWilliams needs: one Krawtchouk recurrence of
/// `n / 2` steps on `n`-bit integers per distinct dual weight.
pub fn macwilliams_work(dual: &DualEnumerator) -> u128 {
    let n = dual.n as u128;
    dual.weights.len() as u128 * (n / 2 + 1) * (n / 64 + 1)
}

/// The largest [`macwilliams_work`] accepted: about half a minute of CPU time (`alien:127x127`,
/// the largest square odd board within [`MAX_WEIGHT_DISTRIBUTION_N`], needs `3.4e9`).
pub const MAX_MACWILLIAMS_WORK: u128 = 4_000_000_000;

/// The largest code length whose weight distribution is computed: the distribution alone
/// takes about `n^2 / 2` bits (16 MiB here; its JSON about 58 MB).
pub const MAX_WEIGHT_DISTRIBUTION_N: usize = 1 << 14;

/// The MacWilliams transform of a dual enumerator: the weight distribution `A_0..=A_n` of the
/// code, exactly.
pub fn macwilliams(dual: &DualEnumerator) -> Vec<BigUint> {
    let n = dual.n;
    let half = n / 2;
    let entries: Vec<(usize, BigUint)> =
        dual.weights.iter().map(|(&w, c)| (w, c.clone())).collect();
    let (even, odd) = krawtchouk::sums(n, &entries);
    let mut a = vec![BigUint::zero(); n + 1];
    for j in 0..=half {
        let lo = &even[j] + &odd[j];
        let hi = &even[j] - &odd[j];
        a[j] = exact_shift(lo, dual.dim, n, j);
        if n - j != j {
            a[n - j] = exact_shift(hi, dual.dim, n, n - j);
        }
    }
    a
}

/// `x / 2^dim`, which MacWilliams guarantees to be a non-negative integer.
fn exact_shift(x: BigInt, dim: usize, n: usize, j: usize) -> BigUint {
    let (sign, mag) = x.into_parts();
    assert!(
        sign != Sign::Minus,
        "MacWilliams gave a negative count at weight {j} of length {n}"
    );
    debug_assert!(
        mag.trailing_zeros().is_none_or(|z| z >= dim as u64),
        "MacWilliams sum at weight {j} is not divisible by 2^{dim}"
    );
    mag >> dim
}

/// The weight distribution `A_0..=A_n` of a code, exactly: `A_j` codewords have weight `j`,
/// and the counts sum to `2^k`.
///
/// Computed from the dual code and the MacWilliams identity for every family (repetition codes
/// and thin alien boards, which are repetition codes, directly: `A_0 = A_n = 1`).
///
/// # Errors
/// [`Error::Limit`] when the code is too long (past [`MAX_WEIGHT_DISTRIBUTION_N`]) or the
/// transform would take too long (past [`MAX_MACWILLIAMS_WORK`]). The largest square boards
/// within reach are `alien:127x127` (odd, about 30 s of CPU time) and `alien:128x128`.
pub fn weight_distribution(code: &dyn BlockCode) -> Result<Vec<BigUint>> {
    let n = code.n();
    let spec = code.spec();
    let out_of_reach = |reason: String| Error::Limit {
        what: format!("the weight distribution of {spec}"),
        reason,
    };
    if n > MAX_WEIGHT_DISTRIBUTION_N {
        return Err(out_of_reach(format!(
            "length {n} exceeds {MAX_WEIGHT_DISTRIBUTION_N} (the counts alone would need about n^2/2 bits)"
        )));
    }
    if matches!(spec, Spec::Repetition(_) | Spec::Alien { .. }) && code.k() == 1 {
        // Repetition codes, thin alien boards and 1x1: {0, 1^n}. (Not hamming:4, whose one
        // non-zero codeword is 1110.)
        let mut a = vec![BigUint::zero(); n + 1];
        a[0] += 1u32;
        a[n] += 1u32;
        return Ok(a);
    }
    let dual = dual_enumerator(code)?;
    let work = macwilliams_work(&dual);
    if work > MAX_MACWILLIAMS_WORK {
        return Err(out_of_reach(format!(
            "the MacWilliams transform over {} distinct dual weights at length {n} needs about {work} limb operations, more than the limit of {MAX_MACWILLIAMS_WORK}",
            dual.weights.len()
        )));
    }
    Ok(macwilliams(&dual))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_odd_overlaps_matches_naive() {
        for limit in 0..200u64 {
            for s in 0..64u64 {
                let naive = (1..=limit)
                    .filter(|p| (s & p).count_ones() % 2 == 1)
                    .count();
                assert_eq!(
                    count_odd_overlaps(s, limit) as usize,
                    naive,
                    "s={s} limit={limit}"
                );
            }
        }
    }

    #[test]
    fn krawtchouk_recurrence_matches_definition() {
        let n = 13usize;
        let row: Vec<Vec<BigUint>> = (0..=n).map(binomial_row).collect();
        for w in 0..=n {
            let (even, odd) = krawtchouk::naive_sums(n, &[(w, BigUint::one())]);
            let acc = if w % 2 == 0 { even } else { odd };
            for (j, got) in acc.iter().enumerate() {
                let mut k = BigInt::zero();
                for s in 0..=j.min(w) {
                    if j - s <= n - w {
                        let term = BigInt::from(&row[w][s] * &row[n - w][j - s]);
                        if s % 2 == 0 {
                            k += term;
                        } else {
                            k -= term;
                        }
                    }
                }
                assert_eq!(*got, k, "K_{j}({w}) at n={n}");
            }
        }
    }

    #[test]
    fn dual_sizes() {
        for (m, n) in [
            (1, 1),
            (3, 3),
            (4, 5),
            (5, 4),
            (4, 4),
            (1, 7),
            (6, 1),
            (7, 9),
        ] {
            let e = alien_dual(m, n);
            let total: BigUint = e.weights.values().sum();
            assert_eq!(total, BigUint::one() << e.dim, "{m}x{n}");
        }
        for n in 3..40 {
            let e = hamming_dual(n).unwrap();
            assert_eq!(e.weights.values().sum::<BigUint>(), BigUint::one() << e.dim);
        }
        for n in 4..40 {
            let e = secded_dual(n).unwrap();
            assert_eq!(e.weights.values().sum::<BigUint>(), BigUint::one() << e.dim);
        }
    }

    #[test]
    fn alien_9x9_low_weights() {
        let a = macwilliams(&alien_dual(9, 9));
        let total: BigUint = a.iter().sum();
        assert_eq!(total, BigUint::one() << 65u32);
        assert_eq!(a[0], BigUint::one());
        assert!(a[1..4].iter().all(Zero::is_zero));
        // Weight-4 codewords are the rectangles: C(9,2)^2 of them.
        assert_eq!(a[4], BigUint::from(36u32 * 36));
    }
}
