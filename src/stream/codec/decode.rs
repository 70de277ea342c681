//! Decoding: syndromes through the kernels, the lanes with a non-zero syndrome corrected by
//! the locator, and the deep path that streams a one-group chunk out and corrects it after.

use super::crcs::Sums;
use super::{Codec, DIRTY, Scratch, thirds};
use crate::slice::kernel::{self, Fused64, V};
use crate::slice::locate::{Key, gather_key};
use crate::slice::prefetch;
use crate::stream::crc::{self, Mender};
use crate::stream::format::Blocks;
use crate::stream::nt;

/// What decoding a chunk found.
#[derive(Debug, Default)]
pub struct ChunkStats {
    /// Codewords (lanes) decoded.
    pub codewords: u64,
    /// Bits flipped back.
    pub corrected_bits: u64,
    /// Codewords the decoder could not correct.
    pub uncorrectable: u64,
    /// Per group with uncorrectable lanes: the group and its lane mask (one bit per lane).
    pub bad_lanes: Vec<(usize, Vec<u64>)>,
}

impl ChunkStats {
    /// The lane mask of group `group` (`words` words) in `bad_lanes`, the last one where the
    /// group is the last reported, else a new one of zeros (groups are reported in order).
    pub(super) fn lane_mask(&mut self, group: usize, words: usize) -> &mut [u64] {
        if self.bad_lanes.last().is_none_or(|(g, _)| *g != group) {
            self.bad_lanes.push((group, vec![0; words]));
        }
        &mut self.bad_lanes.last_mut().expect("a mask for the group").1
    }
}

/// Where the decoder's corrections go: bit `mask` of byte `at` of a group's data rows is to
/// be flipped.
pub(super) trait Flips {
    fn flip(&mut self, at: usize, mask: u8);
}

/// Corrections made in place in a group's payload.
impl Flips for [u8] {
    fn flip(&mut self, at: usize, mask: u8) {
        self[at] ^= mask;
    }
}

/// Corrections collected (byte, mask), to be applied later.
impl Flips for Vec<(usize, u8)> {
    fn flip(&mut self, at: usize, mask: u8) {
        self.push((at, mask));
    }
}

/// Corrections made in place in a group's payload, with the change they make to the
/// CRC-32C of its bytes (for the fused kernels, which took the CRC of the bytes received).
struct Mending<'a> {
    data: &'a mut [u8],
    mender: &'a Mender,
    change: u32,
}

impl Flips for Mending<'_> {
    fn flip(&mut self, at: usize, mask: u8) {
        self.data[at] ^= mask;
        self.change ^= self.mender.change(0, self.data.len(), &[(at, mask)]);
    }
}

impl Codec {
    /// Decodes one group `genc` (group number `group` of its chunk) into its payload `o`,
    /// correcting it there.
    #[inline]
    pub(super) fn decode_group<const B: usize>(
        &self,
        genc: &[u8],
        o: &mut [u8],
        group: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) {
        let l = &self.layout;
        let (gd, rb) = (l.group_data, l.row_bytes);
        stats.codewords += l.interleave as u64;
        // (The fast path is for `D = 64`, where no group is prefetched: `prefetch::group`.)
        if B == 1
            && let Some(fast) = &self.fast
            && let Some(clean) =
                self.kernel
                    .clean_run64(fast, genc, o, gd, genc.len(), &mut s.words)
        {
            if clean == 0 {
                self.fix_words(genc, o, group, s, stats);
            }
            return;
        }
        prefetch::group(genc.as_ptr(), genc.len(), o.as_ptr(), o.len(), rb);
        let (edata, epar) = genc.split_at(gd);
        if rb != 8 * B {
            o.copy_from_slice(edata);
            return self.fix_rows(genc, o, group, s, stats, false);
        }
        // One lane block per row: the kernel copies the data rows as it reads them.
        self.kernel
            .parity_copy::<B, true>(self.avx2, edata, o, &mut s.par, &mut s.kernel);
        let nz = kernel::add_received(&mut s.par, epar, rb, 0);
        if !nz.is_zero() {
            self.fix_block(genc, o, 0, &s.par, nz, group, stats);
        }
    }

