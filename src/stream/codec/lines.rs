//! The line pass: groups of rows of one to sixteen 64-byte lines (`D = 512` to 8192) of
//! codes of few data rows, a third of a chunk's groups coded in one call, in order.
//!
//! A group of alien:3x3 at `D = 512` is 5 data lines and 4 parity lines. The lane-block
//! kernel in runs ([`Kernel::encode_run`](crate::slice::kernel::Kernel::encode_run)) spent
//! some 30 ns a group on it in cache, then the CRC read the run again: encode and clean decode
//! ran at 0.5-0.6x memcpy. Here each data line is loaded once, and in registers:
//!
//! - summed into the parity lines ([`Plan::parity_sets`]; or, where it takes fewer loads
//!   and stores, into the accumulators of the plan's program, [`SetProgram`], which make
//!   them), which are streamed after the data lines (encoding) or added to the received
//!   ones (decoding);
//! - decoding, corrected where the group's syndrome is not zero, before they are written:
//!   the codes of the pass are those whose decoder corrects exactly the single errors
//!   ([`Locator::single_error_keys`]) or detects every error (`t = 0`), so the lanes whose
//!   syndrome is a data row's single error's are found for all 512 lanes at once (an AND of
//!   the syndrome lines or their complements for each data row) and flipped in the
//!   registers, and every other lane with a nonzero syndrome is detected;
//! - streamed to its place in the output (non-temporal stores) and folded into the third's
//!   CRC register ([`RowFold`], a single chain of 64-byte steps); decoding, as the next
//!   group's lines are loaded, so that the loads from memory and the streamed stores overlap.
//!
//! Rows of `w` lines are `w` such groups side by side: line `x` of every row is a group of
//! one-line rows, and its 512 lanes are decided apart. The group is read in the order it
//! lies in memory (its data rows, then its parity rows), all of it held in L1 until its data
//! lines are written. At `D = 4096` this read decoded alien:3x3 at 0.73x memcpy against 0.47
//! for the column pass ([`super::columns`]), which reads a line of every row in turn. In a
//! throwaway program of both kinds, memory order ran at 0.8-1.1 against 0.55-0.65 for a
//! line of every row in turn, but at rows of 4 KiB (`D = 32768`) at 0.6 against 0.8
//! (docs/benchmarks.md, "The line pass on rows of several lines").
//!
//! The output need not start at a multiple of 64: its `h` bytes up to one are stored apart,
//! and every line after is made of the last `64 - h` bytes of one row and the first `h` of
//! the next (one byte permute of the two, `vpermt2b`), so that every whole line is streamed
//! at a multiple of 64.

use super::Codec;
use super::decode::ChunkStats;
use crate::slice::kernel::{Plan, SetProgram};
use crate::slice::locate::Locator;
use crate::slice::prefetch;
use crate::stream::crc::{Fold, Folding, RowFold};
use crate::stream::nt;
use std::arch::x86_64::*;

/// The shapes the line pass takes, encoding and decoding: most data rows, most parity rows,
/// most sums a data row (the parity lines a data line is summed into, on average; through
/// the program, its loads and stores a data row, [`sums`]: alien:3x9 4.9, 3x17 4.7, 5x9
/// 3.8, against 8.1, 16.1 and 10.1 as sets, which took the encoding of alien:3x17 at `D =
/// 512` from 0.69 to 1.03x memcpy, 5x9 0.79 -> 1.07, 9x5 0.71 -> 1.01, and the decoding of
/// alien:3x9 0.55 -> 0.65, 5x5 0.67 -> 0.73; docs/benchmarks.md, "The plan's program in the
/// line pass").
/// Encoding gained up to 64 data rows and 8.1 sums a row (alien:3x9 0.48 -> 0.87x memcpy,
/// alien:16x3 0.84 -> 1.11, secded:72 0.76 -> 1.06) and lost from 10.1 (alien:5x9 equal,
/// alien:3x17, 16.1, 0.65 -> 0.53). Decoding gained up to 17 data rows (alien:8x3 0.58 ->
/// 0.78, noisy 0.40 -> 0.54; secded:22 0.57 -> 0.75) and lost from 32, to the groups of 2
/// KiB and more in order (`Codec::decode_in_order`: secded:39 0.89 -> 0.63, alien:16x3
/// 0.88 -> 0.49, hamming:39 0.85 -> 0.51; docs/benchmarks.md, "The line pass").
const ENCODE_MAX: (usize, usize, usize) = (64, 32, 9);
const DECODE_MAX: (usize, usize, usize) = (31, 16, 8);

