//! Repetition and single-parity-check codes.

use super::{BlockCode, Decoded, Spec, accepted, decode_repetition, detected};
use crate::gf2::BitVec;

/// The `[n, 1, n]` repetition code, decoded by majority (ties detected).
#[derive(Clone, Debug)]
pub struct RepetitionCode {
    n: usize,
    positions: Vec<usize>,
}

impl RepetitionCode {
    /// The repetition code of length `n >= 1`.
    pub fn new(n: usize) -> Self {
        assert!(n >= 1);
        RepetitionCode {
            n,
            positions: vec![0],
        }
    }
}

impl BlockCode for RepetitionCode {
    fn spec(&self) -> Spec {
        Spec::Repetition(self.n)
    }
    fn n(&self) -> usize {
        self.n
    }
    fn k(&self) -> usize {
        1
    }
    fn d(&self) -> usize {
        self.n
    }
    fn message_positions(&self) -> &[usize] {
        &self.positions
    }
    fn encode(&self, message: &BitVec) -> BitVec {
        assert_eq!(message.len(), 1);
        if message.get(0) {
            BitVec::ones(self.n)
        } else {
            BitVec::zeros(self.n)
        }
    }
    fn decode(&self, word: &BitVec) -> Decoded {
        assert_eq!(word.len(), self.n);
        decode_repetition(self, word)
    }
}

/// The `[n, n - 1, 2]` single-parity-check code: the message followed by its parity.
#[derive(Clone, Debug)]
pub struct ParityCode {
    n: usize,
    positions: Vec<usize>,
}

impl ParityCode {
    /// The parity code of length `n >= 2`.
    pub fn new(n: usize) -> Self {
        assert!(n >= 2);
        ParityCode {
            n,
            positions: (0..n - 1).collect(),
        }
    }
}

impl BlockCode for ParityCode {
    fn spec(&self) -> Spec {
        Spec::Parity(self.n)
    }
    fn n(&self) -> usize {
        self.n
    }
    fn k(&self) -> usize {
        self.n - 1
    }
    fn d(&self) -> usize {
        2
    }
    fn message_positions(&self) -> &[usize] {
        &self.positions
    }
    fn encode(&self, message: &BitVec) -> BitVec {
        assert_eq!(message.len(), self.n - 1);
        let mut cw = BitVec::zeros(self.n);
        cw.words_mut()[..message.words().len()].copy_from_slice(message.words());
        cw.set(self.n - 1, message.weight() % 2 == 1);
        cw
    }
    fn decode(&self, word: &BitVec) -> Decoded {
        assert_eq!(word.len(), self.n);
        if word.weight().is_multiple_of(2) {
            accepted(self, word.clone(), Vec::new())
        } else {
            detected(word)
        }
    }
}
