//! The two-state Alien Tiles code `alien:MxN`: the solvable games of an `m x n` board, with the
//! paper's Section 5 encoding and the Section 4.4 syndrome decoder.
//!
//! Codewords are boards stored row-major. The message fills the block `D` of the board that
//! carries no parity, row-major, and the last message bit sits at cell `(0, 0)`:
//!
//! * odd-by-odd (Table 1 and the closed form after it): `D` is rows `1..m`, columns `1..n`;
//!   row 0 holds `c + (|c| + b) 1`, column 0 holds `r + (|r| + b) 1`, where `(r, c)` is the
//!   parity pair of `D` and `b` the last message bit;
//! * even-by-odd (Section 5.1): `D` is columns `1..n` of every row; column 0 holds
//!   `r + (r_1 + b) 1`;
//! * odd-by-even: the transpose of the even-by-odd construction (`D` is rows `1..m`, row 0 holds
//!   `c + (c_1 + b) 1`);
//! * `m x 1` and `1 x n` boards are repetition codes, decoded by majority;
//! * even-by-even boards have no redundancy: every word is a codeword (`k = mn`, `d = 1`).

use super::{BlockCode, Decoded, Spec, accepted, decode_repetition, detected};
use crate::game::Board;
use crate::game::alien::{self, Located, Shape, Syndrome};
use crate::gf2::BitVec;

/// The Alien Tiles code of an `m x n` board.
#[derive(Clone, Debug)]
pub struct AlienCode {
    m: usize,
    n: usize,
    shape: Shape,
    positions: Vec<usize>,
}

impl AlienCode {
    /// The code of an `m x n` board (`m, n >= 1`).
    pub fn new(m: usize, n: usize) -> Self {
        assert!(m >= 1 && n >= 1, "alien code needs a non-empty board");
        let shape = Shape::of(m, n);
        let positions: Vec<usize> = match shape {
            Shape::EvenEven => (0..m * n).collect(),
            Shape::OddOdd => (1..m)
                .flat_map(|i| (1..n).map(move |j| i * n + j))
                .chain([0])
                .collect(),
            Shape::EvenOdd => (0..m)
                .flat_map(|i| (1..n).map(move |j| i * n + j))
                .chain([0])
                .collect(),
            Shape::OddEven => (1..m)
                .flat_map(|i| (0..n).map(move |j| i * n + j))
                .chain([0])
                .collect(),
        };
        AlienCode {
            m,
            n,
            shape,
            positions,
        }
    }

    /// Number of rows `m`.
    pub fn rows(&self) -> usize {
        self.m
    }

    /// Number of columns `n`.
    pub fn cols(&self) -> usize {
        self.n
    }

    /// The parity class of the board.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// True for `m x 1` and `1 x n` boards with more than one cell (repetition codes).
    pub fn is_thin(&self) -> bool {
        (self.m == 1 || self.n == 1) && self.m * self.n > 1
    }

    /// The paper's syndrome (invariant) of a received word.
    pub fn syndrome(&self, word: &BitVec) -> Syndrome {
        alien::syndrome(&self.board(word))
    }

    /// A word as a board.
    pub fn board(&self, word: &BitVec) -> Board {
        Board::from_bits(self.m, self.n, word.clone()).expect("word length checked by caller")
    }
}

impl BlockCode for AlienCode {
    fn spec(&self) -> Spec {
        Spec::Alien {
            rows: self.m,
            cols: self.n,
        }
    }

    fn n(&self) -> usize {
        self.m * self.n
    }

    fn k(&self) -> usize {
        let (m, n) = (self.m, self.n);
        match self.shape {
            Shape::EvenEven => m * n,
            Shape::EvenOdd => m * n - m + 1,
            Shape::OddEven => m * n - n + 1,
            Shape::OddOdd => m * n + 2 - m - n,
        }
    }

    fn d(&self) -> usize {
        let (m, n) = (self.m, self.n);
        match self.shape {
            Shape::EvenEven => 1,
            Shape::EvenOdd => {
                if n == 1 {
                    m
                } else {
                    2
                }
            }
            Shape::OddEven => {
                if m == 1 {
                    n
                } else {
                    2
                }
            }
            Shape::OddOdd => match (m, n) {
                (1, _) => n,
                (_, 1) => m,
                (3, 3) => 3,
                _ => 4,
            },
        }
    }

    fn message_positions(&self) -> &[usize] {
        &self.positions
    }