/// How far ahead of the line it loads the pass asks for lines from memory, in bytes (into
/// L1), unless it decodes groups of [`FAR_FROM`] bytes and more.
const AHEAD: usize = 1024;

/// How far ahead the decoder asks for lines into L2 (not L1) when its groups are of
/// [`FAR_FROM`] bytes or more (`D = 4096` and 8192). In one process, the two alternated,
/// 128 MiB (`memory_decode`), clean decode at `D = 4096` gained alien:3x9 0.54 -> 0.66x
/// memcpy, 9x3 0.51 -> 0.62, 5x5 0.55 -> 0.65, 8x3 0.66 -> 0.74, hamming:22 0.71 -> 0.77,
/// and at BER 1e-4 20-30 % (alien:3x9 0.38 -> 0.51); 6-16 KiB ahead alike. Groups under 8
/// KiB lost with it (alien:4x3, 6 KiB, 0.87 -> 0.82; 3x3 0.71 -> 0.68), and the encoder too
/// (alien:3x3 0.68 -> 0.58; docs/benchmarks.md, "Lines asked for into L2").
const FAR_AHEAD: usize = 8192;

/// The smallest group the decoder's line pass prefetches [`FAR_AHEAD`] into L2.
const FAR_FROM: usize = 8192;

/// Whether the decoder asks for lines far ahead into L2 for groups of `group_bytes`.
fn far(group_bytes: usize) -> bool {
    group_bytes >= FAR_FROM
}

/// Asks for the line `AHEAD` bytes past `at` into L1 or, with `FAR`, the line `FAR_AHEAD`
/// bytes past it into L2.
#[inline(always)]
fn ask<const FAR: bool>(at: *const u8) {
    // (`wrapping_add`: a hint's address need not lie in the group.)
    if FAR {
        prefetch::line_l2(at.wrapping_add(FAR_AHEAD));
    } else {
        prefetch::line(at.wrapping_add(AHEAD));
    }
}

/// How the decoder decides the lanes of a group whose syndrome is not zero.
#[derive(Clone, Debug)]
pub(super) enum Decide {
    /// In the pass, all lanes at once: a lane whose syndrome is data row `i`'s single error's
    /// key has row `i` flipped, one whose syndrome is a parity row's (one bit) has nothing to
    /// flip, and every other is detected. Word `i r + q` is all ones where bit `q` of row
    /// `i`'s key is clear, else zero (taken once here rather than for every group with an
    /// error).
    Singles(Vec<u64>),
    /// Every lane with a nonzero syndrome is detected (`t = 0`, or no parity rows).
    Detect,
}

/// The longest rows of the line pass, in lines of 64 bytes (`D = 512 w`): rows of 8 and 16
/// lines gained (clean decode alien:3x3 0.47 -> 0.73x memcpy at `D = 4096`, 0.38 -> 0.55 at
/// 8192); 4 KiB rows read a line of every row at a time ran faster in the throwaway program
/// (above), and rows of 32 lines were not measured.
const MAX_LINES_A_ROW: usize = 16;

/// The most bytes of a group's data rows the pass holds at a time (in L1, with the syndrome
/// lines; not measured past this).
const MAX_GROUP_DATA: usize = 16 << 10;

/// Evidence that the CPU runs the line pass (AVX-512 F, BW and VBMI, VPCLMULQDQ and
/// SSE4.2), with the codec's parity rows as sets of data rows and its decisions.
#[derive(Clone, Debug)]
pub(super) struct Lines {
    fold: RowFold,
    /// Lines a row.
    w: usize,
    /// Parity row `q` is the sum of the data rows of the bits of `sets[q]`.
    sets: Vec<u64>,
    /// The plan over sets of data rows, where it sums the parity lines in fewer loads and
    /// stores than `sets` (the odd Alien boards past 3x5: [`Lines::detect`]).
    program: Option<SetProgram>,
    /// How the decoder decides lanes (none for an encoder, whose locator has no table).
    decide: Option<Decide>,
}

