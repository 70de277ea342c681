//! Soft-decision and erasure decoders: they read a log-likelihood ratio per codeword bit
//! (positive: `0` is more likely; `0.0`: erased) and return a word.
//!
//! * [`HardDecoder`]: a hard decision on every bit, then the code's own decoder;
//! * [`MlDecoder`]: exact maximum-likelihood decoding, by a Viterbi search of the syndrome
//!   trellis (`2^(n-k)` states) or of the codebook (`2^k` words), whichever is smaller, up to
//!   [`MAX_ML_WORK`];
//! * [`ChaseDecoder`]: Chase-II, the hard decoder tried on every flip pattern of the least
//!   reliable positions, keeping the most likely codeword it finds;
//! * [`MinSumDecoder`]: min-sum belief propagation on the row and column parity checks of an
//!   odd-by-odd Alien Tiles board (derived in `docs/theory.md`);
//! * [`ErasureDecoder`]: maximum-likelihood erasure decoding, solving the parity checks for the
//!   erased bits over GF(2);
//! * [`reference`](mod@reference): exhaustive searches over all codewords, slow and obviously correct, the
//!   oracle every decoder here is tested against.
//!
//! ```
//! use tilecode::code::{from_spec_str, soft::{DecoderKind, soft_decoder}};
//! use tilecode::gf2::BitVec;
//!
//! let code = from_spec_str("hamming:7").unwrap();
//! let ml = soft_decoder(code.as_ref(), DecoderKind::Ml).unwrap();
//! // The all-zero codeword sent; bits 0 and 1 came out slightly negative (two hard errors,
//! // beyond a Hamming decoder), the rest strongly positive.
//! let llr = [-0.2, -0.1, 3.0, 3.0, 3.0, 3.0, 3.0];
//! let mut out = BitVec::zeros(7);
//! assert!(!ml.decode(&llr, &mut out));
//! assert!(out.is_zero());
//! ```

mod certify;
mod chase;
mod erasure;
mod minsum;
mod ml;
pub mod reference;
mod trellis;

pub use chase::{ChaseDecoder, MAX_CHASE_P};
pub use erasure::ErasureDecoder;
pub use minsum::MinSumDecoder;
pub use ml::{MAX_ML_WORK, MlDecoder};

use super::{BlockCode, Status, build};
use crate::error::{Error, Result};
use crate::gf2::{BitMatrix, BitVec};
use std::fmt;

/// A decoder that reads one log-likelihood ratio per codeword bit.
pub trait SoftDecoder: Send + Sync + fmt::Debug {
    /// A short name for reports: `hard`, `viterbi`, `codebook`, `chase`, `min_sum`, `gf2_solve`.
    fn name(&self) -> &'static str;
    /// Decodes `llr` (one value per codeword bit: positive when `0` is more likely, `0.0` for an
    /// erasure) into `out` (resized to `n` bits). Returns `true` when the decoder gives up (a
    /// *detected* error); `out` then holds its best guess, whose message bits are delivered.
    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool;
}

/// Which decoder, as chosen with `--decoder`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecoderKind {
    /// Hard decisions, then the code's bounded-distance decoder.
    Hard,
    /// Exact maximum-likelihood soft decoding.
    Ml,
    /// Chase-II with `p` least reliable positions.
    Chase {
        /// Number of least reliable positions whose flips are tried (`2^p` patterns).
        p: usize,
    },
    /// Min-sum on the row and column checks of an alien code.
    Iterative {
        /// Most iterations (one row pass and one column pass each).
        iterations: usize,
    },
    /// Maximum-likelihood erasure decoding (binary erasure channel).
    Erasure,
}

impl DecoderKind {
    /// `hard`, `ml`, `chase`, `iterative` or `erasure`.
    pub fn as_str(&self) -> &'static str {
        match self {
            DecoderKind::Hard => "hard",
            DecoderKind::Ml => "ml",
            DecoderKind::Chase { .. } => "chase",
            DecoderKind::Iterative { .. } => "iterative",
            DecoderKind::Erasure => "erasure",
        }
    }
}

impl fmt::Display for DecoderKind {
    /// `hard`, `ml`, `chase:P`, `iterative:I` or `erasure`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecoderKind::Chase { p } => write!(f, "chase:{p}"),
            DecoderKind::Iterative { iterations } => write!(f, "iterative:{iterations}"),
            other => f.write_str(other.as_str()),
        }
    }
}

