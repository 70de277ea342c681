//! AVX2 group kernels for single-word rows (`D = 64`) of the Hamming and SECDED codes, and
//! the fused kernels of `alien:9x9` and `secded:72`: a grid row of eight positions is two
//! 256-bit registers, the eight column parities two accumulators, and four row sums come
//! out of one transposing reduction ([`reduce4`], which the alien boards' kernels of
//! `grid64` share); the copy of the data rows is stored from the same registers. Tested
//! against the portable kernels (`fast_kernels_match_the_portable_ones`) and, through the
//! codec, against `BlockCode`.
//!
//! The Hamming kernels and their pieces are `inline(always)` without a target feature of
//! their own (and without closures, which would be compiled without the caller's features),
//! so that they are compiled into the AVX2 loop of `fast64::run`, as the alien boards' are
//! (`grid64`): as `#[inline]` AVX2 functions they stayed a call per group (perf: 43 % of
//! secded:39's encoding time in `hamming`, 23 % in the loop around it).

use super::{Plans, RowPlan};
use std::arch::x86_64::*;

/// The XOR of the four 64-bit lanes of each of `a[0..4]`, as one register.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn reduce4(a: [__m256i; 4]) -> __m256i {
    let t01 = _mm256_xor_si256(
        _mm256_unpacklo_epi64(a[0], a[1]),
        _mm256_unpackhi_epi64(a[0], a[1]),
    );
    let t23 = _mm256_xor_si256(
        _mm256_unpacklo_epi64(a[2], a[3]),
        _mm256_unpackhi_epi64(a[2], a[3]),
    );
    _mm256_xor_si256(
        _mm256_permute2x128_si256(t01, t23, 0x20),
        _mm256_permute2x128_si256(t01, t23, 0x31),
    )
}

/// The XOR of the four lanes of `a`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn reduce1(a: __m256i) -> u64 {
    let f = _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    (_mm_cvtsi128_si64(f) ^ _mm_extract_epi64(f, 1)) as u64
}

#[inline(always)]
unsafe fn lanes(v: __m256i) -> [u64; 4] {
    // SAFETY (the whole body): the caller guarantees AVX2; the store is to `out`, 32
    // bytes.
    unsafe {
        let mut out = [0u64; 4];
        _mm256_storeu_si256(out.as_mut_ptr().cast(), v);
        out
    }
}

#[inline]
pub(super) fn word(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
}

