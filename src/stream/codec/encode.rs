//! Encoding: groups through the kernels, chunks with their CRCs and tails, and the deep path
//! that streams a one-group chunk past the caches.

use super::{Codec, Scratch, fill_region, thirds};
#[cfg(target_endian = "little")]
use crate::slice::kernel::block_bytes;
use crate::slice::kernel::{V, as_blocks, store_blocks, store_parity};
use crate::slice::prefetch;
use crate::stream::crc;
use crate::stream::format::{Blocks, TAIL, tail_bytes, tail_bytes_v2};
use crate::stream::nt;
use std::ops::Range;

/// How a chunk is encoded ([`Codec::encode_path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// A chunk of one group: [`Codec::encode_deep`], the payload streamed.
    Deep,
    /// The thirds' groups in order, each payload copied with the copying fold (streamed).
    InOrder,
    /// The thirds side by side, in runs or through the fused kernels, through the cache.
    Runs,
}

impl Codec {
    /// Encodes one group: the payload `g` (`group_data` bytes) into `o` (`group_bytes`).
    #[inline]
    pub(super) fn encode_group<const B: usize>(&self, g: &[u8], o: &mut [u8], s: &mut Scratch<B>) {
        let l = &self.layout;
        let (gd, rb) = (l.group_data, l.row_bytes);
        // (The fast path is for `D = 64`, where no group is prefetched: `prefetch::group`.)
        if let Some(fast) = &self.fast
            && self
                .kernel
                .encode_run64(fast, &g[..gd], o, gd, o.len(), &mut s.words)
        {
            return;
        }
        prefetch::group(g.as_ptr(), gd, o.as_ptr(), o.len(), rb);
        let (odata, opar) = o.split_at_mut(gd);
        if rb == 8 * B {
            // One lane block per row: the kernel copies the data rows as it reads them.
            self.kernel.parity_copy::<B, true>(
                self.avx2,
                &g[..gd],
                odata,
                &mut s.par,
                &mut s.kernel,
            );
            store_parity(&s.par, opar);
            return;
        }
        odata.copy_from_slice(&g[..gd]);
        self.parity_of_rows([odata, &[]], opar, s);
    }

    /// The parity rows `opar` of a group's data rows `data` (those of `data[0]`, then those
    /// of `data[1]`), read whole rows at a time, where they lie (the whole-row kernel,
    /// [`Plan`](crate::slice::kernel::Plan)).
    pub(super) fn parity_of_rows<const B: usize>(
        &self,
        data: [&[u8]; 2],
        opar: &mut [u8],
        s: &mut Scratch<B>,
    ) {
        let rb = self.layout.row_bytes;
        self.plan.parity(self.avx2, data, rb, opar, &mut s.acc);
    }

    /// Encodes whole groups: `data` is a multiple of the group payload, `out` the same number
    /// of groups.
    pub fn encode_groups(&self, data: &[u8], out: &mut [u8]) {
        by_width!(self.encode_groups_b(data, out))
    }

    pub(super) fn encode_groups_b<const B: usize>(&self, data: &[u8], out: &mut [u8]) {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        debug_assert_eq!(data.len() / gd * gb, out.len());
        let mut s = self.scratch::<B>();
        self.encode_run(data, out, &mut s);
    }

    /// Encodes consecutive whole groups: through the single-word fast path's run
    /// ([`Kernel::encode_run64`](crate::slice::kernel::Kernel::encode_run64)) where the code
    /// has one, else through [`Kernel::encode_run`](crate::slice::kernel::Kernel::encode_run)
    /// when their rows are one lane block, else group by group.
    #[inline]
    pub(super) fn encode_run<const B: usize>(
        &self,
        data: &[u8],
        out: &mut [u8],
        s: &mut Scratch<B>,
    ) {
        let l = &self.layout;
        let (gd, gb) = (l.group_data, l.group_bytes);
        if let Some(fast) = &self.fast
            && self
                .kernel
                .encode_run64(fast, data, out, gd, gb, &mut s.words)
        {
            return;
        }
        if l.row_bytes == 8 * B {
            let (par, scratch) = (&mut s.par, &mut s.kernel);
            return self
                .kernel
                .encode_run::<B>(self.avx2, data, out, gd, gb, par, scratch);
        }
        for (g, o) in data.chunks_exact(gd).zip(out.chunks_exact_mut(gb)) {
            self.encode_group(g, o, s);
        }
    }

    /// The groups of a chunk of `len` payload bytes, and how many of them take whole
    /// groups of payload (the others hold the rest and the tail).
    fn direct_groups(&self, len: usize) -> (usize, usize) {
        let l = &self.layout;
        let groups = l.groups_for(len);
        let area = groups * l.group_data;
        (groups, len.min(area - l.tail(len)) / l.group_data)
    }

