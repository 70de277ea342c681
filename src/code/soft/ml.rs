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
//!
//! Before searching, it asks Chase-II (on its syndrome table, when the code has one) for a word
//! and keeps it without a search when the sufficient condition of [`super::certify`] proves it
//! ML: at moderate and high SNR nearly every frame, so the search runs only on the noisy ones.
//! The answer is the ML word either way (a test compares both paths on the same noise).

use super::certify::is_ml;
use super::trellis::SpanTrellis;
use super::{ChaseDecoder, SoftDecoder, parity_check_matrix, unavailable};
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
    d: usize,
    search: Search,
    /// Chase-II on the syndrome table: the candidate tried before the search.
    first: Option<ChaseDecoder>,
}

/// The least reliable positions of the Chase-II candidate.
const FIRST_P: usize = 4;

#[derive(Debug)]
enum Search {
    /// Column `j` of the parity-check matrix as a state mask; `2^bits` states.
    Trellis { cols: Vec<u64>, bits: usize },
    /// The same trellis with only its live states, when that has fewer.
    Span(SpanTrellis),
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
            let rows: Vec<u128> = (0..r)
                .map(|q| (0..n).fold(0u128, |m, j| m | (u128::from(h.get(q, j)) << j)))
                .collect();
            match SpanTrellis::new(rows, n) {
                Some(span) if span.widest() < 1 << r => Search::Span(span),
                _ => Search::Trellis { cols, bits: r },
            }
        } else {
            let rows = (0..k)
                .map(|i| code.encode(&BitVec::unit(k, i)).ones_iter().collect())
                .collect();
            Search::Codebook { rows }
        };
        let first = ChaseDecoder::new(code, FIRST_P.min(n))?;
        Ok(MlDecoder {
            n,
            d: code.d(),
            search,
            first: first.has_table().then_some(first),
        })
    }

    /// The same decoder without the certified shortcut (every frame searched): the reference
    /// the shortcut is tested against.
    pub fn without_shortcut(mut self) -> Self {
        self.first = None;
        self
    }
}

