//! CRC-32C by carry-less folding with 512-bit registers (AVX-512 and VPCLMULQDQ), or with
//! 256-bit ones (AVX2 and VPCLMULQDQ: AMD Zen 3, Intel Alder Lake), for pieces of a few
//! hundred bytes up: what [`super::append`] runs where the CPU has them.
//!
//! Read a message as a polynomial over GF(2) whose first bit (bit 0 of byte 0) has the
//! highest degree. The raw CRC register after a message `M` from register 0 is
//! `M x^32 mod P`, so a 16-byte block `X` that has `d` more bytes after its start may be
//! replaced by any 16-byte `Y` with `Y = X x^(8 d) mod P` added into the 16 bytes that
//! start `d` bytes later: the register at the end is the same. With `X = X_lo x^64 + X_hi`
//! (`X_lo` the first eight bytes) and the carry-less product of two reflected 64-bit values
//! `a b x` (the product of two 64-bit values is one bit short of 128), the fold is
//! `Y = clmul(X_lo, x^(8 d + 63)) + clmul(X_hi, x^(8 d - 1))`, each constant reduced mod
//! `P` to 32 bits ([`Keys::at`]). Four 512-bit registers fold 256 bytes at a time, then
//! fold into one, one into a 128-bit lane, and the CRC instruction takes the last lane
//! and the bytes after it (eight 256-bit registers, where the CPU has no AVX-512). A
//! register `s` to start from is added into the first four bytes, which is the same as
//! starting from it.

use super::x_pow;
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// The shortest piece the folding path takes; shorter ones take the CRC instruction.
pub const MIN_LEN: usize = 256;

/// Evidence that the CPU runs [`append`]: AVX-512F, VPCLMULQDQ and SSE4.2, by
/// [`crate::cpu::features`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold(());

impl Fold {
    /// The evidence when the CPU has the features.
    pub fn detect() -> Option<Fold> {
        let f = crate::cpu::features();
        (f.avx512f && f.vpclmulqdq && f.sse42).then_some(Fold(()))
    }
}

/// How this CPU folds, when it does: with 512-bit registers, or with 256-bit ones
/// (AVX2, VPCLMULQDQ, PCLMULQDQ and SSE4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Folding {
    /// 512-bit registers ([`Fold`]).
    Wide(Fold),
    /// 256-bit registers.
    Narrow(Narrow),
}

/// Evidence that the CPU has AVX2, VPCLMULQDQ, PCLMULQDQ and SSE4.2 (the 256-bit fold).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Narrow(());

impl Folding {
    /// The widest fold this CPU runs, by [`crate::cpu::features`].
    pub fn detect() -> Option<Folding> {
        Fold::detect().map(Folding::Wide).or_else(Folding::narrow)
    }

    /// The 256-bit fold, where the CPU runs it (beside the 512-bit one, or alone).
    pub fn narrow() -> Option<Folding> {
        let f = crate::cpu::features();
        let has = f.avx2 && f.vpclmulqdq && f.pclmulqdq && f.sse42;
        has.then_some(Folding::Narrow(Narrow(())))
    }

    /// Every fold this CPU runs, the widest first (the tests check each).
    #[cfg(test)]
    fn available() -> Vec<Folding> {
        let wide = Fold::detect().map(Folding::Wide);
        wide.into_iter().chain(Folding::narrow()).collect()
    }
}

/// The fold constants for a distance of `d` bytes, as a 128-bit lane `[lo, hi]`.
fn lane(d: u64) -> [u64; 2] {
    [
        u64::from(x_pow(8 * d + 63)) << 32,
        u64::from(x_pow(8 * d - 1)) << 32,
    ]
}

/// The constants of every distance the fold uses, computed once.
#[derive(Debug)]
struct Keys {
    /// 256 bytes in every lane (four registers ahead).
    by256: [u64; 8],
    /// 192, 128 and 64 bytes: three registers into the fourth.
    by192: [u64; 8],
    by128: [u64; 8],
    by64: [u64; 8],
    /// 32 bytes (the 256-bit fold's lines into one register).
    by32: [u64; 8],
    /// 48, 32 and 16 bytes in lanes 0, 1 and 2: a register's lanes into its last.
    lanes: [u64; 8],
    /// 16 bytes: a lane into the next.
    by16: [u64; 2],
}

