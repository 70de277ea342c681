//! Code specifications: `alien:MxN`, `secded:N`, `hamming:N`, `repetition:N`, `parity:N`,
//! `product:MxN`.

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// The largest codeword length accepted by any spec.
pub const MAX_N: usize = 1 << 24;

/// A code specification, as written on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Spec {
    /// The two-state Alien Tiles code of an `rows x cols` board.
    Alien {
        /// Number of rows `m`.
        rows: usize,
        /// Number of columns `n`.
        cols: usize,
    },
    /// The shortened extended Hamming code of length `n` (d = 4).
    Secded(usize),
    /// The shortened Hamming code of length `n` (d = 3).
    Hamming(usize),
    /// The repetition code of length `n`.
    Repetition(usize),
    /// The single-parity-check code of length `n` (d = 2).
    Parity(usize),
    /// The single-parity-check product code of an `rows x cols` board,
    /// `[mn, (m - 1)(n - 1), 4]`: every row and column of even parity.
    Product {
        /// Number of rows `m`.
        rows: usize,
        /// Number of columns `n`.
        cols: usize,
    },
}

/// The least `r` with `2^r >= x`.
pub(crate) fn ceil_log2(x: usize) -> usize {
    let mut r = 0;
    while (1usize << r) < x {
        r += 1;
    }
    r
}

impl Spec {
    /// The codeword length.
    pub fn n(&self) -> usize {
        match *self {
            Spec::Alien { rows, cols } | Spec::Product { rows, cols } => rows * cols,
            Spec::Secded(n) | Spec::Hamming(n) | Spec::Repetition(n) | Spec::Parity(n) => n,
        }
    }

    fn check(self, text: &str) -> Result<Self> {
        self.check_named(|| text.to_string())
    }

    /// The spec if it names a code within the limits (as parsing its text checks), built
    /// from its fields: the text is written only for an error.
    pub fn checked(self) -> Result<Self> {
        self.check_named(|| self.to_string())
    }

    fn check_named(self, text: impl Fn() -> String) -> Result<Self> {
        let bad = |reason: String| Err(Error::spec(text(), reason));
        let n = self.n();
        if n == 0 {
            return bad("the code length must be at least 1".into());
        }
        if n > MAX_N {
            return bad(format!("length {n} exceeds the limit of {MAX_N} bits"));
        }
        match self {
            Spec::Secded(n) if n < 4 => {
                bad(format!("secded needs n >= 4 (k = n - r - 1 >= 1), got {n}"))
            }
            Spec::Hamming(n) if n < 3 => {
                bad(format!("hamming needs n >= 3 (k = n - r >= 1), got {n}"))
            }
            Spec::Parity(n) if n < 2 => bad(format!("parity needs n >= 2, got {n}")),
            Spec::Product { rows, cols } if rows < 2 || cols < 2 => bad(format!(
                "product needs at least 2 rows and 2 columns (k = (m - 1)(n - 1) >= 1), got {rows}x{cols}"
            )),
            _ => Ok(self),
        }
    }
}

fn parse_usize(text: &str, what: &str, full: &str) -> Result<usize> {
    text.trim()
        .parse::<usize>()
        .map_err(|_| Error::spec(full, format!("{what} `{text}` is not a positive integer")))
}

/// Parses `MxN` (also `MXN` or `M×N`) into `(M, N)`.
pub fn parse_dims(text: &str, full: &str) -> Result<(usize, usize)> {
    let norm = text.replace(['X', '×'], "x");
    let Some((a, b)) = norm.split_once('x') else {
        return Err(Error::spec(
            full,
            format!("expected dimensions MxN, found `{text}`"),
        ));
    };
    Ok((
        parse_usize(a, "row count", full)?,
        parse_usize(b, "column count", full)?,
    ))
}

impl FromStr for Spec {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let Some((family, arg)) = t.split_once(':') else {
            return Err(Error::spec(
                s,
                "expected FAMILY:PARAMS, one of alien:MxN, secded:N, hamming:N, repetition:N, parity:N, product:MxN",
            ));
        };
        let spec = match family.to_ascii_lowercase().as_str() {
            "alien" => {
                let (rows, cols) = parse_dims(arg, s)?;
                if rows == 0 || cols == 0 {
                    return Err(Error::spec(s, "board dimensions must be at least 1"));
                }
                Spec::Alien { rows, cols }
            }
            "secded" => Spec::Secded(parse_usize(arg, "length", s)?),
            "hamming" => Spec::Hamming(parse_usize(arg, "length", s)?),
            "repetition" | "rep" => Spec::Repetition(parse_usize(arg, "length", s)?),
            "parity" => Spec::Parity(parse_usize(arg, "length", s)?),
            "product" => {
                let (rows, cols) = parse_dims(arg, s)?;
                Spec::Product { rows, cols }
            }
            other => {
                return Err(Error::spec(
                    s,
                    format!(
                        "unknown code family `{other}` (expected alien, secded, hamming, repetition, parity or product)"
                    ),
                ));
            }
        };
        spec.check(s)
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Spec::Alien { rows, cols } => write!(f, "alien:{rows}x{cols}"),
            Spec::Secded(n) => write!(f, "secded:{n}"),
            Spec::Hamming(n) => write!(f, "hamming:{n}"),
            Spec::Repetition(n) => write!(f, "repetition:{n}"),
            Spec::Parity(n) => write!(f, "parity:{n}"),
            Spec::Product { rows, cols } => write!(f, "product:{rows}x{cols}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display() {
        for s in [
            "alien:9x9",
            "secded:72",
            "hamming:7",
            "repetition:3",
            "parity:9",
            "alien:1x5",
            "product:9x9",
            "product:2x7",
        ] {
            assert_eq!(s.parse::<Spec>().unwrap().to_string(), s);
        }
        assert_eq!(
            "ALIEN:3X5".parse::<Spec>().unwrap(),
            Spec::Alien { rows: 3, cols: 5 }
        );
        for bad in [
            "alien",
            "alien:3",
            "alien:0x3",
            "secded:3",
            "hamming:2",
            "foo:3",
            "parity:1",
            "secded:-1",
            "product:1x5",
            "product:9",
            "product:0x0",
        ] {
            assert!(bad.parse::<Spec>().is_err(), "{bad}");
        }
    }
}
