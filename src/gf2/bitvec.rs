//! Bit vectors over GF(2), packed 64 bits to a `u64` word, bit `i` in word `i / 64` at bit
//! `i % 64` (least significant first). Bits past `len` in the last word are always zero.

use crate::error::{Error, Result};
use std::fmt;

/// A vector over GF(2) of fixed length.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct BitVec {
    words: Vec<u64>,
    len: usize,
}

/// Number of `u64` words needed for `bits` bits.
#[inline]
pub const fn words_for(bits: usize) -> usize {
    bits.div_ceil(64)
}

impl BitVec {
    /// The zero vector of length `len`.
    pub fn zeros(len: usize) -> Self {
        BitVec {
            words: vec![0; words_for(len)],
            len,
        }
    }

    /// The all-ones vector of length `len`.
    pub fn ones(len: usize) -> Self {
        let mut v = BitVec {
            words: vec![!0; words_for(len)],
            len,
        };
        v.clear_tail();
        v
    }

    /// The unit vector of length `len` with a one at `i`.
    pub fn unit(len: usize, i: usize) -> Self {
        let mut v = Self::zeros(len);
        v.set(i, true);
        v
    }

    /// A vector from packed words; bits past `len` are cleared.
    ///
    /// # Panics
    /// If `words` is shorter than `len` needs.
    pub fn from_words(mut words: Vec<u64>, len: usize) -> Self {
        assert!(
            words.len() >= words_for(len),
            "from_words: {} words for {len} bits",
            words.len()
        );
        words.truncate(words_for(len));
        let mut v = BitVec { words, len };
        v.clear_tail();
        v
    }

    /// A vector from booleans.
    pub fn from_bools(bits: &[bool]) -> Self {
        let mut v = Self::zeros(bits.len());
        for (i, &b) in bits.iter().enumerate() {
            if b {
                v.set(i, true);
            }
        }
        v
    }

    /// Parses a string of `0`/`1` characters; ASCII whitespace and `_` are ignored.
    pub fn parse(s: &str) -> Result<Self> {
        let mut bits = Vec::with_capacity(s.len());
        for (position, ch) in s.chars().enumerate() {
            match ch {
                '0' => bits.push(false),
                '1' => bits.push(true),
                c if c.is_ascii_whitespace() || c == '_' => {}
                ch => return Err(Error::BadBit { ch, position }),
            }
        }
        Ok(Self::from_bools(&bits))
    }

    #[inline]
    fn clear_tail(&mut self) {
        let r = self.len % 64;
        if r != 0
            && let Some(last) = self.words.last_mut()
        {
            *last &= (1u64 << r) - 1;
        }
    }

