//! The AVX2 path of [`super::mul_acc_many`] for CPUs without GFNI (AMD Zen 3, for one): a
//! coefficient `c` is two 16-entry product tables, `c x` for a low nibble `x` and
//! `c (x << 4)` for a high one, and `c v = lo[v & 15] ^ hi[v >> 4]` (multiplication
//! distributes over XOR), looked up 32 bytes at a time with `VPSHUFB`.
//!
//! # Loop order
//!
//! The slices are cut into blocks of [`BLOCK`] bytes, which stay in L1. Within a block, the
//! destinations go in groups of up to [`GROUP`]; for each group the block is run strip by
//! strip, and within a strip the sources in batches of up to [`BATCH`] held in registers,
//! each batch added into the group's destination strips. Sources are thus read from memory
//! once (the later groups find them in L1) and destinations once.
//!
//! The kernel's shape is a compile-time constant: the group's size `R` and whether its first
//! destination takes plain XORs (`X`: its coefficients are all 1 in every batch, as
//! recovery shard 0's are). Measured on Zen 3 (2 destinations, 4 sources), a loop with a
//! branch per destination and strip on "all ones", or over a run-time count of
//! destinations, runs at about half the speed: `VPSHUFB` needs the nibbles and tables in
//! registers, and a loop of unknown shape keeps too many of them live.

use super::STRIP;
use super::x86::{BATCH, Row, rows};
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// Bytes of every slice one round of the groups takes: the sources' part of a block
/// (`BATCH` of them, 8 KiB) stays in L1 while every group reads it.
const BLOCK: usize = 32 * STRIP;
/// Destinations one pass over a block accumulates.
const GROUP: usize = 4;

/// A coefficient's two product tables, each in both 128-bit lanes (`VPSHUFB` looks up
/// within a lane).
#[derive(Clone, Copy)]
struct Nibbles {
    lo: __m256i,
    hi: __m256i,
}

/// Every coefficient's tables, `[c][0..16]` low and `[c][16..32]` high, made once.
fn table() -> &'static [[u8; 32]; 256] {
    static TABLE: OnceLock<Box<[[u8; 32]; 256]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        Box::new(std::array::from_fn(|c| {
            std::array::from_fn(|i| match i {
                0..16 => super::mul(c as u8, i as u8),
                _ => super::mul(c as u8, ((i - 16) as u8) << 4),
            })
        }))
    })
}

/// # Safety
/// AVX2.
#[target_feature(enable = "avx2")]
unsafe fn nibbles(t: &[u8; 32]) -> Nibbles {
    // SAFETY: 32 readable bytes.
    let (lo, hi) = unsafe {
        (
            _mm_loadu_si128(t.as_ptr().cast()),
            _mm_loadu_si128(t.as_ptr().add(16).cast()),
        )
    };
    Nibbles {
        lo: _mm256_broadcastsi128_si256(lo),
        hi: _mm256_broadcastsi128_si256(hi),
    }
}

/// Every destination group's kernel over one block: `$r` destinations from `$g0`, `$x`
/// whether the first takes XORs.
macro_rules! group {
    ($dp:expr, $sp:expr, $rows:expr, $g0:expr, $start:expr, $end:expr, $r:expr, $x:expr) => {
        match ($r, $x) {
            (1, true) => strips::<1, true>($dp, $sp, $rows, $g0, $start, $end),
            (1, false) => strips::<1, false>($dp, $sp, $rows, $g0, $start, $end),
            (2, true) => strips::<2, true>($dp, $sp, $rows, $g0, $start, $end),
            (2, false) => strips::<2, false>($dp, $sp, $rows, $g0, $start, $end),
            (3, true) => strips::<3, true>($dp, $sp, $rows, $g0, $start, $end),
            (3, false) => strips::<3, false>($dp, $sp, $rows, $g0, $start, $end),
            (4, true) => strips::<4, true>($dp, $sp, $rows, $g0, $start, $end),
            _ => strips::<4, false>($dp, $sp, $rows, $g0, $start, $end),
        }
    };
}

/// # Safety
/// AVX2; each of `dp` (writable) and `sp` (readable) points to `len` bytes, `len` a
/// multiple of 64, the destinations overlapping nothing else; `coefs.len() == dp.len() *
/// sp.len()`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn run(dp: &[*mut u8], sp: &[*const u8], coefs: &[u8], len: usize) {
    let t = table();
    // SAFETY: the CPU has AVX2 (this function's contract).
    let rows = rows(coefs, dp.len(), sp.len(), |c| unsafe {
        nibbles(&t[c as usize])
    });
    let first_xors = rows.chunks(dp.len()).all(|b| b[0].ones);
    for start in (0..len).step_by(BLOCK) {
        let end = (start + BLOCK).min(len);
        for g0 in (0..dp.len()).step_by(GROUP) {
            let r = (dp.len() - g0).min(GROUP);
            // SAFETY: the strips of `start..end` lie inside every slice (the contract),
            // and `g0 + r <= dp.len()`.
            unsafe { group!(dp, sp, &rows, g0, start, end, r, g0 == 0 && first_xors) }
        }
    }
}

