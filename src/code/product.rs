//! The single-parity-check product code `product:MxN`: the `[mn, (m-1)(n-1), 4]` code whose
//! codewords are the `m x n` boards with every row and every column of even parity.
//!
//! It is the product of the `[m, m-1, 2]` and `[n, n-1, 2]` parity codes, and the Alien Tiles
//! code of an odd-by-odd board without its hidden bit: the alien code asks all `m + n` line
//! parities to be *equal*, this one asks them to be *zero*, so it has one dimension less (see
//! `docs/theory.md`).
//!
//! Codewords are boards stored row-major. The message fills rows `0..m-1`, columns `0..n-1`,
//! row-major; column `n-1` holds the row parities, row `m-1` the column parities, and the
//! corner `(m-1, n-1)` the parity of the whole message (of both). The decoder corrects one
//! error (exactly one odd row and one odd column: their crossing) and detects every other
//! non-zero syndrome.

use super::{BlockCode, Decoded, Spec, accepted, detected};
use crate::gf2::BitVec;

/// The single-parity-check product code of an `m x n` board (`m, n >= 2`).
#[derive(Clone, Debug)]
pub struct ProductCode {
    m: usize,
    n: usize,
    positions: Vec<usize>,
}

impl ProductCode {
    /// The code of an `m x n` board.
    ///
    /// # Panics
    /// If `m < 2` or `n < 2` (no message bits).
    pub fn new(m: usize, n: usize) -> Self {
        assert!(m >= 2 && n >= 2, "product code needs m, n >= 2");
        let positions = (0..m - 1)
            .flat_map(|i| (0..n - 1).map(move |j| i * n + j))
            .collect();
        ProductCode { m, n, positions }
    }

    /// Number of rows `m`.
    pub fn rows(&self) -> usize {
        self.m
    }

    /// Number of columns `n`.
    pub fn cols(&self) -> usize {
        self.n
    }

    /// The row parities and column parities of a word: its syndrome (`m + n` bits whose two
    /// halves have the same parity, so `m + n - 1` independent ones).
    pub fn line_parities(&self, word: &BitVec) -> (Vec<bool>, Vec<bool>) {
        let (m, n) = (self.m, self.n);
        let mut r = vec![false; m];
        let mut c = vec![false; n];
        for p in word.ones_iter() {
            r[p / n] ^= true;
            c[p % n] ^= true;
        }
        (r, c)
    }
}

impl BlockCode for ProductCode {
    fn spec(&self) -> Spec {
        Spec::Product {
            rows: self.m,
            cols: self.n,
        }
    }

    fn n(&self) -> usize {
        self.m * self.n
    }

    fn k(&self) -> usize {
        (self.m - 1) * (self.n - 1)
    }

    fn d(&self) -> usize {
        4
    }

    fn message_positions(&self) -> &[usize] {
        &self.positions
    }

    fn encode(&self, message: &BitVec) -> BitVec {
        assert_eq!(
            message.len(),
            self.k(),
            "product:{}x{} takes {}-bit messages",
            self.m,
            self.n,
            self.k()
        );
        let (m, n) = (self.m, self.n);
        let mut cw = BitVec::zeros(m * n);
        for i in message.ones_iter() {
            cw.set(self.positions[i], true);
        }
        let (r, c) = self.line_parities(&cw);
        for (i, &ri) in r.iter().enumerate().take(m - 1) {
            cw.set(i * n + n - 1, ri);
        }
        for (j, &cj) in c.iter().enumerate().take(n - 1) {
            cw.set((m - 1) * n + j, cj);
        }
        // The corner: the parity of the message, which evens both the last row and column.
        cw.set(m * n - 1, message.weight() % 2 == 1);
        cw
    }

