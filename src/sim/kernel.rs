//! Bit-sliced encoders and decoders: 64 codewords at once, one `u64` word per codeword
//! position, lane `l` of every word belonging to codeword `l`.
//!
//! Encoding is word-wide XORs into the parity positions. Decoding computes the syndrome words
//! with XORs, ORs them into a mask of lanes whose syndrome is not zero, and does per-lane work
//! only for those lanes. Alien codes use their row and column parity words, Hamming and SECDED
//! codes the XOR of positions; every other code goes through a generic kernel that takes its
//! parity checks from the code's generator and hands the few non-zero-syndrome lanes to
//! [`BlockCode::decode`]. Every kernel is tested against the per-codeword [`BlockCode`] path.

use crate::code::{BlockCode, Spec, Status, build};
use crate::game::alien::{Located, locate_single_error};
use crate::gf2::BitVec;

/// Bit `lane` of a word.
#[inline]
fn bit(w: u64, lane: u32) -> bool {
    (w >> lane) & 1 == 1
}

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

/// Which kernel a [`SlicedCode`] runs.
#[derive(Debug)]
enum Kind {
    /// Odd-by-odd alien board, `m, n >= 3`: row/column parity syndrome, single-error locator.
    AlienOddOdd { m: usize, n: usize },
    /// Even-by-odd alien board, `n >= 3`: row parities, detection only.
    AlienRows { m: usize, n: usize },
    /// Odd-by-even alien board, `m >= 3`: column parities, detection only.
    AlienCols { m: usize, n: usize },
    /// `product:MxN`, `m, n <= 64`: row and column parity words, located without per-lane work.
    Product { m: usize, n: usize },
    /// `hamming:N`: index `i` is Hamming position `i + 1`.
    Hamming { n: usize },
    /// `secded:N`: index 0 is the overall parity, index `i >= 1` is Hamming position `i`.
    Secded { n: usize },
    /// Any linear systematic code: parity position `q` is the XOR of the message positions in
    /// `checks[q]`; non-zero syndromes go to the code's own decoder.
    Generic {
        code: Box<dyn BlockCode>,
        parity: Vec<(usize, Vec<usize>)>,
    },
}

/// A code's bit-sliced kernel.
#[derive(Debug)]
pub struct SlicedCode {
    spec: Spec,
    n: usize,
    positions: Vec<usize>,
    kind: Kind,
}

impl SlicedCode {
    /// The kernel for a code: a dedicated one for alien, hamming and secded codes, the generic
    /// one otherwise.
    pub fn new(code: &dyn BlockCode) -> Self {
        let spec = code.spec();
        let kind = match spec {
            Spec::Alien { rows: m, cols: n } if m >= 3 && n >= 3 => match (m % 2, n % 2) {
                (1, 1) => Kind::AlienOddOdd { m, n },
                (0, 1) => Kind::AlienRows { m, n },
                (1, 0) => Kind::AlienCols { m, n },
                _ => Self::generic_kind(code),
            },
            Spec::Alien { rows: m, cols: n } if m == 2 && n >= 3 && n % 2 == 1 => {
                Kind::AlienRows { m, n }
            }
            Spec::Alien { rows: m, cols: n } if n == 2 && m >= 3 && m % 2 == 1 => {
                Kind::AlienCols { m, n }
            }
            Spec::Product { rows: m, cols: n } if m <= 64 && n <= 64 => Kind::Product { m, n },
            Spec::Hamming(n) => Kind::Hamming { n },
            Spec::Secded(n) => Kind::Secded { n },
            _ => Self::generic_kind(code),
        };
        SlicedCode {
            spec,
            n: code.n(),
            positions: code.message_positions().to_vec(),
            kind,
        }
    }

    /// The generic kernel for any code, even one with a dedicated kernel (used to test the
    /// dedicated kernels against a second implementation).
    pub fn generic(code: &dyn BlockCode) -> Self {
        SlicedCode {
            spec: code.spec(),
            n: code.n(),
            positions: code.message_positions().to_vec(),
            kind: Self::generic_kind(code),
        }
    }