/// `Kernel::Hamming` from its row plans (at most 16 grid rows, 3 to 7 check rows): the
/// column parities of the grid of positions stay in two registers, the row sums are
/// reduced four rows at a time, and the check rows above the third are sums of row sums.
/// Monomorphised for each [`Plans`] source, so that a plan fixed at compile time is
/// unrolled with its row kinds resolved.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
pub unsafe fn hamming_plan<const COPY: bool, P: Plans>(
    src: &[u8],
    copy: &mut [u8],
    plans: P,
    par: &mut [u64],
) {
    // SAFETY (the whole body): the caller guarantees AVX2; every pointer access is
    // bounds checked by the slice it is taken from, as noted.
    unsafe {
        let (plan, checks, overall) = (plans.rows(), plans.checks(), plans.overall());
        assert!(plan.len() <= 16 && (3..=7).contains(&checks));
        assert!(par.len() >= checks + usize::from(overall));
        let k = plans.data_words(src);
        if COPY {
            // In blocks of 256 bytes, each unrolled: as one loop the copy would be turned
            // into a call to memcpy, which costs more than the copy itself at this size.
            let (src, copy) = (&src[..8 * k], &mut copy[..8 * k]);
            let mut blocks = copy.chunks_exact_mut(256).zip(src.chunks_exact(256));
            for (d, s) in &mut blocks {
                let (d, s) = (
                    d.as_mut_ptr().cast::<__m256i>(),
                    s.as_ptr().cast::<__m256i>(),
                );
                for i in 0..8 {
                    // SAFETY: 32-byte part `i < 8` of the 256-byte blocks; unaligned.
                    _mm256_storeu_si256(d.add(i), _mm256_loadu_si256(s.add(i)));
                }
            }
            // The rest word by word (whole words: a fixed-size copy, no call).
            let done = 8 * k / 256 * 256;
            let words = copy[done..]
                .chunks_exact_mut(8)
                .zip(src[done..].chunks_exact(8));
            for (d, s) in words {
                let d: &mut [u8; 8] = d.try_into().expect("8 bytes");
                *d = s.try_into().expect("8 bytes");
            }
        }
        let zero = _mm256_setzero_si256();
        // (A function, not a closure: a closure is not compiled with the caller's features.)
        #[inline(always)]
        unsafe fn load(src: &[u8], at: usize) -> __m256i {
            let p = src[8 * at..8 * at + 32].as_ptr().cast::<__m256i>();
            // SAFETY: 32 bytes, bounds checked by the slice; unaligned load; the caller
            // guarantees AVX2.
            unsafe { _mm256_loadu_si256(p) }
        }
        let (mut c0, mut c1) = (zero, zero);
        let mut sums = [zero; 16];
        for (sum, p) in sums.iter_mut().zip(plan) {
            let (x0, x1) = match *p {
                RowPlan::Full(at) => (load(src, at), load(src, at + 4)),
                RowPlan::Tail(at) => (
                    _mm256_blend_epi32(zero, load(src, at - 1), 0b1111_1100),
                    load(src, at + 3),
                ),
                RowPlan::First(at) => {
                    let w = load(src, at);
                    (
                        _mm256_blend_epi32(zero, _mm256_permute4x64_epi64(w, 0), 0b1100_0000),
                        _mm256_blend_epi32(zero, w, 0b1111_1100),
                    )
                }
            };
            c0 = _mm256_xor_si256(c0, x0);
            c1 = _mm256_xor_si256(c1, x1);
            *sum = _mm256_xor_si256(x0, x1);
        }
        // Grid row sums g_t, four to a register: gq[q] holds g_{4q..4q+4}.
        let gq = [
            reduce4([sums[0], sums[1], sums[2], sums[3]]),
            reduce4([sums[4], sums[5], sums[6], sums[7]]),
            reduce4([sums[8], sums[9], sums[10], sums[11]]),
            reduce4([sums[12], sums[13], sums[14], sums[15]]),
        ];
        finish_hamming(c0, c1, gq, checks, overall, par);
    }
}

/// The check rows from the column parities `c0`, `c1` of the position grid and its row
/// sums `gq` (g_{4q..4q+4} in `gq[q]`, at most 16 grid rows), as [`finish_short`] takes
/// them.
#[inline(always)]
unsafe fn finish_hamming(
    c0: __m256i,
    c1: __m256i,
    gq: [__m256i; 4],
    checks: usize,
    overall: bool,
    par: &mut [u64],
) {
    // SAFETY (the whole body): the caller guarantees AVX2; no memory is accessed
    // through pointers.
    unsafe {
        let x = _mm256_xor_si256;
        let s = x(x(gq[0], gq[1]), x(gq[2], gq[3]));
        let hq = [x(gq[1], gq[3]), x(gq[2], gq[3])];
        finish_short(c0, c1, s, hq, checks, overall, par);
    }
}