impl Keys {
    fn get() -> &'static Keys {
        static KEYS: OnceLock<Keys> = OnceLock::new();
        KEYS.get_or_init(|| {
            let all = |d| {
                let [lo, hi] = lane(d);
                [lo, hi, lo, hi, lo, hi, lo, hi]
            };
            let [a, b, c] = [48, 32, 16].map(lane);
            Keys {
                by256: all(256),
                by192: all(192),
                by128: all(128),
                by64: all(64),
                by32: all(32),
                lanes: [a[0], a[1], b[0], b[1], c[0], c[1], 0, 0],
                by16: lane(16),
            }
        })
    }
}

/// `crc32c(prefix ++ data)` from `crc32c(prefix)`, for `data` of at least [`MIN_LEN`]
/// bytes.
pub fn append(fold: Folding, crc: u32, data: &[u8]) -> u32 {
    assert!(
        data.len() >= MIN_LEN,
        "folding takes {MIN_LEN} bytes or more"
    );
    let (keys, none) = (Keys::get(), std::ptr::null_mut());
    // SAFETY: `fold` shows that the CPU has the features of the fold it names; no copy.
    unsafe {
        match fold {
            Folding::Wide(_) => append_avx512::<false>(keys, !crc, data, none, &[]),
            Folding::Narrow(_) => append_avx2::<false>(keys, !crc, data, none, &[]),
        }
    }
}

/// [`append`] that also copies `src` into `dst` (the same length, which starts at a
/// multiple of 64 bytes) in the same pass. Each 64-byte line the fold loads is written with
/// a non-temporal store (past the caches), the last partial line with ordinary ones; the
/// stores are not fenced (the caller does: [`crate::stream::nt::fence`]). The fold then runs
/// in the shadow of the memory traffic instead of in a pass of its own over the copied
/// bytes. The lines of `ahead` (bytes the caller reads next) are asked for from memory on
/// the way, spread evenly over the copy; a hint that changes no result.
pub fn copy_append(fold: Folding, crc: u32, dst: &mut [u8], src: &[u8], ahead: &[u8]) -> u32 {
    assert!(
        src.len() >= MIN_LEN,
        "folding takes {MIN_LEN} bytes or more"
    );
    assert_eq!(dst.len(), src.len(), "a copy between slices of one length");
    assert!(
        (dst.as_ptr() as usize).is_multiple_of(64),
        "streamed lines start at a multiple of 64"
    );
    let (keys, to) = (Keys::get(), dst.as_mut_ptr());
    // SAFETY: `fold` shows that the CPU has the features of the fold it names; `dst` holds
    // `src.len()` bytes from a multiple of 64 and does not overlap `src` (one is borrowed
    // mutably).
    unsafe {
        match fold {
            Folding::Wide(_) => append_avx512::<true>(keys, !crc, src, to, ahead),
            Folding::Narrow(_) => append_avx2::<true>(keys, !crc, src, to, ahead),
        }
    }
}

