//! Exact error rates of bounded-distance decoding on a binary symmetric channel.
//!
//! A decoder of radius `t` (every code here: `t = (d - 1) / 2`) turns an error pattern `e` into
//! one of three outcomes: *correct* when `|e| <= t`, *miscorrected* when `e` lies within `t` of a
//! non-zero codeword, *detected* otherwise. The balls of radius `t` around codewords are
//! disjoint, so the number of weight-`w` patterns of each outcome is an exact integer computed
//! from the weight distribution:
//!
//! ```text
//! correct_w      = C(n, w)                                   for w <= t
//! miscorrected_w = sum_j A_j sum_{s <= t} sum_a C(j, a) C(n - j, s - a)   over j + s - 2a = w
//! detected_w     = C(n, w) - correct_w - miscorrected_w
//! ```
//!
//! and each rate is `sum_w count_w p^w (1 - p)^(n - w)`: a sum of positive terms, evaluated with
//! `p` taken as the exact binary fraction it is and a 128-bit mantissa, so the `f64` results
//! are right to the last bit or so at any `p`, however large `A_j` and however small `p`.

use super::weights::{binomial_prefix, binomial_row};
use super::wide::{Wide, dyadic};
use crate::code::BlockCode;
use num_bigint::BigUint;
use num_traits::Zero;

/// Probabilities of the three outcomes of decoding one word sent over a binary symmetric channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BscRates {
    /// The crossover probability.
    pub p: f64,
    /// The word is decoded to the codeword sent (at most `t` errors).
    pub correct: f64,
    /// Errors are detected and not corrected (decoding failure).
    pub detected: f64,
    /// The word is decoded to a wrong codeword, or accepted as one (undetected error).
    pub miscorrected: f64,
    /// Frame error rate: detected or miscorrected.
    pub fer: f64,
}

/// The exact number of error patterns of each weight that a bounded-distance decoder decodes
/// correctly, detects, or miscorrects. Reusable for many crossover probabilities.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BscProfile {
    n: usize,
    t: usize,
    correct: Vec<BigUint>,
    detected: Vec<BigUint>,
    miscorrected: Vec<BigUint>,
}

impl BscProfile {
    /// The profile of a code of length `n` decoded to radius `t`, with weight distribution `wd`.
    ///
    /// # Panics
    /// If `wd` does not have `n + 1` entries, if `wd[0] != 1`, or if `t` is not below half the
    /// minimum distance `wd` implies (the decoding balls would overlap).
    pub fn from_distribution(n: usize, t: usize, wd: &[BigUint]) -> Self {
        assert_eq!(
            wd.len(),
            n + 1,
            "a weight distribution of length {n} has {} entries",
            n + 1
        );
        assert!(wd[0] == BigUint::from(1u32), "A_0 must be 1");
        if let Some(d) = (1..=n).find(|&j| !wd[j].is_zero()) {
            assert!(2 * t < d, "radius {t} is not below half the distance {d}");
        }
        let row = binomial_row(n);
        let mut miscorrected = vec![BigUint::zero(); n + 1];
        for (j, aj) in wd.iter().enumerate().skip(1) {
            if aj.is_zero() {
                continue;
            }
            let cj = binomial_prefix(j, t);
            let cr = binomial_prefix(n - j, t);
            for s in 0..=t {
                // a ones of the error inside the codeword's support, s - a outside.
                let lo = s.saturating_sub(n - j);
                for a in lo..=s.min(j) {
                    let w = j + s - 2 * a;
                    miscorrected[w] += aj * &cj[a] * &cr[s - a];
                }
            }
        }
        let mut correct = vec![BigUint::zero(); n + 1];
        let mut detected = vec![BigUint::zero(); n + 1];
        for w in 0..=n {
            if w <= t {
                correct[w] = row[w].clone();
            }
            detected[w] = &row[w] - &correct[w] - &miscorrected[w];
        }
        BscProfile {
            n,
            t,
            correct,
            detected,
            miscorrected,
        }
    }

    /// The profile of `code` with its weight distribution `wd` (from
    /// [`super::weight_distribution`]), decoded to its radius `t`.
    ///
    /// # Panics
    /// If `wd` does not belong to a code of `code`'s length and distance.
    pub fn new(code: &dyn BlockCode, wd: &[BigUint]) -> Self {
        Self::from_distribution(code.n(), code.t(), wd)
    }

    /// Code length.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Decoding radius.
    pub fn t(&self) -> usize {
        self.t
    }

    /// Number of weight-`w` error patterns decoded correctly (`C(n, w)` for `w <= t`, else 0).
    pub fn correct(&self) -> &[BigUint] {
        &self.correct
    }

