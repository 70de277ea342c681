//! AVX2 kernels of the alien boards for single-word rows (`D = 64`), grids of 4 to 18
//! columns: a grid row is up to four 256-bit registers, whose column parities stay in
//! registers over the rows while the row parities are reduced four rows at a time
//! ([`reduce4`]); a width of `4 q + 2` words ends with a register loaded over the last four
//! words, its first two lanes cleared. The copy of the data rows is stored from the
//! registers loaded. Tested against the portable kernels
//! (`fast_kernels_match_the_portable_ones`).

use super::avx2::{reduce1, reduce4, word};
use std::arch::x86_64::*;

/// The row parities (into `r[..rows]`, when given) and column parities (into `c[..cols]`,
/// when given) of a grid of `rows` rows of `cols` words (`4 <= cols <= 18`, even) at the
/// start of `src`, copied to `copy` when `COPY`. Row by row, one strip of up to four
/// registers, then the last two words of a row of `4 q + 2` again, from the rows in cache.
/// (Wider grids in several strips, one after the other, each over all the rows, were slower
/// to decode from memory than the portable kernel: alien:17x17 clean decode at `D = 64`
/// 0.45 -> 0.30x memcpy with strips of eight columns.)
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn grid<const COPY: bool>(
    src: &[u8],
    copy: &mut [u8],
    rows: usize,
    cols: usize,
    mut r: Option<&mut [u64]>,
    mut c: Option<&mut [u64]>,
) {
    assert!((4..=18).contains(&cols) && cols.is_multiple_of(2));
    assert!(src.len() >= 8 * rows * cols && (!COPY || copy.len() >= 8 * rows * cols));
    assert!(r.as_ref().is_none_or(|r| r.len() >= rows));
    assert!(c.as_ref().is_none_or(|c| c.len() >= cols));
    let g = Grid {
        src: src.as_ptr().cast(),
        copy: copy.as_mut_ptr().cast(),
        rows,
        cols,
    };
    // SAFETY: the strip's words `0..4 W` (`W = cols / 4`) and `cols - 4..cols` lie within
    // each row, and the rows within `src` and `copy`, as asserted above; the caller
    // guarantees AVX2.
    unsafe {
        let (r, c) = (r.as_deref_mut(), c.as_deref_mut());
        match cols / 4 {
            1 => g.strip::<1, false, COPY>(0, true, r, c),
            2 => g.strip::<2, false, COPY>(0, true, r, c),
            3 => g.strip::<3, false, COPY>(0, true, r, c),
            _ => g.strip::<4, false, COPY>(0, true, r, c),
        }
    }
    if !cols.is_multiple_of(4) {
        // SAFETY: as above.
        unsafe { g.strip::<1, true, COPY>(cols - 4, false, r, c) };
    }
}

/// A grid of `rows` rows of `cols` words at `src`, copied to `copy`.
///
/// Its functions are `inline(always)` without a target feature of their own, so that they
/// are compiled into the AVX2 loop of `fast64::run` whatever their size: as `#[inline]`
/// AVX2 functions they stayed two calls per group, which at `alien:3x5`'s 72-byte groups
/// cost more than the kernel (encode at `D = 64` 0.20 -> 0.15x memcpy against the portable
/// kernel).
struct Grid {
    src: *const u64,
    copy: *mut u64,
    rows: usize,
    cols: usize,
}

impl Grid {
    /// Words `at..at + 4 W` of every row (when `TAIL`, one register whose first two lanes
    /// are columns counted already and are cleared): their column parities to `c[at..]`,
    /// their share of each row's parity set in `r` (`first`) or added to it.
    ///
    /// # Safety
    /// Words `at..at + 4 W` of each of the `rows` rows lie within `src` (and `copy`, when
    /// `COPY`); the CPU supports AVX2.
    #[inline(always)]
    unsafe fn strip<const W: usize, const TAIL: bool, const COPY: bool>(
        &self,
        at: usize,
        first: bool,
        mut r: Option<&mut [u64]>,
        c: Option<&mut [u64]>,
    ) {
        // SAFETY (the whole body): the caller guarantees AVX2 and the rows' words; the
        // slices of `r` and `c` are bounds checked.
        unsafe {
            let keep = if TAIL {
                _mm256_set_epi64x(-1, -1, 0, 0)
            } else {
                _mm256_set1_epi64x(-1)
            };
            let mut acc = [_mm256_setzero_si256(); W];
            // Row and column parities go out through vector stores: the code after the
            // kernel reads them with vector loads, which wait for words stored one by one.
            let mut i = 0;
            while i + 4 <= self.rows {
                let v = reduce4([
                    self.row::<W, TAIL, COPY>(i, at, keep, &mut acc),
                    self.row::<W, TAIL, COPY>(i + 1, at, keep, &mut acc),
                    self.row::<W, TAIL, COPY>(i + 2, at, keep, &mut acc),
                    self.row::<W, TAIL, COPY>(i + 3, at, keep, &mut acc),
                ]);
                if let Some(r) = r.as_deref_mut() {
                    let p = r[i..i + 4].as_mut_ptr().cast::<__m256i>();
                    let v = if first {
                        v
                    } else {
                        _mm256_xor_si256(v, _mm256_loadu_si256(p))
                    };
                    _mm256_storeu_si256(p, v);
                }
                i += 4;
            }
            while i < self.rows {
                let v = reduce1(self.row::<W, TAIL, COPY>(i, at, keep, &mut acc));
                if let Some(r) = r.as_deref_mut() {
                    r[i] = if first { v } else { r[i] ^ v };
                }
                i += 1;
            }
            if let Some(c) = c {
                for (k, &a) in acc.iter().enumerate() {
                    let at = at + 4 * k;
                    if TAIL {
                        let p = c[at + 2..at + 4].as_mut_ptr().cast::<__m128i>();
                        _mm_storeu_si128(p, _mm256_extracti128_si256(a, 1));
                    } else {
                        _mm256_storeu_si256(c[at..at + 4].as_mut_ptr().cast(), a);
                    }
                }
            }
        }
    }

