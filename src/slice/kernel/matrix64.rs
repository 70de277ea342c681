//! The single-word fast path (`D = 64`) of short codes with at most eight check rows, on
//! AVX-512 ([`run`]) or AVX2 ([`run_avx2`]): the parity words of a group as the code's
//! generator matrix applied to its data words.
//!
//! A group at `D = 64` is `k` data words and `r <= 8` parity words, and parity word `q` is
//! the XOR of the data words of its set ([`super::Plan::parity_sets`]). Lane `q` of one
//! 512-bit register holds parity word `q`: each data word is broadcast to every lane and
//! added to the lanes whose parity word it feeds, in one `vpternlogq` against that word's
//! row of the matrix (`acc ^= word & row`). A group then costs `k` broadcasts and `k`
//! ternary operations, whatever the family's structure, with no scratch in memory and no
//! loop over the check rows: the short codes' groups (`alien:3x3` is five data words and
//! four parity words) spent more time in the bookkeeping of the family kernels than in
//! their XORs. `tilecode bench` at `D = 64` (docs/benchmarks.md, "Short codes at `D = 64`:
//! the generator matrix on AVX-512") put the matrix ahead for codes of one register of
//! check rows and at most [`MAX_DATA`] data rows, and behind the family kernels for more
//! (a word then costs a ternary operation a register of check rows: alien:3x17, 18 check
//! rows, 0.64 -> 0.41x memcpy; alien:4x9, 33 data rows, 0.78 -> 0.71).

#[cfg(target_arch = "x86_64")]
use super::fast64::{ENCODE, ONE};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// The most check rows: one register of eight lanes.
const MAX_CHECKS: usize = 8;

/// The most data rows (see the module's documentation).
const MAX_DATA: usize = 32;

/// A row of the matrix, one register: the lanes (parity words) a data word feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// A code's parity words as a matrix over its data words, laid out for the single-word fast
/// path ([`super::Kernel::fast64`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matrix64 {
    /// Data words per group.
    k: usize,
    /// Parity words per group.
    r: usize,
    /// Row `i` of the matrix: lane `q` is all ones when data word `i` feeds parity word
    /// `q`, else zero.
    lines: Vec<Line>,
    /// The words of each register of a group's data words (a lane mask): eight but in the
    /// last.
    copy: Vec<u8>,
}

impl Matrix64 {
    /// The matrix of a code of `k` data words whose parity word `q` sums the data words of
    /// `sets[q]` (bit `i` for data word `i`); `None` unless it has 1 to 32 data words and 1
    /// to 8 parity words.
    pub fn new(sets: &[u64], k: usize) -> Option<Matrix64> {
        let r = sets.len();
        if !(1..=MAX_DATA).contains(&k) || !(1..=MAX_CHECKS).contains(&r) {
            return None;
        }
        let mut lines = vec![Line([0; 8]); k];
        for (q, set) in sets.iter().enumerate() {
            for (i, line) in lines.iter_mut().enumerate() {
                if set >> i & 1 == 1 {
                    line.0[q] = u64::MAX;
                }
            }
        }
        let copy = (0..k.div_ceil(8))
            .map(|w| (u16::MAX >> (16 - (k - 8 * w).min(8))) as u8)
            .collect();
        Some(Matrix64 { k, r, lines, copy })
    }

    /// Data words per group.
    pub fn data_words(&self) -> usize {
        self.k
    }

    /// Parity words per group.
    pub fn parity_words(&self) -> usize {
        self.r
    }

    /// The parity word `q` of the data words `data`, as the matrix says, one word at a time
    /// (the reference the tests hold the fast path to).
    pub fn parity_word(&self, data: &[u64], q: usize) -> u64 {
        (0..self.k).fold(0, |p, i| p ^ (data[i] & self.lines[i].0[q]))
    }
}

