//! Analytic curves to put beside simulated points on AWGN and the erasure channel.
//!
//! * uncoded BPSK: `BER = Q(sqrt(2 Eb/N0))`;
//! * hard decisions: the channel is a binary symmetric channel with `p = Q(sqrt(2 Es/N0))`,
//!   `Es/N0 = R Eb/N0`, so the exact rates of [`crate::sim::ExactModel`] at that `p` hold;
//! * the union bound on the soft ML frame error rate: a codeword of weight `w` beats the one
//!   sent with probability `Q(sqrt(2 w Es/N0))`, so `FER <= sum_w A_w Q(sqrt(2 w Es/N0))`; and
//!   on the BER, since a decoded word at distance `w` carries at most `min(w, k)` wrong message
//!   bits: `BER <= sum_w min(w, k) / k A_w Q(sqrt(2 w Es/N0))` (looser than a bound from the
//!   input-output weight enumerator, which these codes do not have in closed form);
//! * ML erasure decoding fails exactly when the erased columns of the parity-check matrix are
//!   dependent: never below `d` erasures, always above `n - k`. [`ErasureModel`] counts the
//!   failing patterns of each size in between when there are few enough to list, which gives
//!   the exact FER, and otherwise bounds it by taking all or none of them.

use super::normal::{db_to_linear, q_function};
use crate::code::BlockCode;
use crate::code::soft::parity_check_matrix;
use crate::error::Result;
use crate::gf2::{BitMatrix, BitVec};
use num_traits::ToPrimitive;

/// The analytic figures reported beside a simulated point (those that apply).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Analytic {
    /// BER of uncoded BPSK at the point's Eb/N0 (AWGN).
    pub uncoded_ber: Option<f64>,
    /// The union bound on the soft ML FER (AWGN), capped at 1.
    pub union_bound_fer: Option<f64>,
    /// The union bound on the soft ML BER (AWGN), capped at 1.
    pub union_bound_ber: Option<f64>,
    /// The ML erasure FER (BEC): `(low, high)`, equal when exact.
    pub erasure_fer: Option<(f64, f64)>,
}

/// BER of uncoded BPSK at `ebn0_db`.
pub fn uncoded_ber(ebn0_db: f64) -> f64 {
    q_function((2.0 * db_to_linear(ebn0_db)).sqrt())
}

/// The hard-decision crossover probability at `esn0_db`: `Q(sqrt(2 Es/N0))`.
pub fn hard_crossover(esn0_db: f64) -> f64 {
    q_function((2.0 * db_to_linear(esn0_db)).sqrt())
}

/// The union bound on the ML frame error rate of a code with weight distribution `wd` (index =
/// weight) at `esn0_db`, before capping at 1.
pub fn union_bound_fer(wd: &[num_bigint::BigUint], esn0_db: f64) -> f64 {
    let es = db_to_linear(esn0_db);
    wd.iter()
        .enumerate()
        .skip(1)
        .map(|(w, a)| {
            a.to_f64().unwrap_or(f64::INFINITY) * q_function((2.0 * w as f64 * es).sqrt())
        })
        .sum()
}

/// The union bound on the ML bit error rate of a code of dimension `k` with weight
/// distribution `wd` at `esn0_db`, before capping at 1.
pub fn union_bound_ber(wd: &[num_bigint::BigUint], k: usize, esn0_db: f64) -> f64 {
    let es = db_to_linear(esn0_db);
    wd.iter()
        .enumerate()
        .skip(1)
        .map(|(w, a)| {
            a.to_f64().unwrap_or(f64::INFINITY) * w.min(k) as f64 / k as f64
                * q_function((2.0 * w as f64 * es).sqrt())
        })
        .sum()
}

/// The largest number of erasure patterns [`ErasureModel`] lists (about a second of work).
pub const MAX_ERASURE_PATTERNS: u64 = 1 << 20;

/// Frame error rates of ML erasure decoding.
#[derive(Clone, Debug)]
pub struct ErasureModel {
    n: usize,
    /// `failing[e]`: erasure patterns of size `e` that decoding cannot resolve, when known.
    failing: Vec<Option<f64>>,
}

