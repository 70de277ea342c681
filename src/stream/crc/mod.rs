//! Combining CRC-32C values of consecutive pieces: the whole-stream checksum is built from the
//! chunk CRCs without reading the data twice.
//!
//! `crc(A ++ B) = Z(crc(A)) ^ crc(B)`, where `Z` is the linear operator that appends `|B|` zero
//! bytes to a CRC register. Every full chunk has the same length, so its operator is built
//! once per stream (a 32 x 32 matrix over GF(2): multiplication by `x^(8 |B|)` mod `P`) and
//! applied in at most 32 steps.
//!
//! The CRC itself: three interleaved chains of the CRC instruction ([`append3`]), or, where
//! the CPU has VPCLMULQDQ, carry-less folding (`fold`, through [`append`]) with 512-bit
//! registers (AVX-512) or 256-bit ones (AVX2: AMD Zen 3).

#[cfg(target_arch = "x86_64")]
mod fold;
#[cfg(target_arch = "x86_64")]
pub use fold::{Fold, Folding, RowFold};

/// Whether [`append`] folds with 512-bit carry-less multiplications on this CPU (for
/// pieces of 256 bytes or more): then three pieces one after the other are faster than the
/// CRC instruction's three chains ([`append3`]), and the codec takes the CRCs of codes
/// without a fused kernel over runs of groups rather than beside each group's kernel (the
/// fused kernels of `alien:9x9` and `secded:72` stay faster: `docs/benchmarks.md`).
pub fn folding() -> bool {
    #[cfg(target_arch = "x86_64")]
    return fold::Fold::detect().is_some();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// `crc32c(prefix ++ data)` from `crc32c(prefix)`: by folding with 512-bit (or, without
/// AVX-512, 256-bit) carry-less multiplications where the CPU has them and `data` is 256
/// bytes or more (about twice the speed of the CRC instruction's three chains), else with
/// the `crc32c` crate.
#[inline]
pub fn append(crc: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if data.len() >= fold::MIN_LEN
        && let Some(f) = fold::Folding::detect()
    {
        return fold::append(f, crc, data);
    }
    crc32c::crc32c_append(crc, data)
}

/// Whether [`append`] and [`copy_append`] fold with 256-bit registers only on this CPU (AVX2
/// and VPCLMULQDQ without AVX-512, as AMD Zen 3 has): about as fast as memory, but the
/// codec's in-order paths gain from them on fewer shapes than from the 512-bit fold
/// (`Codec::copies_folding`).
pub fn folds_narrow() -> bool {
    #[cfg(target_arch = "x86_64")]
    return matches!(fold::Folding::detect(), Some(fold::Folding::Narrow(_)));
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The CRC-32C of `data`: [`append`] from zero (folding where the CPU can, so about twice
/// the `crc32c` crate's speed on long inputs).
#[inline]
pub fn checksum(data: &[u8]) -> u32 {
    append(0, data)
}

/// `crc32c(prefix ++ src)` from `crc32c(prefix)` while `src` is copied into `dst` (the same
/// length). Where the CRC folds ([`folding`]) and `src` is 320 bytes or more, in one pass
/// with non-temporal stores ([`fold::copy_append`]; the bytes before `dst`'s first multiple
/// of 64 are copied and taken by the CRC instruction first), which also asks for the lines
/// of `ahead` (the bytes the caller reads next, or none) spread over the copy; otherwise a
/// copy, then the CRC. The non-temporal stores are not fenced: the caller calls
/// [`crate::stream::nt::fence`] after its last copy, before the bytes go to another thread
/// (a fence after each 4 KiB group held the next group's work until the lines had reached
/// memory).
pub fn copy_append(crc: u32, dst: &mut [u8], src: &[u8], ahead: &[u8]) -> u32 {
    assert_eq!(dst.len(), src.len(), "a copy between slices of one length");
    #[cfg(target_arch = "x86_64")]
    if src.len() >= fold::MIN_LEN + 64
        && let Some(f) = fold::Folding::detect()
    {
        let head = (dst.as_ptr() as usize).wrapping_neg() & 63;
        let (d0, d1) = dst.split_at_mut(head);
        d0.copy_from_slice(&src[..head]);
        let crc = crc32c::crc32c_append(crc, d0);
        return fold::copy_append(f, crc, d1, &src[head..], ahead);
    }
    let _ = ahead;
    dst.copy_from_slice(src);
    crc32c::crc32c_append(crc, dst)
}

/// Evidence that this CPU has SSE4.2 (the CRC-32C instruction) for [`append3`], taken once by
/// whoever calls it per group (the codec, when it is built).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sse42(());

impl Sse42 {
    /// The evidence when the CPU has SSE4.2 ([`crate::cpu::features`]).
    pub fn detect() -> Option<Sse42> {
        crate::cpu::features().sse42.then_some(Sse42(()))
    }
}

/// Three CRC-32C computations at once: `[append(crcs[0], a), append(crcs[1], b),
/// append(crcs[2], c)]`, for pieces of equal length; with the SSE4.2 instructions when
/// `sse42` holds the evidence, else one piece after the other.
///
/// The CRC instruction has a latency of three cycles and a throughput of one per cycle, so
/// one chain of it runs at a third of its speed; three independent chains, interleaved, run
/// at full speed. The codec feeds them three groups of one chunk at a time and joins the
/// three results with [`Shift::combine`].
#[inline]
pub fn append3(sse42: Option<Sse42>, crcs: [u32; 3], a: &[u8], b: &[u8], c: &[u8]) -> [u32; 3] {
    assert!(
        a.len() == b.len() && b.len() == c.len(),
        "pieces of equal length"
    );
    #[cfg(target_arch = "x86_64")]
    {
        if a.len() >= fold::MIN_LEN && folding() {
            return [append(crcs[0], a), append(crcs[1], b), append(crcs[2], c)];
        }
        if sse42.is_some() {
            // SAFETY: `sse42` (`Sse42::detect`) shows that the CPU supports SSE4.2.
            return unsafe { append3_sse42(crcs, a, b, c) };
        }
    }
    let _ = sse42;
    [append(crcs[0], a), append(crcs[1], b), append(crcs[2], c)]
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
fn append3_sse42(crcs: [u32; 3], a: &[u8], b: &[u8], c: &[u8]) -> [u32; 3] {
    use std::arch::x86_64::{_mm_crc32_u8, _mm_crc32_u64};
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
    let (mut x, mut y, mut z) = (
        u64::from(!crcs[0]),
        u64::from(!crcs[1]),
        u64::from(!crcs[2]),
    );
    let (wa, wb, wc) = (a.chunks_exact(8), b.chunks_exact(8), c.chunks_exact(8));
    let (ra, rb, rc) = (wa.remainder(), wb.remainder(), wc.remainder());
    for ((p, q), r) in wa.zip(wb).zip(wc) {
        x = _mm_crc32_u64(x, word(p));
        y = _mm_crc32_u64(y, word(q));
        z = _mm_crc32_u64(z, word(r));
    }
    let (mut x, mut y, mut z) = (x as u32, y as u32, z as u32);
    for ((&p, &q), &r) in ra.iter().zip(rb).zip(rc) {
        x = _mm_crc32_u8(x, p);
        y = _mm_crc32_u8(y, q);
        z = _mm_crc32_u8(z, r);
    }
    [!x, !y, !z]
}

/// `a * b mod P` for polynomials in the CRC's reflected representation (bit 31 is `x^0`).
fn mul_mod(a: u32, mut b: u32) -> u32 {
    let mut p = 0;
    for i in (0..32).rev() {
        if a >> i & 1 == 1 {
            p ^= b;
        }
        b = if b & 1 == 1 { (b >> 1) ^ POLY } else { b >> 1 };
    }
    p
}

/// `x^n mod P`, reflected.
fn x_pow(mut n: u64) -> u32 {
    let (mut acc, mut base) = (1u32 << 31, 1u32 << 30);
    while n != 0 {
        if n & 1 == 1 {
            acc = mul_mod(acc, base);
        }
        base = mul_mod(base, base);
        n >>= 1;
    }
    acc
}

/// Appending zero bytes to a raw CRC register by one carry-less multiplication: the key
/// for `len` bytes, for [`ZeroKey::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroKey(u32, bool);

impl ZeroKey {
    /// The key for `len` zero bytes, `len` 0 or at least 5.
    pub fn new(len: usize) -> ZeroKey {
        assert!(len == 0 || len >= 5, "zero keys from 5 bytes up");
        // The CRC instruction on the 64-bit carry-less product of two reflected 32-bit
        // values `a`, `b` gives `a b x^33 mod P`; so the key is `x^(8 len - 33)`.
        if len == 0 {
            ZeroKey(0, false)
        } else {
            ZeroKey(x_pow(8 * len as u64 - 33), true)
        }
    }

    /// The raw register `reg` after this key's zero bytes.
    ///
    /// # Safety
    /// The CPU must support PCLMULQDQ and SSE4.2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "pclmulqdq,sse4.2")]
    pub unsafe fn apply(self, reg: u32) -> u32 {
        use std::arch::x86_64::*;
        if !self.1 {
            return reg;
        }
        let p = _mm_clmulepi64_si128(
            _mm_cvtsi64_si128(i64::from(reg)),
            _mm_cvtsi64_si128(i64::from(self.0)),
            0,
        );
        _mm_crc32_u64(0, _mm_cvtsi128_si64(p) as u64) as u32
    }
}

/// Base-256 digits of a run of zero words a [`Mender`] appends with one key each: runs of
/// up to `8 * 256^3` bytes (128 MiB, twice the largest chunk).
const DIGITS: usize = 3;

/// The change a few flipped bytes make to the CRC-32C of a block, without reading the block.
///
/// The CRC is linear: `crc(A ^ E) = crc(A) ^ raw(E)`, where `raw` is the register of the
/// change `E` alone (from a zero register, without inversions), and `raw(E)` is the XOR over
/// the flipped bytes of the register of one byte followed by the zeros to the block's end.
/// A run of `8 + r + 8 w` zeros (`r < 8`) is appended with four carry-less multiplications
/// ([`ZeroKey`]s): one for the first `8 + r` bytes, one per base-256 digit of `w`, from
/// tables (6 KiB) built once per process. The flips are independent of each other and the
/// work has no branch on the data, so the processor overlaps them: a corrected bit of a deep
/// chunk costs some tens of cycles, where taking the CRC again reads the whole block.
#[derive(Debug)]
pub struct Mender {
    /// `short[r]` appends `8 + r` zero bytes.
    short: [ZeroKey; 8],
    /// `digits[j][d]` appends `8 d 256^j` zero bytes.
    digits: [[ZeroKey; 256]; DIGITS],
}

impl Mender {
    /// The process's mender, when the CPU has PCLMULQDQ and SSE4.2 (x86-64 only).
    pub fn detect() -> Option<&'static Mender> {
        static MENDER: std::sync::OnceLock<Option<Mender>> = std::sync::OnceLock::new();
        MENDER
            .get_or_init(|| {
                let f = crate::cpu::features();
                let here = cfg!(target_arch = "x86_64") && f.pclmulqdq && f.sse42;
                here.then(|| Mender {
                    short: std::array::from_fn(|r| ZeroKey::new(8 + r)),
                    digits: std::array::from_fn(|j| {
                        std::array::from_fn(|d| ZeroKey::new((8 * d) << (8 * j)))
                    }),
                })
            })
            .as_ref()
    }

    /// What to XOR into the CRC-32C of the `len` bytes from `start` once the bytes at the
    /// offsets of `flips` (from `start` to `start + len`, in any order) are XORed with their
    /// masks.
    pub fn change(&self, start: usize, len: usize, flips: &[(usize, u8)]) -> u32 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Mender` exists only where the CPU has PCLMULQDQ and SSE4.2 (`detect`).
        unsafe {
            self.change_x86(start, len, flips)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no mender off x86-64: {start} {len} {flips:?}")
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "pclmulqdq,sse4.2")]
    fn change_x86(&self, start: usize, len: usize, flips: &[(usize, u8)]) -> u32 {
        use std::arch::x86_64::_mm_crc32_u8;
        let end = start + len;
        assert!(len <= 8 << (8 * DIGITS), "blocks of at most 128 MiB");
        // The base-256 digits a run of zeros in this block can have: the higher ones are
        // zero for every flip, and a zero digit appends nothing (a group of 512 bytes at
        // `D = 64` needs one of the three; the two others were half of a flip's work).
        let most = len.saturating_sub(1) / 8;
        let used = (usize::BITS - most.leading_zeros()).div_ceil(8) as usize;
        let mut change = 0;
        for &(p, mask) in flips {
            assert!(start <= p && p < end, "flips inside the block");
            let mut reg = _mm_crc32_u8(0, mask);
            let n = end - 1 - p;
            if n < 8 {
                for _ in 0..n {
                    reg = _mm_crc32_u8(reg, 0);
                }
            } else {
                // SAFETY (each `apply`): the target features of this function.
                reg = unsafe { self.short[n % 8].apply(reg) };
                let words = n / 8 - 1;
                for (j, keys) in self.digits[..used].iter().enumerate() {
                    reg = unsafe { keys[(words >> (8 * j)) & 255].apply(reg) };
                }
            }
            change ^= reg;
        }
        change
    }
}

/// The CRC-32C polynomial, reflected.
const POLY: u32 = 0x82F6_3B78;

/// A 32 x 32 matrix over GF(2), stored as columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mat([u32; 32]);

impl Mat {
    fn times(&self, mut v: u32) -> u32 {
        let mut acc = 0;
        while v != 0 {
            acc ^= self.0[v.trailing_zeros() as usize];
            v &= v - 1;
        }
        acc
    }
}

/// The operator appending a fixed number of zero bytes to a CRC-32C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shift(Mat, usize);

impl Shift {
    /// The operator for `len` zero bytes: multiplication by `x^(8 len)` mod `P`, whose
    /// column `i` is the image of bit `i` (one `x_pow` and 32 products; squaring the
    /// matrix instead made the shifts a codec prepares 30 % of the time of encoding 2 MiB
    /// streams).
    pub fn new(len: usize) -> Shift {
        let key = x_pow(8 * len as u64);
        Shift(Mat(std::array::from_fn(|i| mul_mod(1 << i, key))), len)
    }

    /// The number of zero bytes this operator appends.
    pub fn bytes(&self) -> usize {
        self.1
    }

    /// The raw register `reg` (no inversions) after this operator's zero bytes.
    #[cfg(test)]
    pub fn apply(&self, reg: u32) -> u32 {
        self.0.times(reg)
    }

    /// `crc(A ++ B)` from `crc(A)` and `crc(B)`, `B` having this operator's length.
    pub fn combine(&self, crc_a: u32, crc_b: u32) -> u32 {
        self.0.times(crc_a) ^ crc_b
    }

    /// `crc(A ++ B)` for a `B` of `len_b` bytes: with this operator when that is its length
    /// (a stream's full chunks), else with one built for it.
    pub fn combine_len(&self, crc_a: u32, crc_b: u32, len_b: usize) -> u32 {
        if len_b == self.bytes() {
            self.combine(crc_a, crc_b)
        } else {
            Shift::new(len_b).combine(crc_a, crc_b)
        }
    }
}

/// `len` bytes of a multiplicative hash of their index, shifted right by `shift`: test data
/// (the same for every test that asks for the same pair).
#[cfg(test)]
fn sample(len: u32, shift: u32) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> shift) as u8)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_chains_agree_with_one() {
        let data = sample(3000, 11);
        for len in [0, 1, 7, 8, 9, 64, 520, 999] {
            let (a, rest) = data.split_at(len);
            let (b, rest) = rest.split_at(len);
            let c = &rest[..len];
            let start = [0, 0x1234_5678, !0];
            let want = [append(0, a), append(0x1234_5678, b), append(!0, c)];
            assert_eq!(append3(Sse42::detect(), start, a, b, c), want);
            assert_eq!(append3(None, start, a, b, c), want);
            let s = Shift::new(len);
            let whole = s.combine(s.combine(append(0, a), append(0, b)), append(0, c));
            assert_eq!(whole, crc32c::crc32c(&data[..3 * len]), "len {len}");
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn zero_keys_agree_with_the_matrices() {
        let f = crate::cpu::features();
        if !(f.pclmulqdq && f.sse42) {
            return;
        }
        for len in [0, 5, 8, 9, 64, 512, 520, 100_000] {
            let (key, mat) = (ZeroKey::new(len), Shift::new(len));
            for reg in [1, 0x8000_0000, 0xDEAD_BEEF, !0, 0x1234_5678] {
                // SAFETY: the features are checked above.
                let got = unsafe { key.apply(reg) };
                assert_eq!(got, mat.apply(reg), "len {len} reg {reg:x}");
            }
        }
    }

    /// A block with a few bytes flipped: its CRC mended equals its CRC taken again, at any
    /// length and place, with flips at the ends, side by side and far apart.
    #[test]
    fn mended_crcs_agree_with_the_flipped_bytes() {
        let Some(m) = Mender::detect() else {
            return;
        };
        let data = sample(70_000, 7);
        for (start, len) in [
            (0, 1),
            (3, 8),
            (5, 9),
            (1, 16),
            (2, 17),
            (9, 520),
            (4, 2056),
            (100, 4093),
            (7, 65536),
            (0, 70_000),
        ] {
            let end = start + len;
            let offsets = [
                start,
                start + 1,
                start + len / 2,
                start + len / 2 + 8,
                end - 1,
            ];
            for pick in 1u32..32 {
                let mut flips: Vec<(usize, u8)> = offsets
                    .iter()
                    .enumerate()
                    .filter(|&(i, &p)| pick >> i & 1 == 1 && p < end)
                    .map(|(i, &p)| (p, 1 << ((i + pick as usize) % 8)))
                    .collect();
                // In any order, one byte flipped twice.
                flips.reverse();
                flips.extend(flips.clone().first());
                let mut bad = data[start..end].to_vec();
                for &(p, mask) in &flips {
                    bad[p - start] ^= mask;
                }
                let want = crc32c::crc32c(&bad);
                let got = crc32c::crc32c(&data[start..end]) ^ m.change(start, len, &flips);
                assert_eq!(got, want, "block {start}+{len}, flips {flips:?}");
            }
        }
    }

    #[test]
    fn copy_append_copies_and_sums_at_any_alignment() {
        let data = sample(5000, 5);
        for len in [0, 1, 63, 100, 319, 320, 321, 511, 1000, 2999, 4096, 4099] {
            for skew in [0, 1, 17, 63] {
                // With nothing to ask for, and with more than the copy.
                for ahead in [&[][..], &data[..]] {
                    let mut out = vec![0xA5u8; len + 256];
                    let at = out.as_ptr().align_offset(64) + 64 + skew;
                    let src = &data[..len];
                    let c = copy_append(7, &mut out[at..at + len], src, ahead);
                    let what = format!("len {len} skew {skew} ahead {}", ahead.len());
                    assert_eq!(c, crc32c::crc32c_append(7, src), "{what}");
                    assert_eq!(&out[at..at + len], src, "{what}");
                    assert!(out[..at].iter().all(|&b| b == 0xA5), "{what}: before");
                    assert!(out[at + len..].iter().all(|&b| b == 0xA5), "{what}: after");
                }
            }
        }
    }

    #[test]
    fn agrees_with_concatenation() {
        let data = sample(5000, 13);
        for split in [0, 1, 7, 8, 63, 1000, 4999, 5000] {
            let (a, b) = data.split_at(split);
            let s = Shift::new(b.len());
            assert_eq!(
                s.combine(crc32c::crc32c(a), crc32c::crc32c(b)),
                crc32c::crc32c(&data),
                "split {split}"
            );
            assert_eq!(
                s.combine(crc32c::crc32c(a), crc32c::crc32c(b)),
                crc32c::crc32c_combine(crc32c::crc32c(a), crc32c::crc32c(b), b.len())
            );
        }
    }
}