    /// How a chunk of `groups` groups, `third` whole groups of payload in each third, is
    /// encoded; `wide`: its rows span several lane blocks.
    fn encode_path(&self, groups: usize, third: usize, wide: bool) -> Path {
        if self.deep(groups, wide) {
            Path::Deep
        } else if third > 0 && (self.has_columns() || self.has_lines() || self.in_order(wide, true))
        {
            Path::InOrder
        } else {
            Path::Runs
        }
    }

    /// Whether a full chunk's payload is written with streaming stores (the deep path, and
    /// groups in order with the copying fold) rather than through the cache. A staging
    /// buffer in cache for such a chunk would be streamed into and read back from memory
    /// ([`EncodeCore`](crate::stream::encode_core::EncodeCore) stages the others).
    pub fn streams_chunks(&self) -> bool {
        let (groups, direct) = self.direct_groups(self.layout.chunk_size);
        let wide = self.layout.row_bytes > 8 * self.width;
        self.encode_path(groups, direct / 3, wide) != Path::Runs
    }

    /// Encodes one chunk (`1..=chunk_size` bytes) into `out` (exactly its encoded size) and
    /// returns its CRC-32C.
    pub fn encode_chunk(&self, data: &[u8], index: u64, out: &mut [u8]) -> u32 {
        by_width!(self.encode_chunk_b(data, index, out))
    }

