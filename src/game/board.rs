//! Two-state boards: an m x n grid of lights, row-major, 0-based.

use crate::error::{Error, Result};
use crate::gf2::BitVec;
use std::fmt;

/// An `m x n` grid of two-state lights, stored row-major (`cell (i, j)` is bit `i * n + j`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    rows: usize,
    cols: usize,
    bits: BitVec,
}

/// Appends a row of `0`/`1`/`.`/`#` and ASCII spaces to `bits` a word at a time and returns
/// its width, or leaves `bits` alone and returns `None` when the line holds anything else (the
/// caller then reads it character by character, reporting what it found).
fn push_ascii_row(bits: &mut BitVec, line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    if !bytes
        .iter()
        .all(|b| matches!(b, b'0' | b'1' | b'.' | b'#' | b' ' | b'\t' | b'\r'))
    {
        return None;
    }
    let mut word = 0u64;
    let mut fill = 0;
    let mut width = 0;
    let mut words = Vec::with_capacity(bytes.len() / 64 + 1);
    for &b in bytes {
        let bit = match b {
            b'1' | b'#' => 1,
            b'0' | b'.' => 0,
            _ => continue,
        };
        word |= bit << fill;
        fill += 1;
        width += 1;
        if fill == 64 {
            words.push(word);
            (word, fill) = (0, 0);
        }
    }
    if fill > 0 {
        words.push(word);
    }
    bits.extend(&BitVec::from_words(words, width));
    Some(width)
}

/// The fix for a digit that a board of `states` states cannot hold: `; use --states N` with the
/// least `N` that holds it, or nothing for a character that is not such a digit.
pub(crate) fn states_hint(c: char, states: u32) -> String {
    match c.to_digit(10) {
        Some(d) if d >= states => format!("; for a board with digit {d} pass --states {}", d + 1),
        _ => String::new(),
    }
}

impl Board {
    /// The all-off board.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Board {
            rows,
            cols,
            bits: BitVec::zeros(rows * cols),
        }
    }

    /// A board from row-major bits.
    ///
    /// # Errors
    /// [`Error::Length`] when `bits` does not have `rows * cols` bits.
    pub fn from_bits(rows: usize, cols: usize, bits: BitVec) -> Result<Self> {
        if bits.len() != rows * cols {
            return Err(Error::Length {
                expected: rows * cols,
                found: bits.len(),
            });
        }
        Ok(Board { rows, cols, bits })
    }

    /// A board from rows of `0`/`1` strings such as `["001", "111", "001"]`.
    pub fn from_rows(rows: &[&str]) -> Result<Self> {
        Self::parse(&rows.join("\n"))
    }

    /// Parses the CLI board format: one line per row, cells `0`/`1` or `.`/`#`; blank lines and
    /// spaces ignored. Every row must have the same length.
    pub fn parse(text: &str) -> Result<Self> {
        let mut bits = BitVec::zeros(0);
        let mut shape = RowShape::default();
        for (lineno, line) in text.lines().enumerate() {
            if let Some(width) = push_ascii_row(&mut bits, line) {
                shape.row(width, lineno)?;
                continue;
            }
            let mut width = 0;
            for (col, ch) in line.chars().enumerate() {
                let b = match ch {
                    '0' | '.' => false,
                    '1' | '#' => true,
                    c if c.is_whitespace() => continue,
                    c => {
                        return Err(Error::Board {
                            reason: format!(
                                "line {}, column {}: unexpected character {c:?} (expected 0, 1, . or #{})",
                                lineno + 1,
                                col + 1,
                                states_hint(c, 2)
                            ),
                        });
                    }
                };
                bits.push(b);
                width += 1;
            }
            shape.row(width, lineno)?;
        }
        let (rows, cols) = shape.finish()?;
        Ok(Board { rows, cols, bits })
    }

    /// Number of rows `m`.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns `n`.
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The row-major bits.
    #[inline]
    pub fn bits(&self) -> &BitVec {
        &self.bits
    }

    /// The row-major bits, mutably.
    #[inline]
    pub fn bits_mut(&mut self) -> &mut BitVec {
        &mut self.bits
    }

    /// Consumes the board, returning its row-major bits.
    pub fn into_bits(self) -> BitVec {
        self.bits
    }

    /// Cell `(i, j)`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> bool {
        self.bits.get(i * self.cols + j)
    }

    /// Sets cell `(i, j)`.
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, b: bool) {
        self.bits.set(i * self.cols + j, b)
    }

    /// Toggles cell `(i, j)`.
    #[inline]
    pub fn flip(&mut self, i: usize, j: usize) {
        self.bits.flip(i * self.cols + j)
    }

    /// Number of lit cells.
    pub fn weight(&self) -> usize {
        self.bits.weight()
    }

    /// The transposed board.
    pub fn transpose(&self) -> Board {
        let mut t = Board::zeros(self.cols, self.rows);
        for p in self.bits.ones_iter() {
            t.set(p % self.cols, p / self.cols, true);
        }
        t
    }
}

/// The row bookkeeping shared by the board parsers: blank lines are skipped, every other row
/// must be as wide as the first.
#[derive(Default)]
pub(crate) struct RowShape {
    rows: usize,
    cols: Option<usize>,
}

impl RowShape {
    /// Records a parsed line of `width` cells (0-based `lineno`); a blank line is skipped.
    pub(crate) fn row(&mut self, width: usize, lineno: usize) -> Result<()> {
        if width == 0 {
            return Ok(());
        }
        match self.cols {
            None => self.cols = Some(width),
            Some(c) if c != width => {
                return Err(Error::Board {
                    reason: format!("line {}: row has {width} cells, expected {c}", lineno + 1),
                });
            }
            _ => {}
        }
        self.rows += 1;
        Ok(())
    }

    /// `(rows, cols)`, or an error when no row was found.
    pub(crate) fn finish(self) -> Result<(usize, usize)> {
        match self.cols {
            Some(cols) => Ok((self.rows, cols)),
            None => Err(Error::Board {
                reason: "no rows found".into(),
            }),
        }
    }
}

impl fmt::Display for Board {
    /// One line per row of `0`/`1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..self.rows {
            for j in 0..self.cols {
                f.write_str(if self.get(i, j) { "1" } else { "0" })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board {}x{}\n{self}", self.rows, self.cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_formats() {
        let b = Board::parse("0 0 1\n\n.#.\n# # #\n").unwrap();
        assert_eq!((b.rows(), b.cols()), (3, 3));
        assert_eq!(b.to_string(), "001\n010\n111\n");
        assert!(Board::parse("01\n011").is_err());
        assert!(Board::parse("0x").is_err());
        let e = Board::parse("013").unwrap_err().to_string();
        assert!(e.contains("pass --states 4"), "{e}");
        let e = Board::parse("01x").unwrap_err().to_string();
        assert!(!e.contains("--states"), "{e}");
        assert!(Board::parse("\n \n").is_err());
        assert_eq!(b.transpose().to_string(), "001\n011\n101\n");
    }
}
