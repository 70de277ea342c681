//! The GFNI paths of [`super::mul_acc_many`]: `VGF2P8MULB` multiplies 64 (or 32) bytes by a
//! broadcast coefficient in the AES field in one instruction.
//!
//! Loop order: strips outermost; within a strip, the sources in batches of up to
//! [`BATCH`] held in registers, and for each batch every destination strip is loaded,
//! accumulated and stored. A destination strip is thus read from memory once per strip (the
//! later batches find it in L1) and every source strip once, whatever the number of
//! destinations.

use super::STRIP;
use std::arch::x86_64::*;

/// Sources held in registers at a time.
const BATCH: usize = 4;

/// Checks the shapes the kernels rely on: every slice `len` bytes, a multiple of [`STRIP`],
/// and a coefficient per destination and source. Returns `len`.
fn shape(dsts: &[&mut [u8]], srcs: &[&[u8]], coefs: &[u8]) -> usize {
    let len = dsts.first().map_or(0, |d| d.len());
    assert!(len.is_multiple_of(STRIP), "whole strips");
    assert!(dsts.iter().all(|d| d.len() == len) && srcs.iter().all(|s| s.len() == len));
    assert_eq!(coefs.len(), dsts.len() * srcs.len());
    len
}

/// The AVX-512BW + GFNI path (whole strips; see [`shape`]).
pub(super) fn avx512(dsts: &mut [&mut [u8]], srcs: &[&[u8]], coefs: &[u8]) {
    let len = shape(dsts, srcs, coefs);
    assert!(super::Kernel::Avx512Gfni.available());
    let dp: Vec<*mut u8> = dsts.iter_mut().map(|d| d.as_mut_ptr()).collect();
    let sp: Vec<*const u8> = srcs.iter().map(|s| s.as_ptr()).collect();
    // SAFETY: the CPU has AVX-512F, AVX-512BW and GFNI (asserted above); every pointer
    // covers `len` bytes (checked by `shape`), and the destinations are distinct `&mut`
    // slices, so they overlap neither each other nor the sources.
    unsafe { avx512_run(&dp, &sp, coefs, len) }
}

/// The AVX2 + GFNI path (whole strips; see [`shape`]).
pub(super) fn avx2(dsts: &mut [&mut [u8]], srcs: &[&[u8]], coefs: &[u8]) {
    let len = shape(dsts, srcs, coefs);
    assert!(super::Kernel::Avx2Gfni.available());
    let dp: Vec<*mut u8> = dsts.iter_mut().map(|d| d.as_mut_ptr()).collect();
    let sp: Vec<*const u8> = srcs.iter().map(|s| s.as_ptr()).collect();
    // SAFETY: the CPU has AVX2 and GFNI (asserted above); every pointer covers `len`
    // bytes (checked by `shape`), and the destinations are distinct `&mut` slices.
    unsafe { avx2_run(&dp, &sp, coefs, len) }
}

/// # Safety
/// AVX-512F, AVX-512BW and GFNI; each of `dp` (writable) and `sp` (readable) points to `len`
/// bytes, `len` a multiple of 64, the destinations overlapping nothing else;
/// `coefs.len() == dp.len() * sp.len()`.
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn avx512_run(dp: &[*mut u8], sp: &[*const u8], coefs: &[u8], len: usize) {
    let cv: Vec<__m512i> = coefs.iter().map(|&c| _mm512_set1_epi8(c as i8)).collect();
    let n = sp.len();
    for o in (0..len).step_by(STRIP) {
        let mut j = 0;
        while j < n {
            let b = (n - j).min(BATCH);
            // SAFETY: `o + 64 <= len`, and `j .. j + b` are sources (this function's contract).
            unsafe {
                match b {
                    1 => avx512_batch::<1>(dp, &sp[j..j + 1], coefs, &cv, n, j, o),
                    2 => avx512_batch::<2>(dp, &sp[j..j + 2], coefs, &cv, n, j, o),
                    3 => avx512_batch::<3>(dp, &sp[j..j + 3], coefs, &cv, n, j, o),
                    _ => avx512_batch::<4>(dp, &sp[j..j + 4], coefs, &cv, n, j, o),
                }
            }
            j += b;
        }
    }
}

