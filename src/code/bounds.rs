//! Upper bounds on the dimension of binary linear codes, and whether a code meets them.
//!
//! Every bound is stated as the largest dimension `k` it allows for a binary linear code of
//! length `n` and minimum distance `d` (the comparison of the paper's Appendix C). A code is
//! *optimal* when no binary linear code of the same `n` and `d` has more codewords; this module
//! decides that when a bound is met or when the optimum is known in closed form, and names a
//! concrete better code from this crate when there is one.

use super::Spec;
use super::spec::ceil_log2;
use num_bigint::BigUint;
use num_traits::One;

/// The largest `k` each classical bound allows for length `n` and distance `d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Singleton: `k <= n - d + 1`.
    pub singleton: usize,
    /// Hamming (sphere packing): `2^k * V(n, t) <= 2^n` with `t = (d - 1) / 2`.
    pub hamming: usize,
    /// Griesmer: `sum_{i < k} ceil(d / 2^i) <= n`.
    pub griesmer: usize,
}

impl Bounds {
    /// The smallest of the three bounds: no binary linear `[n, k, d]` code has a larger `k`.
    pub fn best(&self) -> usize {
        self.singleton.min(self.hamming).min(self.griesmer)
    }
}

/// The volume `V(n, t) = sum_{i <= t} C(n, i)` of a Hamming ball, exactly.
pub fn ball_volume(n: usize, t: usize) -> BigUint {
    let mut term = BigUint::one();
    let mut sum = BigUint::one();
    for i in 1..=t.min(n) {
        term = term * BigUint::from(n - i + 1) / BigUint::from(i);
        sum += &term;
    }
    sum
}

/// The Singleton bound `n - d + 1` (0 when `d > n + 1`).
pub fn singleton(n: usize, d: usize) -> usize {
    (n + 1).saturating_sub(d)
}

/// The Hamming (sphere-packing) bound `floor(log2(2^n / V(n, t)))`, `t = (d - 1) / 2`, computed
/// with exact integers: the largest `k` with `2^(n - k) >= V(n, t)`.
pub fn hamming(n: usize, d: usize) -> usize {
    let t = d.saturating_sub(1) / 2;
    let v = ball_volume(n, t);
    // ceil(log2 v) = bits(v - 1) for v >= 1.
    let ceil_log2_v = (v - BigUint::one()).bits() as usize;
    n.saturating_sub(ceil_log2_v)
}

/// The Griesmer bound: the largest `k` with `sum_{i < k} ceil(d / 2^i) <= n`.
pub fn griesmer(n: usize, d: usize) -> usize {
    let mut k = 0;
    let mut sum = 0usize;
    loop {
        // ceil(d / 2^k), which is 1 once 2^k >= d.
        let term = if k >= usize::BITS as usize {
            1
        } else {
            d.div_ceil(1usize << k).max(1)
        };
        if sum + term > n {
            return k;
        }
        sum += term;
        k += 1;
    }
}

/// All three bounds for length `n` and distance `d`.
pub fn bounds(n: usize, d: usize) -> Bounds {
    Bounds {
        singleton: singleton(n, d),
        hamming: hamming(n, d),
        griesmer: griesmer(n, d),
    }
}

/// The largest dimension of a binary linear code of length `n` and distance `d`, where it is
/// known in closed form: `d = 1` (the whole space), `d = 2` (single parity check), `d = 3`
/// (shortened Hamming codes, `n - ceil(log2(n + 1))`), `d = 4` (shortened extended Hamming
/// codes, `n - ceil(log2 n) - 1`), and `d = n` (repetition). `None` otherwise.
pub fn known_optimum(n: usize, d: usize) -> Option<usize> {
    if n == 0 || d == 0 || d > n {
        return None;
    }
    match d {
        1 => Some(n),
        2 => Some(n - 1),
        3 => Some(n - ceil_log2(n + 1)),
        4 => Some(n - ceil_log2(n) - 1),
        _ if d == n => Some(1),
        _ => None,
    }
}

/// A code of this crate with the known optimal dimension for length `n` and distance `d`.
pub fn optimal_code(n: usize, d: usize) -> Option<Spec> {
    match d {
        _ if d == n && n >= 1 => Some(Spec::Repetition(n)),
        2 if n >= 2 => Some(Spec::Parity(n)),
        3 if n >= 3 => Some(Spec::Hamming(n)),
        4 if n >= 4 => Some(Spec::Secded(n)),
        _ => None,
    }
}

