//! Slow, obviously correct decoders: every codeword is encoded from its message with
//! [`BlockCode::encode`] and compared. The oracle of the fast decoders' tests; `k` up to
//! [`MAX_REFERENCE_K`].

use super::correlation;
use crate::code::BlockCode;
use crate::gf2::BitVec;

/// The largest `k` the exhaustive searches take (a million codewords).
pub const MAX_REFERENCE_K: usize = 20;

fn codewords(code: &dyn BlockCode) -> impl Iterator<Item = BitVec> + '_ {
    let k = code.k();
    assert!(
        k <= MAX_REFERENCE_K,
        "exhaustive search over 2^{k} codewords"
    );
    (0..1u64 << k).map(move |m| {
        let bits: Vec<bool> = (0..k).map(|i| (m >> i) & 1 == 1).collect();
        code.encode(&BitVec::from_bools(&bits))
    })
}

/// The codeword with the largest correlation `sum_i llr_i (1 - 2 c_i)` (the first on a tie).
///
/// # Panics
/// If `k > MAX_REFERENCE_K`.
pub fn exhaustive_ml(code: &dyn BlockCode, llr: &[f32]) -> BitVec {
    let mut best: Option<(f64, BitVec)> = None;
    for cw in codewords(code) {
        let m = correlation(llr, &cw);
        if best.as_ref().is_none_or(|(b, _)| m > *b) {
            best = Some((m, cw));
        }
    }
    best.expect("a code has codewords").1
}

/// The codewords that agree with every bit not erased (`llr == 0` is an erasure, the others
/// are read at their sign).
///
/// # Panics
/// If `k > MAX_REFERENCE_K`.
pub fn exhaustive_erasure(code: &dyn BlockCode, llr: &[f32]) -> Vec<BitVec> {
    codewords(code)
        .filter(|cw| {
            llr.iter()
                .enumerate()
                .all(|(i, &l)| l == 0.0 || cw.get(i) == (l < 0.0))
        })
        .collect()
}