/// [`finish_long`] for at most 7 check rows (16 grid rows), with every term computed and
/// those past `checks` masked, in one loop of stores: through the general one, encoding at
/// `D = 64` ran 5-10 % slower (secded:39 0.34 -> 0.30x memcpy, hamming:72 0.46 -> 0.42x,
/// three alternated rounds).
#[inline(always)]
unsafe fn finish_short(
    c0: __m256i,
    c1: __m256i,
    s: __m256i,
    hq: [__m256i; 2],
    checks: usize,
    overall: bool,
    par: &mut [u64],
) {
    // SAFETY (the whole body): the caller guarantees AVX2; no memory is accessed
    // through pointers.
    unsafe {
        let sl = lanes(s);
        let (lo, hi) = (lanes(c0), lanes(c1));
        let c = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
        let h = [
            c[1] ^ c[3] ^ c[5] ^ c[7],
            c[2] ^ c[3] ^ c[6] ^ c[7],
            c[4] ^ c[5] ^ c[6] ^ c[7],
            sl[1] ^ sl[3],
            sl[2] ^ sl[3],
            reduce1(hq[0]),
            reduce1(hq[1]),
        ];
        let all = sl[0] ^ sl[1] ^ sl[2] ^ sl[3];
        let keep = |i: usize| 0u64.wrapping_sub(u64::from(i < checks));
        let total = all
            ^ h[0]
            ^ h[1]
            ^ h[2]
            ^ (h[3] & keep(3))
            ^ (h[4] & keep(4))
            ^ (h[5] & keep(5))
            ^ (h[6] & keep(6));
        let (head, rest) = par.split_at_mut(usize::from(overall));
        for (r, x) in rest[..checks].iter_mut().zip(h) {
            *r = x;
        }
        if overall {
            head[0] = total;
        }
    }
}

/// The check rows from the column parities `c0`, `c1` of the position grid and its row
/// sums, written to `par`: the `checks` Hamming check rows, after the overall parity (the
/// sum of every data row and every check row) when `overall`. Check row `b < 3` sums the
/// columns with bit `b`, check row `3 + b` the row sums g_t whose index t has bit b. The row
/// sums come four to a register (`g_{4q..4q+4}`, lane `t % 4`): `s` is the XOR of all of
/// them (check rows 3 and 4 from its lanes), `hq[i]` the XOR of those with bit `i` of `q`
/// (check row `5 + i`). Combined term by term: a loop over an array of the first `checks`
/// is vectorised into a masked load of values just stored one by one, which stalls on
/// store forwarding.
#[inline(always)]
unsafe fn finish_long(
    c0: __m256i,
    c1: __m256i,
    s: __m256i,
    hq: &[__m256i],
    checks: usize,
    overall: bool,
    par: &mut [u64],
) {
    // SAFETY (the whole body): the caller guarantees AVX2; no memory is accessed
    // through pointers.
    unsafe {
        assert!((3..=5 + hq.len()).contains(&checks) && par.len() >= checks + usize::from(overall));
        let sl = lanes(s);
        let (lo, hi) = (lanes(c0), lanes(c1));
        let c = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
        let keep = |i: usize| 0u64.wrapping_sub(u64::from(i < checks));
        let h = [
            c[1] ^ c[3] ^ c[5] ^ c[7],
            c[2] ^ c[3] ^ c[6] ^ c[7],
            c[4] ^ c[5] ^ c[6] ^ c[7],
            (sl[1] ^ sl[3]) & keep(3),
            (sl[2] ^ sl[3]) & keep(4),
        ];
        let mut total = sl[0] ^ sl[1] ^ sl[2] ^ sl[3] ^ h[0] ^ h[1] ^ h[2] ^ h[3] ^ h[4];
        let (head, rest) = par.split_at_mut(usize::from(overall));
        for (r, x) in rest[..checks.min(5)].iter_mut().zip(h) {
            *r = x;
        }
        for (r, &v) in rest[5.min(checks)..checks].iter_mut().zip(hq) {
            let x = reduce1(v);
            *r = x;
            total ^= x;
        }
        if overall {
            head[0] = total;
        }
    }
}

/// `f` as exactly `LEN` words.
fn words<const LEN: usize>(f: &[u8]) -> &[[u8; 8]; LEN] {
    let (w, rest) = f.as_chunks::<8>();
    assert!(rest.is_empty());
    w.try_into().expect("LEN words")
}

