//! A 64-byte line of the column pass in registers: one 512-bit register where the CPU has
//! AVX-512, two 256-bit ones where it has AVX2 only (AMD Zen 3); and a row's CRC register
//! of the same width ([`RowFold`]).

use crate::stream::crc::RowFold;
use std::arch::x86_64::*;

/// A line of 64 bytes in registers, with what the column pass does to it. Every method is
/// `unsafe`: the CPU has the features of the pass that runs it (AVX-512 F and BW for
/// `__m512i`, AVX2 for [`Pair`]; VPCLMULQDQ, PCLMULQDQ and SSE4.2 for both), and every
/// pointer is valid for the 64 bytes it names. (They are inlined into the pass, whose
/// `target_feature` they take.)
pub(super) trait Line: Copy {
    /// All zero.
    unsafe fn zero() -> Self;
    /// The 64 bytes at `p`.
    unsafe fn load(p: *const u8) -> Self;
    /// Stores the line at `p`.
    unsafe fn store(self, p: *mut u8);
    /// Stores the line at `p` (a multiple of 64) past the caches.
    unsafe fn stream(self, p: *mut u8);
    /// Byte by byte, the XOR and the OR.
    unsafe fn xor(self, o: Self) -> Self;
    unsafe fn or(self, o: Self) -> Self;
    /// Whether any bit is set.
    unsafe fn nonzero(self) -> bool;
    /// The first piece's CRC register ([`RowFold::first`]).
    unsafe fn first(crc: u32, v: Self) -> Self;
    /// A piece's CRC register after the line `v` ([`RowFold::step`]).
    unsafe fn step(f: &RowFold, x: Self, v: Self) -> Self;
    /// The CRC-32C of the pieces' registers, then `rest` ([`RowFold::finish`]).
    unsafe fn finish(f: &RowFold, regs: &[Self], rest: &[u8]) -> u32;

    /// The line of the row at `row` (of `rb` bytes) that its wrap holds: its last `64 - h`
    /// bytes, then its first `h`.
    #[inline(always)]
    unsafe fn wrap(row: *const u8, rb: usize, h: usize) -> Self {
        let mut b = [0u8; 64];
        // SAFETY: the bytes are inside the row (the caller's contract).
        unsafe {
            std::ptr::copy_nonoverlapping(row.add(rb - 64 + h), b.as_mut_ptr(), 64 - h);
            std::ptr::copy_nonoverlapping(row, b.as_mut_ptr().add(64 - h), h);
            Self::load(b.as_ptr())
        }
    }

    /// The first `64 - h` bytes of `before`, then the last `h` of `w`: the wrap line
    /// across two rows from their [`Line::wrap`]s.
    #[inline(always)]
    unsafe fn blend(h: usize, before: Self, w: Self) -> Self {
        let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
        // SAFETY: stores of 64 bytes into `a` and `b`, and a load of 64.
        unsafe {
            before.store(a.as_mut_ptr());
            w.store(b.as_mut_ptr());
            a[64 - h..].copy_from_slice(&b[64 - h..]);
            Self::load(a.as_ptr())
        }
    }

    /// Stores into the row at `row` (of `rb` bytes) the bytes of its wrap from `self`, as
    /// [`Line::wrap`] reads them.
    #[inline(always)]
    unsafe fn put(self, row: *mut u8, rb: usize, h: usize) {
        let mut b = [0u8; 64];
        // SAFETY: a store into `b`; the bytes written are inside the row.
        unsafe {
            self.store(b.as_mut_ptr());
            std::ptr::copy_nonoverlapping(b.as_ptr(), row.add(rb - 64 + h), 64 - h);
            std::ptr::copy_nonoverlapping(b.as_ptr().add(64 - h), row, h);
        }
    }
}