/// The fold of [`append`]; with `COPY`, each whole 64-byte line it loads is also streamed
/// to `dst` at the same offset and the bytes past the last whole line are copied there. As
/// each line is loaded, the line at the same fraction of `ahead` is prefetched.
///
/// # Safety
///
/// The CPU has AVX-512F, VPCLMULQDQ and SSE4.2. With `COPY`, `dst` is valid for writes of
/// `data.len()` bytes, starts at a multiple of 64 and does not overlap `data`.
#[target_feature(enable = "avx512f,vpclmulqdq,sse4.2")]
unsafe fn append_avx512<const COPY: bool>(
    keys: &Keys,
    reg: u32,
    data: &[u8],
    dst: *mut u8,
    ahead: &[u8],
) -> u32 {
    // SAFETY (every load below): each reads 64 or 16 bytes inside `data`, from a pointer
    // that the loop bounds keep at least that far from its end; with `COPY` the store is
    // to the same 64 bytes of `dst`, at a multiple of 64 (the caller's contract).
    let ahead = Ahead::new(ahead, data.len());
    let load = |at: usize| unsafe {
        ahead.ask(at);
        let v = _mm512_loadu_si512(data.as_ptr().add(at).cast());
        if COPY {
            _mm512_stream_si512(dst.add(at).cast(), v);
        }
        v
    };
    let key = |k: &[u64; 8]| unsafe { _mm512_loadu_si512(k.as_ptr().cast()) };
    let len = data.len();
    let mut x = [load(0), load(64), load(128), load(192)];
    x[0] = _mm512_xor_si512(x[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128(reg as i32)));
    let mut at = 256;
    let k = key(&keys.by256);
    while at + 256 <= len {
        for (i, x) in x.iter_mut().enumerate() {
            *x = fold(*x, k, load(at + 64 * i));
        }
        at += 256;
    }
    let mut v = fold(x[0], key(&keys.by192), x[3]);
    v = fold(x[1], key(&keys.by128), v);
    v = fold(x[2], key(&keys.by64), v);
    let k = key(&keys.by64);
    while at + 64 <= len {
        v = fold(v, k, load(at));
        at += 64;
    }
    // The bytes after the last whole line.
    if COPY {
        // SAFETY: the bytes `at..` of `dst` (the caller's contract), as many as are left.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr().add(at), dst.add(at), len - at) };
    }
    finish(keys, v, &data[at..])
}

/// The lines of `ahead` (the bytes the caller reads next) asked for over a fold of `len`
/// bytes: as the fold loads its line at `at`, the line at the same fraction of `ahead`.
#[derive(Clone, Copy)]
struct Ahead<'a> {
    ahead: &'a [u8],
    /// `ahead`'s length over the fold's, 16 fraction bits (`ahead` up to a few times it).
    scale: u64,
}