/// Runs the matrix over `src` as `MODE` says (`ONE`, `ENCODE`, `CLEAN` of `fast64`), with
/// the meaning of `fast64::run`: copies the data words when `COPY`; leaves the parity words
/// of the last group in `words`, or for `CLEAN` the syndrome of the first group whose
/// syndrome is not zero (its data words copied); returns the number of groups done (for
/// `CLEAN`, the clean ones before that group). Every move is masked to the group's words.
/// (Measured and not kept: four groups at a time sharing the matrix's loads, slower in
/// memory; whole registers reaching into the next group's bytes, slower in cache.)
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn run<const COPY: bool, const MODE: u8>(
    m: &Matrix64,
    src: &[u8],
    out: &mut [u8],
    gd: usize,
    gb: usize,
    words: &mut [u64],
) -> usize {
    let (k, r) = (m.k, m.r);
    assert!(words.len() >= r, "room for the parity words");
    // The lanes that are parity words.
    let lanes = ((1u16 << r) - 1) as __mmask8;
    let (s0, o0) = (src.as_ptr(), out.as_mut_ptr());
    let w0 = words.as_mut_ptr().cast();
    if MODE == ONE {
        assert!(src.len() >= 8 * k, "a group's data words");
        assert!(!COPY || out.len() >= 8 * k, "room for the copy");
        // SAFETY: checked just above.
        unsafe {
            let acc = parity(m, s0);
            if COPY {
                copy(s0, o0, &m.copy);
            }
            _mm512_mask_storeu_epi64(w0, lanes, acc);
        }
        return 1;
    }
    assert!(gd == 8 * k && gb == 8 * (k + r), "groups of this code");
    // The strides of the input and the output, and the groups.
    let (si, so) = if MODE == ENCODE { (gd, gb) } else { (gb, gd) };
    let groups = (src.len() / si).min(out.len() / so);
    let mut last = _mm512_setzero_si512();
    for g in 0..groups {
        // SAFETY: group `g` of each buffer (`g < groups`): its `k` data words at `s`, room
        // for them at `o`, its parity words after them (in `o` when encoding, in `s` when
        // decoding); `words` has room for `r` words (asserted).
        unsafe {
            let (s, o) = (s0.add(g * si), o0.add(g * so));
            let acc = parity(m, s);
            copy(s, o, &m.copy);
            if MODE == ENCODE {
                _mm512_mask_storeu_epi64(o.add(gd).cast(), lanes, acc);
                last = acc;
                continue;
            }
            let got = _mm512_maskz_loadu_epi64(lanes, s.add(gd).cast());
            let syn = _mm512_xor_si512(acc, got);
            if _mm512_test_epi64_mask(syn, syn) != 0 {
                _mm512_mask_storeu_epi64(w0, lanes, syn);
                return g;
            }
        }
    }
    if MODE == ENCODE && groups > 0 {
        // SAFETY: `words` has room for `r` words (asserted).
        unsafe { _mm512_mask_storeu_epi64(w0, lanes, last) };
    }
    groups
}

/// The parity words of the data words at `s` (lane `q` parity word `q`): each word
/// broadcast from memory and added to the lanes its row of the matrix names, in two chains
/// (even and odd words), so that a group's sums do not wait on one `vpternlogq` after
/// another. (Broadcasting the words from a register of eight with `vpermq` instead, one
/// load a register rather than a word, was slower: alien:3x3 6 -> 9 ns a group in cache.)
///
/// # Safety
/// The CPU must support AVX-512F; `s` holds the matrix's `k` words.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn parity(m: &Matrix64, s: *const u8) -> __m512i {
    let (mut even, mut odd) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let (lines, k) = (m.lines.as_ptr(), m.k);
    let word = |i: usize| {
        // SAFETY: `i < k`, a word of `s` (by the contract).
        _mm512_set1_epi64(unsafe { s.add(8 * i).cast::<i64>().read_unaligned() })
    };
    // SAFETY: lines `i < k` of the matrix.
    let line = |i: usize| unsafe { _mm512_load_si512(lines.add(i).cast()) };
    let mut i = 0;
    while i + 2 <= k {
        even = _mm512_ternarylogic_epi64::<0x78>(even, word(i), line(i));
        odd = _mm512_ternarylogic_epi64::<0x78>(odd, word(i + 1), line(i + 1));
        i += 2;
    }
    if i < k {
        even = _mm512_ternarylogic_epi64::<0x78>(even, word(i), line(i));
    }
    _mm512_xor_si512(even, odd)
}