/// Whether a binary linear `[n, k, d]` code is optimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimality {
    /// No binary linear code of the same length and distance has more codewords.
    Optimal,
    /// A code with the same length and distance has a larger dimension.
    Beaten {
        /// The better code.
        spec: Spec,
        /// Its dimension.
        k: usize,
    },
    /// Neither a bound nor a known optimum settles the question.
    Unknown,
}

impl Optimality {
    /// `Some(true)`, `Some(false)` or `None` (unknown).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Optimality::Optimal => Some(true),
            Optimality::Beaten { .. } => Some(false),
            Optimality::Unknown => None,
        }
    }
}

/// Decides whether a binary linear `[n, k, d]` code is optimal: true when `k` meets the best
/// bound or the known optimum; false, naming a better code, when one of the same `n` and `d` is
/// known; unknown otherwise.
pub fn optimality(n: usize, k: usize, d: usize) -> Optimality {
    if k >= bounds(n, d).best() {
        return Optimality::Optimal;
    }
    match known_optimum(n, d) {
        Some(best) if k >= best => Optimality::Optimal,
        Some(best) => match optimal_code(n, d) {
            Some(spec) => Optimality::Beaten { spec, k: best },
            None => Optimality::Unknown,
        },
        None => Optimality::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::build;

    /// The largest `k` of a binary linear code of length `n` and distance `d` by exhaustive
    /// search over parity-check matrices in systematic form is out of reach; instead check the
    /// bounds against their definitions with floating point on small sizes.
    #[test]
    fn bounds_match_definitions() {
        for n in 1..=40usize {
            for d in 1..=n {
                let t = (d - 1) / 2;
                let v: f64 = (0..=t)
                    .map(|i| (0..i).fold(1.0, |acc, x| acc * (n - x) as f64 / (x + 1) as f64))
                    .sum();
                let hb = ((n as f64) - v.log2()).floor() as usize;
                // floating point is fine at these sizes except exactly at powers of two
                if (v.log2() - v.log2().round()).abs() > 1e-9 {
                    assert_eq!(hamming(n, d), hb, "hamming n={n} d={d}");
                }
                let mut g = 0;
                while (0..g + 1)
                    .map(|i| (d as f64 / 2f64.powi(i as i32)).ceil() as usize)
                    .sum::<usize>()
                    <= n
                {
                    g += 1;
                }
                assert_eq!(griesmer(n, d), g, "griesmer n={n} d={d}");
                assert_eq!(singleton(n, d), n - d + 1);
            }
        }
    }

    #[test]
    fn paper_appendix_c() {
        // alien:3x3 is a [9, 5, 3] code: the Hamming bound allows 2^5.68 codewords, so k <= 5.
        assert_eq!(hamming(9, 3), 5);
        assert_eq!(optimality(9, 5, 3), Optimality::Optimal);
        // alien:9x9 is [81, 65, 4]; shortened extended Hamming gives [81, 73, 4].
        assert_eq!(
            optimality(81, 65, 4),
            Optimality::Beaten {
                spec: Spec::Secded(81),
                k: 73
            }
        );
        assert_eq!(bounds(81, 4).best(), 74);
    }

    #[test]
    fn known_optima_are_met_by_the_named_codes_and_respect_the_bounds() {
        for n in 1..=300usize {
            for d in 1..=n.min(6) {
                if let Some(k) = known_optimum(n, d) {
                    assert!(k <= bounds(n, d).best(), "n={n} d={d}");
                    if let Some(spec) = optimal_code(n, d) {
                        let code = build(&spec);
                        assert_eq!((code.n(), code.k(), code.d()), (n, k, d), "{spec}");
                        assert_eq!(optimality(n, k, d), Optimality::Optimal);
                    }
                }
            }
        }
    }

    #[test]
    fn ball_volume_is_exact() {
        assert_eq!(ball_volume(9, 1), BigUint::from(10u32));
        assert_eq!(ball_volume(5, 5), BigUint::from(32u32));
        assert_eq!(ball_volume(100, 0), BigUint::one());
        // V(4096, 1) = 4097 needs 13 bits: k <= 4096 - 13.
        assert_eq!(hamming(4096, 3), 4096 - 13);
    }
}