impl<'a> Ahead<'a> {
    fn new(ahead: &'a [u8], len: usize) -> Ahead<'a> {
        let scale = ((ahead.len() as u64) << 16) / len as u64;
        Ahead { ahead, scale }
    }

    /// Asks for the line of `ahead` at the fold's line `at`.
    #[inline(always)]
    fn ask(&self, at: usize) {
        if self.scale != 0 {
            let a = ((at as u64 * self.scale) >> 16) as usize;
            // (`wrapping_add`: a hint's address need not lie in `ahead`.)
            crate::slice::prefetch::line(self.ahead.as_ptr().wrapping_add(a));
        }
    }
}

/// `x` folded forward onto `y` (the fold's step, lane by lane): `x`'s 16-byte lanes moved
/// as far as the constants `k` say ([`lane`]) and added into `y`'s.
#[target_feature(enable = "avx512f,vpclmulqdq")]
#[inline]
fn fold(x: __m512i, k: __m512i, y: __m512i) -> __m512i {
    let lo = _mm512_clmulepi64_epi128::<0x00>(x, k);
    let hi = _mm512_clmulepi64_epi128::<0x11>(x, k);
    _mm512_ternarylogic_epi64::<0x96>(lo, hi, y)
}

/// [`append_avx512`] with 256-bit registers: eight of them fold 256 bytes at a time, then
/// fold one after the other into one, which folds into its last lane.
///
/// # Safety
///
/// As for [`append_avx512`], the CPU having AVX2, VPCLMULQDQ, PCLMULQDQ and SSE4.2.
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
unsafe fn append_avx2<const COPY: bool>(
    keys: &Keys,
    reg: u32,
    data: &[u8],
    dst: *mut u8,
    ahead: &[u8],
) -> u32 {
    // SAFETY (every load below): each reads 64 bytes inside `data`, from a pointer that the
    // loop bounds keep at least that far from its end; with `COPY` the stores are to the
    // same bytes of `dst`, at a multiple of 32 (the caller's contract).
    let ahead = Ahead::new(ahead, data.len());
    let load = |at: usize| unsafe {
        ahead.ask(at);
        let p = data.as_ptr().add(at);
        let v = [
            _mm256_loadu_si256(p.cast()),
            _mm256_loadu_si256(p.add(32).cast()),
        ];
        if COPY {
            _mm256_stream_si256(dst.add(at).cast(), v[0]);
            _mm256_stream_si256(dst.add(at + 32).cast(), v[1]);
        }
        v
    };
    // SAFETY: loads of the first 32 bytes of a key.
    let key = |k: &[u64; 8]| unsafe { _mm256_loadu_si256(k.as_ptr().cast()) };
    let len = data.len();
    let [[a, b], [c, d], [e, f], [g, h]] = [0, 64, 128, 192].map(load);
    let mut x = [a, b, c, d, e, f, g, h];
    x[0] = _mm256_xor_si256(x[0], _mm256_zextsi128_si256(_mm_cvtsi32_si128(reg as i32)));
    let mut at = 256;
    let k = key(&keys.by256);
    while at + 256 <= len {
        for j in 0..4 {
            let [a, b] = load(at + 64 * j);
            x[2 * j] = fold256(x[2 * j], k, a);
            x[2 * j + 1] = fold256(x[2 * j + 1], k, b);
        }
        at += 256;
    }
    let k = key(&keys.by32);
    let mut v = x[1..].iter().fold(x[0], |v, &y| fold256(v, k, y));
    while at + 64 <= len {
        let [a, b] = load(at);
        v = fold256(fold256(v, k, a), k, b);
        at += 64;
    }
    if COPY {
        // SAFETY: the bytes `at..` of `dst` (the caller's contract), as many as are left.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr().add(at), dst.add(at), len - at) };
    }
    finish_lane(keys, last_lane256(keys, v), &data[at..])
}

/// A 256-bit register's first lane folded into its second.
#[target_feature(enable = "avx2,pclmulqdq")]
#[inline]
fn last_lane256(keys: &Keys, v: __m256i) -> __m128i {
    // SAFETY: a load of the 16-byte key.
    let k16 = unsafe { _mm_loadu_si128(keys.by16.as_ptr().cast()) };
    let lo = _mm256_castsi256_si128(v);
    _mm_xor_si128(
        _mm_xor_si128(
            _mm_clmulepi64_si128::<0x00>(lo, k16),
            _mm_clmulepi64_si128::<0x11>(lo, k16),
        ),
        _mm256_extracti128_si256::<1>(v),
    )
}

/// [`fold`] with 256-bit registers.
#[target_feature(enable = "avx2,vpclmulqdq")]
#[inline]
fn fold256(x: __m256i, k: __m256i, y: __m256i) -> __m256i {
    let lo = _mm256_clmulepi64_epi128::<0x00>(x, k);
    let hi = _mm256_clmulepi64_epi128::<0x11>(x, k);
    _mm256_xor_si256(_mm256_xor_si256(lo, hi), y)
}

/// The CRC-32C at the end of a fold: `v`, the register of the last whole 64 bytes folded,
/// then the bytes `rest` after them (at most 64 here), inverted as a CRC-32C is.
#[target_feature(enable = "avx512f,vpclmulqdq,sse4.2")]
#[inline]
fn finish(keys: &Keys, v: __m512i, rest: &[u8]) -> u32 {
    // SAFETY: loads of the 64- and 16-byte keys and of 16 bytes of `rest` at `at`, which
    // the loop keeps 16 bytes from its end.
    let key = |k: &[u64]| unsafe { _mm512_loadu_si512(k.as_ptr().cast()) };
    // The four lanes into the last one.
    let t = fold(v, key(&keys.lanes), _mm512_setzero_si512());
    let mut w = _mm512_extracti32x4_epi32::<3>(v);
    w = _mm_xor_si128(w, _mm512_extracti32x4_epi32::<0>(t));
    w = _mm_xor_si128(w, _mm512_extracti32x4_epi32::<1>(t));
    w = _mm_xor_si128(w, _mm512_extracti32x4_epi32::<2>(t));
    finish_lane(keys, w, rest)
}

/// The CRC-32C at the end of a fold from its last 16-byte lane `w`, then the bytes `rest`
/// after it (16 at a time, then one by one), inverted as a CRC-32C is.
#[target_feature(enable = "pclmulqdq,sse4.2")]
#[inline]
fn finish_lane(keys: &Keys, mut w: __m128i, rest: &[u8]) -> u32 {
    // SAFETY: a load of the 16-byte key; loads of 16 bytes of `rest` at `at`, which the
    // loop keeps 16 bytes from its end.
    let k16 = unsafe { _mm_loadu_si128(keys.by16.as_ptr().cast()) };
    let mut at = 0;
    while at + 16 <= rest.len() {
        let lo = _mm_clmulepi64_si128::<0x00>(w, k16);
        let hi = _mm_clmulepi64_si128::<0x11>(w, k16);
        // SAFETY: as above.
        let y = unsafe { _mm_loadu_si128(rest.as_ptr().add(at).cast()) };
        w = _mm_xor_si128(_mm_xor_si128(lo, hi), y);
        at += 16;
    }
    let mut r = _mm_crc32_u64(0, _mm_cvtsi128_si64(w) as u64);
    r = _mm_crc32_u64(r, _mm_extract_epi64::<1>(w) as u64);
    let mut r = r as u32;
    for &b in &rest[at..] {
        r = _mm_crc32_u8(r, b);
    }
    !r
}

/// The CRC-32C of a message read as pieces of equal length, 64 bytes of every piece at a
/// time (the codec's column pass, `Codec::encode_columns`): each piece folds into a register
/// of its own ([`RowFold::first`], [`RowFold::step`]), and the registers fold into one at the
/// end ([`RowFold::finish`]), each moved by a piece's length. Where the CPU folds with
/// 256-bit registers only, a piece's register is two of them ([`RowFold::step_narrow`]).
#[derive(Clone, Copy, Debug)]
pub struct RowFold {
    keys: &'static Keys,
    /// The constants for a piece's length, `row_bytes`, in every lane.
    by_row: [u64; 8],
    /// The same for the last piece's, 64 bytes shorter.
    by_last: [u64; 8],
}

impl RowFold {
    /// The fold of pieces of `row_bytes` bytes (a multiple of 64, at least 128).
    pub fn new(fold: Folding, row_bytes: usize) -> RowFold {
        let _ = fold;
        assert!(
            row_bytes >= 128 && row_bytes.is_multiple_of(64),
            "pieces of whole lines, at least two"
        );
        let all = |d: usize| {
            let [lo, hi] = lane(d as u64);
            [lo, hi, lo, hi, lo, hi, lo, hi]
        };
        RowFold {
            keys: Keys::get(),
            by_row: all(row_bytes),
            by_last: all(row_bytes - 64),
        }
    }

