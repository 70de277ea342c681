//! The GFNI paths of [`super::mul_acc_many`]: `VGF2P8MULB` multiplies 64 (or 32) bytes by a
//! broadcast coefficient in the AES field in one instruction. (The path for AVX2 without
//! GFNI is [`super::nibbles`].)
//!
//! The AVX-512 path takes at most [`BATCH`] sources (the recovery encoder's jobs) in tiles of
//! at most [`BATCH`] destinations, each a loop of its own shape with every coefficient in a
//! register; more destinations (5 % and 10 % recovery: 12 and 24) go block by block of
//! [`TILE_BLOCK`] bytes, tile after tile, so that the sources stay in L1. More sources (a
//! decoder's syndromes) take the strip loop below, as the AVX2 path always does.
//!
//! Strip loop: strips outermost; within a strip, the sources in batches of up to
//! [`BATCH`] held in registers, and for each batch every destination strip is loaded,
//! accumulated and stored. A destination strip is thus read from memory once per strip (the
//! later batches find it in L1) and every source strip once, whatever the number of
//! destinations. A destination whose coefficients in a batch are all 1 takes plain XORs;
//! otherwise every source is multiplied (a zero coefficient gives a zero product), so that
//! the loop has one branch per destination and strip.

use super::STRIP;
use std::arch::x86_64::*;

/// Sources held in registers at a time.
pub(super) const BATCH: usize = 4;

/// A path's loop over whole strips: each of `dp` (writable) and `sp` (readable) points to
/// `len` bytes, `len` a multiple of [`STRIP`], the destinations overlapping nothing else;
/// `coefs.len() == dp.len() * sp.len()`; the CPU has the path's features.
pub(super) type Run = unsafe fn(dp: &[*mut u8], sp: &[*const u8], coefs: &[u8], len: usize);

/// Runs `run`, the loop of path `kernel`, on the slices: checks that the CPU runs `kernel`
/// and the shapes the loops rely on (every slice of one length, a multiple of [`STRIP`], and
/// a coefficient per destination and source).
///
/// # Panics
/// When a check fails.
pub(super) fn call(
    kernel: super::Kernel,
    run: Run,
    dsts: &mut [&mut [u8]],
    srcs: &[&[u8]],
    coefs: &[u8],
) {
    assert!(kernel.available(), "{kernel:?} does not run on this CPU");
    let len = dsts.first().map_or(0, |d| d.len());
    assert!(len.is_multiple_of(STRIP), "whole strips");
    assert!(dsts.iter().all(|d| d.len() == len) && srcs.iter().all(|s| s.len() == len));
    assert_eq!(coefs.len(), dsts.len() * srcs.len());
    let dp: Vec<*mut u8> = dsts.iter_mut().map(|d| d.as_mut_ptr()).collect();
    let sp: Vec<*const u8> = srcs.iter().map(|s| s.as_ptr()).collect();
    // SAFETY: the CPU has `kernel`'s features, which are `run`'s (the caller pairs them);
    // every pointer covers `len` bytes (checked above), and the destinations are distinct
    // `&mut` slices, so they overlap neither each other nor the sources.
    unsafe { run(&dp, &sp, coefs, len) }
}

/// A destination's coefficients for one batch of sources.
#[derive(Clone, Copy)]
pub(super) struct Row<V> {
    /// All of them 1: a plain XOR.
    pub(super) ones: bool,
    /// The coefficients, broadcast (unused past the batch's size).
    pub(super) cv: [V; BATCH],
}

/// The rows of every batch: `rows[batch * dsts + s]`. `splat` broadcasts a coefficient.
pub(super) fn rows<V: Copy>(
    coefs: &[u8],
    dsts: usize,
    srcs: usize,
    splat: impl Fn(u8) -> V,
) -> Vec<Row<V>> {
    let mut rows = Vec::with_capacity(srcs.div_ceil(BATCH) * dsts);
    for j0 in (0..srcs).step_by(BATCH) {
        let b = (srcs - j0).min(BATCH);
        for s in 0..dsts {
            let c = &coefs[s * srcs + j0..s * srcs + j0 + b];
            rows.push(Row {
                ones: c.iter().all(|&c| c == 1),
                cv: std::array::from_fn(|t| splat(c.get(t).copied().unwrap_or(0))),
            });
        }
    }
    rows
}

