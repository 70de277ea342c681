//! Binary block codes behind one trait: the Alien Tiles codes of the paper and the codes they
//! are compared with.
//!
//! Every code here is linear and systematic: the message bits sit unchanged at
//! [`BlockCode::message_positions`] in the codeword. Decoders are bounded-distance decoders that
//! correct up to `t = (d - 1) / 2` errors and report anything else they notice as detected.

mod alien;
pub mod analysis;
pub mod bounds;
mod hamming;
mod product;
mod simple;
pub mod soft;
mod spec;

pub use alien::AlienCode;
pub use analysis::{BscRates, bsc_error_rates, covering_radius, weight_distribution};
pub use hamming::{HammingCode, SecdedCode};
pub use product::ProductCode;
pub use simple::{ParityCode, RepetitionCode};
pub use soft::{DecoderKind, SoftDecoder, soft_decoder};
pub use spec::{MAX_N, Spec, parse_dims};

use crate::error::{Error, Result};
use crate::gf2::BitVec;

/// What the decoder concluded about a received word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The word is a codeword.
    Clean,
    /// Errors were found and corrected.
    Corrected,
    /// Errors were detected that the code cannot correct.
    Detected,
}

impl Status {
    /// `clean`, `corrected` or `detected`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Clean => "clean",
            Status::Corrected => "corrected",
            Status::Detected => "detected",
        }
    }
}

/// The result of decoding one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Clean, corrected or detected.
    pub status: Status,
    /// Positions (row-major codeword indices) that were flipped to correct the word.
    pub errors: Vec<usize>,
    /// The corrected codeword (the received word unchanged when detected).
    pub codeword: BitVec,
    /// The message, unless the errors were detected and not corrected.
    pub message: Option<BitVec>,
}

/// A binary linear block code with a bounded-distance decoder.
pub trait BlockCode: Send + Sync + std::fmt::Debug {
    /// The specification this code was built from.
    fn spec(&self) -> Spec;
    /// Codeword length `n`.
    fn n(&self) -> usize;
    /// Message length (dimension) `k`.
    fn k(&self) -> usize;
    /// Minimum distance `d`.
    fn d(&self) -> usize;
    /// Number of errors the decoder corrects, `(d - 1) / 2`. It corrects no more than that:
    /// the bit-sliced locator ([`crate::slice::locate`]) answers the syndromes of codes with
    /// `t <= 1` without asking the decoder.
    fn t(&self) -> usize {
        (self.d() - 1) / 2
    }
    /// Code rate `k / n`.
    fn rate(&self) -> f64 {
        self.k() as f64 / self.n() as f64
    }
    /// Where each message bit sits in the codeword: `codeword[positions[i]] = message[i]`.
    fn message_positions(&self) -> &[usize];
    /// Encodes a `k`-bit message into an `n`-bit codeword.
    ///
    /// # Panics
    /// If the message does not have `k` bits; use [`encode_checked`] for untrusted input.
    fn encode(&self, message: &BitVec) -> BitVec;
    /// Decodes an `n`-bit word.
    ///
    /// # Panics
    /// If the word does not have `n` bits; use [`decode_checked`] for untrusted input.
    fn decode(&self, word: &BitVec) -> Decoded;
    /// Reads the message out of a codeword (no checking).
    fn extract(&self, codeword: &BitVec) -> BitVec {
        let pos = self.message_positions();
        let mut m = BitVec::zeros(pos.len());
        for (i, &p) in pos.iter().enumerate() {
            if codeword.get(p) {
                m.set(i, true);
            }
        }
        m
    }
    /// Notes a user should see about this code (for example: no redundancy).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Builds the code a spec names.
pub fn build(spec: &Spec) -> Box<dyn BlockCode> {
    match *spec {
        Spec::Alien { rows, cols } => Box::new(AlienCode::new(rows, cols)),
        Spec::Secded(n) => Box::new(SecdedCode::new(n)),
        Spec::Hamming(n) => Box::new(HammingCode::new(n)),
        Spec::Repetition(n) => Box::new(RepetitionCode::new(n)),
        Spec::Parity(n) => Box::new(ParityCode::new(n)),
        Spec::Product { rows, cols } => Box::new(ProductCode::new(rows, cols)),
    }
}

/// Parses a spec and builds its code.
pub fn from_spec_str(s: &str) -> Result<Box<dyn BlockCode>> {
    Ok(build(&s.parse::<Spec>()?))
}

/// [`BlockCode::encode`] with the length checked.
pub fn encode_checked(code: &dyn BlockCode, message: &BitVec) -> Result<BitVec> {
    if message.len() != code.k() {
        return Err(Error::Length {
            expected: code.k(),
            found: message.len(),
        });
    }
    Ok(code.encode(message))
}

/// [`BlockCode::decode`] with the length checked.
pub fn decode_checked(code: &dyn BlockCode, word: &BitVec) -> Result<Decoded> {
    if word.len() != code.n() {
        return Err(Error::Length {
            expected: code.n(),
            found: word.len(),
        });
    }
    Ok(code.decode(word))
}

/// A decoded result for a word that is (possibly after flipping `errors`) the codeword `cw`.
pub(crate) fn accepted(code: &dyn BlockCode, cw: BitVec, errors: Vec<usize>) -> Decoded {
    let message = Some(code.extract(&cw));
    let status = if errors.is_empty() {
        Status::Clean
    } else {
        Status::Corrected
    };
    Decoded {
        status,
        errors,
        codeword: cw,
        message,
    }
}

/// A decoded result for a word with detected, uncorrectable errors.
pub(crate) fn detected(word: &BitVec) -> Decoded {
    Decoded {
        status: Status::Detected,
        errors: Vec::new(),
        codeword: word.clone(),
        message: None,
    }
}

/// Majority decoding of a repetition codeword; `None` on a tie.
pub(crate) fn majority(word: &BitVec) -> Option<bool> {
    let w = word.weight();
    let n = word.len();
    match (2 * w).cmp(&n) {
        std::cmp::Ordering::Greater => Some(true),
        std::cmp::Ordering::Less => Some(false),
        std::cmp::Ordering::Equal => None,
    }
}

/// Decodes a word of a repetition code (shared by `repetition:N` and thin alien boards).
pub(crate) fn decode_repetition(code: &dyn BlockCode, word: &BitVec) -> Decoded {
    match majority(word) {
        None => detected(word),
        Some(b) => {
            let errors: Vec<usize> = (0..word.len()).filter(|&i| word.get(i) != b).collect();
            let cw = if b {
                BitVec::ones(word.len())
            } else {
                BitVec::zeros(word.len())
            };
            accepted(code, cw, errors)
        }
    }
}