/// Copies a group's words from `s` to `d`, a register for each of `masks` (the words of
/// each). Every register is a masked move whose mask comes from memory: with the masks
/// known (all but the last full), LLVM made the loop a call to `memcpy` per group.
///
/// # Safety
/// The CPU must support AVX-512F; `s` holds the words the masks name and `d` has room for
/// them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn copy(s: *const u8, d: *mut u8, masks: &[u8]) {
    // SAFETY: by the contract.
    unsafe {
        for (w, &mask) in masks.iter().enumerate() {
            let v = _mm512_maskz_loadu_epi64(mask, s.add(64 * w).cast());
            _mm512_mask_storeu_epi64(d.add(64 * w).cast(), mask, v);
        }
    }
}

/// [`run`] on AVX2: the parity words in one 256-bit register (four check rows or fewer) or
/// two, each data word broadcast and added with an AND and an XOR a register; the moves are
/// whole registers and, for a group's last words, 16- and 8-byte moves, never past the
/// group's words.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn run_avx2<const COPY: bool, const MODE: u8>(
    m: &Matrix64,
    src: &[u8],
    out: &mut [u8],
    gd: usize,
    gb: usize,
    words: &mut [u64],
) -> usize {
    // SAFETY: the CPU has AVX2 (the contract).
    unsafe {
        if m.r > 4 {
            run_narrow::<COPY, MODE, true>(m, src, out, gd, gb, words)
        } else {
            run_narrow::<COPY, MODE, false>(m, src, out, gd, gb, words)
        }
    }
}

/// [`run_avx2`] with two registers of parity words (`TWO`) or one.
///
/// # Safety
/// The CPU must support AVX2; `TWO` when the matrix has more than four check rows.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn run_narrow<const COPY: bool, const MODE: u8, const TWO: bool>(
    m: &Matrix64,
    src: &[u8],
    out: &mut [u8],
    gd: usize,
    gb: usize,
    words: &mut [u64],
) -> usize {
    let (k, r) = (m.k, m.r);
    assert!(
        words.len() >= r && (r > 4) == TWO,
        "room for the parity words"
    );
    let (s0, o0) = (src.as_ptr(), out.as_mut_ptr());
    let w0: *mut u8 = words.as_mut_ptr().cast();
    // The parity words `acc` (or the syndrome) stored at `p`: `r` words.
    // SAFETY (callers): `p` has room for `r` words.
    let put = |p: *mut u8, acc: [__m256i; 2]| unsafe {
        store_words(p, acc[0], r.min(4));
        if TWO {
            store_words(p.add(32), acc[1], r - 4);
        }
    };
    if MODE == ONE {
        assert!(src.len() >= 8 * k, "a group's data words");
        assert!(!COPY || out.len() >= 8 * k, "room for the copy");
        // SAFETY: checked just above.
        unsafe {
            let acc = parity_narrow::<TWO>(m, s0);
            if COPY {
                copy_narrow(s0, o0, k);
            }
            put(w0, acc);
        }
        return 1;
    }
    assert!(gd == 8 * k && gb == 8 * (k + r), "groups of this code");
    let (si, so) = if MODE == ENCODE { (gd, gb) } else { (gb, gd) };
    let groups = (src.len() / si).min(out.len() / so);
    // SAFETY: a zero register.
    let mut last = unsafe { [_mm256_setzero_si256(); 2] };
    for g in 0..groups {
        // SAFETY: group `g` of each buffer, as in [`run`].
        unsafe {
            let (s, o) = (s0.add(g * si), o0.add(g * so));
            let acc = parity_narrow::<TWO>(m, s);
            copy_narrow(s, o, k);
            if MODE == ENCODE {
                put(o.add(gd), acc);
                last = acc;
                continue;
            }
            let got = s.add(gd);
            let mut syn = [_mm256_xor_si256(acc[0], load_words(got, r.min(4))), acc[1]];
            let mut any = syn[0];
            if TWO {
                syn[1] = _mm256_xor_si256(acc[1], load_words(got.add(32), r - 4));
                any = _mm256_or_si256(any, syn[1]);
            }
            if _mm256_testz_si256(any, any) == 0 {
                put(w0, syn);
                return g;
            }
        }
    }
    if MODE == ENCODE && groups > 0 {
        put(w0, last);
    }
    groups
}

