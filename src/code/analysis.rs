//! Exact analysis of block codes: weight distributions (through the dual code and the
//! MacWilliams identity), covering radii, bounds and optimality, and exact error rates on a
//! binary symmetric channel.
//!
//! ```
//! use tilecode::code::{from_spec_str, analysis};
//!
//! let code = from_spec_str("alien:3x3").unwrap();
//! let wd = analysis::weight_distribution(code.as_ref()).unwrap();
//! // Index = weight: six permutation matrices of weight 3, nine rectangles of weight 4, ...
//! let a: Vec<u32> = wd.iter().map(|a| u32::try_from(a).unwrap()).collect();
//! assert_eq!(a, [1, 0, 0, 6, 9, 9, 6, 0, 0, 1]);
//! assert_eq!(analysis::covering_radius(code.as_ref()).unwrap(), 2);
//! let r = analysis::bsc_error_rates(code.as_ref(), &wd, 1e-3);
//! assert!(r.fer > 3.5e-5 && r.fer < 3.7e-5); // about C(9, 2) p^2
//! ```

mod bsc;
mod covering;
mod krawtchouk;
mod weights;
mod wide;

pub use bsc::{BscProfile, BscRates, bsc_error_rates};
pub use covering::{
    MAX_SEARCH_WORK, MAX_SYNDROME_BITS, covering_radius, hamming_covering_radius,
    secded_covering_radius, syndrome_bfs,
};
pub use weights::{
    DualEnumerator, MAX_LISTED_DUAL_BITS, MAX_MACWILLIAMS_WORK, MAX_WEIGHT_DISTRIBUTION_N,
    alien_dual, dual_enumerator, hamming_dual, macwilliams, macwilliams_work, parity_dual,
    repetition_dual, secded_dual, weight_distribution,
};

use super::bounds::{Bounds, Optimality, bounds, optimality};
use super::{BlockCode, Spec};
use num_bigint::BigUint;

/// Everything `tilecode info` reports about a code.
#[derive(Clone, Debug)]
pub struct CodeReport {
    /// The code's spec.
    pub spec: Spec,
    /// Length.
    pub n: usize,
    /// Dimension.
    pub k: usize,
    /// Minimum distance.
    pub d: usize,
    /// Errors corrected, `(d - 1) / 2`.
    pub t: usize,
    /// `k / n`.
    pub rate: f64,
    /// The covering radius, unless out of reach (then a warning says why).
    pub covering_radius: Option<usize>,
    /// The weight distribution (index = weight), unless out of reach (then a warning says why).
    pub weight_distribution: Option<Vec<BigUint>>,
    /// Upper bounds on `k` for this `n` and `d`.
    pub bounds: Bounds,
    /// Whether a binary linear code of the same `n` and `d` can have more codewords.
    pub optimality: Optimality,
    /// Notes for the user: the code's own warnings and anything out of reach.
    pub warnings: Vec<String>,
}

/// Analyses a code: parameters, covering radius, weight distribution, bounds and optimality.
/// Parts past their documented limits are left out with a warning instead of failing.
pub fn report(code: &dyn BlockCode) -> CodeReport {
    let (n, k, d) = (code.n(), code.k(), code.d());
    let mut warnings = code.warnings();
    let covering_radius = covering_radius(code)
        .map_err(|e| warnings.push(e.to_string()))
        .ok();
    let weight_distribution = weight_distribution(code)
        .map_err(|e| warnings.push(e.to_string()))
        .ok();
    CodeReport {
        spec: code.spec(),
        n,
        k,
        d,
        t: code.t(),
        rate: code.rate(),
        covering_radius,
        weight_distribution,
        bounds: bounds(n, d),
        optimality: optimality(n, k, d),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;

    #[test]
    fn paper_parameters() {
        let r = report(from_spec_str("alien:9x9").unwrap().as_ref());
        assert_eq!((r.n, r.k, r.d, r.t), (81, 65, 4, 1));
        assert_eq!(r.covering_radius, Some(8));
        assert_eq!(
            r.optimality,
            Optimality::Beaten {
                spec: Spec::Secded(81),
                k: 73
            }
        );
        let wd = r.weight_distribution.unwrap();
        assert_eq!(wd.iter().sum::<BigUint>(), BigUint::from(1u32) << 65u32);
        let r = report(from_spec_str("alien:3x3").unwrap().as_ref());
        assert_eq!(r.optimality, Optimality::Optimal);
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn limits_become_warnings() {
        let r = report(from_spec_str("alien:1001x1001").unwrap().as_ref());
        assert!(r.weight_distribution.is_none());
        assert_eq!(r.covering_radius, Some(1000));
        assert!(
            r.warnings.iter().any(|w| w.contains("out of reach")),
            "{:?}",
            r.warnings
        );
    }
}
