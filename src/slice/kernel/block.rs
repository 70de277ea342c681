//! The lane block: `B` words of 64 lanes, and the views of a group's bytes the kernels read
//! and write.

use std::ops::{BitOr, BitXor, BitXorAssign};

/// `B` words of 64 lanes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct V<const B: usize>(pub [u64; B]);

impl<const B: usize> V<B> {
    /// All lanes zero.
    #[inline(always)]
    pub fn zero() -> Self {
        V([0; B])
    }

    /// Reads `8 B` little-endian bytes.
    #[inline(always)]
    pub fn load(bytes: &[u8]) -> Self {
        let bytes = &bytes[..8 * B];
        let mut v = [0u64; B];
        for (w, c) in v.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        }
        V(v)
    }

    /// Writes `8 B` little-endian bytes.
    #[inline(always)]
    pub fn store(self, bytes: &mut [u8]) {
        let bytes = &mut bytes[..8 * B];
        for (w, c) in self.0.iter().zip(bytes.chunks_exact_mut(8)) {
            c.copy_from_slice(&w.to_le_bytes());
        }
    }

    /// `self` when `keep`, else zero.
    #[inline(always)]
    pub fn masked(mut self, keep: bool) -> Self {
        let m = 0u64.wrapping_sub(keep as u64);
        for w in self.0.iter_mut() {
            *w &= m;
        }
        self
    }

    /// True when every lane is zero.
    #[inline(always)]
    pub fn is_zero(&self) -> bool {
        self.0.iter().fold(0, |a, &w| a | w) == 0
    }
}

impl<const B: usize> BitXor for V<B> {
    type Output = Self;
    #[inline(always)]
    fn bitxor(mut self, o: Self) -> Self {
        for i in 0..B {
            self.0[i] ^= o.0[i];
        }
        self
    }
}

impl<const B: usize> BitXorAssign for V<B> {
    #[inline(always)]
    fn bitxor_assign(&mut self, o: Self) {
        for i in 0..B {
            self.0[i] ^= o.0[i];
        }
    }
}

impl<const B: usize> BitOr for V<B> {
    type Output = Self;
    #[inline(always)]
    fn bitor(mut self, o: Self) -> Self {
        for i in 0..B {
            self.0[i] |= o.0[i];
        }
        self
    }
}

/// Single-word rows (`B = 1`) as the bytes the kernels read: on a little-endian target a
/// row's `u64` is its lanes as they are; elsewhere the kernels' words are byte-swapped
/// consistently and `u64::from_le` turns them back.
#[inline(always)]
pub fn word_bytes(words: &[u64]) -> &[u8] {
    // SAFETY: `u64` has no padding and any byte is a valid `u8`; the byte slice covers exactly
    // the words' memory and borrows it for as long as `words`.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words)) }
}

/// Single-word rows as lane blocks of one word (`V<1>` is a `u64`), for kernels to write
/// their parity rows straight into `u64` words; little-endian targets only, where a lane
/// block's word is the row's `u64` as it is.
#[cfg(target_endian = "little")]
#[inline(always)]
pub fn word_blocks(words: &mut [u64]) -> &mut [V<1>] {
    // SAFETY: `V<1>` is `repr(transparent)` over `[u64; 1]`, which has the layout of `u64`.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<V<1>>(), words.len()) }
}

/// Words as lane blocks of one word, to be read (`V<1>` is `repr(transparent)` over one
/// `u64`): for [`store_blocks`] of the single-word kernels' parity words.
#[inline(always)]
pub fn as_blocks(words: &[u64]) -> &[V<1>] {
    // SAFETY: `V<1>` is `repr(transparent)` over `[u64; 1]`, which has the layout of `u64`.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<V<1>>(), words.len()) }
}

/// Single-word parity rows up to this many are written out word by word
/// ([`store_parity`]).
const WORD_BY_WORD: usize = 6;

/// Writes lane blocks one after the other to `dst` (exactly `8 B` bytes a block) as
/// little-endian words. A short run (up to 256 bytes: the parity rows of most codes at
/// `D = 64`) is copied by two overlapping moves of a fixed size, where the loop of stores
/// was a call to `memcpy` per group (a fifth of `alien:5x5`'s encoding time).
#[inline(always)]
pub fn store_blocks<const B: usize>(vs: &[V<B>], dst: &mut [u8]) {
    assert_eq!(
        dst.len(),
        8 * B * vs.len(),
        "a block's bytes for every block"
    );
    #[cfg(target_endian = "little")]
    copy_short(dst, block_bytes(vs));
    #[cfg(not(target_endian = "little"))]
    for (v, d) in vs.iter().zip(dst.chunks_exact_mut(8 * B)) {
        v.store(d);
    }
}