    fn decode(&self, word: &BitVec) -> Decoded {
        assert_eq!(
            word.len(),
            self.m * self.n,
            "product:{}x{} decodes {}-bit words",
            self.m,
            self.n,
            self.m * self.n
        );
        let (r, c) = self.line_parities(word);
        let odd = |v: &[bool]| v.iter().filter(|&&x| x).count();
        match (odd(&r), odd(&c)) {
            (0, 0) => accepted(self, word.clone(), Vec::new()),
            (1, 1) => {
                let y = r.iter().position(|&x| x).expect("one odd row");
                let x = c.iter().position(|&x| x).expect("one odd column");
                let mut cw = word.clone();
                cw.flip(y * self.n + x);
                accepted(self, cw, vec![y * self.n + x])
            }
            _ => detected(word),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::Status;

    /// All `2^k` codewords, encoded one by one.
    fn codebook(code: &ProductCode) -> Vec<BitVec> {
        let k = code.k();
        (0..1u64 << k)
            .map(|v| {
                let bits: Vec<bool> = (0..k).map(|i| (v >> i) & 1 == 1).collect();
                code.encode(&BitVec::from_bools(&bits))
            })
            .collect()
    }

    #[test]
    fn brute_force_parameters_and_weights() {
        // Every codeword has even rows and columns, the codewords are distinct (dimension
        // (m-1)(n-1)), the least non-zero weight is 4, and the weights follow the closed form
        // of weight 4: the C(m,2) C(n,2) rectangles.
        for m in 2..=5 {
            for n in 2..=5 {
                let code = ProductCode::new(m, n);
                if code.k() > 16 {
                    continue;
                }
                let words = codebook(&code);
                let mut distinct = words.clone();
                distinct.sort_by_key(|w| w.to_string());
                distinct.dedup();
                assert_eq!(distinct.len(), words.len(), "{m}x{n}: dimension");
                let mut weights = vec![0u64; m * n + 1];
                for w in &words {
                    let (r, c) = code.line_parities(w);
                    assert!(r.iter().chain(&c).all(|&x| !x), "{m}x{n}: {w}");
                    weights[w.weight()] += 1;
                }
                let exact: Vec<u64> = crate::code::weight_distribution(&code)
                    .unwrap()
                    .iter()
                    .map(|c| u64::try_from(c).unwrap())
                    .collect();
                assert_eq!(exact, weights, "{m}x{n}: MacWilliams against brute force");
                let dmin = (1..=m * n).find(|&j| weights[j] > 0).unwrap();
                assert_eq!(dmin, code.d(), "{m}x{n}");
                assert_eq!(
                    weights[4] as usize,
                    m * (m - 1) / 2 * n * (n - 1) / 2,
                    "{m}x{n}: rectangles"
                );
                // Any board with even lines is a codeword: 2^((m-1)(n-1)) of them.
                let even = (0..1u64 << (m * n))
                    .filter(|&v| {
                        (0..m).all(|i| ((v >> (i * n)) & ((1 << n) - 1)).count_ones() % 2 == 0)
                            && (0..n).all(|j| {
                                (0..m).filter(|&i| (v >> (i * n + j)) & 1 == 1).count() % 2 == 0
                            })
                    })
                    .count();
                if m * n <= 20 {
                    assert_eq!(even, words.len(), "{m}x{n}");
                }
            }
        }
    }

    #[test]
    fn single_errors_corrected_double_errors_detected() {
        for (m, n) in [(2, 2), (2, 5), (3, 3), (4, 6), (9, 9)] {
            let code = ProductCode::new(m, n);
            let msg = BitVec::from_bools(&(0..code.k()).map(|i| i % 3 == 1).collect::<Vec<_>>());
            let cw = code.encode(&msg);
            assert_eq!(code.extract(&cw), msg);
            for e in 0..m * n {
                let mut w = cw.clone();
                w.flip(e);
                let d = code.decode(&w);
                assert_eq!(d.errors, vec![e], "{m}x{n}");
                assert_eq!(d.message.as_ref(), Some(&msg));
                for f in e + 1..m * n {
                    let mut w2 = w.clone();
                    w2.flip(f);
                    assert_eq!(code.decode(&w2).status, Status::Detected, "{m}x{n} {e} {f}");
                }
            }
        }
    }
}