/// One strip at offset `o` of `B` sources (numbers `j0 ..`) into every destination.
///
/// # Safety
/// As [`avx512_run`], with `o + 64 <= len`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn avx512_batch<const B: usize>(
    dp: &[*mut u8],
    sp: &[*const u8],
    coefs: &[u8],
    cv: &[__m512i],
    n: usize,
    j0: usize,
    o: usize,
) {
    let mut v = [_mm512_setzero_si512(); B];
    for (v, &p) in v.iter_mut().zip(sp) {
        // SAFETY: `p + o .. p + o + 64` is inside the source (the caller's contract).
        *v = unsafe { _mm512_loadu_si512(p.add(o).cast()) };
    }
    for (s, &d) in dp.iter().enumerate() {
        let row = s * n + j0;
        // SAFETY: `d + o .. d + o + 64` is inside the destination, which nothing else
        // overlaps (the caller's contract).
        let d = unsafe { d.add(o) };
        let mut acc = unsafe { _mm512_loadu_si512(d.cast()) };
        for t in 0..B {
            match coefs[row + t] {
                0 => {}
                1 => acc = _mm512_xor_si512(acc, v[t]),
                _ => acc = _mm512_xor_si512(acc, _mm512_gf2p8mul_epi8(v[t], cv[row + t])),
            }
        }
        // SAFETY: as for the load.
        unsafe { _mm512_storeu_si512(d.cast(), acc) };
    }
}

/// # Safety
/// AVX2 and GFNI; otherwise as [`avx512_run`].
#[target_feature(enable = "avx2,gfni")]
unsafe fn avx2_run(dp: &[*mut u8], sp: &[*const u8], coefs: &[u8], len: usize) {
    let cv: Vec<__m256i> = coefs.iter().map(|&c| _mm256_set1_epi8(c as i8)).collect();
    let n = sp.len();
    for o in (0..len).step_by(STRIP) {
        let mut j = 0;
        while j < n {
            let b = (n - j).min(BATCH);
            // SAFETY: `o + 64 <= len`, and `j .. j + b` are sources (this function's contract).
            unsafe {
                match b {
                    1 => avx2_batch::<1>(dp, &sp[j..j + 1], coefs, &cv, n, j, o),
                    2 => avx2_batch::<2>(dp, &sp[j..j + 2], coefs, &cv, n, j, o),
                    3 => avx2_batch::<3>(dp, &sp[j..j + 3], coefs, &cv, n, j, o),
                    _ => avx2_batch::<4>(dp, &sp[j..j + 4], coefs, &cv, n, j, o),
                }
            }
            j += b;
        }
    }
}

/// One strip (two 32-byte halves) at offset `o` of `B` sources into every destination.
///
/// # Safety
/// As [`avx2_run`], with `o + 64 <= len`.
#[inline]
#[target_feature(enable = "avx2,gfni")]
unsafe fn avx2_batch<const B: usize>(
    dp: &[*mut u8],
    sp: &[*const u8],
    coefs: &[u8],
    cv: &[__m256i],
    n: usize,
    j0: usize,
    o: usize,
) {
    let mut lo = [_mm256_setzero_si256(); B];
    let mut hi = [_mm256_setzero_si256(); B];
    for t in 0..B {
        // SAFETY: `sp[t] + o .. + 64` is inside the source (the caller's contract).
        unsafe {
            let p = sp[t].add(o);
            lo[t] = _mm256_loadu_si256(p.cast());
            hi[t] = _mm256_loadu_si256(p.add(32).cast());
        }
    }
    for (s, &d) in dp.iter().enumerate() {
        let row = s * n + j0;
        // SAFETY: `d + o .. + 64` is inside the destination, which nothing else overlaps.
        let d = unsafe { d.add(o) };
        let (mut a, mut b) = unsafe {
            (
                _mm256_loadu_si256(d.cast()),
                _mm256_loadu_si256(d.add(32).cast()),
            )
        };
        for t in 0..B {
            match coefs[row + t] {
                0 => {}
                1 => {
                    a = _mm256_xor_si256(a, lo[t]);
                    b = _mm256_xor_si256(b, hi[t]);
                }
                _ => {
                    let c = cv[row + t];
                    a = _mm256_xor_si256(a, _mm256_gf2p8mul_epi8(lo[t], c));
                    b = _mm256_xor_si256(b, _mm256_gf2p8mul_epi8(hi[t], c));
                }
            }
        }
        // SAFETY: as for the loads.
        unsafe {
            _mm256_storeu_si256(d.cast(), a);
            _mm256_storeu_si256(d.add(32).cast(), b);
        }
    }
}
