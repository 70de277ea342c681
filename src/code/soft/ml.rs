//! Exact maximum-likelihood soft decoding.
//!
//! On a memoryless channel with log-likelihood ratios `llr`, the most likely codeword maximises
//! `sum_i llr_i (1 - 2 c_i)`, that is, minimises `sum_{i : c_i = 1} llr_i`. Two exact searches:
//!
//! * the syndrome trellis (Wolf, 1978): the states after position `i` are the partial syndromes
//!   `sum_{j <= i} c_j h_j` (`h_j` the columns of the parity-check matrix), so `2^(n-k)` states;
//!   Viterbi keeps the cheapest path into every state and the codewords are the paths that end
//!   in state 0. Work `n 2^(n-k)`.
//! * the codebook: every one of the `2^k` codewords, visited in Gray-code order so that each
//!   step adds one generator row. Work `2^k` times a row weight.
//!
//! The decoder takes the smaller and refuses codes where even that exceeds [`MAX_ML_WORK`].

use super::{SoftDecoder, parity_check_matrix, unavailable};
use crate::code::BlockCode;
use crate::error::Result;
use crate::gf2::BitVec;

/// The most `n * 2^min(k, n - k)` a maximum-likelihood decoder is built for (2^24: about 16
/// million steps per codeword, a few milliseconds). `hamming:15` needs 240, `secded:72` 18 432,
/// `alien:9x9` 5.3 million.
pub const MAX_ML_WORK: u64 = 1 << 24;

/// A maximum-likelihood decoder.
#[derive(Debug)]
pub struct MlDecoder {
    n: usize,
    search: Search,
}

#[derive(Debug)]
enum Search {
    /// Column `j` of the parity-check matrix as a state mask; `2^bits` states.
    Trellis { cols: Vec<u64>, bits: usize },
    /// Generator rows (supports) of a Gray-code walk over the codebook.
    Codebook { rows: Vec<Vec<usize>> },
}

impl MlDecoder {
    /// The ML decoder of `code`.
    ///
    /// # Errors
    /// [`crate::Error::Limit`] when `n 2^min(k, n - k)` exceeds [`MAX_ML_WORK`].
    pub fn new(code: &dyn BlockCode) -> Result<Self> {
        let (n, k) = (code.n(), code.k());
        let r = n - k;
        let bits = k.min(r);
        let work = if bits >= 40 {
            u64::MAX
        } else {
            (n as u64).saturating_mul(1 << bits)
        };
        if work > MAX_ML_WORK {
            return Err(unavailable(
                code,
                "ml",
                format!(
                    "expected n 2^min(k, n - k) <= 2^24 steps per codeword, found {n} * 2^{bits}"
                ),
            ));
        }
        let search = if r <= k {
            let h = parity_check_matrix(code);
            let cols = (0..n)
                .map(|j| (0..r).fold(0u64, |m, q| m | (u64::from(h.get(q, j)) << q)))
                .collect();
            Search::Trellis { cols, bits: r }
        } else {
            let rows = (0..k)
                .map(|i| code.encode(&BitVec::unit(k, i)).ones_iter().collect())
                .collect();
            Search::Codebook { rows }
        };
        Ok(MlDecoder { n, search })
    }
}

impl SoftDecoder for MlDecoder {
    fn name(&self) -> &'static str {
        match self.search {
            Search::Trellis { .. } => "viterbi",
            Search::Codebook { .. } => "codebook",
        }
    }

    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool {
        assert_eq!(llr.len(), self.n, "one LLR per codeword bit");
        *out = match &self.search {
            Search::Trellis { cols, bits } => viterbi(llr, cols, *bits),
            Search::Codebook { rows } => codebook(llr, rows, self.n),
        };
        false
    }
}

/// The cheapest path of the syndrome trellis that ends in state 0. The add-compare-select step
/// is branchless (the comparisons are coin flips for the branch predictor) and the survivors'
/// last bits are kept as bit masks, one bit per state.
fn viterbi(llr: &[f32], cols: &[u64], bits: usize) -> BitVec {
    let states = 1usize << bits;
    let words = states.div_ceil(64);
    let n = llr.len();
    let mut cost = vec![f32::INFINITY; states];
    let mut next = vec![0f32; states];
    cost[0] = 0.0;
    // Bit s of choice[i]: the cheapest path into state s after position i set c_i = 1.
    let mut choice = vec![0u64; n * words];
    for (i, (&l, &h)) in llr.iter().zip(cols).enumerate() {
        let h = h as usize;
        let row = &mut choice[i * words..(i + 1) * words];
        for (w, mask) in row.iter_mut().enumerate() {
            let mut m = 0u64;
            for b in 0..64.min(states) {
                let s = w * 64 + b;
                let stay = cost[s];
                let flip = cost[s ^ h] + l;
                let take = flip < stay;
                next[s] = if take { flip } else { stay };
                m |= u64::from(take) << b;
            }
            *mask = m;
        }
        std::mem::swap(&mut cost, &mut next);
    }
    let mut out = BitVec::zeros(n);
    let mut s = 0usize;
    for i in (0..n).rev() {
        if (choice[i * words + s / 64] >> (s % 64)) & 1 == 1 {
            out.set(i, true);
            s ^= cols[i] as usize;
        }
    }
    debug_assert_eq!(s, 0, "the traceback starts at the zero syndrome");
    out
}

/// The cheapest codeword, by a Gray-code walk over the `2^k` codewords.
fn codebook(llr: &[f32], rows: &[Vec<usize>], n: usize) -> BitVec {
    let mut word = vec![false; n];
    let (mut cost, mut best, mut best_step) = (0f64, 0f64, 0u64);
    for step in 1..(1u64 << rows.len()) {
        // Gray code: step `step` flips generator row `trailing_zeros(step)`.
        for &i in &rows[step.trailing_zeros() as usize] {
            word[i] = !word[i];
            let l = f64::from(llr[i]);
            cost += if word[i] { l } else { -l };
        }
        if cost < best {
            best = cost;
            best_step = step;
        }
    }
    // Rebuild the best word: Gray code g = s ^ (s >> 1) says which rows it is the sum of.
    let gray = best_step ^ (best_step >> 1);
    let mut out = BitVec::zeros(n);
    for (r, row) in rows.iter().enumerate() {
        if (gray >> r) & 1 == 1 {
            for &i in row {
                out.flip(i);
            }
        }
    }
    out
}