    /// The first piece's register after its first 64 bytes `v`, `crc` being the CRC-32C
    /// of what comes before the pieces (the other pieces' registers start as their first 64
    /// bytes).
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    #[inline]
    pub fn first(crc: u32, v: __m512i) -> __m512i {
        _mm512_xor_si512(v, _mm512_zextsi128_si512(_mm_cvtsi32_si128(!crc as i32)))
    }

    /// A piece's register `x` after its next 64 bytes `v`.
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    #[inline]
    pub fn step(&self, x: __m512i, v: __m512i) -> __m512i {
        // SAFETY: a load of the 64-byte key.
        fold(
            x,
            unsafe { _mm512_loadu_si512(self.keys.by64.as_ptr().cast()) },
            v,
        )
    }

    /// The CRC-32C of the pieces whose registers are `regs`, in order (at least one; the
    /// first started by [`RowFold::first`]), the last piece 64 bytes short of the others,
    /// followed by the bytes `rest` (at most 64).
    #[target_feature(enable = "avx512f,vpclmulqdq,sse4.2")]
    #[inline]
    pub fn finish(&self, regs: &[__m512i], rest: &[u8]) -> u32 {
        // SAFETY: loads of the 64-byte keys.
        let key = |k: &[u64; 8]| unsafe { _mm512_loadu_si512(k.as_ptr().cast()) };
        let (by_row, by_last) = (key(&self.by_row), key(&self.by_last));
        let last = regs.len() - 1;
        let v = (1..regs.len()).fold(regs[0], |a, j| {
            fold(a, if j == last { by_last } else { by_row }, regs[j])
        });
        finish(self.keys, v, rest)
    }