    /// The syndrome of a group `genc` whose rows span several lane blocks: its parity rows
    /// from the received data rows, read whole ([`Plan`](crate::slice::kernel::Plan)), plus
    /// the received parity rows, row by row; then the lanes of each block with a non-zero
    /// syndrome corrected through `out`, as [`Codec::fix_block`] does. Every row is read in
    /// order (a block of every row at the row stride would fall in one L1 set at 4 KiB rows).
    /// `fed`: the data rows were fed to the plan already, a band at a time (`bands`), and
    /// are not read here.
    fn fix_rows<const B: usize>(
        &self,
        genc: &[u8],
        out: &mut (impl Flips + ?Sized),
        group: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
        fed: bool,
    ) {
        let (gd, rb) = (self.layout.group_data, self.layout.row_bytes);
        let (edata, epar) = genc.split_at(gd);
        s.rows.resize(epar.len(), 0);
        // The syndrome rows, and the OR of them word by word.
        let any = &mut s.any;
        any.clear();
        any.resize(rb / 8, 0);
        let (rows, acc) = (&mut s.rows, &mut s.acc);
        if fed {
            self.plan
                .syndrome_of_fed(self.avx2, epar, rb, rows, any, acc);
        } else {
            self.plan
                .syndrome(self.avx2, [edata, &[]], epar, rb, rows, any, acc);
        }
        self.fix_syndrome_rows(genc, out, group, s, stats);
    }

    /// The lanes of a group `genc` corrected through `out` from its syndrome rows `s.rows`
    /// (rows of `row_bytes`) and the OR of them word by word, `s.any`, as [`Codec::fix_block`]
    /// does (the second half of `Codec::fix_rows`; the column pass makes the rows itself).
    pub(super) fn fix_syndrome_rows<const B: usize>(
        &self,
        genc: &[u8],
        out: &mut (impl Flips + ?Sized),
        group: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) {
        let rb = self.layout.row_bytes;
        // (None is read when the locator takes no key: every nonzero syndrome is detected.)
        let rows = if self.locator.wants_key() {
            s.lines.len()
        } else {
            0
        };
        if rows <= IN_PLACE_ROWS {
            // A lane's word of each syndrome row read in place, for the words whose OR is
            // not zero, found 64 at a time without a branch on each.
            let words = rb / 8;
            let mut col = [0u64; IN_PLACE_ROWS];
            for (c, any) in s.any.chunks(64).enumerate() {
                let mut nonzero = [0u8; 64];
                let mut n = 0;
                for (t, &w) in any.iter().enumerate() {
                    nonzero[n] = t as u8;
                    n += usize::from(w != 0);
                }
                for &t in &nonzero[..n] {
                    let t = 64 * c + usize::from(t);
                    for (q, w) in col[..rows].iter_mut().enumerate() {
                        let at = 8 * (q * words + t);
                        *w = u64::from_ne_bytes(s.rows[at..at + 8].try_into().expect("a word"));
                    }
                    let syn = |q: usize, _: usize| col[q];
                    self.fix_lanes(genc, out, t, &[s.any[t]], rows, syn, group, stats);
                }
            }
            return;
        }
        // More rows: eight words (a line) of every syndrome row at a time, copied together
        // where any is not zero. The key of a lane takes a bit of each row, and at rows of 4
        // KiB (`D = 32768`) every row's word of a lane falls in one L1 set: read in place,
        // alien:17x17's decode at BER 1e-4 ran 0.83-0.84x as fast (0.89-0.94x with the
        // words found as above).
        let lines = &mut s.lines[..rows];
        for (i, nz) in s.any.chunks(8).enumerate() {
            if nz.iter().all(|&w| w == 0) {
                continue;
            }
            for (q, line) in lines.iter_mut().enumerate() {
                let bytes = &s.rows[q * rb + 64 * i..][..8 * nz.len()];
                for (w, b) in line.iter_mut().zip(bytes.as_chunks::<8>().0) {
                    *w = u64::from_ne_bytes(*b);
                }
            }
            let syn = |q: usize, t: usize| lines[q][t];
            self.fix_lanes(genc, out, 8 * i, nz, rows, syn, group, stats);
        }
    }

    /// Decodes whole groups (`enc` is a multiple of the group size) into their payload in
    /// `out`, correcting it there. Groups are numbered from `stats.codewords / D`.
    pub fn decode_groups(&self, enc: &[u8], out: &mut [u8], stats: &mut ChunkStats) {
        by_width!(self.decode_groups_b(enc, out, stats))
    }

    pub(super) fn decode_groups_b<const B: usize>(
        &self,
        enc: &[u8],
        out: &mut [u8],
        stats: &mut ChunkStats,
    ) {
        let l = &self.layout;
        let (gd, gb) = (l.group_data, l.group_bytes);
        debug_assert_eq!(enc.len() / gb * gd, out.len());
        let mut s = self.scratch::<B>();
        let first = stats.codewords as usize / l.interleave;
        self.decode_run(enc, out, first, &mut s, stats);
    }