impl Lines {
    /// The line pass for groups of the plan's data rows of `row_bytes` bytes, where the CPU
    /// has what it needs and the group suits it (rows of 64 bytes, at least 4 data rows, at
    /// most [`ENCODE_MAX`], or [`DECODE_MAX`] and a `locator` that decides lanes as
    /// [`Decide`] can when `decoding`). (Codes that the decoder corrects otherwise, `t >= 2`,
    /// have more parity rows than the pass takes.)
    pub(super) fn detect(
        row_bytes: usize,
        plan: &Plan,
        locator: &Locator,
        decoding: bool,
    ) -> Option<Lines> {
        let fold = Fold::detect()?;
        let f = crate::cpu::features();
        let k = plan.data_rows();
        let w = row_bytes / 64;
        let rows = row_bytes.is_multiple_of(64) && (1..=MAX_LINES_A_ROW).contains(&w);
        if !(f.avx512bw && f.avx512vbmi && rows && k >= 4 && k * row_bytes <= MAX_GROUP_DATA) {
            return None;
        }
        let sets = plan.parity_sets()?;
        let r = sets.len();
        let (sums, program) = sums(sets, plan.set_program()?);
        let (rows, parity, sums_a_row) = if decoding { DECODE_MAX } else { ENCODE_MAX };
        if k > rows || r > parity || sums > sums_a_row * k {
            return None;
        }
        let decide = match locator.single_error_keys() {
            // (A parity row's single error has the key of its own syndrome row.)
            Some(keys) if (0..r).all(|q| keys[k + q] == 1 << q) => Some(Decide::Singles(
                keys[..k]
                    .iter()
                    .flat_map(|&key| (0..r).map(move |q| ((key >> q) as u64 & 1).wrapping_sub(1)))
                    .collect(),
            )),
            _ if r == 0 || locator.detects_all() => Some(Decide::Detect),
            _ if decoding => return None,
            _ => None,
        };
        Some(Lines {
            // (One register: pieces of any length of at least 128 bytes give the same steps.)
            fold: RowFold::new(Folding::Wide(fold), 128),
            w,
            sets: sets.to_vec(),
            program,
            decide,
        })
    }
}

/// The loads and stores that summing a line of every parity row takes: from the parity sets
/// (a load a data line of each set), or through the program (a load a data line of each
/// accumulator's set, a store of each accumulator, two loads and a store a step, a load of
/// each parity row), and the program where it takes fewer. (alien:3x9: 138 against 84;
/// alien:3x3: 12 against 30.)
fn sums(sets: &[u64], p: &SetProgram) -> (usize, Option<SetProgram>) {
    let ones = |m: &[u64]| m.iter().map(|m| m.count_ones() as usize).sum::<usize>();
    let direct = ones(sets);
    let programmed = ones(&p.feeds) + p.feeds.len() + 3 * p.program.len() + p.outs.len();
    if programmed < direct {
        (programmed, Some(p.clone()))
    } else {
        (direct, None)
    }
}

/// A CRC-32C chain over whole lines, carried from one call of the pass to the next.
struct LineCrc {
    /// The CRC-32C before the chain's lines.
    start: u32,
    /// The register after the lines folded so far.
    reg: __m512i,
    /// Whether any line has been folded.
    any: bool,
}

impl LineCrc {
    fn new(start: u32) -> LineCrc {
        LineCrc {
            start,
            // SAFETY: an all-zero `__m512i` is a valid value.
            reg: unsafe { std::mem::zeroed() },
            any: false,
        }
    }

    /// The CRC-32C after the lines folded.
    fn finish(&self, lines: &Lines) -> u32 {
        if !self.any {
            return self.start;
        }
        // SAFETY: `lines` shows that the CPU has the features.
        unsafe { lines.fold.finish(&[self.reg], &[]) }
    }
}