    /// The length in bits.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the length is zero.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The packed words (tail bits are zero).
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The packed words, mutably. Callers must keep the tail bits zero.
    #[inline]
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Bit `i`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        debug_assert!(i < self.len, "bit {i} of {}", self.len);
        (self.words[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Sets bit `i` to `b`.
    #[inline]
    pub fn set(&mut self, i: usize, b: bool) {
        debug_assert!(i < self.len, "bit {i} of {}", self.len);
        let m = 1u64 << (i % 64);
        if b {
            self.words[i / 64] |= m;
        } else {
            self.words[i / 64] &= !m;
        }
    }

    /// Flips bit `i`.
    #[inline]
    pub fn flip(&mut self, i: usize) {
        debug_assert!(i < self.len, "bit {i} of {}", self.len);
        self.words[i / 64] ^= 1u64 << (i % 64);
    }

    /// Adds (XORs) `other` into `self`.
    ///
    /// # Panics
    /// If the lengths differ.
    #[inline]
    pub fn xor_assign(&mut self, other: &BitVec) {
        assert_eq!(self.len, other.len, "xor of vectors of different lengths");
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a ^= b;
        }
    }

    /// The Hamming weight (number of ones).
    #[inline]
    pub fn weight(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True when every bit is zero.
    #[inline]
    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The inner product over GF(2).
    #[inline]
    pub fn dot(&self, other: &BitVec) -> bool {
        assert_eq!(self.len, other.len, "dot of vectors of different lengths");
        self.words
            .iter()
            .zip(&other.words)
            .map(|(a, b)| (a & b).count_ones())
            .sum::<u32>()
            & 1
            == 1
    }

    /// The indices of the one bits, in increasing order.
    pub fn ones_iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    None
                } else {
                    let t = w.trailing_zeros() as usize;
                    w &= w - 1;
                    Some(wi * 64 + t)
                }
            })
        })
    }

    /// The bits as booleans.
    pub fn to_bools(&self) -> Vec<bool> {
        (0..self.len).map(|i| self.get(i)).collect()
    }

    /// A copy of bits `start..end`.
    pub fn slice(&self, start: usize, end: usize) -> BitVec {
        assert!(
            start <= end && end <= self.len,
            "slice {start}..{end} of {}",
            self.len
        );
        let mut v = BitVec::zeros(end - start);
        for i in start..end {
            if self.get(i) {
                v.set(i - start, true);
            }
        }
        v
    }

    /// The bits as one character each (`zero` or `one`, both ASCII), bit 0 first; a word at a
    /// time, for the strings of huge boards.
    pub fn to_chars(&self, zero: u8, one: u8) -> String {
        let mut out = Vec::with_capacity(self.len);
        for (k, &w) in self.words.iter().enumerate() {
            let bits = (self.len - 64 * k).min(64);
            out.extend((0..bits).map(|i| if (w >> i) & 1 == 1 { one } else { zero }));
        }
        String::from_utf8(out).expect("ASCII")
    }

    /// Appends the bits of `other`, a word at a time.
    pub fn extend(&mut self, other: &BitVec) {
        let shift = self.len % 64;
        if shift == 0 {
            self.words.extend_from_slice(&other.words);
        } else {
            for &w in &other.words {
                *self.words.last_mut().expect("a partial word") |= w << shift;
                self.words.push(w >> (64 - shift));
            }
        }
        self.len += other.len;
        self.words.truncate(words_for(self.len));
    }

    /// Appends one bit.
    pub fn push(&mut self, b: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.len += 1;
        self.set(self.len - 1, b);
    }
}

impl fmt::Display for BitVec {
    /// `0`/`1` characters, bit 0 first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_chars(b'0', b'1'))
    }
}

impl fmt::Debug for BitVec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BitVec({self})")
    }
}

impl std::str::FromStr for BitVec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        BitVec::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_appends_bit_by_bit() {
        for (a, b) in [(0, 5), (3, 64), (64, 70), (61, 130), (100, 0)] {
            let x = BitVec::from_bools(&(0..a).map(|i| i % 5 == 2).collect::<Vec<_>>());
            let y = BitVec::from_bools(&(0..b).map(|i| i % 3 != 1).collect::<Vec<_>>());
            let mut got = x.clone();
            got.extend(&y);
            let mut want = x.clone();
            for i in 0..b {
                want.push(y.get(i));
            }
            assert_eq!(got, want, "{a} + {b}");
        }
    }

    #[test]
    fn chars_match_the_bits() {
        for len in [0, 1, 63, 64, 65, 130] {
            let v = BitVec::from_bools(&(0..len).map(|i| i % 3 == 1).collect::<Vec<_>>());
            let naive: String = (0..len).map(|i| if v.get(i) { '#' } else { '.' }).collect();
            assert_eq!(v.to_chars(b'.', b'#'), naive);
        }
    }

    #[test]
    fn parse_display_roundtrip() {
        let v = BitVec::parse("1101 0").unwrap();
        assert_eq!(v.len(), 5);
        assert_eq!(v.to_string(), "11010");
        assert_eq!(v.weight(), 3);
        assert!(matches!(
            BitVec::parse("10x"),
            Err(Error::BadBit {
                ch: 'x',
                position: 2
            })
        ));
    }

    #[test]
    fn tail_is_clear() {
        let v = BitVec::ones(70);
        assert_eq!(v.weight(), 70);
        assert_eq!(v.words()[1], (1 << 6) - 1);
        let mut p = BitVec::zeros(0);
        for i in 0..130 {
            p.push(i % 3 == 0);
        }
        assert_eq!(p.weight(), 44);
        assert_eq!(p.ones_iter().take(3).collect::<Vec<_>>(), vec![0, 3, 6]);
    }
}