// SAFETY (every method): the trait's contract.
impl Line for __m512i {
    #[inline(always)]
    unsafe fn zero() -> Self {
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        unsafe { _mm512_storeu_si512(p.cast(), self) }
    }
    #[inline(always)]
    unsafe fn stream(self, p: *mut u8) {
        unsafe { _mm512_stream_si512(p.cast(), self) }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        unsafe { _mm512_xor_si512(self, o) }
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        unsafe { _mm512_or_si512(self, o) }
    }
    #[inline(always)]
    unsafe fn nonzero(self) -> bool {
        unsafe { _mm512_test_epi64_mask(self, self) != 0 }
    }
    #[inline(always)]
    unsafe fn first(crc: u32, v: Self) -> Self {
        unsafe { RowFold::first(crc, v) }
    }
    #[inline(always)]
    unsafe fn step(f: &RowFold, x: Self, v: Self) -> Self {
        unsafe { f.step(x, v) }
    }
    #[inline(always)]
    unsafe fn finish(f: &RowFold, regs: &[Self], rest: &[u8]) -> u32 {
        unsafe { f.finish(regs, rest) }
    }
    // The wraps with masked loads and stores, inside the row.
    #[inline(always)]
    unsafe fn wrap(row: *const u8, rb: usize, h: usize) -> Self {
        let tail = (u64::MAX >> h) as __mmask64;
        unsafe {
            let end = _mm512_maskz_loadu_epi8(tail, row.add(rb - 64 + h).cast());
            _mm512_mask_loadu_epi8(end, !tail, row.wrapping_sub(64 - h).cast())
        }
    }
    #[inline(always)]
    unsafe fn blend(h: usize, before: Self, w: Self) -> Self {
        let tail = (u64::MAX >> h) as __mmask64;
        unsafe { _mm512_mask_blend_epi8(!tail, before, w) }
    }
    #[inline(always)]
    unsafe fn put(self, row: *mut u8, rb: usize, h: usize) {
        let tail = (u64::MAX >> h) as __mmask64;
        unsafe {
            _mm512_mask_storeu_epi8(row.add(rb - 64 + h).cast(), tail, self);
            _mm512_mask_storeu_epi8(row.wrapping_sub(64 - h).cast(), !tail, self);
        }
    }
}

/// A line as two 256-bit registers (AVX2).
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub(super) struct Pair([__m256i; 2]);

// SAFETY (every method): the trait's contract.
impl Line for Pair {
    #[inline(always)]
    unsafe fn zero() -> Self {
        unsafe { Pair([_mm256_setzero_si256(); 2]) }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        unsafe {
            Pair([
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(32).cast()),
            ])
        }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        unsafe {
            _mm256_storeu_si256(p.cast(), self.0[0]);
            _mm256_storeu_si256(p.add(32).cast(), self.0[1]);
        }
    }
    #[inline(always)]
    unsafe fn stream(self, p: *mut u8) {
        unsafe {
            _mm256_stream_si256(p.cast(), self.0[0]);
            _mm256_stream_si256(p.add(32).cast(), self.0[1]);
        }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        unsafe {
            Pair([
                _mm256_xor_si256(self.0[0], o.0[0]),
                _mm256_xor_si256(self.0[1], o.0[1]),
            ])
        }
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        unsafe {
            Pair([
                _mm256_or_si256(self.0[0], o.0[0]),
                _mm256_or_si256(self.0[1], o.0[1]),
            ])
        }
    }
    #[inline(always)]
    unsafe fn nonzero(self) -> bool {
        unsafe {
            let v = _mm256_or_si256(self.0[0], self.0[1]);
            _mm256_testz_si256(v, v) == 0
        }
    }
    #[inline(always)]
    unsafe fn first(crc: u32, v: Self) -> Self {
        unsafe { Pair(RowFold::first_narrow(crc, v.0)) }
    }
    #[inline(always)]
    unsafe fn step(f: &RowFold, x: Self, v: Self) -> Self {
        unsafe { Pair(f.step_narrow(x.0, v.0)) }
    }
    #[inline(always)]
    unsafe fn finish(f: &RowFold, regs: &[Self], rest: &[u8]) -> u32 {
        // SAFETY: `Pair` is a `[__m256i; 2]` (a one-field struct of it).
        let regs = unsafe { std::slice::from_raw_parts(regs.as_ptr().cast(), regs.len()) };
        unsafe { f.finish_narrow(regs, rest) }
    }
}