/// The data lines of the group in hand (line `x` of data row `i` at `i w + x`, rows of `w`
/// lines) and, decoding, its syndrome lines (line `x` of syndrome row `q` at `q w + x`),
/// each at a multiple of 64, so that each store of one and the loads of it that follow stay
/// within one cache line (not measured apart from the rest of the change).
struct LineScratch {
    lines: Vec<__m512i>,
    /// Decoding, the data lines of the group before, corrected, given to the output while
    /// the next group's are loaded ([`load_put`]).
    prev: Vec<__m512i>,
    syn: Vec<__m512i>,
    /// The program's accumulators' lines, where the pass has one (line `x` of accumulator
    /// `a` at `a w + x`).
    acc: Vec<__m512i>,
}

impl LineScratch {
    /// The sum of line `x` of the data rows of the set `m` (rows of `w` lines).
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 F; the scratch has a row of `w` lines for every bit of `m`.
    #[inline(always)]
    unsafe fn sum(&self, w: usize, x: usize, mut m: u64) -> __m512i {
        // SAFETY: the caller's contract.
        unsafe {
            let mut a = _mm512_setzero_si512();
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                a = _mm512_xor_si512(a, *self.lines.get_unchecked(i * w + x));
            }
            a
        }
    }

    /// Runs the program `p` over the group's data lines (rows of `w` lines) into `acc`:
    /// line `x` of parity row `q` is then `acc[p.outs[q] w + x]`.
    ///
    /// # Safety
    ///
    /// As for [`LineScratch::sum`], for every set of `p`; `acc` has `w` lines for each of
    /// `p`'s accumulators.
    #[inline(always)]
    unsafe fn run(&mut self, w: usize, p: &SetProgram) {
        // SAFETY: the caller's contract; the steps name accumulators of `p`.
        unsafe {
            for (a, &m) in p.feeds.iter().enumerate() {
                for x in 0..w {
                    let v = self.sum(w, x, m);
                    *self.acc.get_unchecked_mut(a * w + x) = v;
                }
            }
            for &(dst, src, copy) in &p.program {
                for x in 0..w {
                    let v = *self.acc.get_unchecked(src * w + x);
                    let d = self.acc.get_unchecked_mut(dst * w + x);
                    *d = if copy { v } else { _mm512_xor_si512(*d, v) };
                }
            }
        }
    }
}

impl Lines {
    /// Whether the pass sums the parity lines through the plan's program.
    #[cfg(test)]
    pub(super) fn has_program(&self) -> bool {
        self.program.is_some()
    }

    /// How the decoder decides lanes, when the codec decodes.
    pub(super) fn decide(&self) -> Option<&Decide> {
        self.decide.as_ref()
    }
}

impl Codec {
    /// Encodes the first `3 * third` groups of a chunk's payload `data` into `out`, each
    /// third in one pass, and returns the three CRC chains. The stores are fenced.
    pub(super) fn encode_line_thirds(
        &self,
        lines: &Lines,
        data: &[u8],
        third: usize,
        out: &mut [u8],
    ) -> [u32; 3] {
        let l = &self.layout;
        let (gd, gb) = (l.group_data, l.group_bytes);
        let mut s = self.line_scratch();
        let c = std::array::from_fn(|q| {
            let (a, b) = (q * third, (q + 1) * third);
            let (g, o) = (&data[a * gd..b * gd], &mut out[a * gb..b * gb]);
            let mut chain = LineCrc::new(0);
            // SAFETY: `lines` shows that the CPU has the features; `g` and `o` are whole
            // groups, `s` has a line for every data row's line.
            unsafe {
                if lines.w == 1 {
                    encode_pass::<true>(lines, l.k, g, o, &mut chain, &mut s)
                } else {
                    encode_pass::<false>(lines, l.k, g, o, &mut chain, &mut s)
                }
            };
            chain.finish(lines)
        });
        nt::fence();
        c
    }