    fn encode(&self, message: &BitVec) -> BitVec {
        assert_eq!(
            message.len(),
            self.k(),
            "alien:{}x{} takes {}-bit messages",
            self.m,
            self.n,
            self.k()
        );
        let (m, n) = (self.m, self.n);
        let mut cw = BitVec::zeros(m * n);
        for (i, &p) in self.positions.iter().enumerate() {
            if message.get(i) {
                cw.set(p, true);
            }
        }
        if self.shape == Shape::EvenEven {
            return cw;
        }
        let b = message.get(self.k() - 1);
        let at = |cw: &BitVec, i: usize, j: usize| cw.get(i * n + j);
        match self.shape {
            Shape::OddOdd => {
                // (r, c): parity pair of D (rows 1.., columns 1..); p = |D| mod 2 = |r| = |c|.
                let mut r = vec![false; m];
                let mut c = vec![false; n];
                for p in cw.ones_iter() {
                    let (i, j) = (p / n, p % n);
                    if i > 0 && j > 0 {
                        r[i] ^= true;
                        c[j] ^= true;
                    }
                }
                let p = r.iter().filter(|&&x| x).count() % 2 == 1;
                for (j, &cj) in c.iter().enumerate().skip(1) {
                    cw.set(j, cj ^ p ^ b);
                }
                for (i, &ri) in r.iter().enumerate().skip(1) {
                    cw.set(i * n, ri ^ p ^ b);
                }
            }
            Shape::EvenOdd => {
                let r: Vec<bool> = (0..m)
                    .map(|i| (1..n).filter(|&j| at(&cw, i, j)).count() % 2 == 1)
                    .collect();
                for (i, &ri) in r.iter().enumerate() {
                    cw.set(i * n, ri ^ r[0] ^ b);
                }
            }
            Shape::OddEven => {
                let c: Vec<bool> = (0..n)
                    .map(|j| (1..m).filter(|&i| at(&cw, i, j)).count() % 2 == 1)
                    .collect();
                for (j, &cj) in c.iter().enumerate() {
                    cw.set(j, cj ^ c[0] ^ b);
                }
            }
            Shape::EvenEven => unreachable!(),
        }
        cw
    }

    fn decode(&self, word: &BitVec) -> Decoded {
        assert_eq!(
            word.len(),
            self.m * self.n,
            "alien:{}x{} decodes {}-bit words",
            self.m,
            self.n,
            self.m * self.n
        );
        if self.is_thin() {
            return decode_repetition(self, word);
        }
        match self.syndrome(word) {
            Syndrome::Trivial => accepted(self, word.clone(), Vec::new()),
            s if s.is_zero() => accepted(self, word.clone(), Vec::new()),
            Syndrome::Pair(rt, ct) => match alien::locate_single_error(self.m, self.n, &rt, &ct) {
                Located::Clean => accepted(self, word.clone(), Vec::new()),
                Located::Single(y, x) => {
                    let mut cw = word.clone();
                    cw.flip(y * self.n + x);
                    accepted(self, cw, vec![y * self.n + x])
                }
                Located::Multiple => detected(word),
            },
            _ => detected(word),
        }
    }

    fn warnings(&self) -> Vec<String> {
        if self.shape == Shape::EvenEven {
            vec![format!(
                "alien:{}x{} is even-by-even: every word is a codeword, so it detects and corrects nothing",
                self.m, self.n
            )]
        } else if self.m == 1 && self.n == 1 {
            vec!["alien:1x1 has no redundancy: it detects and corrects nothing".into()]
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_example_5_3() {
        let code = AlienCode::new(3, 3);
        let cw = code.encode(&BitVec::parse("11010").unwrap());
        assert_eq!(cw.to_string(), "001111001");
        let d = code.decode(&BitVec::parse("001011001").unwrap());
        assert_eq!(d.status, super::super::Status::Corrected);
        assert_eq!(d.errors, vec![3]); // row 1, column 0
        assert_eq!(d.codeword.to_string(), "001111001");
        assert_eq!(d.message.unwrap().to_string(), "11010");
    }

    #[test]
    fn parameters() {
        let c = AlienCode::new(9, 9);
        assert_eq!((c.n(), c.k(), c.d(), c.t()), (81, 65, 4, 1));
        assert_eq!(AlienCode::new(3, 3).d(), 3);
        assert_eq!(AlienCode::new(4, 5).k(), 17);
        assert_eq!(AlienCode::new(5, 4).k(), 17);
        assert_eq!(AlienCode::new(6, 1).d(), 6);
        assert_eq!(AlienCode::new(1, 7).d(), 7);
    }

    #[test]
    fn every_encoding_is_solvable_and_single_errors_corrected() {
        for m in 1..=6 {
            for n in 1..=6 {
                let code = AlienCode::new(m, n);
                for seed in 0..8u64 {
                    let msg = BitVec::from_bools(
                        &(0..code.k())
                            .map(|i| (seed.wrapping_mul(0x9E37_79B9) >> (i % 61)) & 1 == 1)
                            .collect::<Vec<_>>(),
                    );
                    let cw = code.encode(&msg);
                    assert!(alien::is_solvable(&code.board(&cw)), "{m}x{n}");
                    assert_eq!(code.extract(&cw), msg);
                    let d = code.decode(&cw);
                    assert_eq!(d.message.as_ref(), Some(&msg));
                    if code.t() >= 1 {
                        for e in 0..m * n {
                            let mut w = cw.clone();
                            w.flip(e);
                            let d = code.decode(&w);
                            assert_eq!(d.message.as_ref(), Some(&msg), "{m}x{n} error at {e}");
                            assert_eq!(d.errors, vec![e]);
                        }
                    }
                }
            }
        }
    }
}