/// A fused kernel `$fed` run on three groups side by side, one CRC register per group
/// (`$len` words of each piece, cut at `$cut`): the one body of the `*_crc3` entry points.
macro_rules! crc3 {
    ($(#[$doc:meta])* $name:ident, $fed:ident, [$l0:literal, $l1:literal, $l2:literal],
     [$c1:literal, $c2:literal, $end:literal]) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU must support AVX2 and SSE4.2.
        #[target_feature(enable = "avx2,sse4.2")]
        pub unsafe fn $name(
            src: [&[u8]; 3],
            dst: [&mut [u8]; 3],
            par: &mut [[u64; 16]; 3],
            crc: [u32; 3],
        ) -> [u32; 3] {
            let mut x = registers(crc);
            let [d0, d1, d2] = dst;
            par[0] = $fed::<$l0>(src[0], d0, pieces(src, 0, $c1), &mut x);
            par[1] = $fed::<$l1>(src[1], d1, pieces(src, $c1, $c2), &mut x);
            par[2] = $fed::<$l2>(src[2], d2, pieces(src, $c2, $end), &mut x);
            crcs(x)
        }
    };
}

/// Three pieces of `LEN` words whose CRC-32C instructions a fused kernel spreads over its
/// `ROWS` grid rows, one CRC register per piece.
struct Feed<'a, const LEN: usize, const ROWS: usize>([&'a [[u8; 8]; LEN]; 3]);

