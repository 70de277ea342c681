//! The simulator's view of the bit-sliced layer: 64 codewords at once, one `u64` word per
//! row, lane `l` of every word belonging to codeword `l`.
//!
//! There is one kernel layer, the stream's: the words are in its row order (the message
//! positions in message order, then the other positions in increasing order;
//! [`SlicedCode::pos_of_row`]), the parity and syndrome words come from
//! [`slice::kernel::Kernel`](crate::slice::kernel::Kernel) at one word per row (`B = 1`,
//! and its AVX2 group kernels where it has them), and every lane with a nonzero syndrome is
//! decided by [`slice::locate::Locator`](crate::slice::locate::Locator), as in the codec,
//! with a memo per syndrome: what [`BlockCode::decode`] says for that lane. Tested lane by
//! lane against the per-codeword [`BlockCode`] path.

use crate::code::{BlockCode, Spec};
#[cfg(target_endian = "little")]
use crate::slice::kernel::word_blocks;
use crate::slice::kernel::{Fast64, Kernel, V, word_bytes};
use crate::slice::locate::{Locator, gather_key};

/// The lanes set in a mask, lowest first.
#[inline]
fn lanes(mut mask: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let l = mask.trailing_zeros();
            mask &= mask - 1;
            Some(l)
        }
    })
}

/// Reusable buffers of the kernels (one per worker: see [`crate::sim::Scratch`]).
#[derive(Clone, Debug, Default)]
pub struct KernelScratch {
    /// Parity words as the stream kernel writes them (big-endian targets).
    #[cfg(not(target_endian = "little"))]
    out: Vec<V<1>>,
    /// The stream kernel's own scratch.
    kernel: Vec<V<1>>,
    /// Syndrome words.
    syn: Vec<u64>,
}

/// A code's bit-sliced kernel and per-lane decisions.
#[derive(Debug)]
pub struct SlicedCode {
    spec: Spec,
    n: usize,
    k: usize,
    positions: Vec<usize>,
    kernel: Kernel,
    /// The kernel's AVX2 group path for single-word rows, when it has one on this CPU.
    fast: Option<Fast64>,
    locator: Locator,
}

impl SlicedCode {
    /// The kernel for a code.
    pub fn new(code: &dyn BlockCode) -> Self {
        let kernel = Kernel::for_code(code);
        SlicedCode {
            spec: code.spec(),
            n: code.n(),
            k: code.k(),
            positions: code.message_positions().to_vec(),
            fast: kernel.fast64(),
            locator: Locator::new(code, &kernel, true).with_memo(),
            kernel,
        }
    }

    /// The code's spec.
    pub fn spec(&self) -> Spec {
        self.spec
    }

    /// Codeword length: the number of words in a slice.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Message length: the first `k` words of a slice are the message, in message order.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Where the message bits sit in a codeword (as [`BlockCode::message_positions`]).
    pub fn message_positions(&self) -> &[usize] {
        &self.positions
    }

    /// The codeword position of each word of a slice.
    pub fn pos_of_row(&self) -> &[u32] {
        self.locator.pos_of_row()
    }

    /// The word of a slice holding each codeword position.
    pub fn row_of_pos(&self) -> &[u32] {
        self.locator.row_of_pos()
    }

