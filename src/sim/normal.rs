//! The standard normal distribution: its tail `Q`, the complementary error function, decibels,
//! and draws from the normal conditioned on a half-line (what the AWGN channel of
//! [`crate::sim::channel`] needs to draw the noise of bits already known to be right or wrong).

// Cody's coefficients and the reference values are kept digit for digit as published.
#![allow(clippy::excessive_precision)]

use rand::Rng;
use rand_distr::StandardNormal;

/// The standard normal tail `Q(x) = P(Z > x) = erfc(x / sqrt 2) / 2`.
pub fn q_function(x: f64) -> f64 {
    0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// The complementary error function, by W. J. Cody's rational approximations (relative error
/// below 1e-15 over the whole line).
pub fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 0.5 {
        return 1.0 - erf_small(x);
    }
    if x > 27.0 {
        return 0.0;
    }
    let (p, q): (&[f64], &[f64]) = if x <= 4.0 {
        (
            &[
                5.641_884_969_886_700_9e-1,
                8.883_149_794_388_375_9,
                6.611_919_063_714_163e1,
                2.986_351_381_974_001_3e2,
                8.819_522_212_417_691e2,
                1.712_047_612_634_070_7e3,
                2.051_078_377_826_071_6e3,
                1.230_339_354_797_997_2e3,
                2.153_115_354_744_038_5e-8,
            ],
            &[
                1.574_492_611_070_983_4e1,
                1.176_939_508_913_125e2,
                5.371_811_018_620_098_5e2,
                1.621_389_574_566_690_2e3,
                3.290_799_235_733_459_6e3,
                4.362_619_090_143_247e3,
                3.439_367_674_143_721_6e3,
                1.230_339_354_803_749_5e3,
            ],
        )
    } else {
        (
            &[
                3.053_266_349_612_323_4e-1,
                3.603_448_999_498_044_5e-1,
                1.257_817_261_112_292_6e-1,
                1.608_378_514_874_227_5e-2,
                6.587_491_615_298_378_5e-4,
                1.631_538_713_730_709_6e-2,
            ],
            &[
                2.568_520_192_289_822,
                1.872_952_849_923_460_4,
                5.279_051_029_514_284e-1,
                6.051_834_131_244_132e-2,
                2.335_204_976_268_691_8e-3,
            ],
        )
    };
    let ratio = if x <= 4.0 {
        let mut num = p[8] * x;
        let mut den = x;
        for i in 0..7 {
            num = (num + p[i]) * x;
            den = (den + q[i]) * x;
        }
        (num + p[7]) / (den + q[7])
    } else {
        let z = 1.0 / (x * x);
        let mut num = p[5] * z;
        let mut den = z;
        for i in 0..4 {
            num = (num + p[i]) * z;
            den = (den + q[i]) * z;
        }
        let r = z * (num + p[4]) / (den + q[4]);
        (1.0 / std::f64::consts::PI.sqrt() - r) / x
    };
    // exp(-x^2) split as exp(-xs^2) exp(-(x - xs)(x + xs)) keeps the precision of x^2.
    let xs = (x * 16.0).trunc() / 16.0;
    let del = (x - xs) * (x + xs);
    (-xs * xs).exp() * (-del).exp() * ratio
}

/// `erf(x)` for `|x| < 0.5` (Cody's first interval).
fn erf_small(x: f64) -> f64 {
    const A: [f64; 5] = [
        3.161_123_743_870_565_6,
        1.138_641_541_510_501_6e2,
        3.774_852_376_853_020_2e2,
        3.209_377_589_138_469_5e3,
        1.857_777_061_846_031_5e-1,
    ];
    const B: [f64; 4] = [
        2.360_129_095_234_412_2e1,
        2.440_246_379_344_441_7e2,
        1.282_616_526_077_372_3e3,
        2.844_236_833_439_170_6e3,
    ];
    let z = x * x;
    let mut num = A[4] * z;
    let mut den = z;
    for i in 0..3 {
        num = (num + A[i]) * z;
        den = (den + B[i]) * z;
    }
    x * (num + A[3]) / (den + B[3])
}

/// `10^(db / 10)`.
pub fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// A standard normal draw conditioned on `z >= a`, for `a <= 0` (probability at least 1/2):
/// rejection from the standard normal.
pub(crate) fn normal_above<R: Rng + ?Sized>(rng: &mut R, a: f64) -> f64 {
    loop {
        let z: f64 = rng.sample(StandardNormal);
        if z >= a {
            return z;
        }
    }
}

/// A standard normal draw conditioned on `z > b`, for `b >= 0`: rejection from the standard
/// normal while the tail is wide (`b < 1`, acceptance at least `Q(1) = 0.16`), Marsaglia's tail
/// method beyond (an exponential proposal `b + x`, `x ~ Exp(b)`, accepted with probability
/// `exp(-x^2 / 2)`; acceptance above 0.65 for `b >= 1`).
pub(crate) fn normal_tail<R: Rng + ?Sized>(rng: &mut R, b: f64) -> f64 {
    if b < 1.0 {
        loop {
            let z: f64 = rng.sample(StandardNormal);
            if z > b {
                return z;
            }
        }
    }
    loop {
        // 1 - [0, 1) = (0, 1]: the logarithms are finite.
        let x = -(1.0 - rng.r#gen::<f64>()).ln() / b;
        let y = -(1.0 - rng.r#gen::<f64>()).ln();
        if 2.0 * y > x * x {
            return b + x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn erfc_and_q_known_values() {
        // Reference values of erfc to 16 digits.
        for (x, want) in [
            (0.1, 0.887_537_083_981_715_1),
            (1.0, 0.157_299_207_050_285_13),
            (3.0, 2.209_049_699_858_544e-5),
            (5.0, 1.537_459_794_428_034_8e-12),
            (10.0, 2.088_487_583_762_545e-45),
        ] {
            assert!(
                (erfc(x) / want - 1.0).abs() < 1e-14,
                "erfc({x}) = {}",
                erfc(x)
            );
            assert!((erfc(-x) - (2.0 - want)).abs() < 1e-15);
        }
        assert!((q_function(0.0) - 0.5).abs() < 1e-16);
        assert!((q_function(1.0) - 0.158_655_253_931_457_05).abs() < 1e-16);
    }

    #[test]
    fn conditioned_draws_stay_on_their_side() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for b in [0.2, 1.0, 4.0] {
            let xs: Vec<f64> = (0..20_000).map(|_| normal_tail(&mut rng, b)).collect();
            assert!(xs.iter().all(|&x| x > b));
            // E[Z | Z > b] = phi(b) / Q(b).
            let phi = (-b * b / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            assert!(
                (mean / (phi / q_function(b)) - 1.0).abs() < 0.01,
                "b = {b}: {mean}"
            );
            assert!((0..1000).all(|_| normal_above(&mut rng, -b) >= -b));
        }
    }
}