/// Runs the strips of one kernel: `$batch::<B>(dp, sp, rows, o)` codes `B <= BATCH` sources
/// of the strip at `o` into every destination. With one batch of sources (the encoder's case)
/// the choice of `B` leaves the strip loop.
macro_rules! run_batches {
    ($batch:ident, $dp:expr, $sp:expr, $rows:expr, $len:expr) => {{
        let (dp, sp, rows, len) = ($dp, $sp, $rows, $len);
        if sp.len() <= BATCH {
            // SAFETY: `o + 64 <= len` (the caller's contract covers the rest).
            unsafe {
                match sp.len() {
                    1 => (0..len)
                        .step_by(STRIP)
                        .for_each(|o| $batch::<1>(dp, sp, rows, o)),
                    2 => (0..len)
                        .step_by(STRIP)
                        .for_each(|o| $batch::<2>(dp, sp, rows, o)),
                    3 => (0..len)
                        .step_by(STRIP)
                        .for_each(|o| $batch::<3>(dp, sp, rows, o)),
                    _ => (0..len)
                        .step_by(STRIP)
                        .for_each(|o| $batch::<4>(dp, sp, rows, o)),
                }
            }
        } else {
            for o in (0..len).step_by(STRIP) {
                for (sp, rows) in sp.chunks(BATCH).zip(rows.chunks(dp.len())) {
                    // SAFETY: `o + 64 <= len` (the caller's contract covers the rest).
                    unsafe {
                        match sp.len() {
                            1 => $batch::<1>(dp, sp, rows, o),
                            2 => $batch::<2>(dp, sp, rows, o),
                            3 => $batch::<3>(dp, sp, rows, o),
                            _ => $batch::<4>(dp, sp, rows, o),
                        }
                    }
                }
            }
        }
    }};
}

/// # Safety
/// AVX-512F, AVX-512BW and GFNI; each of `dp` (writable) and `sp` (readable) points to `len`
/// bytes, `len` a multiple of 64, the destinations overlapping nothing else;
/// `coefs.len() == dp.len() * sp.len()`.
#[target_feature(enable = "avx512f,avx512bw,gfni")]
pub(super) unsafe fn avx512_run(dp: &[*mut u8], sp: &[*const u8], coefs: &[u8], len: usize) {
    let n = sp.len();
    if n == 0 {
        return;
    }
    if n > BATCH {
        // Many sources (a decoder's syndromes, from memory): every source strip in flight
        // at once, strip by strip; tiles of 4 sources would stream a few at a time.
        let rows = rows(coefs, dp.len(), n, |c| _mm512_set1_epi8(c as i8));
        return run_batches!(avx512_batch, dp, sp, &rows, len);
    }
    if dp.len() <= BATCH {
        // One tile (the encoder's shapes at 2 %): no blocks.
        // SAFETY: the caller's contract.
        return unsafe { avx512_tile(dp, sp, |s, j| coefs[s * n + j], 0, len) };
    }
    for o in (0..len).step_by(TILE_BLOCK) {
        let l = TILE_BLOCK.min(len - o);
        for (s0, dp) in (0..dp.len()).step_by(BATCH).zip(dp.chunks(BATCH)) {
            // SAFETY: the caller's contract, `o + l <= len`, on a tile of at most `BATCH`
            // destinations and sources.
            unsafe { avx512_tile(dp, sp, |s, j| coefs[(s0 + s) * n + j], o, l) };
        }
    }
}

/// Bytes of every destination and source that [`avx512_run`] takes through all its tiles
/// of destinations before the next: 24 destinations (10 % recovery) and 4 sources of 2 KiB
/// stay in L1 and L2.
const TILE_BLOCK: usize = 2048;

/// Bytes `o .. o + l` of a tile of at most [`BATCH`] destinations and sources, the
/// coefficient of source `j` in destination `s` being `coef(s, j)`: the loop of its shape
/// ([`avx512_fixed`]).
///
/// # Safety
/// As [`avx512_run`], with `o + l <= len`, `l` a multiple of 64, and at most [`BATCH`]
/// destinations and sources.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn avx512_tile(
    dp: &[*mut u8],
    sp: &[*const u8],
    coef: impl Fn(usize, usize) -> u8,
    o: usize,
    l: usize,
) {
    macro_rules! shapes {
        ($($d:literal: $($b:literal)*;)*) => {
            match (dp.len(), sp.len()) {
                $($(($d, $b) => {
                    let c = std::array::from_fn(|s| {
                        std::array::from_fn(|j| _mm512_set1_epi8(coef(s, j) as i8))
                    });
                    // SAFETY: `o + l <= len` (the caller's contract): inside every slice.
                    let d = std::array::from_fn(|s| unsafe { dp[s].add(o) });
                    let p = std::array::from_fn(|j| unsafe { sp[j].add(o) });
                    // SAFETY: the caller's contract, with the shape matched.
                    unsafe { avx512_fixed::<$d, $b>(d, p, c, l) };
                })*)*
                _ => unreachable!("tiles of at most {BATCH} destinations and sources"),
            }
        };
    }
    shapes!(1: 1 2 3 4; 2: 1 2 3 4; 3: 1 2 3 4; 4: 1 2 3 4;)
}

