//! Exact frame-level rates on the binary symmetric channel.
//!
//! The rates of one codeword come from the code's weight distribution (see
//! [`crate::code::bsc_error_rates`]). A frame of `D` interleaved codewords on a memoryless
//! channel is `D` independent codewords; it is detected when any codeword is, and miscorrected
//! when none is detected but one is wrong.

use crate::code::BlockCode;
use crate::code::analysis::BscProfile;
use crate::error::Result;
use serde::Serialize;

/// Probabilities of the outcomes of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ExactRates {
    /// Frame error rate: detected or miscorrected.
    pub fer: f64,
    /// The decoder detects an error it cannot correct.
    pub detected_rate: f64,
    /// The decoder delivers a wrong message without noticing.
    pub miscorrection_rate: f64,
}

impl ExactRates {
    /// The rates of a frame of `depth` independent codewords, each with these rates. Computed
    /// with `ln_1p`/`exp_m1`, so tiny rates keep their relative precision.
    pub fn frame_of(self, depth: usize) -> ExactRates {
        if depth == 1 {
            return self;
        }
        let d = depth as f64;
        // P(at least one of d) = 1 - (1 - x)^d.
        let any = |x: f64| -(d * (-x).ln_1p()).exp_m1();
        let fer = any(self.fer);
        let detected_rate = any(self.detected_rate);
        // P(no detection) - P(all correct) = (1 - det)^d (1 - (1 - mis / (1 - det))^d).
        let nodet = 1.0 - self.detected_rate;
        let miscorrection_rate = if nodet <= 0.0 {
            0.0
        } else {
            (d * (-self.detected_rate).ln_1p()).exp() * any(self.miscorrection_rate / nodet)
        };
        ExactRates {
            fer,
            detected_rate,
            miscorrection_rate,
        }
    }
}

/// Exact rates of a code at any crossover probability: the weight distribution is computed
/// once, each `p` then costs `O(n)`.
#[derive(Clone, Debug)]
pub struct ExactModel {
    profile: BscProfile,
    depth: usize,
}

impl ExactModel {
    /// The model of `code` with `depth` codewords per frame.
    ///
    /// # Errors
    /// As [`crate::code::weight_distribution`], for codes whose weight distribution is out of
    /// reach.
    pub fn new(code: &dyn BlockCode, depth: usize) -> Result<Self> {
        let wd = crate::code::weight_distribution(code)?;
        Ok(ExactModel {
            profile: BscProfile::new(code, &wd),
            depth: depth.max(1),
        })
    }

    /// The frame rates at crossover probability `p`.
    pub fn rates(&self, p: f64) -> ExactRates {
        let r = self.profile.rates(p);
        ExactRates {
            fer: r.fer,
            detected_rate: r.detected,
            miscorrection_rate: r.miscorrected,
        }
        .frame_of(self.depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_of_independent_codewords() {
        let one = ExactRates {
            fer: 0.3,
            detected_rate: 0.2,
            miscorrection_rate: 0.1,
        };
        assert_eq!(one.frame_of(1), one);
        let two = one.frame_of(2);
        // Brute force over the 3 x 3 outcomes of two codewords.
        let outcomes = [(0.7, 'c'), (0.2, 'd'), (0.1, 'm')];
        let (mut det, mut mis) = (0.0, 0.0);
        for &(pa, a) in &outcomes {
            for &(pb, b) in &outcomes {
                if a == 'd' || b == 'd' {
                    det += pa * pb;
                } else if a == 'm' || b == 'm' {
                    mis += pa * pb;
                }
            }
        }
        assert!((two.detected_rate - det).abs() < 1e-15);
        assert!((two.miscorrection_rate - mis).abs() < 1e-15);
        assert!((two.fer - (det + mis)).abs() < 1e-15);
        // Tiny rates keep their precision: 1 - (1 - 1e-20)^8 = 8e-20.
        let tiny = ExactRates {
            fer: 1e-20,
            detected_rate: 0.0,
            miscorrection_rate: 1e-20,
        }
        .frame_of(8);
        assert!((tiny.fer / 8e-20 - 1.0).abs() < 1e-12);
        assert!((tiny.miscorrection_rate / 8e-20 - 1.0).abs() < 1e-12);
    }
}