impl ErasureModel {
    /// The model of `code`: sizes below `d` never fail, sizes above `n - k` always do, and the
    /// sizes in between are listed when they have at most [`MAX_ERASURE_PATTERNS`] patterns in
    /// all.
    ///
    /// # Errors
    /// None today; kept fallible like the other models.
    pub fn new(code: &dyn BlockCode) -> Result<Self> {
        let (n, k, d) = (code.n(), code.k(), code.d());
        let r = n - k;
        let binom =
            |e: usize| -> f64 { (0..e).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64) };
        let middle: f64 = (d..=r).map(binom).sum();
        let h = parity_check_matrix(code);
        let failing = (0..=n)
            .map(|e| {
                if e < d {
                    Some(0.0)
                } else if e > r {
                    Some(binom(e))
                } else if middle <= MAX_ERASURE_PATTERNS as f64 {
                    Some(count_dependent(&h, e) as f64)
                } else {
                    None
                }
            })
            .collect();
        Ok(ErasureModel { n, failing })
    }

    /// True when every size is counted, so that [`ErasureModel::fer`] is exact.
    pub fn is_exact(&self) -> bool {
        self.failing.iter().all(Option::is_some)
    }

    /// The frame error rate at erasure probability `eps`, as `(low, high)`: equal when exact,
    /// otherwise the unknown sizes count as never failing (low) and always failing (high).
    pub fn fer(&self, eps: f64) -> (f64, f64) {
        let n = self.n;
        let (mut low, mut high) = (0.0, 0.0);
        let mut binom = 1.0;
        for (e, f) in self.failing.iter().enumerate() {
            let p = eps.powi(e as i32) * (1.0 - eps).powi((n - e) as i32);
            match f {
                Some(x) => {
                    low += x * p;
                    high += x * p;
                }
                None => high += binom * p,
            }
            binom = binom * (n - e) as f64 / (e + 1) as f64;
        }
        (low.min(1.0), high.min(1.0))
    }
}

/// The number of `e`-subsets of the columns of `h` that are linearly dependent.
fn count_dependent(h: &BitMatrix, e: usize) -> u64 {
    let n = h.cols();
    let cols: Vec<BitVec> = (0..n).map(|j| h.col_vec(j)).collect();
    let mut idx: Vec<usize> = (0..e).collect();
    let mut count = 0u64;
    loop {
        let rows: Vec<BitVec> = idx.iter().map(|&j| cols[j].clone()).collect();
        if BitMatrix::from_rows(&rows, h.rows()).rank() < e {
            count += 1;
        }
        // Next combination in lexicographic order.
        let Some(i) = (0..e).rev().find(|&i| idx[i] < n - e + i) else {
            return count;
        };
        idx[i] += 1;
        for t in i + 1..e {
            idx[t] = idx[t - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;
    use crate::code::soft::reference::exhaustive_erasure;

    #[test]
    fn uncoded_and_union_values() {
        // Uncoded BPSK at 9.6 dB: the textbook 1e-5.
        assert!(
            (uncoded_ber(9.6) / 1.0e-5 - 1.0).abs() < 0.05,
            "{}",
            uncoded_ber(9.6)
        );
        assert!((uncoded_ber(0.0) - 0.078_649_603_525_142_6).abs() < 1e-15);
        // hamming:7, A = 1 + 7x^3 + 7x^4 + x^7.
        let code = from_spec_str("hamming:7").unwrap();
        let wd = crate::code::weight_distribution(code.as_ref()).unwrap();
        let es = db_to_linear(3.0);
        let q = |w: f64| q_function((2.0 * w * es).sqrt());
        let want = 7.0 * q(3.0) + 7.0 * q(4.0) + q(7.0);
        assert!((union_bound_fer(&wd, 3.0) / want - 1.0).abs() < 1e-12);
        let want_ber = (7.0 * 3.0 * q(3.0) + 7.0 * 4.0 * q(4.0) + 4.0 * q(7.0)) / 4.0;
        assert!((union_bound_ber(&wd, 4, 3.0) / want_ber - 1.0).abs() < 1e-12);
    }

    #[test]
    fn erasure_counts_match_exhaustive_search() {
        // Brute force: a pattern fails when more than one codeword agrees with what is left.
        for spec in ["hamming:7", "alien:3x3", "secded:8", "parity:5"] {
            let code = from_spec_str(spec).unwrap();
            let model = ErasureModel::new(code.as_ref()).unwrap();
            assert!(model.is_exact(), "{spec}");
            let n = code.n();
            let mut failing = vec![0.0; n + 1];
            for mask in 0u32..(1 << n) {
                let llr: Vec<f32> = (0..n)
                    .map(|i| if (mask >> i) & 1 == 1 { 0.0 } else { 1.0 })
                    .collect();
                if exhaustive_erasure(code.as_ref(), &llr).len() > 1 {
                    failing[mask.count_ones() as usize] += 1.0;
                }
            }
            let want: Vec<Option<f64>> = failing.into_iter().map(Some).collect();
            assert_eq!(model.failing, want, "{spec}");
            let (lo, hi) = model.fer(0.1);
            assert_eq!(lo, hi);
        }
        // alien:9x9 has too many patterns of 4..=16 erasures: bounds only.
        let big = ErasureModel::new(from_spec_str("alien:9x9").unwrap().as_ref()).unwrap();
        assert!(!big.is_exact());
        let (lo, hi) = big.fer(0.05);
        assert!(lo < hi && lo > 0.0);
    }
}
