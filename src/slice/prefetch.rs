//! Software prefetch of the group stream: the codec reads a chunk's groups as three
//! sequential streams (its thirds; `stream::codec`) and writes three more, and
//! the processor's own prefetchers, which stop at every 4 KiB page, leave most of each
//! group's lines to arrive on demand. Asking for the lines [`AHEAD`] bytes further on,
//! every group, both those read and those to be written, made the codec
//! 1.2-1.7x faster on 256 MiB in memory (`docs/benchmarks.md`, "Summary on AMD Zen 5").
//! Since then, at rows of one word (`D = 64`), the same hints make the codec slower
//! ([`group`]). The hints change no result; on other architectures they are no-ops.

/// How far ahead of a group its stream is prefetched, in bytes: 3-6 KiB measured alike,
/// 8 KiB and more slower (the lines are evicted before use), 1 KiB no better than none.
pub const AHEAD: usize = 4096;

/// The longest span prefetched: the groups of deeper interleaving (rows of 64 bytes and
/// more, groups of several KiB) are read row block by row block, and prefetching them
/// whole made `secded:72` and `hamming:72` at `D = 512` slower (encode 0.30 against 0.44
/// without), while spans up to 2 KiB lost nothing (`docs/benchmarks.md`).
pub const MAX_SPAN: usize = 2048;

/// Asks for the lines of a group's input, `[src + AHEAD, src + AHEAD + src_len)`, to be
/// read ([`read`]) and of its output, `[dst + AHEAD, dst + AHEAD + dst_len)`, to be written
/// ([`write()`]), where the group's rows are `row_bytes` long: nothing at rows of one word
/// (`D = 64`). There the hints made the codec slower in memory (128 MiB, one thread,
/// one build switched at run time, both orders: clean decode alien:9x9 0.67-0.70
/// -> 1.05-1.20x memcpy, secded:72 0.71-0.72 -> 1.11-1.14, alien:3x63 0.43 -> 0.77-0.83,
/// alien:9x17 0.57-0.61 -> 1.03-1.04; docs/benchmarks.md, "No prefetch hints at `D = 64`"),
/// while at rows of 16 and 64 bytes they gained as often as they lost (kept).
#[inline(always)]
pub fn group(src: *const u8, src_len: usize, dst: *const u8, dst_len: usize, row_bytes: usize) {
    if row_bytes > 8 {
        read(src, src_len);
        write(dst, dst_len);
    }
}

/// Asks for the cache lines of `[p + AHEAD, p + AHEAD + len)`, to be read (nothing when
/// `len` is over [`MAX_SPAN`]).
#[inline(always)]
pub fn read(p: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    lines::<{ std::arch::x86_64::_MM_HINT_T0 }>(p, len);
    let _ = (p, len);
}

/// Asks for the cache lines of `[p + AHEAD, p + AHEAD + len)`, to be written (nothing over
/// [`MAX_SPAN`]). The hint `_MM_HINT_ET0` compiles to `PREFETCHT0`, a read hint, since this
/// is not compiled with the `prfchw` feature; a real `PREFETCHW` was measured no better at
/// `D = 64` (docs/benchmarks.md, "No prefetch hints at `D = 64`").
#[inline(always)]
pub fn write(p: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    lines::<{ std::arch::x86_64::_MM_HINT_ET0 }>(p, len);
    let _ = (p, len);
}

/// Asks for the one cache line at `p`, to be read: a small thing read some microseconds
/// later (the decoder's next frame header but one), or the line pass's lines 1 KiB ahead.
#[inline(always)]
pub fn line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    one::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
    let _ = p;
}

/// Asks for the one cache line at `p` into L2, not L1: a line used long enough after that
/// in L1 it would be evicted first (the column pass's next group, the line pass's lines 8
/// KiB ahead; docs/benchmarks.md, "Lines asked for into L2").
#[inline(always)]
pub fn line_l2(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    one::<{ std::arch::x86_64::_MM_HINT_T1 }>(p);
    let _ = p;
}

/// The line at `p` with the prefetch hint `HINT`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn one<const HINT: i32>(p: *const u8) {
    // SAFETY: a prefetch is a hint: it never faults, whatever the address.
    unsafe { std::arch::x86_64::_mm_prefetch::<HINT>(p.cast()) };
}

/// The lines of `[p + AHEAD, p + AHEAD + len)` with the prefetch hint `HINT`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lines<const HINT: i32>(p: *const u8, len: usize) {
    if len > MAX_SPAN {
        return;
    }
    for o in (0..len).step_by(64) {
        // (`wrapping_add`: a hint's address need not lie in the buffer.)
        one::<HINT>(p.wrapping_add(AHEAD + o));
    }
}