    fn generic_kind(code: &dyn BlockCode) -> Kind {
        Kind::Generic {
            code: build(&code.spec()),
            parity: crate::code::soft::systematic_checks(code),
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

    /// Message length.
    pub fn k(&self) -> usize {
        self.positions.len()
    }

    /// Where the message bits sit (as [`BlockCode::message_positions`]).
    pub fn message_positions(&self) -> &[usize] {
        &self.positions
    }

    /// `alien`, `product`, `hamming`, `secded` or `generic`: which kernel runs.
    pub fn kernel_name(&self) -> &'static str {
        match self.kind {
            Kind::AlienOddOdd { .. } | Kind::AlienRows { .. } | Kind::AlienCols { .. } => "alien",
            Kind::Product { .. } => "product",
            Kind::Hamming { .. } => "hamming",
            Kind::Secded { .. } => "secded",
            Kind::Generic { .. } => "generic",
        }
    }

    /// Encodes 64 codewords in place: `words` has `n` words with the message words already at
    /// the message positions; the parity positions are overwritten.
    ///
    /// # Panics
    /// If `words.len() != n`.
    pub fn encode(&self, words: &mut [u64]) {
        assert_eq!(words.len(), self.n, "a slice has one word per position");
        match &self.kind {
            &Kind::AlienOddOdd { m, n } => {
                // D = rows 1.., columns 1..; b = (0, 0). Row 0 / column 0 carry c / r + p + b.
                let b = words[0];
                let mut p = 0u64;
                let (top, rest) = words.split_at_mut(n);
                top[1..].fill(0);
                for row in rest.chunks_exact_mut(n) {
                    let r = row[1..].iter().fold(0, |a, &w| a ^ w);
                    p ^= r;
                    row[0] = r;
                    for (c, &w) in top[1..].iter_mut().zip(&row[1..]) {
                        *c ^= w;
                    }
                }
                let pb = p ^ b;
                for c in &mut top[1..] {
                    *c ^= pb;
                }
                for i in 1..m {
                    words[i * n] ^= pb;
                }
            }
            &Kind::AlienRows { m, n } => {
                let b = words[0];
                let par =
                    |w: &[u64], i: usize| w[i * n + 1..(i + 1) * n].iter().fold(0, |a, &x| a ^ x);
                let r0 = par(words, 0);
                for i in 1..m {
                    words[i * n] = par(words, i) ^ r0 ^ b;
                }
            }
            &Kind::AlienCols { m, n } => {
                let b = words[0];
                let par = |w: &[u64], j: usize| (1..m).fold(0, |a, i| a ^ w[i * n + j]);
                let c0 = par(words, 0);
                for j in 1..n {
                    words[j] = par(words, j) ^ c0 ^ b;
                }
            }
            &Kind::Product { m, n } => {
                let (body, last) = words.split_at_mut((m - 1) * n);
                last.fill(0);
                for row in body.chunks_exact_mut(n) {
                    let mut acc = 0;
                    for (c, &w) in last.iter_mut().zip(&row[..n - 1]) {
                        acc ^= w;
                        *c ^= w;
                    }
                    row[n - 1] = acc;
                    last[n - 1] ^= acc;
                }
            }
            &Kind::Hamming { n } => hamming_encode(&mut words[..n], 1),
            &Kind::Secded { n } => {
                hamming_encode(&mut words[1..n], 1);
                words[0] = words[1..].iter().fold(0, |a, &w| a ^ w);
            }
            Kind::Generic { parity, .. } => {
                for (q, checks) in parity {
                    words[*q] = checks.iter().fold(0, |a, &i| a ^ words[self.positions[i]]);
                }
            }
        }
    }

    /// Decodes 64 received words in place. Lanes whose errors are corrected are fixed; lanes
    /// whose errors are detected are left as received and returned as a mask.
    ///
    /// # Panics
    /// If `words.len() != n`.
    pub fn decode(&self, words: &mut [u64]) -> u64 {
        assert_eq!(words.len(), self.n, "a slice has one word per position");
        match &self.kind {
            &Kind::AlienOddOdd { m, n } if m <= 64 && n <= 64 => {
                super::lines::decode_alien_odd_odd(words, m, n)
            }
            &Kind::AlienOddOdd { m, n } => decode_alien_odd_odd(words, m, n),
            &Kind::Product { m, n } => super::lines::decode_product(words, m, n),
            &Kind::AlienRows { m, n } => {
                let par = |i: usize| words[i * n..(i + 1) * n].iter().fold(0, |a, &x| a ^ x);
                let r0 = par(0);
                (1..m).fold(0, |a, i| a | (par(i) ^ r0))
            }
            &Kind::AlienCols { m, n } => {
                let par = |j: usize| (0..m).fold(0, |a, i| a ^ words[i * n + j]);
                let c0 = par(0);
                (1..n).fold(0, |a, j| a | (par(j) ^ c0))
            }
            &Kind::Hamming { n } => {
                let (s, top) = position_syndrome(words, 1);
                let s = &s[..top];
                let nz = s.iter().fold(0, |a, &w| a | w);
                let mut det = 0;
                for l in lanes(nz) {
                    let pos = gather(s, l);
                    if pos <= n {
                        words[pos - 1] ^= 1 << l;
                    } else {
                        det |= 1 << l;
                    }
                }
                det
            }
            &Kind::Secded { n } => {
                let (s, top) = position_syndrome(&words[1..], 1);
                let s = &s[..top];
                let odd = words.iter().fold(0, |a, &w| a ^ w);
                let nz = s.iter().fold(odd, |a, &w| a | w);
                let mut det = 0;
                for l in lanes(nz) {
                    let pos = gather(s, l);
                    if bit(odd, l) && pos < n {
                        // pos = 0: the overall parity bit itself.
                        words[pos] ^= 1 << l;
                    } else {
                        det |= 1 << l;
                    }
                }
                det
            }
            Kind::Generic { code, parity } => {
                let nz = parity.iter().fold(0, |a, (q, checks)| {
                    a | checks
                        .iter()
                        .fold(words[*q], |s, &i| s ^ words[self.positions[i]])
                });
                let mut det = 0;
                for l in lanes(nz) {
                    let word =
                        BitVec::from_bools(&words.iter().map(|&w| bit(w, l)).collect::<Vec<_>>());
                    let d = code.decode(&word);
                    if d.status == Status::Detected {
                        det |= 1 << l;
                    } else {
                        for e in d.errors {
                            words[e] ^= 1 << l;
                        }
                    }
                }
                det
            }
        }
    }
}

/// Gathers lane `l` of syndrome words into an integer (word `b` is bit `b`).
#[inline]
fn gather(s: &[u64], l: u32) -> usize {
    s.iter()
        .enumerate()
        .fold(0, |a, (b, &w)| a | (usize::from(bit(w, l)) << b))
}

/// Hamming syndrome words: word `b` is the XOR of the words whose position (index + `first`)
/// has bit `b` set. Returns the words and how many are used.
fn position_syndrome(words: &[u64], first: usize) -> ([u64; 64], usize) {
    let top = (usize::BITS - (words.len() + first).leading_zeros()) as usize;
    let mut s = [0u64; 64];
    for (i, &w) in words.iter().enumerate() {
        if w == 0 {
            continue;
        }
        let mut pos = i + first;
        while pos != 0 {
            s[pos.trailing_zeros() as usize] ^= w;
            pos &= pos - 1;
        }
    }
    (s, top)
}

/// Fills the power-of-two positions (index = position - `first`) of a Hamming slice so that
/// the position syndrome is zero.
fn hamming_encode(words: &mut [u64], first: usize) {
    let len = words.len();
    let mut bitpos = 1;
    while bitpos < len + first {
        words[bitpos - first] = 0;
        bitpos <<= 1;
    }
    let (s, top) = position_syndrome(words, first);
    for (b, &w) in s[..top].iter().enumerate() {
        let p = 1usize << b;
        if p - first < len {
            words[p - first] = w;
        }
    }
}

/// The odd-by-odd alien decoder: syndrome words `R_i + R_0`, `C_j + C_0`, and the paper's
/// single-error locator on the lanes where they are not all zero.
fn decode_alien_odd_odd(words: &mut [u64], m: usize, n: usize) -> u64 {
    // Boards up to 64 x 64 keep their parity words on the stack.
    let (mut rs, mut cs) = ([0u64; 64], [0u64; 64]);
    let (mut rh, mut ch) = (Vec::new(), Vec::new());
    let (r, c): (&mut [u64], &mut [u64]) = if m <= 64 && n <= 64 {
        (&mut rs[..m], &mut cs[..n])
    } else {
        rh.resize(m, 0);
        ch.resize(n, 0);
        (&mut rh, &mut ch)
    };
    for i in 0..m {
        let row = &words[i * n..(i + 1) * n];
        let mut acc = 0;
        for (cj, &w) in c.iter_mut().zip(row) {
            acc ^= w;
            *cj ^= w;
        }
        r[i] = acc;
    }
    let (r0, c0) = (r[0], c[0]);
    let mut nz = 0;
    for x in &mut r[1..] {
        *x ^= r0;
        nz |= *x;
    }
    for x in &mut c[1..] {
        *x ^= c0;
        nz |= *x;
    }
    let mut det = 0;
    for l in lanes(nz) {
        let located = if m <= 64 && n <= 64 {
            locate_small(&r[1..], &c[1..], m, n, l)
        } else {
            let rt = BitVec::from_bools(&r[1..].iter().map(|&w| bit(w, l)).collect::<Vec<_>>());
            let ct = BitVec::from_bools(&c[1..].iter().map(|&w| bit(w, l)).collect::<Vec<_>>());
            locate_single_error(m, n, &rt, &ct)
        };
        match located {
            Located::Single(y, x) => words[y * n + x] ^= 1 << l,
            Located::Multiple => det |= 1 << l,
            Located::Clean => {}
        }
    }
    det
}

/// [`locate_single_error`] on one lane, with the parity vectors in `u64` masks (`m, n <= 64`).
#[inline]
fn locate_small(rt: &[u64], ct: &[u64], m: usize, n: usize, l: u32) -> Located {
    let full = |len: usize| if len == 64 { !0u64 } else { (1u64 << len) - 1 };
    let (fm, fn_) = (full(m), full(n));
    // r = (0, r~), c = (0, c~).
    let mut r = rt
        .iter()
        .enumerate()
        .fold(0u64, |a, (i, &w)| a | (u64::from(bit(w, l)) << (i + 1)));
    let mut c = ct
        .iter()
        .enumerate()
        .fold(0u64, |a, (j, &w)| a | (u64::from(bit(w, l)) << (j + 1)));
    let mut a = r.count_ones() as usize;
    let b = c.count_ones() as usize;
    if (a + b) % 2 == 1 {
        a = m - a;
        r = !r & fm;
    }
    let near = a.max(b);
    let far = (m - a).max(n - b);
    if near == 0 || far == 0 {
        return Located::Clean;
    }
    if near > 1 && far > 1 {
        return Located::Multiple;
    }
    if near > far {
        r = !r & fm;
        c = !c & fn_;
    }
    Located::Single(r.trailing_zeros() as usize, c.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Lane `l` of a slice as a codeword.
    fn lane_word(words: &[u64], l: u32) -> BitVec {
        BitVec::from_bools(&words.iter().map(|&w| bit(w, l)).collect::<Vec<_>>())
    }

    /// Checks a kernel against the per-codeword path on random messages with `errs` random
    /// errors per lane.
    fn check(code: &dyn BlockCode, kernel: &SlicedCode, seed: u64) {
        let n = code.n();
        assert_eq!(kernel.message_positions(), code.message_positions());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for round in 0..6 {
            let mut w = vec![0u64; n];
            for &p in code.message_positions() {
                w[p] = rng.r#gen();
            }
            kernel.encode(&mut w);
            let msgs: Vec<BitVec> = (0..64).map(|l| code.extract(&lane_word(&w, l))).collect();
            for l in 0..64 {
                assert_eq!(
                    lane_word(&w, l),
                    code.encode(&msgs[l as usize]),
                    "{}",
                    code.spec()
                );
            }
            // Lane l gets l % (round + 2) errors (some repeated positions cancel).
            for l in 0..64u32 {
                for _ in 0..(l as usize % (round + 2)) {
                    w[rng.gen_range(0..n)] ^= 1 << l;
                }
            }
            let received = w.clone();
            let det = kernel.decode(&mut w);
            for l in 0..64u32 {
                let d = code.decode(&lane_word(&received, l));
                assert_eq!(
                    d.status == Status::Detected,
                    bit(det, l),
                    "{} lane {l}",
                    code.spec()
                );
                assert_eq!(lane_word(&w, l), d.codeword, "{} lane {l}", code.spec());
            }
        }
    }

    #[test]
    fn kernels_match_block_codes() {
        let specs = [
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
        for (i, s) in specs.iter().enumerate() {
            let code = from_spec_str(s).unwrap();
            let fast = SlicedCode::new(code.as_ref());
            check(code.as_ref(), &fast, i as u64);
            check(
                code.as_ref(),
                &SlicedCode::generic(code.as_ref()),
                100 + i as u64,
            );
        }
        let names: Vec<&str> = [
            "alien:9x9",
            "alien:4x5",
            "hamming:7",
            "secded:72",
            "parity:4",
            "product:9x9",
        ]
        .iter()
        .map(|s| SlicedCode::new(from_spec_str(s).unwrap().as_ref()).kernel_name())
        .collect();
        assert_eq!(
            names,
            ["alien", "alien", "hamming", "secded", "generic", "product"]
        );
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
            let n = code.n();
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            let mut w = vec![0u64; n];
            for &p in code.message_positions() {
                w[p] = rng.r#gen();
            }
            kernel.encode(&mut w);
            for e in 0..n {
                let mut r = w.clone();
                r[e] ^= !0;
                assert_eq!(kernel.decode(&mut r), 0, "{s} error at {e}");
                assert_eq!(r, w, "{s} error at {e}");
            }
        }
    }
}