    pub(super) fn encode_chunk_b<const B: usize>(
        &self,
        data: &[u8],
        index: u64,
        out: &mut [u8],
    ) -> u32 {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        let (groups, direct) = self.direct_groups(data.len());
        debug_assert_eq!(out.len(), groups * gb);
        let area = groups * gd;
        let tail_len = self.layout.tail(data.len());
        let mut s = self.scratch::<B>();
        let wide = self.layout.row_bytes > 8 * B;
        // The groups of the chunk's three thirds side by side: three independent CRC chains
        // over bytes the encoder has just brought into cache, joined at the end.
        let third = direct / 3;
        let path = self.encode_path(groups, third, wide);
        if path == Path::Deep {
            return self.encode_deep(data, index, out, &mut s);
        }
        let cut = self.cuts();
        let mut c = [0u32; 3];
        if path == Path::InOrder
            && let Some(chains) = self.encode_by_lines(data, third, out)
        {
            // Each third's groups in one pass: the line pass.
            c = chains;
        } else if path == Path::InOrder {
            #[cfg(target_arch = "x86_64")]
            let mut columns = self.columns.as_ref().map(|c| (c, self.column_scratch()));
            // In order, each group's payload copied to its data rows with the CRC of its
            // third folded on the way, then its parity from the payload (still in L1); or
            // all of it in one pass, the column pass.
            for (j, (g, o)) in data[..3 * third * gd]
                .chunks_exact(gd)
                .zip(out.chunks_exact_mut(gb))
                .enumerate()
            {
                let q = j / third;
                // The next group's payload asked for from memory over this one's copy.
                let ahead = data.get((j + 1) * gd..(j + 2) * gd).unwrap_or(&[]);
                #[cfg(target_arch = "x86_64")]
                if let Some((cols, cs)) = &mut columns {
                    c[q] = self.encode_columns(cols, c[q], g, o, ahead, cs);
                    continue;
                }
                let (odata, opar) = o.split_at_mut(gd);
                c[q] = crc::copy_append(c[q], odata, g, ahead);
                if wide {
                    self.parity_of_rows([g, &[]], opar, &mut s);
                } else {
                    self.block_parity(g, &mut s);
                    stream_parity(&s.par, opar);
                }
            }
            nt::fence();
        } else if third > 0 {
            let batch = self.encode_batch();
            let mut par = [[0u64; 16]; 3];
            if batch == 1 || self.fused.is_some() {
                for i in 0..third {
                    let at = [i, i + third, i + 2 * third];
                    if let Some(fused) = self.fused {
                        let g = at.map(|j| &data[j * gd..(j + 1) * gd]);
                        let [o0, o1, o2] = thirds(&mut out[i * gb..], third * gb, gb);
                        let (d0, p0) = o0.split_at_mut(gd);
                        let (d1, p1) = o1.split_at_mut(gd);
                        let (d2, p2) = o2.split_at_mut(gd);
                        if let Some(next) =
                            self.kernel
                                .group64_crc3(fused, g, [d0, d1, d2], &mut par, cut, c)
                        {
                            for (words, p) in par.iter().zip([p0, p1, p2]) {
                                put_words(words, p);
                            }
                            c = next;
                            continue;
                        }
                    }
                    let g = at.map(|j| &data[j * gd..(j + 1) * gd]);
                    // A third of the CRC work before each group's kernel, so that the two
                    // overlap in the processor (the CRC instructions use one port, the
                    // kernel the others).
                    for (q, (j, gj)) in at.into_iter().zip(g).enumerate() {
                        let (a, b) = (cut[q], cut[q + 1]);
                        c = crc::append3(self.sse42, c, &g[0][a..b], &g[1][a..b], &g[2][a..b]);
                        self.encode_group(gj, &mut out[j * gb..(j + 1) * gb], &mut s);
                    }
                }
            } else {
                // Small groups: a batch of them from each third, then the CRC over the three
                // batches (each contiguous), so that the calls are not per group.
                for i in (0..third).step_by(batch) {
                    let n = batch.min(third - i);
                    for q in 0..3 {
                        let j = q * third + i;
                        let g = &data[j * gd..(j + n) * gd];
                        self.encode_run(g, &mut out[j * gb..(j + n) * gb], &mut s);
                    }
                    let r = |q: usize| &data[(q * third + i) * gd..(q * third + i + n) * gd];
                    c = crc::append3(self.sse42, c, r(0), r(1), r(2));
                }
            }
        }
        // The third chain goes on over the groups after the thirds and the partial group,
        // unless the check blocks are pieces whose CRCs make the whole one.
        let pieces = self.by_pieces(data.len(), area);
        for j in 3 * third..direct {
            let g = &data[j * gd..(j + 1) * gd];
            self.encode_group(g, &mut out[j * gb..(j + 1) * gb], &mut s);
            if !pieces {
                c[2] = crc::append(c[2], g);
            }
        }
        let rest = &data[direct * gd..];
        if !pieces {
            c[2] = crc::append(c[2], rest);
        }
        let (crcs, crc) = self.chunk_crc(pieces, c, third * gd, data, None);
        let tail = if tail_len == TAIL {
            tail_bytes(index, data.len(), crc).to_vec()
        } else {
            let crcs = crcs.unwrap_or_else(|| self.block_crcs(data, c, crc));
            tail_bytes_v2(index, data.len(), &crcs)
        };
        // The partial group (the whole chunk when it is one group, as at deep interleaving):
        // the rest of the data, then zeros, then the tail.
        let region = area - direct * gd;
        let out = &mut out[direct * gb..];
        let rb = self.layout.row_bytes;
        // Where the codec has the column pass, the partial group (and any after it) is built
        // in a buffer and coded through it rather than through the whole-row kernel: encode
        // at `D = 4096` about 1.05x as fast over six codes (secded:16 0.61 -> 0.68x memcpy),
        // within the spread at 32768 (docs/benchmarks.md, "The last group of a chunk through
        // the column pass").
        #[cfg(target_arch = "x86_64")]
        if let Some(cols) = &self.columns {
            let mut cs = self.column_scratch();
            let mut g = std::mem::take(&mut s.rows);
            g.resize(gd, 0);
            for (j, o) in out.chunks_exact_mut(gb).enumerate() {
                fill_region(&mut g, j * gd, rest, region - tail_len, &tail);
                self.encode_columns(cols, 0, &g, o, &[], &mut cs);
            }
            nt::fence();
            s.rows = g;
            return crc;
        }
        if path == Path::InOrder && (rb > 8 * B || rb >= 512) {
            // After thirds streamed in order, each group is built in a buffer in cache (as
            // for the column pass), its parity taken from there, and the whole of it streamed
            // out: the output's lines are not read for ownership (encode at `D = 4096`
            // 1.03-1.13x as fast for alien:17x3, 5x9 and secded:72, whose chunks are seven
            // and four groups; docs/benchmarks.md, "The group after the thirds coded as
            // theirs are").
            let mut g = std::mem::take(&mut s.rows);
            g.resize(gb, 0);
            for (j, o) in out.chunks_exact_mut(gb).enumerate() {
                let (gdata, gpar) = g.split_at_mut(gd);
                fill_region(gdata, j * gd, rest, region - tail_len, &tail);
                self.parity_of_rows([gdata, &[]], gpar, &mut s);
                nt::stream(o, &g);
            }
            nt::fence();
            s.rows = g;
        } else if rb > 8 * B || rb >= 512 {
            // Rows span several lane blocks, or are 512 bytes or more (the last region is
            // then the whole chunk): each group's data rows are written in place in the
            // output, and its parity is taken from there (the payload is copied once).
            for (g, o) in out.chunks_exact_mut(gb).enumerate() {
                let (odata, opar) = o.split_at_mut(gd);
                fill_region(odata, g * gd, rest, region - tail_len, &tail);
                self.parity_of_rows([odata, &[]], opar, &mut s);
            }
        } else {
            let mut last = vec![0u8; region];
            fill_region(&mut last, 0, rest, region - tail_len, &tail);
            for (g, o) in last.chunks_exact(gd).zip(out.chunks_exact_mut(gb)) {
                self.encode_group(g, o, &mut s);
            }
        }
        crc
    }

