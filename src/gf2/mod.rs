//! Linear algebra over GF(2): packed bit vectors and dense bit matrices.
//!
//! Row reduction with the pivot record, rank, solving with a certificate of inconsistency,
//! kernel bases, products and transposes.

mod bitvec;
mod matrix;

pub use bitvec::{BitVec, words_for};
pub use matrix::{BitMatrix, Echelon};