    /// Decodes the first `3 * third` groups of a chunk `enc` into `out`, each third in one
    /// pass, correcting them, and returns the three CRC chains. The stores are fenced.
    pub(super) fn decode_line_thirds(
        &self,
        lines: &Lines,
        decide: &Decide,
        enc: &[u8],
        third: usize,
        out: &mut [u8],
        stats: &mut ChunkStats,
    ) -> [u32; 3] {
        let l = &self.layout;
        let (gd, gb) = (l.group_data, l.group_bytes);
        stats.codewords += (3 * third * l.interleave) as u64;
        let mut s = self.line_scratch();
        let pass = if far(gb) {
            decode_pass::<true>
        } else {
            decode_pass::<false>
        };
        let c = std::array::from_fn(|q| {
            let (a, b) = (q * third, (q + 1) * third);
            let (e, o) = (&enc[a * gb..b * gb], &mut out[a * gd..b * gd]);
            let mut chain = LineCrc::new(0);
            // SAFETY: `lines` shows that the CPU has the features; `e` and `o` are whole
            // groups, `s` has a line for every data row's line and syndrome row's line.
            unsafe { pass(lines, decide, l.k, e, o, &mut chain, &mut s, a, stats) };
            chain.finish(lines)
        });
        nt::fence();
        c
    }

    /// How the line pass decides lanes, where the codec has it (the tests).
    #[cfg(test)]
    pub(super) fn line_decisions(&self) -> Option<&'static str> {
        self.lines.as_ref()?.decide.as_ref().map(|d| match d {
            Decide::Singles(_) => "singles",
            Decide::Detect => "detect",
        })
    }

    /// Scratch for the line pass.
    fn line_scratch(&self) -> LineScratch {
        let w = self.layout.row_bytes / 64;
        // SAFETY: an all-zero `__m512i` is a valid value.
        let zero: __m512i = unsafe { std::mem::zeroed() };
        let accs = self.lines.as_ref().and_then(|l| l.program.as_ref());
        LineScratch {
            lines: vec![zero; self.layout.k * w],
            prev: vec![zero; self.layout.k * w],
            syn: vec![zero; self.r * w],
            acc: vec![zero; accs.map_or(0, |p| p.feeds.len() * w)],
        }
    }
}

/// Where the pass writes rows of 64 bytes one after the other from `dst`: the row before
/// the one in hand (`prev`) is written, whole lines at multiples of 64, once the next one
/// is known.
struct Out {
    dst: *mut u8,
    /// `dst`'s bytes to the next multiple of 64.
    h: usize,
    /// Picks bytes `h..64` of one row and `0..h` of the next (`vpermt2b`).
    shift: __m512i,
    prev: __m512i,
    /// Rows given so far.
    rows: usize,
}

impl Out {
    /// Rows to be written from `dst`.
    #[target_feature(enable = "avx512f")]
    fn new(dst: *mut u8) -> Out {
        let h = (dst as usize).wrapping_neg() & 63;
        let idx: [u8; 64] = std::array::from_fn(|j| (j + h) as u8);
        Out {
            dst,
            h,
            // SAFETY: a load of 64 bytes.
            shift: unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) },
            prev: _mm512_setzero_si512(),
            rows: 0,
        }
    }

    /// Gives the next row.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 F, BW and VBMI; `dst` holds a row for every row given.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    unsafe fn put(&mut self, v: __m512i) {
        // SAFETY: the row before `v` lies inside `dst` (the caller's contract), and so do
        // its last `64 - h` bytes and `v`'s first `h` (the line at `dst + h + 64 (rows -
        // 1)`, a multiple of 64); the first row's first `h` bytes lie at `dst`.
        unsafe {
            if self.rows == 0 {
                let head = !(u64::MAX << self.h);
                _mm512_mask_storeu_epi8(self.dst.cast(), head, v);
            } else {
                let line = _mm512_permutex2var_epi8(self.prev, self.shift, v);
                let at = self.dst.add(self.h + 64 * (self.rows - 1));
                _mm512_stream_si512(at.cast(), line);
            }
        }
        self.prev = v;
        self.rows += 1;
    }

    /// Writes the last row's last `64 - h` bytes.
    ///
    /// # Safety
    ///
    /// As for [`Out::put`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    unsafe fn end(&mut self) {
        if self.rows == 0 {
            return;
        }
        // SAFETY: the last row's bytes `h..64` at `dst + h + 64 (rows - 1)`.
        unsafe {
            let line = _mm512_permutex2var_epi8(self.prev, self.shift, self.prev);
            let at = self.dst.add(self.h + 64 * (self.rows - 1));
            let tail = u64::MAX >> self.h;
            _mm512_mask_storeu_epi8(at.cast(), tail, line);
        }
    }
}

