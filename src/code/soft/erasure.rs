//! Maximum-likelihood erasure decoding: on the binary erasure channel every codeword that
//! agrees with the bits received is equally likely, so the decoder solves the parity checks
//! `H_E x = H_R y_R` for the erased bits `x` (`E` the erased positions, `R` the others). A
//! unique solution is the codeword sent; several (when the columns of `H` at `E` are dependent)
//! leave the decoder undecided, and it reports the frame as detected with one of them.

use super::{SoftDecoder, hard_decision, parity_check_matrix};
use crate::code::BlockCode;
use crate::gf2::{BitMatrix, BitVec};

/// The erasure decoder of a code.
#[derive(Debug)]
pub struct ErasureDecoder {
    /// The parity-check matrix.
    h: BitMatrix,
    /// Its columns.
    cols: Vec<BitVec>,
}

impl ErasureDecoder {
    /// The erasure decoder of `code`.
    pub fn new(code: &dyn BlockCode) -> Self {
        let h = parity_check_matrix(code);
        let cols = (0..code.n()).map(|j| h.col_vec(j)).collect();
        ErasureDecoder { h, cols }
    }
}

impl SoftDecoder for ErasureDecoder {
    fn name(&self) -> &'static str {
        "gf2_solve"
    }

    /// Erasures are the bits with `llr == 0`; the others are taken at their hard decision.
    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool {
        assert_eq!(llr.len(), self.cols.len(), "one LLR per codeword bit");
        let mut word = hard_decision(llr);
        let erased: Vec<usize> = (0..llr.len()).filter(|&i| llr[i] == 0.0).collect();
        if erased.is_empty() {
            *out = word;
            return false;
        }
        // Erased bits read as 0, so H y is the syndrome of the known bits alone.
        for &i in &erased {
            word.set(i, false);
        }
        let rhs = self.h.mul_vec(&word);
        let mut a = BitMatrix::zeros(self.h.rows(), erased.len());
        for (c, &i) in erased.iter().enumerate() {
            for q in self.cols[i].ones_iter() {
                a.set(q, c, true);
            }
        }
        let e = a.echelon();
        let unique = e.rank() == erased.len();
        if let Ok(x) = e.solve(&rhs) {
            for (c, &i) in erased.iter().enumerate() {
                word.set(i, x.get(c));
            }
        }
        *out = word;
        !unique
    }
}