/// Lane blocks as the bytes [`store_blocks`] writes: on a little-endian target, their
/// memory as it is.
#[cfg(target_endian = "little")]
#[inline(always)]
pub fn block_bytes<const B: usize>(vs: &[V<B>]) -> &[u8] {
    // SAFETY: `V<B>` is `repr(transparent)` over `[u64; B]`, which has no padding, and any
    // byte is a valid `u8`; the slice covers exactly the blocks' memory and borrows it for as
    // long as `vs`.
    unsafe { std::slice::from_raw_parts(vs.as_ptr().cast::<u8>(), std::mem::size_of_val(vs)) }
}

/// [`store_blocks`] for the parity rows a lane-block kernel has just written into `vs`. Up
/// to six single words (`WORD_BY_WORD`: the smallest codes at `D = 64`) are read back one at a
/// time: the kernel stored them word by word, and a 16-byte load over two such stores
/// waits for both to reach the cache (a quarter of alien:3x3's kernel time was that load;
/// word by word its encode ran 15-20 % faster: docs/benchmarks.md, "Parity words of the
/// smallest codes").
#[inline(always)]
pub fn store_parity<const B: usize>(vs: &[V<B>], dst: &mut [u8]) {
    #[cfg(target_endian = "little")]
    if B == 1 && vs.len() <= WORD_BY_WORD {
        assert_eq!(dst.len(), 8 * vs.len(), "a word's bytes for every word");
        for (v, d) in vs.iter().zip(dst.chunks_exact_mut(8)) {
            // SAFETY: `v.0[0]` is a `u64` behind a shared reference, valid and aligned; the
            // volatile read keeps it one 8-byte load (a plain copy loop is merged into wider
            // loads or a call to `memcpy`).
            let w = unsafe { std::ptr::read_volatile(&v.0[0]) };
            d.copy_from_slice(&w.to_le_bytes());
        }
        return;
    }
    store_blocks(vs, dst);
}

/// `dst.copy_from_slice(src)` for slices of equal length, with no call to `memcpy` from 8 to
/// 256 bytes: the first and the last `W` bytes for the smallest `W` in 8, 16, ..., 128 that
/// is at least half the length (the two moves overlap when the length is under `2 W`).
/// Other lengths go through `copy_from_slice`.
#[inline(always)]
pub fn copy_short(dst: &mut [u8], src: &[u8]) {
    #[inline(always)]
    fn ends<const W: usize>(dst: &mut [u8], src: &[u8]) {
        let n = src.len();
        let head: [u8; W] = src[..W].try_into().expect("W bytes");
        let tail: [u8; W] = src[n - W..].try_into().expect("W bytes");
        dst[..W].copy_from_slice(&head);
        dst[n - W..].copy_from_slice(&tail);
    }
    assert_eq!(dst.len(), src.len(), "slices of equal length");
    match src.len() {
        8..=16 => ends::<8>(dst, src),
        17..=32 => ends::<16>(dst, src),
        33..=64 => ends::<32>(dst, src),
        65..=128 => ends::<64>(dst, src),
        129..=256 => ends::<128>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// Turns the parity rows computed from the received data (`syn`) into the syndrome by adding
/// the received parity rows (rows of `rb` bytes in `received`, this lane block at `off`), and
/// returns the OR of the syndrome rows: zero exactly when every lane is clean.
#[inline(always)]
pub fn add_received<const B: usize>(
    syn: &mut [V<B>],
    received: &[u8],
    rb: usize,
    off: usize,
) -> V<B> {
    let mut nz = V::<B>::zero();
    for (sy, prow) in syn.iter_mut().zip(received.chunks_exact(rb)) {
        *sy ^= V::load(&prow[off..]);
        nz = nz | *sy;
    }
    nz
}

/// One lane block: `B` little-endian words.
pub(super) type Block<const B: usize> = [[u8; 8]; B];

/// Bytes as lane blocks (whole blocks only; `len` a multiple of `8 B`).
#[inline(always)]
pub(super) fn blocks<const B: usize>(bytes: &[u8]) -> &[Block<B>] {
    bytes.as_chunks::<8>().0.as_chunks::<B>().0
}

/// Bytes as mutable lane blocks.
#[inline(always)]
pub(super) fn blocks_mut<const B: usize>(bytes: &mut [u8]) -> &mut [Block<B>] {
    bytes.as_chunks_mut::<8>().0.as_chunks_mut::<B>().0
}

impl<const B: usize> V<B> {
    #[inline(always)]
    pub(super) fn from_block(b: &Block<B>) -> Self {
        V(b.map(u64::from_le_bytes))
    }

    #[inline(always)]
    pub(super) fn to_block(self) -> Block<B> {
        self.0.map(u64::to_le_bytes)
    }
}