/// The loop of `B` sources into `D` destinations with every broadcast coefficient in a
/// register and no branch but the loop's (a coefficient 1 is multiplied like any other).
/// Tiles of these, block by block, are 2-3x as fast in cache as one loop over every
/// destination with the coefficients in memory and a branch for coefficients of 1 (the
/// recovery coder's shapes: `cargo bench --bench stripe`, docs/benchmarks.md).
///
/// # Safety
/// As [`avx512_run`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn avx512_fixed<const D: usize, const B: usize>(
    d: [*mut u8; D],
    s: [*const u8; B],
    c: [[__m512i; B]; D],
    len: usize,
) {
    for o in (0..len).step_by(STRIP) {
        // SAFETY: `o + 64 <= len`, inside every source (the caller's contract).
        let v: [__m512i; B] =
            std::array::from_fn(|j| unsafe { _mm512_loadu_si512(s[j].add(o).cast()) });
        for (&d, c) in d.iter().zip(&c) {
            // SAFETY: `d + o .. d + o + 64` is inside the destination, which nothing else
            // overlaps (the caller's contract).
            let p = unsafe { d.add(o) };
            let mut acc = unsafe { _mm512_loadu_si512(p.cast()) };
            for (v, c) in v.iter().zip(c) {
                acc = _mm512_xor_si512(acc, _mm512_gf2p8mul_epi8(*v, *c));
            }
            // SAFETY: as for the load.
            unsafe { _mm512_storeu_si512(p.cast(), acc) };
        }
    }
}

/// One strip at offset `o` of `B` sources into every destination.
///
/// # Safety
/// As [`avx512_run`], with `o + 64 <= len`, `sp.len() == B` and a row per destination.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn avx512_batch<const B: usize>(
    dp: &[*mut u8],
    sp: &[*const u8],
    rows: &[Row<__m512i>],
    o: usize,
) {
    let mut v = [_mm512_setzero_si512(); B];
    for (v, &p) in v.iter_mut().zip(sp) {
        // SAFETY: `p + o .. p + o + 64` is inside the source (the caller's contract).
        *v = unsafe { _mm512_loadu_si512(p.add(o).cast()) };
    }
    for (&d, row) in dp.iter().zip(rows) {
        // SAFETY: `d + o .. d + o + 64` is inside the destination, which nothing else
        // overlaps (the caller's contract).
        let d = unsafe { d.add(o) };
        let mut acc = unsafe { _mm512_loadu_si512(d.cast()) };
        if row.ones {
            for v in &v {
                acc = _mm512_xor_si512(acc, *v);
            }
        } else {
            for (v, c) in v.iter().zip(&row.cv) {
                acc = _mm512_xor_si512(acc, _mm512_gf2p8mul_epi8(*v, *c));
            }
        }
        // SAFETY: as for the load.
        unsafe { _mm512_storeu_si512(d.cast(), acc) };
    }
}

/// # Safety
/// AVX2 and GFNI; otherwise as [`avx512_run`].
#[target_feature(enable = "avx2,gfni")]
pub(super) unsafe fn avx2_run(dp: &[*mut u8], sp: &[*const u8], coefs: &[u8], len: usize) {
    let rows = rows(coefs, dp.len(), sp.len(), |c| _mm256_set1_epi8(c as i8));
    run_batches!(avx2_batch, dp, sp, &rows, len);
}

/// One strip (two 32-byte halves) at offset `o` of `B` sources into every destination.
///
/// # Safety
/// As [`avx2_run`], with `o + 64 <= len`, `sp.len() == B` and a row per destination.
#[inline]
#[target_feature(enable = "avx2,gfni")]
unsafe fn avx2_batch<const B: usize>(
    dp: &[*mut u8],
    sp: &[*const u8],
    rows: &[Row<__m256i>],
    o: usize,
) {
    let mut lo = [_mm256_setzero_si256(); B];
    let mut hi = [_mm256_setzero_si256(); B];
    for ((lo, hi), &p) in lo.iter_mut().zip(&mut hi).zip(sp) {
        // SAFETY: `p + o .. p + o + 64` is inside the source (the caller's contract).
        unsafe {
            *lo = _mm256_loadu_si256(p.add(o).cast());
            *hi = _mm256_loadu_si256(p.add(o + 32).cast());
        }
    }
    for (&d, row) in dp.iter().zip(rows) {
        // SAFETY: `d + o .. d + o + 64` is inside the destination, which nothing else
        // overlaps (the caller's contract).
        let d = unsafe { d.add(o) };
        let (mut a, mut b) = unsafe {
            (
                _mm256_loadu_si256(d.cast()),
                _mm256_loadu_si256(d.add(32).cast()),
            )
        };
        if row.ones {
            for (lo, hi) in lo.iter().zip(&hi) {
                a = _mm256_xor_si256(a, *lo);
                b = _mm256_xor_si256(b, *hi);
            }
        } else {
            for ((lo, hi), c) in lo.iter().zip(&hi).zip(&row.cv) {
                a = _mm256_xor_si256(a, _mm256_gf2p8mul_epi8(*lo, *c));
                b = _mm256_xor_si256(b, _mm256_gf2p8mul_epi8(*hi, *c));
            }
        }
        // SAFETY: as for the loads.
        unsafe {
            _mm256_storeu_si256(d.cast(), a);
            _mm256_storeu_si256(d.add(32).cast(), b);
        }
    }
}