/// Loads a group's `n` data lines (its data rows' lines, one after the other) from `src`
/// into `s` ([`LineScratch`]), asking for a line further on with each ([`ask`]); with
/// `PUT`, gives each to `out` and folds it into `chain` as well.
///
/// # Safety
///
/// The CPU has AVX-512 F, BW and VBMI, VPCLMULQDQ; `src` holds `n` lines; `s` has as many;
/// as for [`Out::put`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq")]
#[inline]
unsafe fn load_lines<const PUT: bool, const FAR: bool>(
    lines: &Lines,
    n: usize,
    src: *const u8,
    s: &mut [__m512i],
    out: &mut Out,
    chain: &mut LineCrc,
) {
    // SAFETY: the caller's contract; a prefetch never faults.
    unsafe {
        for j in 0..n {
            let at = src.add(64 * j);
            ask::<FAR>(at);
            let v = _mm512_loadu_si512(at.cast());
            if PUT {
                *s.get_unchecked_mut(j) = v;
                put_line(lines, v, out, chain);
            } else {
                // (A volatile store: else, with nothing else done with the lines, the loop
                // became a call to `memcpy` for each group; in the throwaway program that
                // call took decoding from 0.84-0.87x memcpy to 0.75-0.76.)
                std::ptr::write_volatile(s.get_unchecked_mut(j), v);
            }
        }
    }
}

/// Loads a group's `n` data lines from `src` into `s.lines` as [`load_lines`] does, and
/// gives the group before's (`s.prev`) to `out` on the way, folding them into `chain`: the
/// loads from memory and the streamed stores in one loop. (As a third mode of
/// [`load_lines`], the same loop left alien:3x9 at `D = 512` 0.07-0.13x memcpy slower, encode
/// and decode alike, in three alternated runs, and alien:9x3 faster: the code's layout, not
/// the loop; kept apart.)
///
/// # Safety
///
/// As for [`load_lines`]; `s.prev` has `n` lines.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq")]
#[inline]
unsafe fn load_put<const FAR: bool>(
    lines: &Lines,
    n: usize,
    src: *const u8,
    s: &mut LineScratch,
    out: &mut Out,
    chain: &mut LineCrc,
) {
    // SAFETY: the caller's contract; a prefetch never faults.
    unsafe {
        for j in 0..n {
            let at = src.add(64 * j);
            ask::<FAR>(at);
            *s.lines.get_unchecked_mut(j) = _mm512_loadu_si512(at.cast());
            put_line(lines, *s.prev.get_unchecked(j), out, chain);
        }
    }
}

/// Gives a data line `v` to `out` and folds it into `chain`.
///
/// # Safety
///
/// As for [`load_lines`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq")]
#[inline]
unsafe fn put_line(lines: &Lines, v: __m512i, out: &mut Out, chain: &mut LineCrc) {
    // SAFETY: the caller's contract.
    unsafe { out.put(v) };
    chain.reg = if chain.any {
        lines.fold.step(chain.reg, v)
    } else {
        chain.any = true;
        RowFold::first(chain.start, v)
    };
}