impl<'a, const LEN: usize, const ROWS: usize> Feed<'a, LEN, ROWS> {
    fn new(feed: [&'a [u8]; 3]) -> Self {
        Feed([words(feed[0]), words(feed[1]), words(feed[2])])
    }

    /// Row `t`'s share: words `t LEN / ROWS .. (t + 1) LEN / ROWS` of each piece.
    #[inline]
    #[target_feature(enable = "sse4.2")]
    fn row(&self, t: usize, crc: &mut [u64; 3]) {
        for i in t * LEN / ROWS..(t + 1) * LEN / ROWS {
            for (x, f) in crc.iter_mut().zip(self.0) {
                *x = _mm_crc32_u64(*x, u64::from_le_bytes(f[i]));
            }
        }
    }
}

/// The CRC registers of three CRC-32C values, and back.
fn registers(crc: [u32; 3]) -> [u64; 3] {
    crc.map(|c| u64::from(!c))
}

fn crcs(x: [u64; 3]) -> [u32; 3] {
    x.map(|r| !(r as u32))
}

/// Bytes `a..b` of each of three groups.
fn pieces(src: [&[u8]; 3], a: usize, b: usize) -> [&[u8]; 3] {
    [&src[0][a..b], &src[1][a..b], &src[2][a..b]]
}

/// One `secded:72` group (`src`, 64 data words): its words copied to `dst` and its 8
/// check words returned (overall parity first; 16 words as [`alien99_fed`]'s, the last
/// eight zero), with the CRC-32C instructions of three other pieces of `LEN`
/// words (`feed`, one per register of `crc`) spread over its grid rows, so that the CRC
/// unit and the vector units work side by side. Written out row by row: as a loop over
/// the row plans, with the CRC loop inside, it is not unrolled.
#[inline]
#[target_feature(enable = "avx2,sse4.2")]
fn secded72_fed<const LEN: usize>(
    src: &[u8],
    dst: &mut [u8],
    feed: [&[u8]; 3],
    crc: &mut [u64; 3],
) -> [u64; 16] {
    let src: &[u8; 512] = src[..512].try_into().expect("512 bytes");
    let dst: &mut [u8; 512] = (&mut dst[..512]).try_into().expect("512 bytes");
    let feed = Feed::<LEN, 9>::new(feed);
    let zero = _mm256_setzero_si256();
    let load = |at: usize| {
        let p = src[8 * at..8 * at + 32].as_ptr().cast::<__m256i>();
        // SAFETY: 32 bytes, bounds checked by the slice; unaligned load.
        unsafe { _mm256_loadu_si256(p) }
    };
    let d = dst.as_mut_ptr();
    let store = |at: usize, v: __m256i| {
        assert!(at + 4 <= 64);
        // SAFETY: words `at..at + 4` of the 512 bytes of `dst`; unaligned store.
        unsafe { _mm256_storeu_si256(d.add(8 * at).cast::<__m256i>(), v) }
    };
    // The rows' words are copied from the loads (a row that starts after a power of two
    // also rewrites the word before it, with the same value).
    let full = |at: usize| {
        let (a, b) = (load(at), load(at + 4));
        store(at, a);
        store(at + 4, b);
        (a, b)
    };
    let tail = |at: usize| {
        let (a, b) = (load(at - 1), load(at + 3));
        store(at - 1, a);
        store(at + 3, b);
        (_mm256_blend_epi32(zero, a, 0b1111_1100), b)
    };
    let (mut c0, mut c1) = (zero, zero);
    let mut add = |(x0, x1): (__m256i, __m256i)| {
        c0 = _mm256_xor_si256(c0, x0);
        c1 = _mm256_xor_si256(c1, x1);
        _mm256_xor_si256(x0, x1)
    };
    // Secded72::ROWS, row by row.
    feed.row(0, crc);
    let w = load(0);
    let first = (
        _mm256_blend_epi32(zero, _mm256_permute4x64_epi64(w, 0), 0b1100_0000),
        _mm256_blend_epi32(zero, w, 0b1111_1100),
    );
    let s0 = add(first);
    feed.row(1, crc);
    let s1 = add(tail(4));
    // Row 0's words 0..4 after row 1 has rewritten word 3 with the same value.
    store(0, w);
    feed.row(2, crc);
    let s2 = add(tail(11));
    feed.row(3, crc);
    let s3 = add(full(18));
    let g0 = reduce4([s0, s1, s2, s3]);
    feed.row(4, crc);
    let s4 = add(tail(26));
    feed.row(5, crc);
    let s5 = add(full(33));
    feed.row(6, crc);
    let s6 = add(full(41));
    feed.row(7, crc);
    let s7 = add(full(49));
    let g1 = reduce4([s4, s5, s6, s7]);
    feed.row(8, crc);
    let s8 = add(tail(57));
    let g2 = reduce4([s8, zero, zero, zero]);
    let mut par = [0u64; 16];
    // SAFETY: this function's target features include AVX2.
    unsafe { finish_hamming(c0, c1, [g0, g1, g2, zero], 7, true, &mut par[..8]) };
    par
}

crc3!(
    /// Three `secded:72` groups (see [`secded72_fed`]): copied, their check words put in
    /// `par`, and the CRC-32C of each group's data appended to its own register of `crc`: the
    /// pieces `0..168`, `168..336` and `336..512` of the three groups are fed beside the
    /// kernels of groups 0, 1 and 2.
    secded72_crc3,
    secded72_fed,
    [21, 21, 22],
    [168, 336, 512]
);

/// One `alien:9x9` group (`src`, 65 data words: eight grid rows of eight, then the corner
/// word `b`): its words copied to `dst` and its 16 check words returned (the top row,
/// then the left column, as `grid64::alien_odd_odd` writes them), with the CRC-32C instructions
/// of three other pieces of `LEN` words spread over its grid rows (see [`secded72_fed`]).
#[inline]
#[target_feature(enable = "avx2,sse4.2")]
fn alien99_fed<const LEN: usize>(
    src: &[u8],
    dst: &mut [u8],
    feed: [&[u8]; 3],
    crc: &mut [u64; 3],
) -> [u64; 16] {
    let src: &[u8; 520] = src[..520].try_into().expect("520 bytes");
    let dst: &mut [u8; 520] = (&mut dst[..520]).try_into().expect("520 bytes");
    let feed = Feed::<LEN, 8>::new(feed);
    let s = src.as_ptr().cast::<__m256i>();
    let d = dst.as_mut_ptr().cast::<__m256i>();
    let (mut c0, mut c1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    let mut row = |i: usize| {
        assert!(i < 8);
        // SAFETY: row `i < 8` (64 bytes) lies within the 520 bytes of `src` and `dst`;
        // unaligned loads and stores.
        unsafe {
            let x0 = _mm256_loadu_si256(s.add(2 * i));
            let x1 = _mm256_loadu_si256(s.add(2 * i + 1));
            _mm256_storeu_si256(d.add(2 * i), x0);
            _mm256_storeu_si256(d.add(2 * i + 1), x1);
            c0 = _mm256_xor_si256(c0, x0);
            c1 = _mm256_xor_si256(c1, x1);
            _mm256_xor_si256(x0, x1)
        }
    };
    feed.row(0, crc);
    let s0 = row(0);
    feed.row(1, crc);
    let s1 = row(1);
    feed.row(2, crc);
    let s2 = row(2);
    feed.row(3, crc);
    let s3 = row(3);
    let r0 = reduce4([s0, s1, s2, s3]);
    feed.row(4, crc);
    let s4 = row(4);
    feed.row(5, crc);
    let s5 = row(5);
    feed.row(6, crc);
    let s6 = row(6);
    feed.row(7, crc);
    let s7 = row(7);
    let r1 = reduce4([s4, s5, s6, s7]);
    let b = u64::from_le_bytes(src[512..].try_into().expect("8 bytes"));
    dst[512..].copy_from_slice(&b.to_le_bytes());
    // p + b: the total parity of the data block and the corner word.
    let pb = reduce1(_mm256_xor_si256(r0, r1)) ^ b;
    let pbv = _mm256_set1_epi64x(pb as i64);
    let (top, left) = (
        [_mm256_xor_si256(c0, pbv), _mm256_xor_si256(c1, pbv)],
        [_mm256_xor_si256(r0, pbv), _mm256_xor_si256(r1, pbv)],
    );
    let mut par = [0u64; 16];
    for (i, v) in top.into_iter().chain(left).enumerate() {
        // SAFETY: this function's target features include AVX2.
        par[4 * i..4 * i + 4].copy_from_slice(&unsafe { lanes(v) });
    }
    par
}

crc3!(
    /// Three `alien:9x9` groups (see [`alien99_fed`]): copied, their check words put in
    /// `par`, and the CRC-32C of each group's data appended to its own register of `crc`: the
    /// pieces `0..168`, `168..336` and `336..520` of the three groups are fed beside the
    /// kernels of groups 0, 1 and 2.
    alien99_crc3,
    alien99_fed,
    [21, 21, 23],
    [168, 336, 520]
);

/// `Kernel::Hamming` with 3 to `5 + H` check rows: the column parities of the grid of
/// positions stay in two registers, the grid row sums are reduced four rows at a time, and
/// the check rows above the fifth are sums of those fours, added up in `H` registers as
/// each four come (`finish_long`). `H` is 2 for the codes of up to 7 check rows (127
/// positions, finished by `finish_short`; with room for 16 registers, zeroed on every call,
/// and the general finish, secded:39 encoded about 10 % slower than before this kernel took
/// long grids), [`MAX_CHECKS`]` - 5` for the others.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT.
#[inline(always)]
pub unsafe fn hamming<const COPY: bool, const H: usize>(
    src: &[u8],
    copy: &mut [u8],
    grid: &[u8],
    starts: &[usize],
    checks: usize,
    overall: bool,
    par: &mut [u64],
) {
    // SAFETY (the whole body): the caller guarantees AVX2 and POPCNT; the loads are
    // `grid_row`'s, bounds checked there.
    unsafe {
        let t_max = grid.len();
        assert!(t_max >= 1 && starts.len() == t_max && (3..=5 + H).contains(&checks));
        let k = starts[t_max - 1] + grid[t_max - 1].count_ones() as usize;
        assert!(src.len() >= 8 * k && par.len() >= checks + usize::from(overall));
        if COPY {
            assert!(copy.len() >= 8 * k);
        }
        let zero = _mm256_setzero_si256();
        let (mut c0, mut c1) = (zero, zero);
        // Grid row sums, reduced four rows at a time (g_{4q..4q+4}), added to their sum `s`
        // and to `hq[i]` for each bit `i` of `q`.
        let (mut s, mut hq) = (zero, [zero; H]);
        for q in 0..t_max.div_ceil(4) {
            let mut a = [zero; 4];
            for (j, aj) in a.iter_mut().enumerate() {
                let t = 4 * q + j;
                if t < t_max {
                    let (x0, x1) = grid_row::<COPY>(src, copy, grid[t], starts[t]);
                    c0 = _mm256_xor_si256(c0, x0);
                    c1 = _mm256_xor_si256(c1, x1);
                    *aj = _mm256_xor_si256(x0, x1);
                }
            }
            let g = reduce4(a);
            s = _mm256_xor_si256(s, g);
            let mut bits = q;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                hq[i] = _mm256_xor_si256(hq[i], g);
                bits &= bits - 1;
            }
        }
        if let Ok(&hq) = <&[__m256i; 2]>::try_from(&hq[..]) {
            finish_short(c0, c1, s, hq, checks, overall, par);
        } else {
            finish_long(c0, c1, s, &hq, checks, overall, par);
        }
    }
}

/// One grid row of [`hamming`] (positions `8 t..8 t + 8`, data rows where `mask` has a bit,
/// the first of them data row `at`) as two registers, zero where no data row is; copied
/// when `COPY`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn grid_row<const COPY: bool>(
    src: &[u8],
    copy: &mut [u8],
    mask: u8,
    at: usize,
) -> (__m256i, __m256i) {
    // SAFETY (the whole body): the caller guarantees AVX2.
    unsafe {
        let zero = _mm256_setzero_si256();
        if mask == 0xFF {
            let x = load_copy::<COPY>(src, copy, at, 2);
            (x[0], x[1])
        } else if mask == 0xFE && at >= 1 {
            // The word before the row and columns 1..8; lane 0 cleared.
            let x = load_copy::<COPY>(src, copy, at - 1, 2);
            (_mm256_blend_epi32(zero, x[0], 0b1111_1100), x[1])
        } else if mask == 0xE8 && src.len() >= 8 * at + 32 {
            // Positions 3, 5, 6, 7 (the first grid row of every Hamming code with at
            // least four data rows): words at, at + 1, at + 2, at + 3.
            let w = load_copy::<COPY>(src, copy, at, 1)[0];
            (
                _mm256_blend_epi32(zero, _mm256_permute4x64_epi64(w, 0), 0b1100_0000),
                _mm256_blend_epi32(zero, w, 0b1111_1100),
            )
        } else {
            let mut x = [0i64; 8];
            let mut j = at;
            for (o, xo) in x.iter_mut().enumerate() {
                if mask >> o & 1 == 1 {
                    *xo = word(src, j) as i64;
                    if COPY {
                        copy[8 * j..8 * j + 8].copy_from_slice(&src[8 * j..8 * j + 8]);
                    }
                    j += 1;
                }
            }
            (
                _mm256_set_epi64x(x[3], x[2], x[1], x[0]),
                _mm256_set_epi64x(x[7], x[6], x[5], x[4]),
            )
        }
    }
}