    /// Encodes a chunk that is one group of rows spanning several lane blocks (deep
    /// interleaving) into `out`, and returns its CRC-32C.
    ///
    /// The payload is streamed to the data rows with each check block's CRC taken on the way
    /// ([`Codec::copy_crc`]: one read of the payload, no read of the output, which the encoder
    /// never reads back); the last partial row, the zeros and the tail are written in place;
    /// the kernels then gather the payload's rows where they lie (in cache since the copy)
    /// and the parity rows are streamed from a buffer.
    pub(super) fn encode_deep<const B: usize>(
        &self,
        data: &[u8],
        index: u64,
        out: &mut [u8],
        s: &mut Scratch<B>,
    ) -> u32 {
        let (gd, gb, rb) = (
            self.layout.group_data,
            self.layout.group_bytes,
            self.layout.row_bytes,
        );
        #[cfg(target_arch = "x86_64")]
        if let Some(cols) = self.deep_columns() {
            return self.encode_deep_columns(cols, data, index, out, s);
        }
        let tail_len = self.layout.tail(data.len());
        let (odata, opar) = out.split_at_mut(gd);
        let b = Blocks::of(data.len(), gd);
        let whole = data.len() / rb * rb;
        // A large group's whole rows of payload added into the plan's accumulators a band at
        // a time, as the copy passes them (`bands`).
        let mut feeder = self.feeder();
        let crcs: Vec<u32> = (0..b.count())
            .map(|i| {
                let crc = self.copy_crc(&mut odata[b.range(i)], &data[b.range(i)], &[]);
                if let Some(f) = &mut feeder {
                    let rows = |r: Range<usize>| [&data[r.start * rb..r.end * rb], &[][..]];
                    f.upto(self, b.range(i).end.min(whole) / rb, rows, &mut s.acc);
                }
                crc
            })
            .collect();
        let crc = self.join_blocks(&b, &crcs);
        let tail = if tail_len == TAIL {
            tail_bytes(index, data.len(), crc).to_vec()
        } else {
            tail_bytes_v2(index, data.len(), &crcs)
        };
        let end = &mut odata[whole..];
        fill_region(end, whole, data, gd - tail_len, &tail);
        let mut par = std::mem::take(&mut s.rows);
        par.resize(gb - gd, 0);
        match &mut feeder {
            Some(f) => {
                // The rest: the payload's whole rows, then the rows from its last partial one.
                let end = &*end;
                let rows = |r: Range<usize>| {
                    let (a, z) = (r.start * rb, r.end * rb);
                    [
                        &data[a.min(whole)..z.min(whole)],
                        &end[a.max(whole) - whole..z.max(whole) - whole],
                    ]
                };
                f.upto(self, usize::MAX, rows, &mut s.acc);
                self.plan.parity_of_fed(self.avx2, rb, &mut par, &mut s.acc);
            }
            None => self.parity_of_rows([&data[..whole], end], &mut par, s),
        }
        nt::copy(opar, &par);
        s.rows = par;
        crc
    }
}

/// Parity rows of at least this many bytes, after their group's data rows streamed past
/// the caches, are streamed too ([`stream_parity`]).
const STREAM_PARITY_FROM: usize = 256;

/// Writes a group's parity rows `par` to `opar` after its data rows were streamed past the
/// caches (groups in order): from [`STREAM_PARITY_FROM`] bytes, streamed as well, unfenced
/// (an ordinary store first reads its line from memory; alien:9x9 at D = 512 encoded at
/// 0.36-0.41x memcpy with them, 0.62 streamed and without a fence per group), else stored.
fn stream_parity<const B: usize>(par: &[V<B>], opar: &mut [u8]) {
    #[cfg(target_endian = "little")]
    if opar.len() >= STREAM_PARITY_FROM {
        return nt::stream(opar, block_bytes(par));
    }
    store_parity(par, opar);
}

/// Writes a fused kernel's check words to a group's parity bytes `p` (little-endian; as
/// many as `p` holds): a copy of fixed size for the fused codes' 128 and 64 bytes, which
/// the compiler inlines, where one of `p.len()` bytes was a call to `memcpy` per group.
#[inline]
fn put_words(words: &[u64; 16], p: &mut [u8]) {
    #[inline(always)]
    fn put(words: &[u64; 16], p: &mut [u8]) {
        for (w, dst) in words.iter().zip(p.chunks_exact_mut(8)) {
            dst.copy_from_slice(&w.to_le_bytes());
        }
    }
    match p.len() {
        128 => put(words, &mut p[..128]),
        64 => put(words, &mut p[..64]),
        _ => store_blocks(as_blocks(&words[..p.len() / 8]), p),
    }
}
