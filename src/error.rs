//! The crate's error type.
//!
//! Every variant carries the numbers that explain it; messages are lowercase and say what was
//! expected and what was found. Truncation maps to [`std::io::ErrorKind::UnexpectedEof`],
//! corruption to [`std::io::ErrorKind::InvalidData`], bad arguments to
//! [`std::io::ErrorKind::InvalidInput`].

use std::io;

/// Everything that can go wrong in tilecode's library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A code or game specification could not be parsed or names unsupported parameters.
    #[error("bad spec `{spec}`: {reason}")]
    Spec {
        /// The specification as given.
        spec: String,
        /// What was wrong with it.
        reason: String,
    },
    /// A bit string had the wrong length.
    #[error("expected {expected} bits, found {found}")]
    Length {
        /// The number of bits expected.
        expected: usize,
        /// The number of bits found.
        found: usize,
    },
    /// A bit string contained a character other than `0` and `1`.
    #[error("bad character {ch:?} at position {position} (expected 0 or 1)")]
    BadBit {
        /// The offending character.
        ch: char,
        /// Its 0-based position in the input.
        position: usize,
    },
    /// A board could not be parsed.
    #[error("bad board: {reason}")]
    Board {
        /// What was wrong with it.
        reason: String,
    },
    /// A computation would exceed a documented limit.
    #[error("{what} is out of reach: {reason}")]
    Limit {
        /// What was asked for.
        what: String,
        /// The limit and why.
        reason: String,
    },
    /// The input is not a tilecode stream (bad magic).
    #[error("not a tilecode stream: {reason}")]
    NotTilecode {
        /// What was found instead.
        reason: String,
    },
    /// The header of a tilecode stream is damaged beyond repair or names unsupported parameters.
    #[error("bad header: {reason}")]
    BadHeader {
        /// What was wrong with it.
        reason: String,
    },
    /// The stream ended early.
    #[error("truncated stream: {reason}")]
    Truncated {
        /// Where and how much was missing.
        reason: String,
    },
    /// Data is damaged beyond what the code corrects.
    #[error("corrupt stream: {reason}")]
    Corrupt {
        /// What was found.
        reason: String,
    },
    /// A checksum did not match.
    #[error("checksum mismatch in {what}: expected {expected:08x}, got {got:08x}")]
    Checksum {
        /// What was checked.
        what: String,
        /// The stored checksum.
        expected: u32,
        /// The checksum of the data as decoded.
        got: u32,
    },
    /// Simulation results that cannot be read back or merged.
    #[error("cannot merge runs: {reason}")]
    Merge {
        /// What did not match or could not be read.
        reason: String,
    },
    /// An I/O error from the underlying reader or writer.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Shorthand for a [`Error::Spec`].
    pub fn spec(spec: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Spec {
            spec: spec.into(),
            reason: reason.into(),
        }
    }

    /// The [`io::ErrorKind`] this error maps to.
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Truncated { .. } => io::ErrorKind::UnexpectedEof,
            Error::NotTilecode { .. }
            | Error::BadHeader { .. }
            | Error::Corrupt { .. }
            | Error::Checksum { .. } => io::ErrorKind::InvalidData,
            Error::Io(e) => e.kind(),
            _ => io::ErrorKind::InvalidInput,
        }
    }
}

impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        match e {
            Error::Io(e) => e,
            other => io::Error::new(other.kind(), other),
        }
    }
}