    /// Row `i`'s words `at..at + 4 W` (masked by `keep`) added to the column parities
    /// `acc`, copied when `COPY`; returns their sum.
    ///
    /// # Safety
    /// As [`Grid::strip`].
    #[inline(always)]
    unsafe fn row<const W: usize, const TAIL: bool, const COPY: bool>(
        &self,
        i: usize,
        at: usize,
        keep: __m256i,
        acc: &mut [__m256i; W],
    ) -> __m256i {
        // SAFETY: the caller guarantees AVX2 and that the words lie within the rows;
        // unaligned loads and stores.
        unsafe {
            let mut sum = _mm256_setzero_si256();
            for (k, a) in acc.iter_mut().enumerate() {
                let p = i * self.cols + at + 4 * k;
                let x = _mm256_loadu_si256(self.src.add(p).cast());
                if COPY {
                    _mm256_storeu_si256(self.copy.add(p).cast(), x);
                }
                let x = if TAIL { _mm256_and_si256(x, keep) } else { x };
                *a = _mm256_xor_si256(*a, x);
                sum = _mm256_xor_si256(sum, x);
            }
            sum
        }
    }
}

/// `Kernel::AlienOddOdd { m, n }` (`5 <= n <= 19`): `par` is the top row (column parities + p +
/// b), then the left column (row parities + p + b).
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
pub unsafe fn alien_odd_odd<const COPY: bool>(
    src: &[u8],
    copy: &mut [u8],
    m: usize,
    n: usize,
    par: &mut [u64],
) {
    let (rows, cols) = (m - 1, n - 1);
    assert!(par.len() >= cols + rows && src.len() > 8 * rows * cols);
    let (top, left) = par.split_at_mut(cols);
    let left = &mut left[..rows];
    // SAFETY: the caller guarantees AVX2.
    unsafe { grid::<COPY>(src, copy, rows, cols, Some(left), Some(top)) };
    let b = last(src, copy, rows * cols, COPY);
    let pb = left.iter().fold(b, |a, &x| a ^ x);
    for t in top.iter_mut() {
        *t ^= pb;
    }
    for l in left.iter_mut() {
        *l ^= pb;
    }
}

/// `Kernel::AlienEvenOdd { m, n }` (`5 <= n <= 19`, `m <= 64`): `par[i - 1]` is `r_i + r_0 + b`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
pub unsafe fn alien_even_odd<const COPY: bool>(
    src: &[u8],
    copy: &mut [u8],
    m: usize,
    n: usize,
    par: &mut [u64],
) {
    let cols = n - 1;
    assert!(m <= 64 && par.len() >= m - 1);
    let mut r = [0u64; 64];
    // SAFETY: the caller guarantees AVX2.
    unsafe { grid::<COPY>(src, copy, m, cols, Some(&mut r[..m]), None) };
    let r0b = r[0] ^ last(src, copy, m * cols, COPY);
    for (p, ri) in par.iter_mut().zip(&r[1..m]) {
        *p = ri ^ r0b;
    }
}

/// `Kernel::AlienOddEven { m, n }` (`4 <= n <= 18`): `par[j - 1]` is `c_j + c_0 + b`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
pub unsafe fn alien_odd_even<const COPY: bool>(
    src: &[u8],
    copy: &mut [u8],
    m: usize,
    n: usize,
    par: &mut [u64],
) {
    let rows = m - 1;
    assert!(n <= 18 && par.len() >= n - 1);
    let mut c = [0u64; 18];
    // SAFETY: the caller guarantees AVX2.
    unsafe { grid::<COPY>(src, copy, rows, n, None, Some(&mut c[..n])) };
    let c0b = c[0] ^ last(src, copy, rows * n, COPY);
    for (p, cj) in par.iter_mut().zip(&c[1..n]) {
        *p = cj ^ c0b;
    }
}

/// The data word `at` after a grid (the board's corner), copied to `copy` when `copy_it`.
#[inline(always)]
fn last(src: &[u8], copy: &mut [u8], at: usize, copy_it: bool) -> u64 {
    let b = word(src, at);
    if copy_it {
        copy[8 * at..8 * at + 8].copy_from_slice(&b.to_le_bytes());
    }
    b
}
