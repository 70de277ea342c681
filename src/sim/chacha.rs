//! The simulator's random streams: ChaCha8 keystreams, word for word those of rand_chacha's
//! `ChaCha8Rng` for the same key and stream (`from_seed(key)`, then `set_stream(stream)`),
//! generated sixteen blocks (1 KiB) at a time.
//!
//! With AVX-512 the sixteen blocks are computed side by side, one register per state word
//! and lane `j` holding block `j` (the rotations are single instructions), and transposed
//! into keystream order in registers at the end. Sampling 64 frames of `alien:9x9` on a BSC
//! at `p = 1e-3` draws about 600 bytes, and rand_chacha's four-block AVX2 refills took a
//! third of the simulator's time: `tilecode simulate alien:9x9 --p 1e-3 --threads 1` went
//! from 7.4 to 9.5 Gbit/s on an AMD Zen 5 (medians of 3 alternated runs). Without AVX-512,
//! rand_chacha's generator itself runs.
//!
//! Since a [`BlockRng`] hands out its buffer's words in order whatever the buffer's length,
//! every draw (`next_u32`, `next_u64`, `fill_bytes`, and what `rand` builds on them) is the
//! one `ChaCha8Rng` would give: seeded results are unchanged.

use crate::cpu;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
#[cfg(target_arch = "x86_64")]
use rand_core::block::{BlockRng, BlockRngCore};

/// Blocks computed in one refill.
const LANES: usize = 16;

/// Words in one refill: sixteen 16-word blocks.
const WORDS: usize = 16 * LANES;

/// "expand 32-byte k".
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// Double rounds of ChaCha8.
const DOUBLE_ROUNDS: usize = 4;

/// The keystream of a ChaCha8 stream, as an RNG: sixteen blocks a refill with AVX-512, else
/// rand_chacha's own generator (whose AVX2 refills beat the lane loops compiled for AVX2:
/// 7.6 against 7.1 Gbit/s of `alien:9x9` on a BSC). Its `RngCore` picks the variant at every
/// draw; hot loops match the variant once and run generic over it, as the engine does.
// A stream lives for one batch, made and used in place: boxing the wide one would cost an
// allocation a batch.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Stream {
    /// Sixteen blocks a refill, in AVX-512 registers.
    #[cfg(target_arch = "x86_64")]
    Wide(BlockRng<Core>),
    /// rand_chacha's `ChaCha8Rng`.
    Plain(ChaCha8Rng),
}