impl SoftDecoder for MlDecoder {
    fn name(&self) -> &'static str {
        match self.search {
            Search::Trellis { .. } | Search::Span(_) => "viterbi",
            Search::Codebook { .. } => "codebook",
        }
    }

    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool {
        assert_eq!(llr.len(), self.n, "one LLR per codeword bit");
        // A word from Chase-II, kept without a search when proven ML (not worth it before a
        // trellis of at most 64 states, cheaper than Chase itself).
        let small =
            matches!(self.search, Search::Trellis { bits, .. } if bits <= 6 && self.n <= 128);
        if !small
            && let Some(cw) = self.first.as_ref().and_then(|c| c.table_word(llr))
            && is_ml(llr, cw, self.d)
        {
            *out = BitVec::zeros(self.n);
            for (i, w) in out.words_mut().iter_mut().enumerate() {
                *w = (cw >> (64 * i)) as u64;
            }
            return false;
        }
        *out = match &self.search {
            Search::Trellis { cols, bits } if *bits <= 6 && self.n <= 128 => {
                viterbi_small(llr, cols, 1 << bits)
            }
            Search::Trellis { cols, bits } => viterbi(llr, cols, *bits),
            Search::Span(span) => {
                let cw = span.decode(llr);
                let mut out = BitVec::zeros(self.n);
                for (i, w) in out.words_mut().iter_mut().enumerate() {
                    *w = (cw >> (64 * i)) as u64;
                }
                out
            }
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

/// [`viterbi`] for at most 64 states and 128 positions, on the stack: the survivors' last bits
/// are one `u64` per position.
fn viterbi_small(llr: &[f32], cols: &[u64], states: usize) -> BitVec {
    let n = llr.len();
    // Two cost rows used in turn (no copy between positions).
    let mut rows = [[f32::INFINITY; 64]; 2];
    rows[0][0] = 0.0;
    let mut choice = [0u64; 128];
    for (i, (&l, &h)) in llr.iter().zip(cols).enumerate() {
        let h = h as usize;
        let (a, b) = rows.split_at_mut(1);
        let (cost, next) = if i % 2 == 0 {
            (&a[0], &mut b[0])
        } else {
            (&b[0], &mut a[0])
        };
        let mut m = 0u64;
        for s in 0..states {
            let stay = cost[s];
            let flip = cost[s ^ h] + l;
            let take = flip < stay;
            next[s] = if take { flip } else { stay };
            m |= u64::from(take) << s;
        }
        choice[i] = m;
    }
    let mut out = BitVec::zeros(n);
    let mut s = 0usize;
    for i in (0..n).rev() {
        if (choice[i] >> s) & 1 == 1 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;

    fn plain_trellis(code: &dyn BlockCode) -> Search {
        let (n, r) = (code.n(), code.n() - code.k());
        let h = parity_check_matrix(code);
        let cols = (0..n)
            .map(|j| (0..r).fold(0u64, |m, q| m | (u64::from(h.get(q, j)) << q)))
            .collect();
        Search::Trellis { cols, bits: r }
    }

    #[test]
    fn line_codes_get_a_narrow_span_trellis() {
        for (spec, widest) in [("alien:9x9", 1 << 10), ("product:9x9", 1 << 10)] {
            let code = from_spec_str(spec).unwrap();
            let ml = MlDecoder::new(code.as_ref()).unwrap();
            let Search::Span(span) = &ml.search else {
                panic!("{spec}: no span trellis");
            };
            assert!(span.widest() <= widest, "{spec}: {}", span.widest());
        }
    }
    use crate::sim::Channel;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_shortcut_and_both_trellises_give_the_searched_words() {
        // Same noise: the certified shortcut, the small trellis and the general one agree (or
        // tie in likelihood), at SNRs where the shortcut is taken on some frames and not others.
        for spec in [
            "hamming:15",
            "secded:16",
            "alien:5x5",
            "product:4x5",
            "secded:72",
        ] {
            let code = from_spec_str(spec).unwrap();
            let n = code.n();
            let fast = MlDecoder::new(code.as_ref()).unwrap();
            assert!(fast.first.is_some(), "{spec}");
            let slow = MlDecoder::new(code.as_ref()).unwrap().without_shortcut();
            // The plain syndrome trellis over all 2^(n-k) states, the reference of the span
            // trellis.
            let full = MlDecoder {
                search: plain_trellis(code.as_ref()),
                ..MlDecoder::new(code.as_ref()).unwrap().without_shortcut()
            };
            let mut rng = ChaCha8Rng::seed_from_u64(4);
            let (mut certified, mut searched) = (0, 0);
            for esn0 in [0.0, 2.0, 4.0, 6.0] {
                let mut agree = Vec::new();
                Channel::Awgn { esn0_db: esn0 }
                    .sampler()
                    .sample_agreement(&mut rng, 64, n, &mut agree);
                for llr in agree.chunks_exact(n) {
                    let (mut a, mut b) = (BitVec::default(), BitVec::default());
                    fast.decode(llr, &mut a);
                    slow.decode(llr, &mut b);
                    let (ca, cb) = (
                        super::super::correlation(llr, &a),
                        super::super::correlation(llr, &b),
                    );
                    assert!(
                        a == b || (ca - cb).abs() < 1e-4 * cb.abs().max(1.0),
                        "{spec}"
                    );
                    let mut plain = BitVec::default();
                    full.decode(llr, &mut plain);
                    let cp = super::super::correlation(llr, &plain);
                    assert!(
                        plain == b || (cp - cb).abs() < 1e-4 * cb.abs().max(1.0),
                        "{spec}"
                    );
                    let cw = fast.first.as_ref().unwrap().table_word(llr);
                    if cw.is_some_and(|c| is_ml(llr, c, fast.d)) {
                        certified += 1;
                    } else {
                        searched += 1;
                    }
                }
            }
            assert!(
                certified > 0 && searched > 0,
                "{spec}: {certified} / {searched}"
            );
        }
    }
}