    /// Decodes consecutive whole groups, the first numbered `first`: the clean ones through
    /// the single-word fast path's run
    /// ([`Kernel::clean_run64`](crate::slice::kernel::Kernel::clean_run64)) where the code has
    /// one, else through [`Kernel::clean_run`](crate::slice::kernel::Kernel::clean_run) when
    /// their rows are one lane block, else group by group.
    #[inline]
    pub(super) fn decode_run<const B: usize>(
        &self,
        enc: &[u8],
        out: &mut [u8],
        first: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) {
        let l = &self.layout;
        let (gd, gb) = (l.group_data, l.group_bytes);
        let groups = enc.len() / gb;
        let fast = self.fast.as_ref().filter(|_| B == 1);
        if fast.is_none() && l.row_bytes != 8 * B {
            let runs = enc.chunks_exact(gb).zip(out.chunks_exact_mut(gd));
            for (g, (genc, o)) in runs.enumerate() {
                self.decode_group(genc, o, first + g, s, stats);
            }
            return;
        }
        let Some(fast) = fast else {
            return self.decode_kept(enc, out, first, s, stats);
        };
        let mut at = 0;
        while at < groups {
            let (e, o) = (&enc[at * gb..], &mut out[at * gd..]);
            let words = &mut s.words;
            let clean = self.kernel.clean_run64(fast, e, o, gd, gb, words);
            let clean = clean.expect("a fast path");
            stats.codewords += (clean * l.interleave) as u64;
            at += clean;
            if at == groups {
                break;
            }
            // Group `at`: its data rows are copied and its syndrome is in `s.words`.
            stats.codewords += l.interleave as u64;
            let genc = &enc[at * gb..(at + 1) * gb];
            let o = &mut out[at * gd..(at + 1) * gd];
            self.fix_words(genc, o, first + at, s, stats);
            at += 1;
        }
    }

    /// [`Codec::decode_run`] through the clean-run kernel ([`kernel::Kernel::clean_run`],
    /// compiled for AVX2 at every width: with one word per row the portable build was once
    /// the faster (alien:5x5 at `D = 64`); no longer (clean decode 0.26 -> 0.32x memcpy,
    /// alien:17x17 0.46 -> 0.54x; docs/benchmarks.md, "Wide grids at `D = 64`")). The groups
    /// with errors are kept, up to [`DIRTY`] at a time (as many syndromes as fit in 4 KiB),
    /// and corrected after each run.
    fn decode_kept<const B: usize>(
        &self,
        enc: &[u8],
        out: &mut [u8],
        first: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) {
        let l = &self.layout;
        let (gd, gb, r) = (l.group_data, l.group_bytes, self.r);
        let groups = enc.len() / gb;
        let keep = (4096 / (r.max(1) * 8 * B)).clamp(1, DIRTY);
        let mut syn = std::mem::take(&mut s.dirty);
        syn.resize(keep * r, V::zero());
        let mut dirty = [0usize; DIRTY];
        let dirty = &mut dirty[..keep];
        let mut at = 0;
        while at < groups {
            let (e, o) = (&enc[at * gb..], &mut out[at * gd..]);
            let scratch = &mut s.kernel;
            let (done, kept) = self
                .kernel
                .clean_run::<B>(self.avx2, e, o, gd, gb, &mut syn, dirty, scratch);
            stats.codewords += (done * l.interleave) as u64;
            for (j, &g) in dirty[..kept].iter().enumerate() {
                let g = at + g;
                let syn = &syn[j * r..(j + 1) * r];
                let nz = syn.iter().fold(V::<B>::zero(), |a, &x| a | x);
                let genc = &enc[g * gb..(g + 1) * gb];
                let o = &mut out[g * gd..(g + 1) * gd];
                self.fix_block(genc, o, 0, syn, nz, first + g, stats);
            }
            at += done;
        }
        s.dirty = syn;
    }

    /// Corrects the lanes of group `genc` (number `group`) whose syndrome, from the
    /// single-word fast path, is not zero in `s.words`, through `out`.
    fn fix_words<const B: usize>(
        &self,
        genc: &[u8],
        out: &mut (impl Flips + ?Sized),
        group: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) {
        let mut nz = V::<B>::zero();
        for (sy, &w) in s.par.iter_mut().zip(&s.words) {
            sy.0[0] = w;
            nz.0[0] |= w;
        }
        self.fix_block(genc, out, 0, &s.par, nz, group, stats);
    }

