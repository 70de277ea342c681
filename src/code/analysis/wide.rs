//! A small positive floating-point type with a 128-bit mantissa and a wide exponent, for sums
//! of positive terms like `C p^w (1 - p)^(n - w)` whose parts under- or overflow `f64` and
//! whose result must still be right to the last bit of an `f64`.
//!
//! Operations truncate (relative error below `2^-127` each); nothing here subtracts, so the
//! errors never cancel into something large.

use num_bigint::BigUint;

/// `mant * 2^exp` with `mant` normalised to have bit 127 set, or zero (`mant == 0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Wide {
    mant: u128,
    exp: i64,
}

impl Wide {
    pub(crate) const ZERO: Wide = Wide { mant: 0, exp: 0 };
    pub(crate) const ONE: Wide = Wide {
        mant: 1 << 127,
        exp: -127,
    };

    fn normalized(mant: u128, exp: i64) -> Wide {
        if mant == 0 {
            return Wide::ZERO;
        }
        let shift = mant.leading_zeros();
        Wide {
            mant: mant << shift,
            exp: exp - i64::from(shift),
        }
    }

    /// `m * 2^e` exactly (when `m < 2^128`).
    pub(crate) fn from_parts(m: u128, e: i64) -> Wide {
        Wide::normalized(m, e)
    }

    /// A big integer, truncated to 128 significant bits.
    pub(crate) fn from_biguint(x: &BigUint) -> Wide {
        let bits = x.bits();
        if bits <= 128 {
            let digits = x.to_u64_digits();
            let mut m = 0u128;
            for (i, d) in digits.iter().enumerate() {
                m |= u128::from(*d) << (64 * i);
            }
            Wide::normalized(m, 0)
        } else {
            let shift = bits - 128;
            let top = x >> shift;
            let digits = top.to_u64_digits();
            let m = u128::from(digits[0]) | (u128::from(digits[1]) << 64);
            Wide::normalized(m, shift as i64)
        }
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.mant == 0
    }

    pub(crate) fn mul(self, other: Wide) -> Wide {
        if self.is_zero() || other.is_zero() {
            return Wide::ZERO;
        }
        let (hi, _lo) = mul_128(self.mant, other.mant);
        // The product of two normalised mantissas is in [2^254, 2^256): hi >= 2^126.
        Wide::normalized(hi, self.exp + other.exp + 128)
    }

    pub(crate) fn add(self, other: Wide) -> Wide {
        if self.is_zero() {
            return other;
        }
        if other.is_zero() {
            return self;
        }
        let (big, small) = if self.exp >= other.exp {
            (self, other)
        } else {
            (other, self)
        };
        let diff = big.exp - small.exp;
        let aligned = if diff >= 128 { 0 } else { small.mant >> diff };
        match big.mant.overflowing_add(aligned) {
            (s, false) => Wide::normalized(s, big.exp),
            (s, true) => Wide {
                mant: (s >> 1) | (1 << 127),
                exp: big.exp + 1,
            },
        }
    }

    /// The nearest `f64` (ties to even on the 128-bit value; 0 on underflow past subnormals).
    pub(crate) fn to_f64(self) -> f64 {
        if self.is_zero() {
            return 0.0;
        }
        // value in [2^(top-1), 2^top)
        let top = self.exp + 128;
        if top > 1024 {
            return f64::INFINITY;
        }
        // Spacing of f64 values around it.
        let q = (top - 53).max(-1074);
        let shift = q - self.exp; // >= 75 for normal results
        let (kept, rest_half, rest_sticky) = if shift >= 129 {
            (0u128, false, true)
        } else if shift == 128 {
            (0, self.mant >> 127 == 1, self.mant << 1 != 0)
        } else {
            let kept = self.mant >> shift;
            let rest = self.mant << (128 - shift);
            (kept, rest >> 127 == 1, rest << 1 != 0)
        };
        let round_up = rest_half && (rest_sticky || kept & 1 == 1);
        let m = kept + u128::from(round_up);
        (m as f64) * pow2(q)
    }
}

/// `2^q` for `-1074 <= q <= 1023`, exactly.
fn pow2(q: i64) -> f64 {
    if q >= -1022 {
        f64::from_bits(((q + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (q + 1074))
    }
}

/// The full 256-bit product `(hi, lo)` of two 128-bit numbers.
fn mul_128(a: u128, b: u128) -> (u128, u128) {
    let mask = u128::from(u64::MAX);
    let (a1, a0) = (a >> 64, a & mask);
    let (b1, b0) = (b >> 64, b & mask);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
    let lo = (p00 & mask) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

/// An `f64` in `[0, 1]` as the exact fraction `m / 2^l`.
pub(crate) fn dyadic(p: f64) -> (u64, u32) {
    assert!((0.0..=1.0).contains(&p), "probability {p} is not in [0, 1]");
    if p == 0.0 {
        return (0, 0);
    }
    let bits = p.to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if raw_exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), raw_exp - 1075)
    };
    // p <= 1 so e <= 0 for the 53-bit mantissa form (p = 1 is 2^52 * 2^-52).
    let tz = m.trailing_zeros().min((-e) as u32);
    (m >> tz, (-e) as u32 - tz)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::One;

    fn pow(base: Wide, e: u64) -> Wide {
        (0..e).fold(Wide::ONE, |acc, _| acc.mul(base))
    }

    #[test]
    fn round_trips_and_arithmetic() {
        for &x in &[
            1.0,
            0.5,
            1e-3,
            1e-5,
            0.123456789,
            5e-324,
            2.2250738585072014e-308,
            1e-300,
        ] {
            let (m, l) = dyadic(x);
            let w = Wide::from_parts(u128::from(m), -i64::from(l));
            assert_eq!(w.to_f64(), x);
            assert_eq!(w.mul(Wide::ONE).to_f64(), x);
            assert_eq!(w.add(Wide::ZERO).to_f64(), x);
        }
        let three = Wide::from_parts(3, 0);
        assert_eq!(pow(three, 40).to_f64(), 3f64.powi(40));
        assert_eq!(pow(Wide::from_parts(1, -1), 1074).to_f64(), 5e-324);
        assert_eq!(pow(Wide::from_parts(1, -1), 1076).to_f64(), 0.0);
        let big = BigUint::one() << 2000u32;
        let tiny = Wide::from_parts(1, -2050);
        assert_eq!(Wide::from_biguint(&big).mul(tiny).to_f64(), 2f64.powi(-50));
        // The exact sum of f64 0.1 and 0.2 is a tie between two f64s; like IEEE addition it
        // rounds to even.
        let (m1, l1) = dyadic(0.1);
        let (m2, l2) = dyadic(0.2);
        let s = Wide::from_parts(u128::from(m1), -i64::from(l1))
            .add(Wide::from_parts(u128::from(m2), -i64::from(l2)));
        assert_eq!(s.to_f64(), 0.30000000000000004);
        // (2^53 + 1) rounds to even; (2^53 + 3) rounds up.
        assert_eq!(
            Wide::from_parts((1 << 53) + 1, 0).to_f64(),
            9007199254740992.0
        );
        assert_eq!(
            Wide::from_parts((1 << 53) + 3, 0).to_f64(),
            9007199254740996.0
        );
    }

    #[test]
    fn mul_128_is_exact() {
        let a = u128::MAX;
        let (hi, lo) = mul_128(a, a);
        assert_eq!(hi, u128::MAX - 1);
        assert_eq!(lo, 1);
    }
}
