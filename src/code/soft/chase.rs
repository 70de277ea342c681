//! Chase-II decoding (Chase, 1972): the `p` least reliable positions of the hard decision are
//! flipped in all `2^p` ways, each test word goes through the hard decoder, and the most
//! likely codeword among those it returns wins. With no codeword found the hard decision is
//! delivered as detected.
//!
//! The hard decoders of this crate are syndrome decoders: the word they return is the received
//! word plus a correction that depends on its syndrome alone. For codes with `n <= 128` and
//! `n - k <= 20` the decoder tabulates that correction for all `2^(n-k)` syndromes once
//! (through [`BlockCode::decode`]), and then each test pattern costs a syndrome update and a
//! table look-up on 128-bit masks; other codes call the hard decoder on every test word. A test
//! checks both paths give the same words.

use super::{
    HardDecoder, SoftDecoder, correlation, hard_decision, parity_check_matrix, unavailable,
};
use crate::code::BlockCode;
use crate::error::Result;
use crate::gf2::BitVec;

/// The most least-reliable positions Chase-II takes (`2^16` test patterns).
pub const MAX_CHASE_P: usize = 16;

/// A Chase-II decoder around the code's hard decoder.
#[derive(Debug)]
pub struct ChaseDecoder {
    hard: HardDecoder,
    n: usize,
    p: usize,
    table: Option<Table>,
}

/// The hard decoder as a syndrome table.
#[derive(Debug)]
struct Table {
    /// Column `i` of the parity-check matrix as a syndrome mask.
    cols: Vec<u32>,
    /// The correction for each syndrome.
    fix: Fixes,
}

/// Corrections by syndrome: one position per syndrome when no correction flips more than one
/// bit (a table small enough for the cache), whole masks otherwise.
#[derive(Debug)]
enum Fixes {
    /// `0..128`: flip that bit; [`CLEAN`]: nothing to flip; [`DETECTED`]: the decoder detects.
    Single(Vec<u8>),
    /// The bits to flip, `None` where the decoder detects.
    Wide(Vec<Option<u128>>),
}

const CLEAN: u8 = 254;
const DETECTED: u8 = 255;

impl Fixes {
    #[inline]
    fn get(&self, s: u32) -> Option<u128> {
        match self {
            Fixes::Single(t) => match t[s as usize] {
                DETECTED => None,
                CLEAN => Some(0),
                i => Some(1 << i),
            },
            Fixes::Wide(t) => t[s as usize],
        }
    }
}

/// The largest `n - k` tabulated.
const MAX_TABLE_BITS: usize = 20;

impl Table {
    fn new(code: &dyn BlockCode, hard: &HardDecoder) -> Option<Table> {
        let (n, r) = (code.n(), code.n() - code.k());
        if n > 128 || r > MAX_TABLE_BITS {
            return None;
        }
        let h = parity_check_matrix(code);
        let cols: Vec<u32> = (0..n)
            .map(|j| (0..r).fold(0u32, |m, q| m | (u32::from(h.get(q, j)) << q)))
            .collect();
        // Row q of H checks the q-th parity position (see `parity_check_matrix`): a word that
        // is the syndrome written on the parity positions has that syndrome.
        let msg = code.message_positions();
        let by_row: Vec<usize> = (0..n).filter(|j| !msg.contains(j)).collect();
        let fix: Vec<Option<u128>> = (0..1u32 << r)
            .map(|s| {
                let mut word = BitVec::zeros(n);
                for (q, &j) in by_row.iter().enumerate() {
                    if (s >> q) & 1 == 1 {
                        word.set(j, true);
                    }
                }
                hard.decode_word(&word).map(|cw| {
                    let mut e = 0u128;
                    for i in 0..n {
                        if cw.get(i) != word.get(i) {
                            e |= 1 << i;
                        }
                    }
                    e
                })
            })
            .collect();
        let fix = if fix.iter().all(|e| e.is_none_or(|e| e.count_ones() <= 1)) {
            Fixes::Single(
                fix.iter()
                    .map(|e| match e {
                        None => DETECTED,
                        Some(0) => CLEAN,
                        Some(e) => e.trailing_zeros() as u8,
                    })
                    .collect(),
            )
        } else {
            Fixes::Wide(fix)
        };
        Some(Table { cols, fix })
    }
}

impl ChaseDecoder {
    /// Chase-II on `code` with `p` least reliable positions.
    ///
    /// # Errors
    /// [`crate::Error::Limit`] when `p` exceeds [`MAX_CHASE_P`] or `n`.
    pub fn new(code: &dyn BlockCode, p: usize) -> Result<Self> {
        if p > MAX_CHASE_P || p > code.n() {
            return Err(unavailable(
                code,
                "chase",
                format!(
                    "expected at most {} least reliable positions, found {p}",
                    MAX_CHASE_P.min(code.n())
                ),
            ));
        }
        let hard = HardDecoder::new(code);
        Ok(ChaseDecoder {
            table: Table::new(code, &hard),
            hard,
            n: code.n(),
            p,
        })
    }

    /// The same decoder without the syndrome table (every test word through the hard decoder):
    /// slower, the reference the table is checked against.
    pub fn without_table(mut self) -> Self {
        self.table = None;
        self
    }