    /// Corrects the lanes of the lane block at byte `off` of each row whose syndrome (`syn`,
    /// OR `nz`) is not zero, through `out`; counts them in `stats`, and the lanes the
    /// decoder gives up on as bad lanes of group `group`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fix_block<const B: usize>(
        &self,
        genc: &[u8],
        out: &mut (impl Flips + ?Sized),
        off: usize,
        syn: &[V<B>],
        nz: V<B>,
        group: usize,
        stats: &mut ChunkStats,
    ) {
        let rows = syn.len();
        let syn = |q: usize, t: usize| syn[q].0[t];
        self.fix_lanes(genc, out, off / 8, &nz.0, rows, syn, group, stats);
    }

    /// Corrects the lanes of words `word0..` of each row whose syndrome is not zero (`nz`:
    /// the OR of the `rows` syndrome rows, one word for each word from `word0`; `syn(q, t)`:
    /// word `t` from `word0` of syndrome row `q`), through `out`; counts them in `stats`, and
    /// the lanes the decoder gives up on as bad lanes of group `group`.
    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn fix_lanes(
        &self,
        genc: &[u8],
        out: &mut (impl Flips + ?Sized),
        word0: usize,
        nz: &[u64],
        rows: usize,
        syn: impl Fn(usize, usize) -> u64,
        group: usize,
        stats: &mut ChunkStats,
    ) {
        let wants_key = self.locator.wants_key();
        for (t, &w) in nz.iter().enumerate() {
            let mut word = w;
            while word != 0 {
                let bit = word.trailing_zeros();
                word &= word - 1;
                let lane = (word0 + t) * 64 + bit as usize;
                let key = if wants_key {
                    gather_key((0..rows).map(|q| syn(q, t)), bit)
                } else {
                    0
                };
                if !self.fix_lane(genc, out, lane, key, stats) {
                    stats.uncorrectable += 1;
                    let mask = stats.lane_mask(group, self.layout.interleave / 64);
                    mask[lane / 64] |= 1 << (lane % 64);
                }
            }
        }
    }

    /// Corrects one lane with a nonzero syndrome; false when the decoder gives up.
    pub(super) fn fix_lane(
        &self,
        genc: &[u8],
        out: &mut (impl Flips + ?Sized),
        lane: usize,
        key: Key,
        stats: &mut ChunkStats,
    ) -> bool {
        let (rb, k) = (self.layout.row_bytes, self.layout.k);
        let (byte, mask) = (lane / 8, 1u8 << (lane % 8));
        let fix = self
            .locator
            .fix_lane(key, |row| genc[row * rb + byte] & mask != 0);
        stats.corrected_bits += fix.bits();
        fix.apply(|row| {
            if row < k {
                out.flip(row * rb + byte, mask);
            }
        })
    }

    /// Decodes the groups of one chunk and returns the CRC sums of its first `len` bytes (as
    /// for [`Codec::decode_chunk_parts`]).
    pub(super) fn decode_chunk_b<const B: usize>(
        &self,
        enc: &[u8],
        len: usize,
        out: &mut [u8],
        rest: &mut [u8],
    ) -> (Sums, ChunkStats) {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        let groups = enc.len() / gb;
        let h = out.len() / gd;
        debug_assert_eq!(
            (out.len() + rest.len(), h),
            (groups * gd, (len / gd).min(groups))
        );
        let mut stats = ChunkStats::default();
        let mut s = self.scratch::<B>();
        // As in encoding: the thirds of the chunk's payload groups side by side, three CRC
        // chains over the bytes just decoded.
        let full = (len / gd).min(groups);
        let third = full / 3;
        let wide = self.layout.row_bytes > 8 * B;
        // Whether the thirds' payload was streamed past the caches, group by group in order.
        let mut streamed = third > 0;
        let mut c = if third == 0 {
            [0; 3]
        } else if let Some(c) = self.decode_by_lines(enc, third, out, &mut stats) {
            c
        } else if self.has_columns()
            || self.in_order(wide, false) && (B <= 8 || gd <= ONE_BLOCK_IN_ORDER_MAX)
        {
            self.decode_in_order(enc, third, out, &mut s, &mut stats)
        } else if B == 1
            && let Some(fused) = self.fused
        {
            streamed = false;
            self.decode_fused(fused, enc, third, out, &mut s, &mut stats)
        } else {
            streamed = false;
            self.decode_batched(enc, third, out, &mut s, &mut stats)
        };
        // A chunk of one large group, as the encoder's ([`Codec::deep`]).
        if len < gd && self.deep(groups, wide) {
            let crcs = self.decode_deep(enc, len, &mut rest[..gd], &mut s, &mut stats);
            let crcs = Some(crcs);
            return (Sums { c, third: 0, crcs }, stats);
        }
        // The CRC chain of the rest, unless the verdict joins it from the pieces' CRCs.
        let pieces = self.by_pieces(len, groups * gd);
        let mut flips = Vec::new();
        for j in 3 * third..groups {
            let genc = &enc[j * gb..(j + 1) * gb];
            let o = if j < h {
                &mut out[j * gd..(j + 1) * gd]
            } else {
                &mut rest[(j - h) * gd..(j - h + 1) * gd]
            };
            let payload = len.saturating_sub(j * gd).min(gd);
            if streamed && !pieces {
                let ends = (c[2], &mut flips);
                c[2] = self.decode_after_thirds(genc, o, payload, ends, j, &mut s, &mut stats);
                continue;
            }
            self.decode_group(genc, o, j, &mut s, &mut stats);
            if !pieces {
                c[2] = crc::append(c[2], &o[..payload]);
            }
        }
        let third = third * gd;
        (
            Sums {
                c,
                third,
                crcs: None,
            },
            stats,
        )
    }

    /// The flips that correct group `genc` (number `group`), collected in `flips`: its
    /// syndrome through the whole-row kernel when its rows span several lane blocks
    /// ([`Codec::fix_rows`]), else through the lane-block kernel, from the rows received.
    fn group_flips<const B: usize>(
        &self,
        genc: &[u8],
        flips: &mut Vec<(usize, u8)>,
        group: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) {
        if self.layout.row_bytes > 8 * B {
            return self.fix_rows(genc, flips, group, s, stats, false);
        }
        let (edata, epar) = genc.split_at(self.layout.group_data);
        self.block_parity(edata, s);
        let nz = kernel::add_received(&mut s.par, epar, 8 * B, 0);
        if !nz.is_zero() {
            self.fix_block(genc, flips, 0, &s.par, nz, group, stats);
        }
    }

    /// The first `3 * third` groups of a chunk in order, as the encoder's: each group's data
    /// rows copied with the CRC of its third folded on the way (streamed past the caches,
    /// the next group's rows asked for from memory meanwhile), then its syndrome from the
    /// rows the copy brought into cache; where it finds errors, the lines with flips are
    /// streamed again, flipped, and the CRC mended for them ([`Mender`]), or taken again
    /// from the group's copy past [`MEND_MAX`] flips. (The syndrome first, then the copy
    /// with the flips made on the way, read each group from memory in the syndrome, where
    /// the prefetches of the copy before had not yet arrived: 4-11 % slower clean, 1-15 % at
    /// BER 1e-4; docs/benchmarks.md, "Eight lines a row in flight, ..., the decoder in order
    /// copying first".) Where the codec has the column pass (`Codec::decode_columns`: codes
    /// of few data rows at `D = 4096` to 32768), the copy and the syndrome are one pass over the
    /// group, and a group with errors is corrected from the syndrome rows it wrote.
    /// Returns the three CRC chains.
    fn decode_in_order<const B: usize>(
        &self,
        enc: &[u8],
        third: usize,
        out: &mut [u8],
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) -> [u32; 3] {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        let mut c = [0u32; 3];
        let mut flips: Vec<(usize, u8)> = Vec::new();
        #[cfg(target_arch = "x86_64")]
        let mut columns = self.columns.as_ref().map(|c| (c, self.column_scratch()));
        for j in 0..3 * third {
            let q = j / third;
            let genc = &enc[j * gb..(j + 1) * gb];
            let edata = &genc[..gd];
            let o = &mut out[j * gd..(j + 1) * gd];
            stats.codewords += self.layout.interleave as u64;
            // The next group asked for over this one's copy, so that its rows come from
            // memory while the copy's stores stream out (asked for whole before the
            // syndrome instead, groups of 2-4 KiB decoded 5-17 % slower at `D = 512`, larger
            // ones slower than without).
            let ahead = enc.get((j + 1) * gb..(j + 2) * gb).unwrap_or(&[]);
            let before = c[q];
            flips.clear();
            // The copy and the syndrome in one pass (the column pass), the syndrome rows kept
            // for a group with errors to correct; or the copy, then the syndrome from the
            // rows in cache.
            #[cfg(target_arch = "x86_64")]
            let done = match &mut columns {
                Some((cols, cs)) => {
                    let rb = self.layout.row_bytes;
                    s.rows.resize(self.r * rb, 0);
                    s.any.resize(rb / 8, 0);
                    let syn = (&mut s.rows[..], &mut s.any[..]);
                    let (crc, dirty) = self.decode_columns(cols, before, genc, o, ahead, cs, syn);
                    c[q] = crc;
                    if dirty {
                        self.fix_syndrome_rows(genc, &mut flips, j, s, stats);
                    }
                    true
                }
                None => false,
            };
            #[cfg(not(target_arch = "x86_64"))]
            let done = false;
            if !done {
                c[q] = crc::copy_append(before, o, edata, ahead);
                self.group_flips(genc, &mut flips, j, s, stats);
            }
            if flips.is_empty() {
                continue;
            }
            flips.sort_unstable_by_key(|f| f.0);
            nt::restream_flips(o, edata, &flips);
            c[q] = self.mended(c[q], before, o, 0, &flips);
        }
        nt::fence();
        c
    }

    /// Decodes a group after a chunk's thirds, `genc`, whose first `payload` bytes are
    /// payload, into `o`, as [`Codec::decode_in_order`] decodes theirs: its payload copied
    /// with the CRC `crc` of the last third folded on the way (streamed, the group's parity
    /// rows asked for meanwhile) and the rest of it (zeros and the tail) copied, then its
    /// syndrome from the rows in cache; the lines with flips streamed again, flipped, and
    /// the CRC mended for the payload's. Returns the CRC over the payload; the stores are
    /// fenced. (Through [`Codec::decode_group`], the last of the seven groups of a chunk of
    /// alien:5x9 at `D = 4096` took as long as two or three of the others; decoded so,
    /// clean decode at `D = 4096` gained 0.04-0.13x memcpy for alien:16x3, 17x3 and 5x9
    /// and secded:72; docs/benchmarks.md, "The group after the thirds coded as theirs are".)
    #[allow(clippy::too_many_arguments)]
    fn decode_after_thirds<const B: usize>(
        &self,
        genc: &[u8],
        o: &mut [u8],
        payload: usize,
        (crc, flips): (u32, &mut Vec<(usize, u8)>),
        group: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) -> u32 {
        let gd = self.layout.group_data;
        let (edata, epar) = genc.split_at(gd);
        stats.codewords += self.layout.interleave as u64;
        let (head, end) = o.split_at_mut(payload);
        let mut c = crc::copy_append(crc, head, &edata[..payload], epar);
        end.copy_from_slice(&edata[payload..]);
        flips.clear();
        self.group_flips(genc, flips, group, s, stats);
        if !flips.is_empty() {
            flips.sort_unstable_by_key(|f| f.0);
            let k = flips.partition_point(|f| f.0 < payload);
            nt::restream_flips(head, &edata[..payload], &flips[..k]);
            c = self.mended(c, crc, head, 0, &flips[..k]);
            for &(at, mask) in &flips[k..] {
                o[at] ^= mask;
            }
        }
        nt::fence();
        c
    }

    /// The first `3 * third` groups of a chunk through the fused single-word kernels: one
    /// group from each third at a time, the CRC taken by the kernel over the received data
    /// rows, then mended for any group the decoder fixed. Returns the three CRC chains.
    fn decode_fused<const B: usize>(
        &self,
        fused: Fused64,
        enc: &[u8],
        third: usize,
        out: &mut [u8],
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) -> [u32; 3] {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        let cut = self.cuts();
        let mut par = [[0u64; 16]; 3];
        let mut c = [0u32; 3];
        for i in 0..third {
            let at = [i, i + third, i + 2 * third];
            let genc = at.map(|j| &enc[j * gb..(j + 1) * gb]);
            let o = thirds(&mut out[i * gd..], third * gd, gd);
            let edata = genc.map(|g| &g[..gd]);
            c = self
                .kernel
                .group64_crc3(fused, edata, o, &mut par, cut, c)
                .expect("a fused kernel");
            for (q, &j) in at.iter().enumerate() {
                stats.codewords += self.layout.interleave as u64;
                let mut nz = V::<B>::zero();
                let epar = genc[q][gd..].chunks_exact(8);
                for ((sy, w), prow) in s.par.iter_mut().zip(&par[q]).zip(epar) {
                    sy.0[0] = w ^ u64::from_le_bytes(prow.try_into().expect("8 bytes"));
                    nz.0[0] |= sy.0[0];
                }
                if !nz.is_zero() {
                    let mut o = Mending {
                        data: &mut out[j * gd..(j + 1) * gd],
                        mender: self
                            .mender
                            .expect("a decoding codec on the fused kernels' CPU"),
                        change: 0,
                    };
                    self.fix_block(genc[q], &mut o, 0, &s.par, nz, j, stats);
                    c[q] ^= o.change;
                }
            }
        }
        c
    }

    /// The first `3 * third` groups of a chunk, from each third a batch at a time (about
    /// 8 KiB of payload, or one larger group), then the CRC over the three batches just
    /// decoded. Returns the three CRC chains.
    fn decode_batched<const B: usize>(
        &self,
        enc: &[u8],
        third: usize,
        out: &mut [u8],
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) -> [u32; 3] {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        let batch = self.decode_batch();
        let mut c = [0u32; 3];
        for i in (0..third).step_by(batch) {
            let n = batch.min(third - i);
            for q in 0..3 {
                let j = q * third + i;
                let genc = &enc[j * gb..(j + n) * gb];
                let o = &mut out[j * gd..(j + n) * gd];
                self.decode_run(genc, o, j, s, stats);
            }
            let r = |q: usize| &out[(q * third + i) * gd..(q * third + i + n) * gd];
            c = crc::append3(self.sse42, c, r(0), r(1), r(2));
        }
        c
    }

    /// Decodes a chunk that is one group `genc` of rows spanning several lane blocks (deep
    /// interleaving) into `o`, its payload area; returns the CRC-32C of each check block of
    /// its `len` decoded payload bytes.
    ///
    /// The received data rows are streamed to `o` first, each check block's CRC taken on
    /// the way ([`Codec::copy_crc`]: one sequential read that brings the rows into cache, and
    /// no read of `o`, which is not read back), the parity rows asked for from memory
    /// meanwhile ([`AHEAD_PARITY_ROW`], [`AHEAD_PARITY_SHARE`]).
    /// Then the syndrome from the data rows in cache and the received parity rows
    /// ([`Codec::group_flips`]); the bits the decoder
    /// flips are collected, made in `o` at the end by streaming each line with flips again
    /// from the rows received ([`nt::restream_flips`]: `o[at] ^= mask` read each such line
    /// back from memory), and the CRCs mended for them
    /// ([`Mender`](crate::stream::crc::Mender)), or taken again from `o` for a block with
    /// more flips than mending is worth (or without the CPU features mending needs).
    pub(super) fn decode_deep<const B: usize>(
        &self,
        genc: &[u8],
        len: usize,
        o: &mut [u8],
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) -> Vec<u32> {
        let l = &self.layout;
        let gd = l.group_data;
        let edata = &genc[..gd];
        let b = Blocks::of(len, gd);
        stats.codewords += l.interleave as u64;
        #[cfg(target_arch = "x86_64")]
        if let Some(cols) = self.deep_columns() {
            return self.decode_deep_columns(cols, genc, len, o, s, stats);
        }
        // Asked for over the copy of the data rows, so that the parity rows are read from
        // memory while the copy's stores stream out, not in the syndrome: at rows of 4 KiB
        // and more the parity rows ([`AHEAD_PARITY_ROW`]); at shorter ones the group from 4
        // KiB on, where its parity rows are an eighth of it or more ([`AHEAD_PARITY_SHARE`]).
        let rest = match genc.get(prefetch::AHEAD..) {
            _ if l.row_bytes >= AHEAD_PARITY_ROW => &genc[gd..],
            Some(rest) if AHEAD_PARITY_SHARE * (genc.len() - gd) >= genc.len() => rest,
            _ => &[],
        };
        let (n, rl) = (b.count(), rest.len());
        // A large group's rows added into the plan's accumulators a band at a time, as the
        // copy passes them (`bands`).
        let mut feeder = self.feeder();
        let rb = l.row_bytes;
        let rows = |r: std::ops::Range<usize>| [&edata[r.start * rb..r.end * rb], &[][..]];
        let crcs: Vec<u32> = (0..n)
            .map(|i| {
                let ahead = &rest[i * rl / n..(i + 1) * rl / n];
                let crc = self.copy_crc(&mut o[b.range(i)], &edata[b.range(i)], ahead);
                if let Some(f) = &mut feeder {
                    f.upto(self, b.range(i).end / rb, rows, &mut s.acc);
                }
                crc
            })
            .collect();
        o[len..].copy_from_slice(&edata[len..]);
        let mut flips: Vec<(usize, u8)> = Vec::new();
        match &mut feeder {
            Some(f) => {
                f.upto(self, usize::MAX, rows, &mut s.acc);
                self.fix_rows(genc, &mut flips, 0, s, stats, true);
            }
            None => self.group_flips(genc, &mut flips, 0, s, stats),
        }
        self.make_flips(o, edata, &b, &mut flips, crcs)
    }

    /// Makes the flips `flips` of a deep chunk in `o` (its payload area, streamed from the
    /// received data rows `edata`) by streaming each line with flips again
    /// ([`nt::restream_flips`]), and returns the CRCs `crcs` of its check blocks `b` mended
    /// for them ([`Codec::mended`]).
    pub(super) fn make_flips(
        &self,
        o: &mut [u8],
        edata: &[u8],
        b: &Blocks,
        flips: &mut [(usize, u8)],
        mut crcs: Vec<u32>,
    ) -> Vec<u32> {
        if flips.is_empty() {
            nt::fence();
            return crcs;
        }
        flips.sort_unstable_by_key(|f| f.0);
        nt::restream_flips(o, edata, flips);
        nt::fence();
        for (i, crc) in crcs.iter_mut().enumerate() {
            let r = b.range(i);
            let from = flips.partition_point(|f| f.0 < r.start);
            let to = flips.partition_point(|f| f.0 < r.end);
            *crc = self.mended(*crc, 0, &o[r.clone()], r.start, &flips[from..to]);
        }
        crcs
    }

    /// The CRC-32C `crc` of a piece of output, taken before `flips` (at offsets from `at`,
    /// all inside `bytes`, the piece as it is now) were made in it: mended for them
    /// ([`Mender`]), or, past [`MEND_MAX`] flips or without the mender, taken again over
    /// `bytes` from `start` (the CRC before the piece).
    fn mended(&self, crc: u32, start: u32, bytes: &[u8], at: usize, flips: &[(usize, u8)]) -> u32 {
        match &self.mender {
            _ if flips.is_empty() => crc,
            Some(m) if flips.len() <= MEND_MAX => crc ^ m.change(at, bytes.len(), flips),
            _ => {
                // (The piece was streamed: its lines are ordered before they are read back.)
                nt::fence();
                crc::append(start, bytes)
            }
        }
    }
}