/// Encodes the whole groups of `data` into `out`.
///
/// # Safety
///
/// The CPU has AVX-512 F, BW and VBMI, VPCLMULQDQ and SSE4.2; `data` holds whole groups'
/// payload of `k` rows of `lines.w` lines each and `out` as many groups of
/// `k + lines.sets.len()` rows; `s` has a line for each data row's line.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq,sse4.2")]
unsafe fn encode_pass<const ONE: bool>(
    lines: &Lines,
    k: usize,
    data: &[u8],
    out: &mut [u8],
    chain: &mut LineCrc,
    s: &mut LineScratch,
) {
    // (Rows of one line known as such: else encoding at `D = 512` ran 0.9x as fast.)
    let w = if ONE { 1 } else { lines.w };
    let mut o = Out::new(out.as_mut_ptr());
    // SAFETY: the caller's contract; the sets have no bit past the `k` data rows.
    unsafe {
        for g in data.chunks_exact(64 * k * w) {
            load_lines::<true, false>(lines, k * w, g.as_ptr(), &mut s.lines, &mut o, chain);
            if let Some(p) = &lines.program {
                s.run(w, p);
                for &a in &p.outs {
                    for x in 0..w {
                        o.put(*s.acc.get_unchecked(a * w + x));
                    }
                }
                continue;
            }
            for &m in &lines.sets {
                for x in 0..w {
                    o.put(s.sum(w, x, m));
                }
            }
        }
        o.end();
    }
}

/// Decodes the whole groups of `enc` into `out` (their payload), the first numbered
/// `first` in its chunk, correcting them: the lanes with a nonzero syndrome decided as
/// `decide` says, the bits corrected and the lanes detected counted in `stats`. A group's
/// data lines are written while the next group's are loaded ([`load_put`]), the last
/// group's at the end; lines are asked for as [`ask`] does with `FAR` (groups of
/// [`FAR_FROM`] bytes and more: [`far`]).
///
/// # Safety
///
/// As for [`encode_pass`], `enc` holding whole groups and `out` their payload.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,vpclmulqdq,sse4.2")]
#[allow(clippy::too_many_arguments)]
unsafe fn decode_pass<const FAR: bool>(
    lines: &Lines,
    decide: &Decide,
    k: usize,
    enc: &[u8],
    out: &mut [u8],
    chain: &mut LineCrc,
    s: &mut LineScratch,
    first: usize,
    stats: &mut ChunkStats,
) {
    let (r, w) = (lines.sets.len(), lines.w);
    let mut o = Out::new(out.as_mut_ptr());
    // SAFETY: the caller's contract; the sets have no bit past the `k` data rows; the
    // scratch has `k w` data lines and `r w` syndrome lines.
    unsafe {
        for (g, genc) in enc.chunks_exact(64 * (k + r) * w).enumerate() {
            let p = genc.as_ptr();
            // The group before's lines, corrected, written as this one's are loaded (each
            // group's after its syndrome, the loads and the streamed stores apart, decoded
            // 0.01-0.12x memcpy slower at `D = 512` and 4096: docs/benchmarks.md, "The
            // decoder's line pass writes a group as it loads the next").
            if g == 0 {
                load_lines::<false, FAR>(lines, k * w, p, &mut s.lines, &mut o, chain);
            } else {
                load_put::<FAR>(lines, k * w, p, s, &mut o, chain);
            }
            let mut any = _mm512_setzero_si512();
            if let Some(prog) = &lines.program {
                s.run(w, prog);
            }
            for (q, &m) in lines.sets.iter().enumerate() {
                for x in 0..w {
                    let at = p.add(64 * ((k + q) * w + x));
                    ask::<FAR>(at);
                    let e = match &lines.program {
                        Some(prog) => *s.acc.get_unchecked(prog.outs[q] * w + x),
                        None => s.sum(w, x, m),
                    };
                    let e = _mm512_xor_si512(e, _mm512_loadu_si512(at.cast()));
                    *s.syn.get_unchecked_mut(q * w + x) = e;
                    any = _mm512_or_si512(any, e);
                }
            }
            if _mm512_test_epi64_mask(any, any) != 0 {
                // (Out of line: in it, the correction's code made the clean pass 0.8x as
                // fast, alien:3x3 at `D = 4096` 0.56-0.58 -> 0.69-0.71x memcpy.)
                correct(decide, r, w, s, first + g, stats);
            }
            std::mem::swap(&mut s.lines, &mut s.prev);
        }
        if !enc.is_empty() {
            for &v in &s.prev[..k * w] {
                put_line(lines, v, &mut o, chain);
            }
        }
        o.end();
    }
}

