//! Copies that stream their destination past the caches (non-temporal stores).
//!
//! At deep interleaving (`D >= 8192`) a chunk is usually one group whose rows are kilobytes
//! long (when a group's payload exceeds a 64 KiB check block), and the codec writes each
//! output byte of such a chunk once and never reads it back. Groups of 2-4 KiB and more
//! coded in order stream theirs too, fenced once a chunk ([`stream`], [`fence`]); groups
//! coded in runs keep ordinary stores: streaming them was slower (docs/benchmarks.md). An
//! ordinary store first reads its destination line from memory (read for ownership), so a
//! copy moves three bytes per byte copied; a non-temporal store writes whole lines without
//! reading them, as `memcpy` does for large buffers. On the 2-core Zen 3 of
//! docs/benchmarks.md a 64 MiB copy with these stores ran 1.16-1.38x `memcpy`'s speed; what
//! the codec gains is measured in docs/benchmarks.md ("Deep interleaving: streamed output").
//!
//! The stores are SSE2 (part of x86-64, so no feature check); elsewhere [`copy`] is a plain
//! copy.

use super::crc::{self, Sse42};

/// Below this many bytes a copy uses ordinary stores (the destination is likely to be read
/// soon, and the fence would cost more than the reads for ownership).
pub const MIN: usize = 4096;

/// Copies `src` into `dst` (the same length). From [`MIN`] bytes up on x86-64 the whole
/// 64-byte lines of `dst` are written with non-temporal stores, followed by a store fence:
/// the bytes can be read and written as usual after the call, but they are no longer in
/// the caches.
pub fn copy(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "a copy between slices of one length");
    if dst.len() >= MIN {
        stream(dst, src);
        fence();
        return;
    }
    dst.copy_from_slice(src);
}