/// The largest groups of rows of one 64-word lane block (`D = 4096`, several groups a chunk)
/// decoded in order ([`Codec::decode_in_order`]); larger ones keep the clean-run kernel,
/// which reads them in place. With the next group asked for over each copy, groups of
/// 4-17 KiB of payload gained (clean decode alien:4x5 0.37 -> 0.58x memcpy, alien:3x5 0.29
/// -> 0.45, alien:5x5 0.36 -> 0.47, secded:22 0.34 -> 0.41) and those of 32 KiB and more
/// lost (secded:72 0.52 -> 0.45, alien:8x9 0.60 -> 0.55, alien:8x17 0.74 -> 0.60;
/// docs/benchmarks.md, "Decoding in order from 2 KiB, the next group asked for on the
/// way").
const ONE_BLOCK_IN_ORDER_MAX: usize = 24 << 10;

/// At rows shorter than [`AHEAD_PARITY_ROW`], [`Codec::decode_deep`] asks for the rest of a
/// group over the copy of its data rows where its parity rows are at least
/// `1 / AHEAD_PARITY_SHARE` of it: clean decode 0.43 -> 0.51x
/// memcpy for alien:9x9 at `D = 4096`, 0.49 -> 0.56 for alien:5x63 at 4096, 0.47 -> 0.57
/// for alien:63x5 at 32768. Codes with fewer parity rows lost 3-7 % (alien:33x33 and
/// alien:17x17 at 4096, hamming:137; docs/benchmarks.md, "Decoding in order from 2 KiB,
/// the next group asked for on the way").
const AHEAD_PARITY_SHARE: usize = 8;