/// The decoder `kind` for `code`.
///
/// # Errors
/// [`Error::Limit`] when the decoder does not exist for the code or is past its limit (ML work
/// above [`MAX_ML_WORK`], Chase with more than [`MAX_CHASE_P`] positions, min-sum on anything
/// but an odd-by-odd alien board of at least 3 x 3 or a product code).
pub fn soft_decoder(code: &dyn BlockCode, kind: DecoderKind) -> Result<Box<dyn SoftDecoder>> {
    Ok(match kind {
        DecoderKind::Hard => Box::new(HardDecoder::new(code)),
        DecoderKind::Ml => Box::new(MlDecoder::new(code)?),
        DecoderKind::Chase { p } => Box::new(ChaseDecoder::new(code, p)?),
        DecoderKind::Iterative { iterations } => Box::new(MinSumDecoder::new(code, iterations)?),
        DecoderKind::Erasure => Box::new(ErasureDecoder::new(code)),
    })
}

/// Hard decisions, then [`BlockCode::decode`].
#[derive(Debug)]
pub struct HardDecoder {
    code: Box<dyn BlockCode>,
}

impl HardDecoder {
    /// The hard decoder of `code`.
    pub fn new(code: &dyn BlockCode) -> Self {
        HardDecoder {
            code: build(&code.spec()),
        }
    }

    /// Decodes a hard-decided word: the corrected codeword, or `None` when an error is detected.
    pub fn decode_word(&self, word: &BitVec) -> Option<BitVec> {
        let d = self.code.decode(word);
        (d.status != Status::Detected).then_some(d.codeword)
    }
}

impl SoftDecoder for HardDecoder {
    fn name(&self) -> &'static str {
        "hard"
    }

    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool {
        let z = hard_decision(llr);
        match self.decode_word(&z) {
            Some(cw) => {
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

/// The hard decision: bit `i` is 1 where `llr[i] < 0`.
pub fn hard_decision(llr: &[f32]) -> BitVec {
    let mut z = BitVec::zeros(llr.len());
    for (i, &l) in llr.iter().enumerate() {
        if l < 0.0 {
            z.set(i, true);
        }
    }
    z
}

/// The log-likelihood of a word up to a constant: `sum_i llr_i (1 - 2 c_i)`. Maximum-likelihood
/// decoding picks the codeword with the largest.
pub fn correlation(llr: &[f32], word: &BitVec) -> f64 {
    llr.iter()
        .enumerate()
        .map(|(i, &l)| {
            if word.get(i) {
                -f64::from(l)
            } else {
                f64::from(l)
            }
        })
        .sum()
}

/// The parity-check matrix `H` ((n - k) x n) of a systematic code: row `q` checks parity
/// position `q` (in increasing order) against the message bits it is the XOR of.
pub fn parity_check_matrix(code: &dyn BlockCode) -> BitMatrix {
    let n = code.n();
    let checks = systematic_checks(code);
    let mut h = BitMatrix::zeros(checks.len(), n);
    let pos = code.message_positions();
    for (row, (q, msg)) in checks.iter().enumerate() {
        h.set(row, *q, true);
        for &i in msg {
            h.set(row, pos[i], true);
        }
    }
    h
}

/// For each parity position `q` of a systematic code, in increasing order, the message bits
/// (indices into [`BlockCode::message_positions`]) whose XOR it holds.
pub fn systematic_checks(code: &dyn BlockCode) -> Vec<(usize, Vec<usize>)> {
    let (n, k) = (code.n(), code.k());
    let mut is_msg = vec![false; n];
    for &p in code.message_positions() {
        is_msg[p] = true;
    }
    let rows: Vec<BitVec> = (0..k).map(|i| code.encode(&BitVec::unit(k, i))).collect();
    (0..n)
        .filter(|&q| !is_msg[q])
        .map(|q| (q, (0..k).filter(|&i| rows[i].get(q)).collect()))
        .collect()
}

/// The error for a decoder that `code` cannot have.
fn unavailable(code: &dyn BlockCode, decoder: &str, reason: String) -> Error {
    Error::Limit {
        what: format!("the {decoder} decoder of {}", code.spec()),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;

    #[test]
    fn parity_checks_vanish_on_codewords() {
        for spec in [
            "alien:5x5",
            "alien:4x5",
            "hamming:7",
            "secded:13",
            "repetition:3",
        ] {
            let code = from_spec_str(spec).unwrap();
            let h = parity_check_matrix(code.as_ref());
            assert_eq!(h.rows(), code.n() - code.k());
            for i in 0..code.k() {
                let cw = code.encode(&BitVec::unit(code.k(), i));
                assert!(h.mul_vec(&cw).is_zero(), "{spec}");
            }
        }
    }

    #[test]
    fn correlation_and_hard_decision() {
        let llr = [1.0, -2.0, 0.5];
        let z = hard_decision(&llr);
        assert_eq!(z.to_bools(), [false, true, false]);
        assert_eq!(correlation(&llr, &z), 3.5);
        assert_eq!(correlation(&llr, &BitVec::zeros(3)), -0.5);
    }
}