    /// [`RowFold::first`] with a register of two 256-bit halves (the 256-bit fold).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn first_narrow(crc: u32, v: [__m256i; 2]) -> [__m256i; 2] {
        let c = _mm256_zextsi128_si256(_mm_cvtsi32_si128(!crc as i32));
        [_mm256_xor_si256(v[0], c), v[1]]
    }

    /// [`RowFold::step`] with registers of two 256-bit halves (the 256-bit fold).
    #[target_feature(enable = "avx2,vpclmulqdq")]
    #[inline]
    pub fn step_narrow(&self, x: [__m256i; 2], v: [__m256i; 2]) -> [__m256i; 2] {
        // SAFETY: a load of the first 32 bytes of the key.
        let k = unsafe { _mm256_loadu_si256(self.keys.by64.as_ptr().cast()) };
        [fold256(x[0], k, v[0]), fold256(x[1], k, v[1])]
    }

    /// [`RowFold::finish`] with registers of two 256-bit halves (the 256-bit fold).
    #[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
    #[inline]
    pub fn finish_narrow(&self, regs: &[[__m256i; 2]], rest: &[u8]) -> u32 {
        // SAFETY: loads of the first 32 bytes of the keys.
        let key = |k: &[u64; 8]| unsafe { _mm256_loadu_si256(k.as_ptr().cast()) };
        let (by_row, by_last) = (key(&self.by_row), key(&self.by_last));
        let last = regs.len() - 1;
        let [a, b] = (1..regs.len()).fold(regs[0], |a, j| {
            let k = if j == last { by_last } else { by_row };
            [fold256(a[0], k, regs[j][0]), fold256(a[1], k, regs[j][1])]
        });
        // The first half into the second, then its first lane into its last.
        let v = fold256(a, key(&self.keys.by32), b);
        finish_lane(self.keys, last_lane256(self.keys, v), rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copying_fold_copies_exactly_and_agrees_at_every_length_and_start() {
        let folds = Folding::available();
        if folds.is_empty() {
            eprintln!("no VPCLMULQDQ here: nothing to check");
        }
        for fold in folds {
            copies_exactly(fold);
        }
    }

    fn copies_exactly(fold: Folding) {
        let data = super::super::sample(5000, 7);
        let mut out = vec![0u8; 5200];
        let base = out.as_ptr().align_offset(64);
        for len in (MIN_LEN..800).chain([1023, 1024, 4096, 4099, 4900]) {
            for start in [0, 3, 64] {
                let src = &data[start..start + len];
                out.fill(0xA5);
                let dst = &mut out[base + 64..base + 64 + len];
                let got = copy_append(fold, 0x1234_5678, dst, src, &[]);
                let want = crc32c::crc32c_append(0x1234_5678, src);
                assert_eq!(got, want, "{fold:?} len {len}");
                assert_eq!(
                    &out[base + 64..base + 64 + len],
                    src,
                    "len {len} start {start}"
                );
                assert!(
                    out[..base + 64].iter().all(|&b| b == 0xA5),
                    "nothing before"
                );
                assert!(
                    out[base + 64 + len..].iter().all(|&b| b == 0xA5),
                    "nothing after"
                );
            }
        }
    }

    #[test]
    fn folding_matches_the_crc_instruction_at_every_length_and_start() {
        let folds = Folding::available();
        if folds.is_empty() {
            eprintln!("no VPCLMULQDQ here: nothing to check");
        }
        let data = super::super::sample(5000, 13);
        for fold in folds {
            for len in (MIN_LEN..1100).chain([2047, 2048, 4096, 4099, 4999]) {
                for start in [0, 1, 7, 13] {
                    let d = &data[start..(start + len).min(data.len())];
                    for crc in [0, 0xDEAD_BEEF] {
                        let want = crc32c::crc32c_append(crc, d);
                        let got = append(fold, crc, d);
                        assert_eq!(got, want, "{fold:?} len {} start {start}", d.len());
                    }
                }
            }
        }
    }
}
