//! Shortened Hamming (d = 3) and shortened extended Hamming / SECDED (d = 4) codes.
//!
//! Positional construction: in `hamming:N` codeword index `i` is Hamming position `p = i + 1`;
//! the check bits sit at the powers of two and the syndrome of a word is the XOR of the positions
//! of its one bits, which names the flipped position directly. `secded:N` puts an overall parity
//! bit at index 0 in front of a shortened Hamming code of length `N - 1` (index `i >= 1` is
//! position `i`). Shortening keeps the positions `1..=N` (or `1..N`) of the full code.

use super::spec::ceil_log2;
use super::{BlockCode, Decoded, Spec, accepted, detected};
use crate::gf2::BitVec;

/// Syndrome (XOR of Hamming positions of the one bits) over indices `from..`, where index `i`
/// has position `i + 1 - from + offset`.
fn position_xor(word: &BitVec, first_index: usize, position_of_first: usize) -> usize {
    let mut s = 0usize;
    for i in word.ones_iter() {
        if i >= first_index {
            s ^= i - first_index + position_of_first;
        }
    }
    s
}

/// Data positions (non-powers of two) among Hamming positions `1..=len`.
fn data_positions(len: usize) -> Vec<usize> {
    (1..=len).filter(|p| !p.is_power_of_two()).collect()
}

/// Encodes `message` into Hamming positions `1..=len` of `cw` (index = position - 1 + base).
fn hamming_fill(cw: &mut BitVec, message: &BitVec, len: usize, base: usize) {
    let data = data_positions(len);
    assert_eq!(message.len(), data.len());
    let mut s = 0usize;
    for (i, &p) in data.iter().enumerate() {
        if message.get(i) {
            cw.set(p - 1 + base, true);
            s ^= p;
        }
    }
    let mut bit = 1;
    while bit <= len {
        if s & bit != 0 {
            cw.set(bit - 1 + base, true);
        }
        bit <<= 1;
    }
}

/// The shortened Hamming code `hamming:N`: `[N, N - r, 3]` with `r` the least integer such that
/// `2^r - 1 >= N`.
#[derive(Clone, Debug)]
pub struct HammingCode {
    n: usize,
    positions: Vec<usize>,
}

impl HammingCode {
    /// `hamming:n`, `n >= 3`.
    pub fn new(n: usize) -> Self {
        assert!(n >= 3);
        let positions = data_positions(n).into_iter().map(|p| p - 1).collect();
        HammingCode { n, positions }
    }

    /// Number of check bits `r`.
    pub fn r(&self) -> usize {
        ceil_log2(self.n + 1)
    }
}

impl BlockCode for HammingCode {
    fn spec(&self) -> Spec {
        Spec::Hamming(self.n)
    }
    fn n(&self) -> usize {
        self.n
    }
    fn k(&self) -> usize {
        self.n - self.r()
    }
    fn d(&self) -> usize {
        3
    }
    fn message_positions(&self) -> &[usize] {
        &self.positions
    }
    fn encode(&self, message: &BitVec) -> BitVec {
        assert_eq!(message.len(), self.k());
        let mut cw = BitVec::zeros(self.n);
        hamming_fill(&mut cw, message, self.n, 0);
        cw
    }
    fn decode(&self, word: &BitVec) -> Decoded {
        assert_eq!(word.len(), self.n);
        match position_xor(word, 0, 1) {
            0 => accepted(self, word.clone(), Vec::new()),
            s if s <= self.n => {
                let mut cw = word.clone();
                cw.flip(s - 1);
                accepted(self, cw, vec![s - 1])
            }
            _ => detected(word),
        }
    }
}

/// The shortened extended Hamming code `secded:N`: `[N, N - r - 1, 4]` with `r` the least
/// integer such that `2^r >= N`. `secded:72` is the (72, 64) code.
#[derive(Clone, Debug)]
pub struct SecdedCode {
    n: usize,
    positions: Vec<usize>,
}

impl SecdedCode {
    /// `secded:n`, `n >= 4`.
    pub fn new(n: usize) -> Self {
        assert!(n >= 4);
        let positions = data_positions(n - 1).into_iter().collect();
        SecdedCode { n, positions }
    }

    /// Number of Hamming check bits `r` (the code has `r + 1` check bits).
    pub fn r(&self) -> usize {
        ceil_log2(self.n)
    }
}

impl BlockCode for SecdedCode {
    fn spec(&self) -> Spec {
        Spec::Secded(self.n)
    }
    fn n(&self) -> usize {
        self.n
    }
    fn k(&self) -> usize {
        self.n - self.r() - 1
    }
    fn d(&self) -> usize {
        4
    }
    fn message_positions(&self) -> &[usize] {
        &self.positions
    }
    fn encode(&self, message: &BitVec) -> BitVec {
        assert_eq!(message.len(), self.k());
        let mut cw = BitVec::zeros(self.n);
        hamming_fill(&mut cw, message, self.n - 1, 1);
        if cw.weight() % 2 == 1 {
            cw.set(0, true);
        }
        cw
    }
    fn decode(&self, word: &BitVec) -> Decoded {
        assert_eq!(word.len(), self.n);
        let s = position_xor(word, 1, 1);
        let odd = word.weight() % 2 == 1;
        match (odd, s) {
            (false, 0) => accepted(self, word.clone(), Vec::new()),
            (false, _) => detected(word),
            (true, s) if s < self.n => {
                // s = 0: the overall parity bit itself; else Hamming position s = index s.
                let mut cw = word.clone();
                cw.flip(s);
                accepted(self, cw, vec![s])
            }
            (true, _) => detected(word),
        }
    }
}