/// The strips of `start..end` of every source into destinations `g0 .. g0 + R`.
///
/// # Safety
/// As [`run`], with `start..end` whole strips inside the slices, `g0 + R <= dp.len()`,
/// `rows` as [`rows`] makes them, and `X` only when the first destination's coefficients
/// are all 1 in every batch.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn strips<const R: usize, const X: bool>(
    dp: &[*mut u8],
    sp: &[*const u8],
    rows: &[Row<Nibbles>],
    g0: usize,
    start: usize,
    end: usize,
) {
    let d: [*mut u8; R] = std::array::from_fn(|s| dp[g0 + s]);
    let n = dp.len();
    // The group's rows of batch `b`.
    let rows_of = |b: usize| -> &[Row<Nibbles>; R] {
        rows[b * n + g0..b * n + g0 + R]
            .try_into()
            .expect("a row per destination")
    };
    // SAFETY (all the calls below): `o .. o + 64` lies inside every slice (this function's
    // contract), each batch has its `B` sources.
    if sp.len() <= BATCH {
        let rows = rows_of(0);
        match sp.len() {
            1 => (start..end)
                .step_by(STRIP)
                .for_each(|o| unsafe { batch::<1, R, X>(&d, sp, rows, o) }),
            2 => (start..end)
                .step_by(STRIP)
                .for_each(|o| unsafe { batch::<2, R, X>(&d, sp, rows, o) }),
            3 => (start..end)
                .step_by(STRIP)
                .for_each(|o| unsafe { batch::<3, R, X>(&d, sp, rows, o) }),
            _ => (start..end)
                .step_by(STRIP)
                .for_each(|o| unsafe { batch::<4, R, X>(&d, sp, rows, o) }),
        }
        return;
    }
    for o in (start..end).step_by(STRIP) {
        for (b, sp) in sp.chunks(BATCH).enumerate() {
            let rows = rows_of(b);
            match sp.len() {
                1 => unsafe { batch::<1, R, X>(&d, sp, rows, o) },
                2 => unsafe { batch::<2, R, X>(&d, sp, rows, o) },
                3 => unsafe { batch::<3, R, X>(&d, sp, rows, o) },
                _ => unsafe { batch::<4, R, X>(&d, sp, rows, o) },
            }
        }
    }
}

/// One strip (two 32-byte halves) at offset `o` of `B` sources into `R` destinations. Half by
/// half, only the `B` source vectors stay in registers; a destination that multiplies takes
/// each source's nibbles as it needs them.
///
/// # Safety
/// As [`strips`], with `o + 64` inside every slice and `sp.len() == B`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn batch<const B: usize, const R: usize, const X: bool>(
    dp: &[*mut u8; R],
    sp: &[*const u8],
    rows: &[Row<Nibbles>; R],
    o: usize,
) {
    let mask = _mm256_set1_epi8(0x0f);
    for h in 0..2 {
        // SAFETY: `p + o .. p + o + 64` is inside the source (the caller's contract).
        let v: [__m256i; B] =
            std::array::from_fn(|j| unsafe { _mm256_loadu_si256(sp[j].add(o + 32 * h).cast()) });
        for (s, row) in rows.iter().enumerate() {
            // SAFETY: `d + o .. d + o + 64` is inside the destination, which nothing else
            // overlaps (the caller's contract).
            let d = unsafe { dp[s].add(o + 32 * h) };
            let mut acc = unsafe { _mm256_loadu_si256(d.cast()) };
            if X && s == 0 {
                for x in &v {
                    acc = _mm256_xor_si256(acc, *x);
                }
            } else {
                for (x, t) in v.iter().zip(&row.cv) {
                    let lo = _mm256_and_si256(*x, mask);
                    let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(*x), mask);
                    acc = _mm256_xor_si256(acc, _mm256_shuffle_epi8(t.lo, lo));
                    acc = _mm256_xor_si256(acc, _mm256_shuffle_epi8(t.hi, hi));
                }
            }
            // SAFETY: as for the load.
            unsafe { _mm256_storeu_si256(d.cast(), acc) };
        }
    }
}