/// The stream `stream` of key `key`: the draws of
/// `{ let mut r = ChaCha8Rng::from_seed(key); r.set_stream(stream); r }`.
pub fn stream(key: [u8; 32], stream: u64) -> Stream {
    #[cfg(target_arch = "x86_64")]
    if cpu::features().avx512f {
        let mut k = [0u32; 8];
        for (w, b) in k.iter_mut().zip(key.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        return Stream::Wide(BlockRng::new(Core {
            key: k,
            stream,
            block: 0,
        }));
    }
    let mut r = ChaCha8Rng::from_seed(key);
    r.set_stream(stream);
    Stream::Plain(r)
}

impl RngCore for Stream {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        match self {
            #[cfg(target_arch = "x86_64")]
            Stream::Wide(r) => r.next_u32(),
            Stream::Plain(r) => r.next_u32(),
        }
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        match self {
            #[cfg(target_arch = "x86_64")]
            Stream::Wide(r) => r.next_u64(),
            Stream::Plain(r) => r.next_u64(),
        }
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Stream::Wide(r) => r.fill_bytes(dest),
            Stream::Plain(r) => r.fill_bytes(dest),
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

/// One refill's words (the [`BlockRngCore`] results).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Debug)]
pub struct Words([u32; WORDS]);

#[cfg(target_arch = "x86_64")]
impl Default for Words {
    fn default() -> Self {
        Words([0; WORDS])
    }
}

#[cfg(target_arch = "x86_64")]
impl AsRef<[u32]> for Words {
    fn as_ref(&self) -> &[u32] {
        &self.0
    }
}

#[cfg(target_arch = "x86_64")]
impl AsMut<[u32]> for Words {
    fn as_mut(&mut self) -> &mut [u32] {
        &mut self.0
    }
}

/// The AVX-512 block generator behind [`Stream::Wide`]; only [`stream`] builds one, and only
/// when the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Debug)]
pub struct Core {
    key: [u32; 8],
    stream: u64,
    /// The next block's counter.
    block: u64,
}

#[cfg(target_arch = "x86_64")]
impl BlockRngCore for Core {
    type Item = u32;
    type Results = Words;

    fn generate(&mut self, results: &mut Words) {
        // SAFETY: a `Core` is built only when `cpu::features` reports AVX-512F.
        unsafe { x86::blocks(&self.key, self.stream, self.block, &mut results.0) };
        self.block = self.block.wrapping_add(LANES as u64);
    }
}

/// The sixteen input states, lane `j` of word `i` being word `i` of block `block + j`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn input(key: &[u32; 8], stream: u64, block: u64) -> [[u32; LANES]; 16] {
    let mut s = [[0u32; LANES]; 16];
    for (w, &c) in s.iter_mut().zip(&SIGMA) {
        *w = [c; LANES];
    }
    for (w, &k) in s[4..12].iter_mut().zip(key) {
        *w = [k; LANES];
    }
    let counters: [u64; LANES] = std::array::from_fn(|j| block.wrapping_add(j as u64));
    s[12] = counters.map(|b| b as u32);
    s[13] = counters.map(|b| (b >> 32) as u32);
    s[14] = [stream as u32; LANES];
    s[15] = [(stream >> 32) as u32; LANES];
    s
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The sixteen lanes in AVX-512 registers, one register per state word.

    use super::{DOUBLE_ROUNDS, LANES, WORDS, input};
    use std::arch::x86_64::*;

    /// A quarter round.
    #[inline(always)]
    fn quarter(x: &mut [__m512i; 16], a: usize, b: usize, c: usize, d: usize) {
        // SAFETY (the intrinsics): called only from `blocks`, which enables AVX-512F.
        unsafe {
            x[a] = _mm512_add_epi32(x[a], x[b]);
            x[d] = _mm512_rol_epi32::<16>(_mm512_xor_si512(x[d], x[a]));
            x[c] = _mm512_add_epi32(x[c], x[d]);
            x[b] = _mm512_rol_epi32::<12>(_mm512_xor_si512(x[b], x[c]));
            x[a] = _mm512_add_epi32(x[a], x[b]);
            x[d] = _mm512_rol_epi32::<8>(_mm512_xor_si512(x[d], x[a]));
            x[c] = _mm512_add_epi32(x[c], x[d]);
            x[b] = _mm512_rol_epi32::<7>(_mm512_xor_si512(x[b], x[c]));
        }
    }

    /// Sixteen blocks from block `block` on, in keystream order.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn blocks(key: &[u32; 8], stream: u64, block: u64, out: &mut [u32; WORDS]) {
        let lanes = input(key, stream, block);
        let s: [__m512i; 16] =
            std::array::from_fn(|i| unsafe { _mm512_loadu_si512(lanes[i].as_ptr().cast()) });
        let mut x = s;
        for _ in 0..DOUBLE_ROUNDS {
            quarter(&mut x, 0, 4, 8, 12);
            quarter(&mut x, 1, 5, 9, 13);
            quarter(&mut x, 2, 6, 10, 14);
            quarter(&mut x, 3, 7, 11, 15);
            quarter(&mut x, 0, 5, 10, 15);
            quarter(&mut x, 1, 6, 11, 12);
            quarter(&mut x, 2, 7, 8, 13);
            quarter(&mut x, 3, 4, 9, 14);
        }
        let r: [__m512i; 16] = std::array::from_fn(|i| _mm512_add_epi32(x[i], s[i]));
        // Transpose: r[i] holds word i of blocks 0..16; block j goes to out[16 j..].
        // 32-bit, then 64-bit interleaves within 128-bit lanes: u[4 g + c] holds, in its
        // 128-bit lane l, words 4 g..4 g + 4 of block 4 l + c.
        let mut u = [_mm512_setzero_si512(); 16];
        for g in 0..4 {
            let (r0, r1, r2, r3) = (r[4 * g], r[4 * g + 1], r[4 * g + 2], r[4 * g + 3]);
            let t0 = _mm512_unpacklo_epi32(r0, r1);
            let t1 = _mm512_unpackhi_epi32(r0, r1);
            let t2 = _mm512_unpacklo_epi32(r2, r3);
            let t3 = _mm512_unpackhi_epi32(r2, r3);
            u[4 * g] = _mm512_unpacklo_epi64(t0, t2);
            u[4 * g + 1] = _mm512_unpackhi_epi64(t0, t2);
            u[4 * g + 2] = _mm512_unpacklo_epi64(t1, t3);
            u[4 * g + 3] = _mm512_unpackhi_epi64(t1, t3);
        }
        // Then 128-bit lanes: block 4 l + c is lane l of u[c], u[4 + c], u[8 + c], u[12 + c].
        for c in 0..LANES / 4 {
            let v0 = _mm512_shuffle_i32x4::<0x88>(u[c], u[4 + c]);
            let v1 = _mm512_shuffle_i32x4::<0xdd>(u[c], u[4 + c]);
            let v2 = _mm512_shuffle_i32x4::<0x88>(u[8 + c], u[12 + c]);
            let v3 = _mm512_shuffle_i32x4::<0xdd>(u[8 + c], u[12 + c]);
            let blocks = [
                (c, _mm512_shuffle_i32x4::<0x88>(v0, v2)),
                (4 + c, _mm512_shuffle_i32x4::<0x88>(v1, v3)),
                (8 + c, _mm512_shuffle_i32x4::<0xdd>(v0, v2)),
                (12 + c, _mm512_shuffle_i32x4::<0xdd>(v1, v3)),
            ];
            for (j, b) in blocks {
                // SAFETY: block j's 16 words lie inside `out` (j < 16).
                unsafe { _mm512_storeu_si512(out[16 * j..].as_mut_ptr().cast(), b) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn theirs(key: [u8; 32], s: u64) -> ChaCha8Rng {
        let mut r = ChaCha8Rng::from_seed(key);
        r.set_stream(s);
        r
    }

    fn key(seed: u8) -> [u8; 32] {
        std::array::from_fn(|i| seed.wrapping_mul(31).wrapping_add(i as u8 * 7))
    }

    #[cfg(target_arch = "x86_64")]
    fn words(key: [u8; 32]) -> [u32; 8] {
        std::array::from_fn(|i| u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().unwrap()))
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn sixteen_blocks_are_rand_chachas_keystream() {
        if !cpu::features().avx512f {
            return;
        }
        // Block counters from 0, and across the carry into the counter's high word.
        let starts = [0u64, u64::from(u32::MAX) - 5, u64::MAX - 3];
        for (seed, s) in [
            (0u8, 0u64),
            (1, 1),
            (2, 0x1234_5678_9abc_def0),
            (3, u64::MAX),
        ] {
            for &block in &starts {
                let mut r = theirs(key(seed), s);
                r.set_word_pos(u128::from(block) * 16);
                let mut want = [0u32; WORDS];
                r.fill(&mut want[..]);
                let mut got = [0u32; WORDS];
                // SAFETY: the CPU has AVX-512F.
                unsafe { x86::blocks(&words(key(seed)), s, block, &mut got) };
                assert_eq!(got, want, "seed {seed} stream {s} block {block}");
            }
        }
    }

    #[test]
    fn streams_draw_what_chacha8rng_draws() {
        // Mixed widths, so that 64-bit draws straddle refills at odd word offsets.
        for (seed, s) in [(5u8, 0u64), (6, 77), (7, 1 << 40)] {
            let (mut a, mut b) = (stream(key(seed), s), theirs(key(seed), s));
            #[cfg(target_arch = "x86_64")]
            assert_eq!(
                matches!(a, Stream::Wide(_)),
                cpu::features().avx512f,
                "the wide stream wherever AVX-512 is"
            );
            for i in 0..5000u32 {
                match i % 7 {
                    0 => assert_eq!(a.next_u32(), b.next_u32()),
                    1 => assert_eq!(a.r#gen::<f64>(), b.r#gen::<f64>()),
                    2 => {
                        let (mut x, mut y) = ([0u8; 13], [0u8; 13]);
                        a.fill_bytes(&mut x);
                        b.fill_bytes(&mut y);
                        assert_eq!(x, y);
                    }
                    _ => assert_eq!(a.next_u64(), b.next_u64()),
                }
            }
        }
    }
}