    /// Chase on the syndrome table: returns the best codeword, or `None` when no test word
    /// decodes.
    fn decode_table(&self, t: &Table, llr: &[f32], weak: &[usize]) -> Option<u128> {
        let mut z = 0u128;
        let mut s = 0u32;
        for (i, &l) in llr.iter().enumerate() {
            if l < 0.0 {
                z |= 1 << i;
                s ^= t.cols[i];
            }
        }
        let cost = |diff: u128| {
            let (mut c, mut m) = (0f64, diff);
            while m != 0 {
                c += f64::from(llr[m.trailing_zeros() as usize].abs());
                m &= m - 1;
            }
            c
        };
        let mut test = z;
        let mut best: Option<(f64, u128)> = None;
        // The cost of the test word (the flipped weak positions' reliabilities), kept up to
        // date flip by flip; sums of a few f32 values are exact in f64, so this is the cost the
        // word-by-word sum gives.
        let mut flipped = 0f64;
        for pattern in 0u32..(1 << self.p) {
            if pattern > 0 {
                let i = weak[pattern.trailing_zeros() as usize];
                test ^= 1 << i;
                s ^= t.cols[i];
                let a = f64::from(llr[i].abs());
                flipped += if (test ^ z) >> i & 1 == 1 { a } else { -a };
            }
            let found = match &t.fix {
                // One position or none: its reliability joins or leaves the test word's cost.
                Fixes::Single(tab) => match tab[s as usize] {
                    DETECTED => None,
                    CLEAN => Some((flipped, test)),
                    q => {
                        let a = f64::from(llr[q as usize].abs());
                        let c = if (test ^ z) >> q & 1 == 1 {
                            flipped - a
                        } else {
                            flipped + a
                        };
                        Some((c, test ^ 1 << q))
                    }
                },
                Fixes::Wide(_) => t.fix.get(s).map(|e| {
                    let cw = test ^ e;
                    (cost(cw ^ z), cw)
                }),
            };
            if let Some((c, cw)) = found
                && best.is_none_or(|(b, _)| c < b)
            {
                best = Some((c, cw));
            }
        }
        best.map(|(_, cw)| cw)
    }
}

impl ChaseDecoder {
    /// True when the hard decoder is tabulated by syndrome (`n <= 128`, `n - k <= 20`).
    pub fn has_table(&self) -> bool {
        self.table.is_some()
    }

    /// The Chase-II word on the syndrome table as a bit mask (bit `i` = codeword bit `i`), or
    /// `None` without a table or when no test word decodes.
    pub(crate) fn table_word(&self, llr: &[f32]) -> Option<u128> {
        let t = self.table.as_ref()?;
        let weak = weakest(llr, self.p);
        self.decode_table(t, llr, &weak[..self.p])
    }
}

/// The `p` least reliable positions (smallest `|llr|`, first ones on ties), by insertion into a
/// short sorted list.
fn weakest(llr: &[f32], p: usize) -> [usize; MAX_CHASE_P] {
    let mut weak = [0usize; MAX_CHASE_P];
    let mut len = 0;
    for (i, l) in llr.iter().enumerate() {
        let a = l.abs();
        if len == p && (len == 0 || a >= llr[weak[len - 1]].abs()) {
            continue;
        }
        let mut j = len.min(p - 1);
        while j > 0 && llr[weak[j - 1]].abs() > a {
            weak[j] = weak[j - 1];
            j -= 1;
        }
        weak[j] = i;
        len = (len + 1).min(p);
    }
    weak
}

impl SoftDecoder for ChaseDecoder {
    fn name(&self) -> &'static str {
        "chase"
    }

    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool {
        assert_eq!(llr.len(), self.n, "one LLR per codeword bit");
        let weak = weakest(llr, self.p);
        let weak = &weak[..self.p];
        if let Some(t) = &self.table {
            if let Some(cw) = self.decode_table(t, llr, weak) {
                *out = BitVec::zeros(self.n);
                for i in 0..self.n {
                    if (cw >> i) & 1 == 1 {
                        out.set(i, true);
                    }
                }
                return false;
            }
            *out = hard_decision(llr);
            return true;
        }
        let z = hard_decision(llr);
        let mut best: Option<(f64, BitVec)> = None;
        let mut test = z.clone();
        for pattern in 0u32..(1 << self.p) {
            if pattern > 0 {
                // Gray code: one flip per step.
                test.flip(weak[pattern.trailing_zeros() as usize]);
            }
            if let Some(cw) = self.hard.decode_word(&test) {
                let m = correlation(llr, &cw);
                if best.as_ref().is_none_or(|(b, _)| m > *b) {
                    best = Some((m, cw));
                }
            }
        }
        match best {
            Some((_, cw)) => {
                *out = cw;
                false
            }
            None => {
                *out = z;
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;
    use crate::sim::Channel;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_syndrome_table_gives_the_hard_decoders_words() {
        for spec in [
            "alien:9x9",
            "alien:5x5",
            "alien:4x5",
            "secded:72",
            "hamming:15",
            "repetition:5",
            "parity:6",
        ] {
            let code = from_spec_str(spec).unwrap();
            let fast = ChaseDecoder::new(code.as_ref(), 3).unwrap();
            assert!(fast.table.is_some(), "{spec}");
            let slow = ChaseDecoder::new(code.as_ref(), 3).unwrap().without_table();
            let n = code.n();
            let mut agree = Vec::new();
            let mut rng = ChaCha8Rng::seed_from_u64(2);
            Channel::Awgn { esn0_db: 2.0 }
                .sampler()
                .sample_agreement(&mut rng, 64, n, &mut agree);
            for lane in 0..64 {
                // The all-zero codeword sent: the LLRs are the agreements.
                let llr = &agree[lane * n..(lane + 1) * n];
                let (mut a, mut b) = (BitVec::default(), BitVec::default());
                assert_eq!(fast.decode(llr, &mut a), slow.decode(llr, &mut b), "{spec}");
                assert_eq!(a, b, "{spec} lane {lane}");
            }
        }
    }
}