/// From rows of this many bytes (`D = 32768`), [`Codec::decode_deep`] asks for the parity
/// rows alone over the copy, whatever their share, spread over all of it: the syndrome
/// then finds them in L2 (touching them after the copy took alien:9x9's syndrome at
/// `D = 32768` from 6.5 to 4.5 million cycles for 64 MiB). Clean decode 1.03-1.09x as fast
/// at `D = 32768` and 65536 (geometric means over 16 and 20 codes; alien:9x9 0.52 -> 0.59x
/// memcpy, alien:17x17 0.59 -> 0.69, secded:72 0.61 -> 0.69; decode at BER 1e-4
/// 1.02-1.09x), but 0.98x at `D = 4096`, where the older rule stays (docs/benchmarks.md,
/// "The parity rows asked for over a deep group's copy").
const AHEAD_PARITY_ROW: usize = 4096;

/// The most syndrome rows (key bits) for which [`Codec::fix_syndrome_rows`] reads a lane's
/// word of each row in place rather than copying a line of every row first: decode at BER
/// 1e-4 of codes of 6 to 21 rows 0.97-1.22x as fast (alien:5x5 at `D = 65536` 0.33 -> 0.41x
/// memcpy, secded:22 0.36 -> 0.40; geometric mean about 1.04 over seven codes and three
/// depths), alien:17x17's (33 rows, the row words in one L1 set at 4 KiB rows) 0.89-0.94x
/// (docs/benchmarks.md, "Syndrome words read in place").
const IN_PLACE_ROWS: usize = 24;

/// The most flips in a check block whose CRC [`Codec::decode_deep`] mends (some tens of
/// cycles each, overlapped) rather than takes again from memory (a 64 KiB block, some
/// 20 000 cycles): below where the two cost the same, so that garbage costs no more than it
/// did before mending. The same for a group decoded in order ([`Codec::decode_in_order`]).
const MEND_MAX: usize = 256;