    /// Which kernel runs: `alien`, `hamming`, `secded`, `product`, `repetition` or `parity`.
    pub fn kernel_name(&self) -> &'static str {
        match self.kernel {
            Kernel::Empty
            | Kernel::AlienOddOdd { .. }
            | Kernel::AlienEvenOdd { .. }
            | Kernel::AlienOddEven { .. } => "alien",
            Kernel::Hamming { overall: false, .. } => "hamming",
            Kernel::Hamming { overall: true, .. } => "secded",
            Kernel::Repetition { .. } => "repetition",
            Kernel::Parity { .. } => "parity",
            Kernel::Product { .. } => "product",
        }
    }

    /// The parity words of the data words `data` (`k`) into `par` (`n - k`).
    #[inline]
    fn parity(&self, data: &[u64], par: &mut [u64], s: &mut KernelScratch) {
        if par.is_empty() {
            return;
        }
        let rows = word_bytes(data);
        if let Some(fast) = &self.fast
            && self.kernel.group64::<false>(fast, rows, &mut [], par)
        {
            return;
        }
        // The portable kernel: with one word per row it beats the AVX2 build (the codec's
        // measurement, docs/benchmarks.md).
        s.kernel.resize(self.kernel.scratch_len(), V::zero());
        #[cfg(target_endian = "little")]
        self.kernel
            .parity(None, rows, word_blocks(par), &mut s.kernel);
        #[cfg(not(target_endian = "little"))]
        {
            s.out.resize(par.len(), V::zero());
            self.kernel.parity(None, rows, &mut s.out, &mut s.kernel);
            for (p, v) in par.iter_mut().zip(&s.out) {
                *p = u64::from_le(v.0[0]);
            }
        }
    }

    /// Encodes 64 codewords in place: `words` has `n` words, the first `k` the message words;
    /// the other `n - k` (the parity words) are overwritten.
    ///
    /// # Panics
    /// If `words.len() != n`.
    pub fn encode(&self, words: &mut [u64]) {
        self.encode_in(words, &mut KernelScratch::default());
    }

    /// [`SlicedCode::encode`] with the caller's buffers.
    ///
    /// # Panics
    /// If `words.len() != n`.
    #[inline]
    pub fn encode_in(&self, words: &mut [u64], s: &mut KernelScratch) {
        assert_eq!(words.len(), self.n, "a slice has one word per position");
        let (data, par) = words.split_at_mut(self.k);
        self.parity(data, par, s);
    }

    /// Decodes 64 received words in place. Lanes whose errors are corrected are fixed; lanes
    /// whose errors are detected are left as received and returned as a mask.
    ///
    /// # Panics
    /// If `words.len() != n`.
    pub fn decode(&self, words: &mut [u64]) -> u64 {
        self.decode_in(words, &mut KernelScratch::default())
    }

    /// [`SlicedCode::decode`] with the caller's buffers.
    ///
    /// # Panics
    /// If `words.len() != n`.
    #[inline]
    pub fn decode_in(&self, words: &mut [u64], s: &mut KernelScratch) -> u64 {
        assert_eq!(words.len(), self.n, "a slice has one word per position");
        let mut syn = std::mem::take(&mut s.syn);
        syn.resize(self.n - self.k, 0);
        let (data, par) = words.split_at(self.k);
        self.parity(data, &mut syn, s);
        let mut nz = 0;
        for (x, &p) in syn.iter_mut().zip(par) {
            *x ^= p;
            nz |= *x;
        }
        let det = if nz == 0 {
            0
        } else if self.locator.detects_all() {
            nz
        } else {
            self.fix(words, &syn, nz)
        };
        s.syn = syn;
        det
    }

    /// The lanes of `nz`, each decided by the locator from its syndrome bits in `syn`.
    #[inline(never)]
    fn fix(&self, words: &mut [u64], syn: &[u64], nz: u64) -> u64 {
        let keyed = self.locator.wants_key();
        let mut det = 0;
        for l in lanes(nz) {
            let key = if keyed {
                gather_key(syn.iter().copied(), l)
            } else {
                0
            };
            let fix = self.locator.fix_lane(key, |row| (words[row] >> l) & 1 == 1);
            if !fix.apply(|row| words[row] ^= 1 << l) {
                det |= 1 << l;
            }
        }
        det
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::{Status, from_spec_str};
    use crate::gf2::BitVec;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn bit(w: u64, lane: u32) -> bool {
        (w >> lane) & 1 == 1
    }

    /// Lane `l` of a slice (in the kernel's row order) as a codeword.
    fn lane_word(kernel: &SlicedCode, words: &[u64], l: u32) -> BitVec {
        let mut v = BitVec::zeros(words.len());
        for (&w, &p) in words.iter().zip(kernel.pos_of_row()) {
            v.set(p as usize, bit(w, l));
        }
        v
    }

    /// Random message words, encoded.
    fn encoded(kernel: &SlicedCode, rng: &mut ChaCha8Rng) -> Vec<u64> {
        let mut w = vec![0u64; kernel.n()];
        for x in &mut w[..kernel.k()] {
            *x = rng.r#gen();
        }
        kernel.encode(&mut w);
        w
    }

    /// Decodes `received` with the kernel and checks every lane against `BlockCode::decode`.
    fn check_decode(code: &dyn BlockCode, kernel: &SlicedCode, received: &[u64], what: &str) {
        let mut w = received.to_vec();
        let det = kernel.decode(&mut w);
        for l in 0..64u32 {
            let d = code.decode(&lane_word(kernel, received, l));
            let spec = code.spec();
            assert_eq!(
                d.status == Status::Detected,
                bit(det, l),
                "{spec} lane {l} {what}"
            );
            assert_eq!(
                lane_word(kernel, &w, l),
                d.codeword,
                "{spec} lane {l} {what}"
            );
        }
    }

    /// Checks a kernel against the per-codeword path on random messages: lane `l` gets
    /// `l % (round + 2)` random errors (some repeated positions cancel), and in the last
    /// rounds exactly `l % 4` distinct ones (weight 0 to 3).
    fn check(code: &dyn BlockCode, kernel: &SlicedCode, seed: u64) {
        let n = code.n();
        assert_eq!(kernel.message_positions(), code.message_positions());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for round in 0..8 {
            let mut w = encoded(kernel, &mut rng);
            for l in 0..64 {
                let cw = lane_word(kernel, &w, l);
                let msg = code.extract(&cw);
                assert_eq!(cw, code.encode(&msg), "{}", code.spec());
            }
            for l in 0..64u32 {
                if round < 6 {
                    for _ in 0..(l as usize % (round + 2)) {
                        w[rng.gen_range(0..n)] ^= 1 << l;
                    }
                } else {
                    let mut at: Vec<usize> = (0..n).collect();
                    for i in 0..(l as usize % 4).min(n) {
                        let j = rng.gen_range(i..n);
                        at.swap(i, j);
                        w[at[i]] ^= 1 << l;
                    }
                }
            }
            // Twice: the second time the memo answers.
            check_decode(code, kernel, &w, "first");
            check_decode(code, kernel, &w, "memo");
        }
    }

    const SPECS: [&str; 35] = [
        "alien:3x3",
        "alien:5x5",
        "alien:9x9",
        "alien:3x7",
        "alien:7x3",
        "alien:4x5",
        "alien:5x4",
        "alien:2x3",
        "alien:3x2",
        "alien:4x4",
        "alien:1x5",
        "alien:6x1",
        "alien:1x1",
        "alien:15x17",
        "alien:65x3",
        "alien:3x67",
        "alien:66x3",
        "hamming:3",
        "hamming:7",
        "hamming:12",
        "hamming:127",
        "secded:4",
        "secded:8",
        "secded:13",
        "secded:72",
        "secded:81",
        "repetition:5",
        "repetition:4",
        "parity:9",
        "product:2x2",
        "product:3x3",
        "product:9x9",
        "product:4x7",
        "product:64x3",
        "product:65x3",
    ];

    #[test]
    fn kernels_match_block_codes() {
        for (i, s) in SPECS.iter().enumerate() {
            let code = from_spec_str(s).unwrap();
            check(code.as_ref(), &SlicedCode::new(code.as_ref()), i as u64);
        }
        let names: Vec<&str> = [
            "alien:9x9",
            "alien:4x5",
            "hamming:7",
            "secded:72",
            "parity:4",
            "repetition:3",
            "product:9x9",
        ]
        .iter()
        .map(|s| SlicedCode::new(from_spec_str(s).unwrap().as_ref()).kernel_name())
        .collect();
        assert_eq!(
            names,
            [
                "alien",
                "alien",
                "hamming",
                "secded",
                "parity",
                "repetition",
                "product"
            ]
        );
    }

    #[test]
    fn rows_are_the_streams() {
        // Message words first in message order, then the other positions in increasing
        // order: the container's rows, so the two share their kernels unchanged.
        for s in SPECS {
            let code = from_spec_str(s).unwrap();
            let kernel = SlicedCode::new(code.as_ref());
            let rows: Vec<usize> = kernel.pos_of_row().iter().map(|&p| p as usize).collect();
            assert_eq!(rows[..code.k()], *code.message_positions(), "{s}");
            assert!(rows[code.k()..].is_sorted(), "{s}");
            for (row, &p) in rows.iter().enumerate() {
                assert_eq!(kernel.row_of_pos()[p] as usize, row, "{s}");
            }
        }
    }

    #[test]
    fn every_single_error_corrected_in_every_lane() {
        for s in [
            "alien:9x9",
            "alien:3x3",
            "secded:72",
            "hamming:15",
            "product:9x9",
        ] {
            let code = from_spec_str(s).unwrap();
            let kernel = SlicedCode::new(code.as_ref());
            let w = encoded(&kernel, &mut ChaCha8Rng::seed_from_u64(5));
            for e in 0..code.n() {
                let mut r = w.clone();
                r[e] ^= !0;
                assert_eq!(kernel.decode(&mut r), 0, "{s} error at {e}");
                assert_eq!(r, w, "{s} error at {e}");
            }
        }
    }
}
