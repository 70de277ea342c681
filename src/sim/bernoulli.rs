//! Bernoulli(`p`) draws for 64 lanes at once: one `u64` whose bits are independent and each set
//! with probability `p`, without a logarithm.
//!
//! A word is drawn in two steps: how many of its bits are set, `K ~ Binomial(64, p)`, by
//! inversion of the cumulative distribution held as 64-bit fractions (one random word, a few
//! comparisons); then which `K` bits, uniformly, 6 random bits per position with the repeats
//! drawn again. Given `K`, every `K`-subset is equally likely, so the bits are independent
//! Bernoulli(`p`) to the precision of the table (`f64` probabilities as 64-bit fractions; the
//! tail where the `f64` sum reaches 1, below about `1e-16`, is left out). It costs one or two
//! random words per `u64` at the error rates where it is used, against one logarithm per set
//! bit for geometric skips; [`WORTH_FROM`] is set from that estimate (about a third of a flip
//! per word), not from a measured crossover.

use rand::RngCore;

/// The crossover probability from which [`BernoulliWords`] is used for the AWGN channel's
/// wrong hard decisions (below it, flips are rare enough for geometric skips).
pub const WORTH_FROM: f64 = 0.005;

/// Draws words of 64 independent Bernoulli(`p`) bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BernoulliWords {
    /// `cdf[k] = floor(P(K <= k) 2^64)` for `k < len` (while the sum is below 1 in `f64`);
    /// `K` is the number of entries at most the uniform draw.
    cdf: [u64; 64],
    len: usize,
}

impl BernoulliWords {
    /// The sampler for `p` in `[0, 1]`.
    pub fn new(p: f64) -> Self {
        let p = p.clamp(0.0, 1.0);
        let (mut cdf, mut len) = ([0u64; 64], 0);
        // pmf(k) = C(64, k) p^k (1 - p)^(64 - k), summed upwards in f64.
        let mut sum = 0f64;
        for k in 0..64u32 {
            let ln_c = ln_choose(64, k);
            let pmf = if p == 0.0 {
                f64::from(u8::from(k == 0))
            } else if p == 1.0 {
                0.0
            } else {
                (ln_c + f64::from(k) * p.ln() + f64::from(64 - k) * (-p).ln_1p()).exp()
            };
            sum += pmf;
            if sum >= 1.0 {
                break;
            }
            cdf[len] = (sum * 18_446_744_073_709_551_616.0) as u64;
            len += 1;
        }
        BernoulliWords { cdf, len }
    }

    /// One word; each bit is set with probability `p`, independently.
    #[inline]
    pub fn word<R: RngCore + ?Sized>(&self, rng: &mut R) -> u64 {
        let u = rng.next_u64();
        let k = self.cdf[..self.len].iter().take_while(|&&c| c <= u).count();
        if k == 0 {
            return 0;
        }
        if k == 64 {
            return !0;
        }
        // Fewer than half set: place the ones; otherwise place the zeros.
        let (place, invert) = if k <= 32 { (k, false) } else { (64 - k, true) };
        let mut w = 0u64;
        let mut placed = 0;
        let (mut bits, mut left) = (rng.next_u64(), 10);
        while placed < place {
            if left == 0 {
                bits = rng.next_u64();
                left = 10;
            }
            let b = 1u64 << (bits & 63);
            bits >>= 6;
            left -= 1;
            if w & b == 0 {
                w |= b;
                placed += 1;
            }
        }
        if invert { !w } else { w }
    }
}

/// `ln C(n, k)`.
fn ln_choose(n: u32, k: u32) -> f64 {
    (1..=k)
        .map(|i| f64::from(n - k + i).ln() - f64::from(i).ln())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn bits_are_bernoulli_and_independent_across_lanes() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for p in [0.0, 0.005, 0.022, 0.1, 0.5, 0.77, 1.0] {
            let b = BernoulliWords::new(p);
            let words: Vec<u64> = (0..40_000).map(|_| b.word(&mut rng)).collect();
            let n = words.len() as f64;
            let near = |got: f64, q: f64, what: &str| {
                let sd = (n * q * (1.0 - q)).sqrt().max(1e-9);
                assert!(
                    (got - n * q).abs() <= 5.0 * sd,
                    "p = {p} {what}: {got} vs {}",
                    n * q
                );
            };
            // Every lane on its own, neighbouring and distant pairs together.
            for l in 0..64u32 {
                near(
                    words.iter().filter(|&&w| (w >> l) & 1 == 1).count() as f64,
                    p,
                    "lane",
                );
            }
            for (a, c) in [(0u32, 1u32), (5, 40), (62, 63)] {
                let both = words
                    .iter()
                    .filter(|&&w| (w >> a) & (w >> c) & 1 == 1)
                    .count();
                near(both as f64, p * p, "pair");
            }
            // The number of set bits follows Binomial(64, p).
            for k in 0..4u32 {
                let q = (ln_choose(64, k)
                    + if k > 0 { f64::from(k) * p.ln() } else { 0.0 }
                    + f64::from(64 - k) * (-p).ln_1p())
                .exp();
                let q = if p == 1.0 { 0.0 } else { q };
                near(
                    words.iter().filter(|w| w.count_ones() == k).count() as f64,
                    q,
                    "count",
                );
            }
        }
    }
}