/// The parity words of the data words at `s`: lanes 0-3 of the first register parity words
/// 0-3, of the second (with `TWO`) 4-7; with one register, in two chains (even and odd
/// words), as [`parity`].
///
/// # Safety
/// The CPU must support AVX2; `s` holds the matrix's `k` words.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn parity_narrow<const TWO: bool>(m: &Matrix64, s: *const u8) -> [__m256i; 2] {
    // SAFETY: words `i < k` of `s` and lines `i < k` of the matrix (64-byte aligned).
    unsafe {
        let (lines, k) = (m.lines.as_ptr(), m.k);
        let word = |i: usize| _mm256_set1_epi64x(s.add(8 * i).cast::<i64>().read_unaligned());
        let line = |i: usize, h: usize| _mm256_load_si256(lines.add(i).cast::<__m256i>().add(h));
        let add = |a: __m256i, w: __m256i, l: __m256i| _mm256_xor_si256(a, _mm256_and_si256(w, l));
        let mut a = [_mm256_setzero_si256(); 2];
        if TWO {
            for i in 0..k {
                let w = word(i);
                a[0] = add(a[0], w, line(i, 0));
                a[1] = add(a[1], w, line(i, 1));
            }
            return a;
        }
        let mut i = 0;
        while i + 2 <= k {
            a[0] = add(a[0], word(i), line(i, 0));
            a[1] = add(a[1], word(i + 1), line(i + 1, 0));
            i += 2;
        }
        if i < k {
            a[0] = add(a[0], word(i), line(i, 0));
        }
        [_mm256_xor_si256(a[0], a[1]), _mm256_setzero_si256()]
    }
}

/// Copies `k` words from `s` to `d`: whole registers, then the last words
/// ([`load_words`], [`store_words`]).
///
/// # Safety
/// The CPU must support AVX2; `s` holds `k` words and `d` has room for them.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy_narrow(s: *const u8, d: *mut u8, k: usize) {
    // SAFETY: by the contract.
    unsafe {
        let mut w = 0;
        while w + 4 <= k {
            let v = _mm256_loadu_si256(s.add(8 * w).cast());
            _mm256_storeu_si256(d.add(8 * w).cast(), v);
            w += 4;
        }
        store_words(d.add(8 * w), load_words(s.add(8 * w), k - w), k - w);
    }
}

/// The `n` (at most four) words at `p` in the first lanes of a register, the others zero.
///
/// # Safety
/// The CPU must support AVX2; `p` holds `n` words.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn load_words(p: *const u8, n: usize) -> __m256i {
    // SAFETY: by the contract, each load within the `n` words.
    unsafe {
        match n {
            0 => _mm256_setzero_si256(),
            1 => _mm256_zextsi128_si256(_mm_loadl_epi64(p.cast())),
            2 => _mm256_zextsi128_si256(_mm_loadu_si128(p.cast())),
            3 => _mm256_inserti128_si256::<1>(
                _mm256_zextsi128_si256(_mm_loadu_si128(p.cast())),
                _mm_loadl_epi64(p.add(16).cast()),
            ),
            _ => _mm256_loadu_si256(p.cast()),
        }
    }
}

