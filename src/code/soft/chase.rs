//! Chase-II decoding (Chase, 1972): the `p` least reliable positions of the hard decision are
//! flipped in all `2^p` ways, each test word goes through the hard decoder, and the most
//! likely codeword among those it returns wins. With no codeword found the hard decision is
//! delivered as detected.

use super::{HardDecoder, SoftDecoder, correlation, hard_decision, unavailable};
use crate::code::BlockCode;
use crate::error::Result;
use crate::gf2::BitVec;

/// The most least-reliable positions Chase-II takes (`2^16` test patterns).
pub const MAX_CHASE_P: usize = 16;

/// A Chase-II decoder around the code's hard decoder.
#[derive(Debug)]
pub struct ChaseDecoder {
    hard: HardDecoder,
    n: usize,
    p: usize,
}

impl ChaseDecoder {
    /// Chase-II on `code` with `p` least reliable positions.
    ///
    /// # Errors
    /// [`crate::Error::Limit`] when `p` exceeds [`MAX_CHASE_P`] or `n`.
    pub fn new(code: &dyn BlockCode, p: usize) -> Result<Self> {
        if p > MAX_CHASE_P || p > code.n() {
            return Err(unavailable(
                code,
                "chase",
                format!(
                    "expected at most {} least reliable positions, found {p}",
                    MAX_CHASE_P.min(code.n())
                ),
            ));
        }
        Ok(ChaseDecoder {
            hard: HardDecoder::new(code),
            n: code.n(),
            p,
        })
    }
}

impl SoftDecoder for ChaseDecoder {
    fn name(&self) -> &'static str {
        "chase"
    }

    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool {
        assert_eq!(llr.len(), self.n, "one LLR per codeword bit");
        let z = hard_decision(llr);
        let mut order: Vec<usize> = (0..self.n).collect();
        if self.p < self.n {
            order.select_nth_unstable_by(self.p, |&a, &b| llr[a].abs().total_cmp(&llr[b].abs()));
        }
        let weak = &order[..self.p];
        let mut best: Option<(f64, BitVec)> = None;
        let mut test = z.clone();
        for pattern in 0u32..(1 << self.p) {
            if pattern > 0 {
                // Gray code: one flip per step.
                test.flip(weak[pattern.trailing_zeros() as usize]);
            }
            if let Some(cw) = self.hard.decode_word(&test) {
                let m = correlation(llr, &cw);
                if best.as_ref().is_none_or(|(b, _)| m > *b) {
                    best = Some((m, cw));
                }
            }
        }
        match best {
            Some((_, cw)) => {
                *out = cw;
                false
            }
            None => {
                *out = z;
                true
            }
        }
    }
}
