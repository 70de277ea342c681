//! Confidence intervals for simulated rates.
//!
//! Frame-level rates (FER, detected and miscorrection rates) are binomial proportions over
//! independent frames, bounded with the Wilson score interval. Bit errors are *not* independent
//! (one failed frame usually carries several wrong bits), so a binomial interval over bits would
//! be far too narrow. The bit error rate gets a Wilson interval with a Kish effective sample size
//! instead: `n_eff = frames * ber (1 - ber) / var`, where `var` is the sample variance of the
//! per-frame fraction of wrong message bits; this needs the sum of squared per-frame bit error
//! counts, which [`crate::sim::Counts`] keeps so that merged runs get the same interval.

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval `[low, high]` for `successes` out of `trials` (both may be
/// fractional, for effective sample sizes), at normal quantile `z`. With no trials it is
/// `[0, 1]`.
pub fn wilson(successes: f64, trials: f64, z: f64) -> (f64, f64) {
    if trials <= 0.0 {
        return (0.0, 1.0);
    }
    let ph = (successes / trials).clamp(0.0, 1.0);
    let z2 = z * z;
    let denom = 1.0 + z2 / trials;
    let center = (ph + z2 / (2.0 * trials)) / denom;
    let half = z / denom * (ph * (1.0 - ph) / trials + z2 / (4.0 * trials * trials)).sqrt();
    let low = if successes <= 0.0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let high = if successes >= trials {
        1.0
    } else {
        (center + half).min(1.0)
    };
    (low, high)
}

/// The 95% Wilson interval of a count over `trials`.
pub fn wilson95(successes: u64, trials: u64) -> (f64, f64) {
    wilson(successes as f64, trials as f64, Z95)
}

/// The 95% interval of the bit error rate from `bit_errors` wrong bits in `frames` frames of
/// `bits_per_frame` message bits, where `bit_errors_sq` is the sum over frames of the squared
/// number of wrong bits (see the module docs).
pub fn ber_interval95(
    bit_errors: u64,
    bit_errors_sq: u128,
    frames: u64,
    bits_per_frame: u64,
) -> (f64, f64) {
    if frames == 0 || bits_per_frame == 0 {
        return (0.0, 1.0);
    }
    let f = frames as f64;
    let b = bits_per_frame as f64;
    let mean = bit_errors as f64 / (f * b);
    let n_eff = if frames >= 2 {
        let mean_sq = bit_errors_sq as f64 / (b * b) / f;
        let var = (mean_sq - mean * mean) * f / (f - 1.0);
        if var > 0.0 {
            (f * mean * (1.0 - mean) / var).clamp(f, f * b)
        } else {
            f
        }
    } else {
        f
    };
    wilson(mean * n_eff, n_eff, Z95)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_known_values() {
        // 10 of 100: the textbook interval [0.0552, 0.1744].
        let (lo, hi) = wilson95(10, 100);
        assert!((lo - 0.05522).abs() < 1e-4 && (hi - 0.17436).abs() < 1e-4);
        // 0 of n: [0, z^2 / (n + z^2)].
        let (lo, hi) = wilson95(0, 1000);
        assert_eq!(lo, 0.0);
        assert!((hi - Z95 * Z95 / (1000.0 + Z95 * Z95)).abs() < 1e-12);
        let (lo, hi) = wilson95(7, 7);
        assert!(lo > 0.5 && hi == 1.0);
        assert_eq!(wilson95(0, 0), (0.0, 1.0));
    }

    #[test]
    fn wilson_coverage_brute_force() {
        // Exact coverage from the binomial pmf, for a few n and p: close to 95% on average.
        for &(n, p) in &[(50u64, 0.1f64), (200, 0.02), (1000, 0.3)] {
            let mut cover = 0.0;
            let mut pmf = (1.0 - p).powi(n as i32);
            for x in 0..=n {
                let (lo, hi) = wilson95(x, n);
                if lo <= p && p <= hi {
                    cover += pmf;
                }
                pmf *= (n - x) as f64 / (x + 1) as f64 * p / (1.0 - p);
            }
            assert!(cover > 0.92 && cover < 0.99, "n={n} p={p} coverage={cover}");
        }
    }

    #[test]
    fn ber_interval_widens_with_clustering() {
        // 100 frames of 10 bits, 20 wrong bits: spread as 20 single-bit frames vs 2 frames of 10.
        let spread = ber_interval95(20, 20, 100, 10);
        let clustered = ber_interval95(20, 200, 100, 10);
        assert!(clustered.1 - clustered.0 > spread.1 - spread.0);
        // Independent-looking errors give about the binomial interval over bits.
        let bits = wilson95(20, 1000);
        assert!((spread.0 - bits.0).abs() < 0.01 && (spread.1 - bits.1).abs() < 0.01);
        // Fully clustered errors give the frame-level interval.
        let frames = wilson95(2, 100);
        assert!((clustered.0 - frames.0).abs() < 1e-9 && (clustered.1 - frames.1).abs() < 1e-9);
        // No errors: the frame-level bound.
        assert_eq!(ber_interval95(0, 0, 100, 10), wilson95(0, 100));
    }
}