    /// Number of weight-`w` error patterns detected and not corrected.
    pub fn detected(&self) -> &[BigUint] {
        &self.detected
    }

    /// Number of weight-`w` error patterns decoded to a wrong codeword.
    pub fn miscorrected(&self) -> &[BigUint] {
        &self.miscorrected
    }

    /// The rates at crossover probability `p`.
    ///
    /// # Panics
    /// If `p` is not in `[0, 1]`.
    pub fn rates(&self, p: f64) -> BscRates {
        let n = self.n;
        let (m, l) = dyadic(p);
        let pw = Wide::from_parts(u128::from(m), -i64::from(l));
        let qw = Wide::from_biguint(&((BigUint::from(1u32) << l) - m))
            .mul(Wide::from_parts(1, -i64::from(l)));
        // q^(n - w) for w = 0..=n
        let mut qpow = vec![Wide::ONE; n + 1];
        for w in (0..n).rev() {
            qpow[w] = qpow[w + 1].mul(qw);
        }
        let term = |count: &BigUint, weight: Wide, sum: Wide| {
            if count.is_zero() {
                sum
            } else {
                sum.add(Wide::from_biguint(count).mul(weight))
            }
        };
        let (mut c, mut d, mut e) = (Wide::ZERO, Wide::ZERO, Wide::ZERO);
        let mut ppow = Wide::ONE;
        for (w, &qp) in qpow.iter().enumerate() {
            let weight = ppow.mul(qp);
            if !weight.is_zero() {
                c = term(&self.correct[w], weight, c);
                d = term(&self.detected[w], weight, d);
                e = term(&self.miscorrected[w], weight, e);
            }
            ppow = ppow.mul(pw);
        }
        BscRates {
            p,
            correct: c.to_f64(),
            detected: d.to_f64(),
            miscorrected: e.to_f64(),
            fer: d.add(e).to_f64(),
        }
    }
}

/// The exact probabilities of correct decoding, detected failure, miscorrection and frame error
/// of `code` on a binary symmetric channel with crossover probability `p`, from its weight
/// distribution `wd` (as [`super::weight_distribution`] returns it), for its bounded-distance
/// decoder of radius `t`.
///
/// For many values of `p`, build a [`BscProfile`] once and call [`BscProfile::rates`].
///
/// # Panics
/// If `wd` does not belong to a code of `code`'s length and distance, or `p` is not in `[0, 1]`.
pub fn bsc_error_rates(code: &dyn BlockCode, wd: &[BigUint], p: f64) -> BscRates {
    BscProfile::new(code, wd).rates(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;

    #[test]
    fn outcomes_sum_to_one_and_match_simple_cases() {
        // parity:8: nothing corrected; odd-weight errors detected, even-weight ones accepted.
        let code = from_spec_str("parity:8").unwrap();
        let wd = super::super::weight_distribution(code.as_ref()).unwrap();
        let r = bsc_error_rates(code.as_ref(), &wd, 0.01);
        let q: f64 = 0.99;
        assert!((r.correct - q.powi(8)).abs() < 1e-16);
        let odd: f64 = (0..=8)
            .filter(|w| w % 2 == 1)
            .map(|w| {
                let c = (0..w).fold(1.0, |acc, x| acc * (8 - x) as f64 / (x + 1) as f64);
                c * 0.01f64.powi(w) * q.powi(8 - w)
            })
            .sum();
        assert!((r.detected - odd).abs() / odd < 1e-14);
        assert!((r.correct + r.detected + r.miscorrected - 1.0).abs() < 1e-15);
        assert!((r.fer - (1.0 - r.correct)).abs() < 1e-15);
    }

    #[test]
    fn extreme_probabilities() {
        let code = from_spec_str("alien:5x5").unwrap();
        let wd = super::super::weight_distribution(code.as_ref()).unwrap();
        let prof = BscProfile::new(code.as_ref(), &wd);
        let r0 = prof.rates(0.0);
        assert_eq!(
            (r0.correct, r0.detected, r0.miscorrected, r0.fer),
            (1.0, 0.0, 0.0, 0.0)
        );
        // p = 1: the error is all ones, a codeword of alien:5x5 (odd-by-odd, all parities 1).
        let r1 = prof.rates(1.0);
        assert_eq!((r1.correct, r1.detected, r1.miscorrected), (0.0, 0.0, 1.0));
        // At p = 1e-100 the frame error rate is C(25, 2) p^2 to far more than f64 precision,
        // well below what 1 - P(correct) could resolve.
        let tiny = prof.rates(1e-100);
        assert_eq!(tiny.correct, 1.0);
        assert!((tiny.fer / 3e-198 - 1.0).abs() < 1e-14, "{}", tiny.fer);
    }
}