/// Copies `src` into `dst` (the same length): on x86-64 the whole 64-byte lines of `dst`
/// with non-temporal stores, the bytes before the first and after the last with ordinary
/// ones. The stores are not fenced: a loop of such copies calls [`fence`] once after the
/// last, before the bytes go to another thread.
pub fn stream(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "a copy between slices of one length");
    #[cfg(target_arch = "x86_64")]
    {
        let head = ((dst.as_ptr() as usize).wrapping_neg() & 63).min(dst.len());
        let body = (dst.len() - head) & !63;
        let (d0, rest) = dst.split_at_mut(head);
        let (d1, d2) = rest.split_at_mut(body);
        d0.copy_from_slice(&src[..head]);
        for (d, s) in d1
            .as_chunks_mut::<64>()
            .0
            .iter_mut()
            .zip(src[head..].chunks_exact(64))
        {
            stream_line(d, s);
        }
        d2.copy_from_slice(&src[head + body..]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Makes the flips `flips` (sorted by byte; `(at, mask)` XORs `mask` into byte `at`) in
/// `dst`, a copy of `src` whose lines were streamed past the caches: on x86-64 each whole
/// 64-byte line of `dst` with flips is streamed again from `src`, flipped (where
/// `dst[at] ^= mask` would first read the line back from memory), and the bytes before the
/// first and after the last whole line are flipped in place. Not fenced, as [`stream`].
pub fn restream_flips(dst: &mut [u8], src: &[u8], flips: &[(usize, u8)]) {
    assert_eq!(dst.len(), src.len(), "a copy between slices of one length");
    #[cfg(target_arch = "x86_64")]
    {
        let head = ((dst.as_ptr() as usize).wrapping_neg() & 63).min(dst.len());
        let end = head + (dst.len() - head) / 64 * 64;
        let mut i = 0;
        while let Some(&(at, mask)) = flips.get(i) {
            if !(head..end).contains(&at) {
                dst[at] ^= mask;
                i += 1;
                continue;
            }
            let line = head + (at - head) / 64 * 64;
            let mut b: [u8; 64] = src[line..line + 64].try_into().expect("a line");
            while let Some(&(at, mask)) = flips.get(i).filter(|f| f.0 < line + 64) {
                b[at - line] ^= mask;
                i += 1;
            }
            let d = (&mut dst[line..line + 64]).try_into().expect("a line");
            stream_line(d, &b);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for &(at, mask) in flips {
        dst[at] ^= mask;
    }
}

/// Orders the non-temporal stores made so far before every later store (`sfence`; nothing
/// elsewhere than x86-64).
#[inline]
pub fn fence() {
    // SAFETY: SSE2 is part of x86-64.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Writes the 64 bytes `s` into the line `d` (at a multiple of 64) with non-temporal
/// stores.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn stream_line(d: &mut [u8; 64], s: &[u8]) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    assert!(s.len() >= 64, "a whole line to stream");
    debug_assert!((d.as_ptr() as usize).is_multiple_of(64));
    let (dp, sp) = (
        d.as_mut_ptr().cast::<__m128i>(),
        s.as_ptr().cast::<__m128i>(),
    );
    // SAFETY: SSE2 is part of x86-64. `s` and `d` hold 64 bytes each (four 16-byte vectors);
    // the loads are unaligned, and `d` starts at a multiple of 64, so each store is to a
    // 16-byte aligned address inside it.
    unsafe {
        let v = [0, 1, 2, 3].map(|i| _mm_loadu_si128(sp.add(i)));
        for (i, v) in v.into_iter().enumerate() {
            _mm_stream_si128(dp.add(i), v);
        }
    }
}

/// The length of each of the first two CRC chains of [`copy_crc3`] over `len` bytes: whole
/// 64-byte lines, leaving at least 64 bytes to the third chain (0 below [`MIN`]).
pub fn chain(len: usize) -> usize {
    if len < MIN {
        return 0;
    }
    (len - 64) / 3 / 64 * 64
}

/// [`copy`] with the CRC-32C of `src` taken in the same pass, as three chains: returns `t`
/// and the CRC-32C of `src[..t]`, of `src[t..2 t]` and of `src[2 t..]` (to be joined with
/// the zero-append operators, as the codec joins its three chains). `t` is
/// [`chain`]`(src.len())`, or 0 when the chains did not run: the third is then the whole
/// CRC.
///
/// One pass that reads each byte from memory once while the output streams past the caches,
/// as `memcpy` does, instead of a CRC pass and then a copy. `sse42` is the evidence for
/// the CRC instruction; without it (or below [`MIN`] bytes) this is [`copy`] and
/// `crc32c`. Where the CRC folds with 512-bit registers ([`crc::folding`]), each 64-byte
/// line is folded into one CRC as it is loaded for the copy ([`crc::copy_append`], which
/// also asks for the lines of `ahead` on the way) and `t` is 0.
pub fn copy_crc3(
    sse42: Option<Sse42>,
    dst: &mut [u8],
    src: &[u8],
    ahead: &[u8],
) -> (usize, [u32; 3]) {
    assert_eq!(dst.len(), src.len(), "a copy between slices of one length");
    if src.len() >= MIN && crc::folding() {
        let c = crc::copy_append(0, dst, src, ahead);
        fence();
        return (0, [0, 0, c]);
    }
    let t = chain(src.len());
    #[cfg(target_arch = "x86_64")]
    if t > 0
        && let Some(sse42) = sse42
    {
        let head = (dst.as_ptr() as usize).wrapping_neg() & 63;
        let [x, y, z] = streams3(sse42, &mut dst[head..head + 3 * t], &src[..3 * t + head], t);
        dst[..head].copy_from_slice(&src[..head]);
        dst[head + 3 * t..].copy_from_slice(&src[head + 3 * t..]);
        return (t, [x, y, crc32c::crc32c_append(z, &src[3 * t..])]);
    }
    let _ = sse42;
    copy(dst, src);
    (0, [0, 0, crc32c::crc32c(src)])
}

/// The three chains of [`copy_crc3`]: `dst` (`3 t` bytes, starting at a multiple of 64) is
/// streamed from `src[h..]`, `h = src.len() - 3 t` (below 64), while the CRC-32C of
/// `src[q t..(q + 1) t]` is taken for `q = 0, 1, 2`.
#[cfg(target_arch = "x86_64")]
fn streams3(sse42: Sse42, dst: &mut [u8], src: &[u8], t: usize) -> [u32; 3] {
    // SAFETY: `sse42` (`Sse42::detect`) shows that the CPU supports SSE4.2.
    unsafe { streams3_sse42(sse42, dst, src, t) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
fn streams3_sse42(_: Sse42, dst: &mut [u8], src: &[u8], t: usize) -> [u32; 3] {
    use std::arch::x86_64::{_mm_crc32_u64, _mm_sfence};
    let h = src.len() - 3 * t;
    debug_assert!((dst.as_ptr() as usize).is_multiple_of(64) && dst.len() == 3 * t && h < 64);
    let (sw, dl) = (src.as_chunks::<8>().0, dst.as_chunks_mut::<64>().0);
    let (moved, lines) = (&src[h..], dl.len() / 3);
    let mut x = [!0u64; 3];
    for i in 0..t / 64 {
        for q in 0..3 {
            let w = &sw[(q * t) / 8 + 8 * i..][..8];
            for w in w {
                x[q] = _mm_crc32_u64(x[q], u64::from_le_bytes(*w));
            }
            stream_line(&mut dl[q * lines + i], &moved[q * t + 64 * i..][..64]);
        }
    }
    _mm_sfence();
    x.map(|c| !(c as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restreamed_flips_are_the_flips_made_in_place() {
        let src: Vec<u8> = (0..5000u32).map(|i| (i * 29 + i / 5) as u8).collect();
        for len in [1, 63, 64, 65, 200, 4096, 4999] {
            for skew in [0, 1, 31, 63] {
                let mut flips: Vec<(usize, u8)> = (0..len.min(40))
                    .map(|i| (i * 7919 % len, 1u8 << (i % 8)))
                    .chain([(0, 0x80), (len - 1, 0x41), (len / 2, 0x03), (len / 2, 0x01)])
                    .collect();
                flips.sort_unstable_by_key(|f| f.0);
                let mut want = src[..len].to_vec();
                for &(at, mask) in &flips {
                    want[at] ^= mask;
                }
                let mut buf = vec![0xA5u8; len + 192];
                let d = buf.as_ptr().align_offset(64) + 64 + skew;
                stream(&mut buf[d..d + len], &src[..len]);
                restream_flips(&mut buf[d..d + len], &src[..len], &flips);
                fence();
                assert_eq!(&buf[d..d + len], &want[..], "len {len} skew {skew}");
                assert!(buf[..d].iter().all(|&b| b == 0xA5), "before, len {len}");
                assert!(
                    buf[d + len..].iter().all(|&b| b == 0xA5),
                    "after, len {len}"
                );
            }
        }
    }

    #[test]
    fn copies_any_length_at_any_alignment() {
        let src: Vec<u8> = (0..20_000u32).map(|i| (i * 31 + i / 7) as u8).collect();
        let mut dst = vec![0u8; 20_200];
        for len in [
            0,
            1,
            63,
            64,
            65,
            127,
            256,
            300,
            MIN - 1,
            MIN,
            MIN + 1,
            8191,
            12_345,
            20_000,
        ] {
            for (s, d) in [(0, 0), (1, 0), (0, 1), (13, 37), (64, 63), (7, 64)] {
                if s + len > src.len() || d + len > dst.len() {
                    continue;
                }
                // `src[s..s + len]` at `d`, and nothing else of `dst` written.
                let copied = |dst: &[u8]| {
                    assert!(
                        dst[d..d + len] == src[s..s + len],
                        "len {len} at {s} -> {d}"
                    );
                    assert!(dst[..d].iter().all(|&b| b == 0xA5), "before, len {len}");
                    assert!(
                        dst[d + len..].iter().all(|&b| b == 0xA5),
                        "after, len {len}"
                    );
                };
                dst.fill(0xA5);
                copy(&mut dst[d..d + len], &src[s..s + len]);
                copied(&dst);
                dst.fill(0xA5);
                stream(&mut dst[d..d + len], &src[s..s + len]);
                fence();
                copied(&dst);
                // The same with the CRC taken on the way.
                let shift = |n: usize| crate::stream::crc::Shift::new(n);
                for sse42 in [None, Sse42::detect()] {
                    dst.fill(0xA5);
                    let (t, c) = copy_crc3(sse42, &mut dst[d..d + len], &src[s..s + len], &src);
                    copied(&dst);
                    let folds = len >= MIN && crc::folding();
                    assert!(t == chain(len) || t == 0 && (sse42.is_none() || folds));
                    let whole = if t == 0 {
                        c[2]
                    } else {
                        let two = shift(t).combine(c[0], c[1]);
                        shift(len - 2 * t).combine(two, c[2])
                    };
                    assert_eq!(whole, crc32c::crc32c(&src[s..s + len]), "len {len}");
                }
            }
        }
    }
}
