//! Bernoulli bit noise placed by geometric gaps: the one sampler behind the simulator's
//! channels ([`crate::sim::channel`]), the noisy decodes of [`crate::stream::bench`] and
//! `tilecode corrupt --ber`.
//!
//! Between two successes of Bernoulli(`p`) trials the number of failures is geometric,
//! `P(gap = g) = (1 - p)^g p`, and a gap is drawn by inversion, `floor(ln U / ln(1 - p))` with
//! `U` uniform on `(0, 1]`: one logarithm per flipped bit, not one draw per bit.
//!
//! The module sits at the bottom of the crate, beside [`crate::gf2`], and needs nothing but
//! `rand`. That is where the dependencies allow a single copy: `stream` must not depend on
//! `sim` (`gf2` <- `code` <- `stream`, `sim` <- `cli`), and the simulator, the stream bench and
//! the CLI all sit above it. `sim` re-exports [`Geometric`] as `sim::Geometric`.

use rand::Rng;

/// Draws the number of failures before the first success of Bernoulli(`p`) trials.
#[derive(Clone, Copy, Debug)]
pub struct Geometric {
    p: f64,
    /// `ln(1 - p)`, computed as `ln_1p(-p)`.
    ln_q: f64,
}

impl Geometric {
    /// The sampler for success probability `p` in `[0, 1]`.
    pub fn new(p: f64) -> Self {
        Geometric {
            p,
            ln_q: (-p).ln_1p(),
        }
    }

    /// The success probability.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// One draw; `u64::MAX` stands for "never" (p = 0 or a gap beyond 2^63). Draws nothing
    /// when `p` is 0 or 1.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        if self.p >= 1.0 {
            return 0;
        }
        if self.p <= 0.0 {
            return u64::MAX;
        }
        // v is in [0, 1), so u = 1 - v is in (0, 1] and ln u is finite and <= 0.
        let u = 1.0 - rng.r#gen::<f64>();
        // x >= 0, so truncation is the floor (and avoids a libm call).
        let x = u.ln() / self.ln_q;
        if x >= 9.2e18 { u64::MAX } else { x as u64 }
    }

    /// The indices of the successes among trials `0, 1, 2, ...`, in increasing order, one gap
    /// drawn per item asked for (none ahead), from `rng`.
    pub fn successes<R: Rng>(self, rng: R) -> Successes<R> {
        Successes {
            gaps: self,
            rng,
            from: 0,
            done: false,
        }
    }

    /// Calls `f` with the index of every success among trials `0..len`, in increasing order.
    /// Draws one gap per success and one more, the gap that ends beyond `len`.
    #[inline]
    pub fn for_each_success<R: Rng + ?Sized>(&self, rng: &mut R, len: u64, mut f: impl FnMut(u64)) {
        for t in self.successes(rng) {
            if t >= len {
                break;
            }
            f(t);
        }
    }
}

/// The successes of an endless run of Bernoulli trials (see [`Geometric::successes`]); the
/// iterator ends only where the next success lies beyond `u64::MAX - 1` (never, for `p = 0`).
#[derive(Clone, Debug)]
pub struct Successes<R> {
    gaps: Geometric,
    rng: R,
    /// The first trial not yet decided.
    from: u64,
    done: bool,
}

impl<R: Rng> Iterator for Successes<R> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.done {
            return None;
        }
        let at = self.from.saturating_add(self.gaps.sample(&mut self.rng));
        if at == u64::MAX {
            self.done = true;
            return None;
        }
        self.from = at + 1;
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::{ChaCha8Rng, ChaCha20Rng};

    #[test]
    fn geometric_mean_matches() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for &p in &[0.5, 0.1, 0.01] {
            let g = Geometric::new(p);
            let trials = 200_000;
            let sum: f64 = (0..trials).map(|_| g.sample(&mut rng) as f64).sum();
            let mean = sum / trials as f64;
            let expect = (1.0 - p) / p;
            // Standard deviation of the mean is sqrt(1-p)/p/sqrt(trials).
            let sd = (1.0 - p).sqrt() / p / (trials as f64).sqrt();
            assert!((mean - expect).abs() < 5.0 * sd, "p={p} mean={mean}");
        }
        let g0 = Geometric::new(0.0);
        assert_eq!(g0.sample(&mut rng), u64::MAX);
        assert_eq!(g0.successes(&mut rng).next(), None);
        let g1 = Geometric::new(1.0);
        assert_eq!(g1.sample(&mut rng), 0);
        assert!(g1.successes(&mut rng).take(5).eq(0..5));
    }

    #[test]
    fn gaps_are_geometric() {
        // P(gap = 0) = p for a geometric skip; check it on many gaps.
        let p = 0.2;
        let pos: Vec<u64> = Geometric::new(p)
            .successes(ChaCha20Rng::seed_from_u64(9))
            .take_while(|&t| t < 2_000_000)
            .collect();
        let gaps: Vec<u64> = pos.windows(2).map(|w| w[1] - w[0] - 1).collect();
        let zeros = gaps.iter().filter(|&&g| g == 0).count() as f64 / gaps.len() as f64;
        assert!((zeros - p).abs() < 0.01, "{zeros}");
    }

    /// The draw as the simulator's channels and `tilecode corrupt` wrote it before they shared
    /// this sampler: the floor of `ln(1 - V) / ln_1p(-p)`, one `f64` draw `V`.
    fn reference_gap(rng: &mut ChaCha20Rng, p: f64) -> u64 {
        let v = rng.r#gen::<f64>();
        ((1.0 - v).ln() / (-p).ln_1p()).floor() as u64
    }

    #[test]
    fn draws_are_the_callers_former_draws() {
        for p in [0.5, 0.3, 1e-2, 1e-4, 7e-7] {
            for seed in 0..20 {
                let g = Geometric::new(p);
                let mut a = ChaCha20Rng::seed_from_u64(seed);
                let mut b = a.clone();
                for _ in 0..200 {
                    assert_eq!(
                        g.sample(&mut a),
                        reference_gap(&mut b, p),
                        "p={p} seed={seed}"
                    );
                }
            }
        }
    }

    #[test]
    fn for_each_success_is_the_iterator_cut_at_len() {
        for p in [0.0, 0.05, 0.5, 1.0] {
            let g = Geometric::new(p);
            let mut a = ChaCha8Rng::seed_from_u64(4);
            let mut got = Vec::new();
            g.for_each_success(&mut a, 1000, |t| got.push(t));
            let mut b = ChaCha8Rng::seed_from_u64(4);
            let mut it = g.successes(&mut b);
            let want: Vec<u64> = it.by_ref().take_while(|&t| t < 1000).collect();
            assert_eq!(got, want, "p={p}");
            // Both drew the same gaps: one per success and the one that ends past len.
            assert_eq!(a.get_word_pos(), b.get_word_pos(), "p={p}");
        }
    }
}