/// Stores the first `n` (at most four) words of `v` at `p`.
///
/// # Safety
/// The CPU must support AVX2; `p` has room for `n` words.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store_words(p: *mut u8, v: __m256i, n: usize) {
    // SAFETY: by the contract, each store within the `n` words.
    unsafe {
        let lo = _mm256_castsi256_si128(v);
        match n {
            0 => {}
            1 => _mm_storel_epi64(p.cast(), lo),
            2 => _mm_storeu_si128(p.cast(), lo),
            3 => {
                _mm_storeu_si128(p.cast(), lo);
                _mm_storel_epi64(p.add(16).cast(), _mm256_extracti128_si256::<1>(v));
            }
            _ => _mm256_storeu_si256(p.cast(), v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Fast64, Kernel, Plan, V};
    use crate::code::{self, Spec};
    use rand::{Rng, RngCore, SeedableRng};
    use std::sync::Arc;

    /// Every code the matrix takes: its runs (encode, clean decode up to the first damaged
    /// group, one group) against the portable kernel, on random groups, with the bytes
    /// around the groups untouched; on AVX-512 and on AVX2, as the CPU has them.
    #[test]
    fn matrix_runs_match_the_portable_kernel() {
        let f = crate::cpu::features();
        let widths: Vec<bool> = [f.avx512f.then_some(true), f.avx2.then_some(false)]
            .into_iter()
            .flatten()
            .collect();
        if widths.is_empty() {
            eprintln!("no AVX2: the matrix is not built on this CPU");
            return;
        }
        let mut specs: Vec<Spec> = (2..=19)
            .flat_map(|m| (2..=19).map(move |n| Spec::Alien { rows: m, cols: n }))
            .collect();
        specs.extend((4..=80).map(Spec::Secded));
        specs.extend((3..=80).map(Spec::Hamming));
        specs.extend((2..=40).map(Spec::Parity));
        specs.extend((2..=10).map(Spec::Repetition));
        // (Product codes: the simulator's only.)
        specs
            .extend((2..=6).flat_map(|m| (2..=6).map(move |n| Spec::Product { rows: m, cols: n })));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut taken = 0;
        for spec in specs {
            let c = code::build(&spec);
            let kernel = Kernel::for_code(c.as_ref());
            let (k, r) = (c.k(), c.n() - c.k());
            let Some(matrix) = kernel.matrix64() else {
                assert!(
                    k > super::MAX_DATA || r > super::MAX_CHECKS || r == 0,
                    "{spec}"
                );
                continue;
            };
            taken += 1;
            let dims = (matrix.data_words(), matrix.parity_words());
            assert_eq!(dims, (k, r), "{spec}");
            for &wide in &widths {
                let fast = Fast64 {
                    matrix: Some(Arc::new(matrix.clone())),
                    wide,
                };
                matches_the_portable_kernel(&spec, &kernel, &fast, &mut rng);
            }
        }
        assert!(taken > 60, "{taken} codes took the matrix");
    }

    /// The runs of `fast`, the matrix of `kernel`'s code `spec`, against the portable
    /// kernel on random groups.
    fn matches_the_portable_kernel(
        spec: &Spec,
        kernel: &Kernel,
        fast: &Fast64,
        rng: &mut rand_chacha::ChaCha8Rng,
    ) {
        let m = fast.matrix().expect("a matrix");
        let (k, r) = (m.data_words(), m.parity_words());
        let plan = Plan::for_kernel(kernel, k);
        assert_eq!(plan.data_rows(), k, "{spec}");
        let (gd, gb) = (8 * k, 8 * (k + r));
        for _ in 0..4 {
            let groups = rng.gen_range(1..=9);
            let mut data = vec![0u8; groups * gd];
            rng.fill_bytes(&mut data);
            // The reference: the portable kernel, group by group.
            let mut want = vec![0u8; groups * gb];
            let (mut par, mut scr) = (vec![V::<1>::zero(); r], vec![V::zero(); 64]);
            kernel.encode_run::<1>(None, &data, &mut want, gd, gb, &mut par, &mut scr);
            let words: Vec<u64> = (0..k)
                .map(|i| u64::from_le_bytes(data[8 * i..8 * i + 8].try_into().unwrap()))
                .collect();
            for q in 0..r {
                let got = u64::from_le_bytes(want[gd + 8 * q..gd + 8 * q + 8].try_into().unwrap());
                assert_eq!(m.parity_word(&words, q), got, "{spec} parity word {q}");
            }
            // Encoded, with a guard of 64 bytes after the groups.
            let mut enc = vec![0xA5u8; groups * gb + 64];
            let mut last = vec![0u64; r];
            assert!(kernel.encode_run64(fast, &data, &mut enc[..groups * gb], gd, gb, &mut last));
            assert_eq!(&enc[..groups * gb], &want[..], "{spec} encode");
            assert!(
                enc[groups * gb..].iter().all(|&b| b == 0xA5),
                "{spec} guard"
            );
            let tail = &want[groups * gb - 8 * r..];
            let tail: Vec<u64> = tail
                .as_chunks::<8>()
                .0
                .iter()
                .map(|w| u64::from_le_bytes(*w))
                .collect();
            assert_eq!(last, tail, "{spec} the last group's parity words");
            // Clean: every group, the data words copied.
            let mut out = vec![0x5Au8; groups * gd + 64];
            let mut syn = vec![0u64; r];
            let clean = kernel.clean_run64(
                fast,
                &enc[..groups * gb],
                &mut out[..groups * gd],
                gd,
                gb,
                &mut syn,
            );
            assert_eq!(clean, Some(groups), "{spec} clean");
            assert_eq!(&out[..groups * gd], &data[..], "{spec} clean copy");
            assert!(
                out[groups * gd..].iter().all(|&b| b == 0x5A),
                "{spec} guard"
            );
            // One bit flipped in group `bad`: the run stops there, with its syndrome.
            let bad = rng.gen_range(0..groups);
            let bit = rng.gen_range(0..8 * gb);
            let mut noisy = enc[..groups * gb].to_vec();
            noisy[bad * gb + bit / 8] ^= 1 << (bit % 8);
            let clean = kernel.clean_run64(fast, &noisy, &mut out[..groups * gd], gd, gb, &mut syn);
            assert_eq!(clean, Some(bad), "{spec} stops at the damaged group");
            assert_eq!(
                &out[..(bad + 1) * gd],
                &noisy_data(&noisy, bad + 1, gd, gb)[..],
                "{spec}"
            );
            let mut want_syn = vec![0u64; r];
            let mut p = vec![V::<1>::zero(); r];
            let e = &noisy[bad * gb..(bad + 1) * gb];
            kernel.parity::<1>(None, &e[..gd], &mut p, &mut scr);
            for (q, w) in want_syn.iter_mut().enumerate() {
                let got = u64::from_le_bytes(e[gd + 8 * q..gd + 8 * q + 8].try_into().unwrap());
                *w = p[q].0[0] ^ got;
            }
            assert_eq!(syn, want_syn, "{spec} syndrome");
            assert!(syn.iter().any(|&w| w != 0), "{spec} a single flip shows");
        }
    }

    /// The data words of the first `groups` groups of `enc`.
    fn noisy_data(enc: &[u8], groups: usize, gd: usize, gb: usize) -> Vec<u8> {
        enc.chunks_exact(gb)
            .take(groups)
            .flat_map(|g| g[..gd].to_vec())
            .collect()
    }
}
