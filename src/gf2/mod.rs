//! Linear algebra over GF(2): packed bit vectors and dense bit matrices.
//!
//! Row reduction with the pivot record, rank, solving with a certificate of inconsistency,
//! kernel bases, products and transposes. The heavy routines (row reduction and the product) use
//! the Method of Four Russians; [`naive`] is a slow, obviously correct reference that every fast
//! routine is tested against.

mod backsub;
mod bitvec;
mod blocked;
mod huge;
mod matrix;
pub mod naive;
mod panel;
mod product;
mod reduce;
mod rng;
mod russians;
mod tiled;
mod wide;

pub use bitvec::{BitVec, words_for};
pub use matrix::{BitMatrix, extract_bits, extract_xor_bits};
pub use reduce::Echelon;
pub use rng::SplitMix64;