/// Corrects the data lines of a group in `s` (`r` syndrome rows, rows of `w` lines) line
/// by line where its syndrome is not zero, as `decide` says; counts the bits corrected and
/// the lanes detected in `stats`, and reports the latter as bad lanes of group `group`.
#[target_feature(enable = "avx512f")]
#[cold]
#[inline(never)]
fn correct(
    decide: &Decide,
    r: usize,
    w: usize,
    s: &mut LineScratch,
    group: usize,
    stats: &mut ChunkStats,
) {
    let mut e = [_mm512_setzero_si512(); DECODE_MAX.1];
    let e = &mut e[..r];
    for x in 0..w {
        for (q, e) in e.iter_mut().enumerate() {
            *e = s.syn[q * w + x];
        }
        let e = &e[..];
        let any = e
            .iter()
            .fold(_mm512_setzero_si512(), |a, &e| _mm512_or_si512(a, e));
        if _mm512_test_epi64_mask(any, any) == 0 {
            continue;
        }
        let detected = match &decide {
            Decide::Singles(clear) => {
                let col = s.lines[x..].iter_mut().step_by(w);
                singles(clear, e, any, col, stats)
            }
            Decide::Detect => any,
        };
        report(detected, group, x, w, stats);
    }
}

/// Corrects the data lines `s` of a group whose syndrome lines are `e` (their OR `any`) as a
/// decoder of exactly the single errors does (`clear`, [`Decide::Singles`]), counts the bits
/// corrected in `stats`, and returns the lanes detected.
#[target_feature(enable = "avx512f")]
#[inline]
fn singles<'a>(
    clear: &[u64],
    e: &[__m512i],
    any: __m512i,
    s: impl Iterator<Item = &'a mut __m512i>,
    stats: &mut ChunkStats,
) -> __m512i {
    let ones = _mm512_set1_epi64(-1);
    let mut fixed = _mm512_setzero_si512();
    for (clear, b) in clear.chunks_exact(e.len()).zip(s) {
        // The lanes whose syndrome is the row's key: each syndrome line where its bit is set,
        // the complement of the others (`m & (e ^ c)` with `c` all ones where it is clear).
        let mut m = ones;
        for (&e, &c) in e.iter().zip(clear) {
            m = _mm512_ternarylogic_epi64::<0x60>(m, e, _mm512_set1_epi64(c as i64));
        }
        *b = _mm512_xor_si512(*b, m);
        fixed = _mm512_or_si512(fixed, m);
    }
    // A parity row's single error: exactly one syndrome line set.
    let (mut one, mut two) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    for &e in e {
        two = _mm512_ternarylogic_epi64::<0xF8>(two, one, e); // two | (one & e)
        one = _mm512_or_si512(one, e);
    }
    fixed = _mm512_ternarylogic_epi64::<0xF4>(fixed, one, two); // fixed | (one & !two)
    stats.corrected_bits += u64::from(lanes(fixed));
    _mm512_andnot_si512(fixed, any)
}

/// The lanes of `v` (set bits).
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes(v: __m512i) -> u32 {
    let mut w = [0u64; 8];
    // SAFETY: a store of 64 bytes into `w`.
    unsafe { _mm512_storeu_si512(w.as_mut_ptr().cast(), v) };
    w.iter().map(|x| x.count_ones()).sum()
}

/// Counts the lanes of `unc` (the lanes of line `x` of rows of `w` lines) of group `group`
/// as detected in `stats`, as bad lanes.
#[target_feature(enable = "avx512f")]
#[inline]
fn report(unc: __m512i, group: usize, x: usize, w: usize, stats: &mut ChunkStats) {
    if _mm512_test_epi64_mask(unc, unc) == 0 {
        return;
    }
    let n = lanes(unc);
    stats.uncorrectable += u64::from(n);
    let mut words = [0u64; 8];
    // SAFETY: a store of 64 bytes into `words`.
    unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), unc) };
    let mask = stats.lane_mask(group, 8 * w);
    for (m, u) in mask[8 * x..][..8].iter_mut().zip(words) {
        *m |= u;
    }
}