/// Loads `regs` registers of data words from word `at` on, storing them to the copy at the
/// same place when `COPY` (a word before a row is a data word too: its copy is rewritten
/// with the same value). The copy is made of these stores, not of a call to `memcpy`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn load_copy<const COPY: bool>(
    src: &[u8],
    copy: &mut [u8],
    at: usize,
    regs: usize,
) -> [__m256i; 2] {
    let s = src[8 * at..8 * at + 32 * regs].as_ptr().cast::<__m256i>();
    // SAFETY: the caller guarantees AVX2.
    let mut x = [unsafe { _mm256_setzero_si256() }; 2];
    for (r, xr) in x.iter_mut().enumerate().take(regs) {
        // SAFETY: register `r < regs` lies within the slice of `32 regs` bytes above;
        // unaligned load; AVX2 as above.
        *xr = unsafe { _mm256_loadu_si256(s.add(r)) };
        if COPY {
            let d = copy[8 * at + 32 * r..8 * at + 32 * r + 32].as_mut_ptr();
            // SAFETY: 32 bytes, bounds checked by the slice; unaligned store.
            unsafe { _mm256_storeu_si256(d.cast(), *xr) };
        }
    }
    x
}

/// The most check rows [`hamming`] takes: Hamming codes of up to `2^21 - 1` positions.
pub const MAX_CHECKS: usize = 21;
