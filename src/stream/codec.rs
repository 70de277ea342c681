//! The codec core, slice in and slice out: groups, chunks, the stream's header and trailer.
//! The one-shot functions and both I/O adapters are thin layers over [`EncodeCore`] and
//! [`DecodeCore`], so that every path applies the same checks in the same order.

use super::crc::{self, Shift, Sse42, ZeroKey};
use super::format::{
    self, BLOCK, Blocks, CHECK_BLOCK, Layout, StreamInfo, TAIL, Trailer, VERSION_1, header_block,
    read_tail_end, read_trailer, region_bytes, tail_bytes, tail_bytes_v2, trailer_block,
};
use super::frame::{FRAME, Frame, Kind, StripeShape};
use super::nt;
use super::parallel::{self, Workers};
use super::stripe::{Plan, StripeEncoder, shard_bytes};
use super::{Header, Report};
use crate::code;
use crate::cpu::Avx2;
use crate::error::{Error, Result};
use crate::slice::kernel::{self, Fast64, Fused64, Kernel, V};
use crate::slice::locate::Locator;

/// A code with its kernel and the row/position maps of the bit-sliced layout.
#[derive(Debug)]
pub struct Codec {
    /// Sizes.
    pub layout: Layout,
    kernel: Kernel,
    /// Parity rows, `n - k`.
    r: usize,
    /// The per-lane decisions for nonzero syndromes, shared with the simulator: the
    /// single-error table (when decoding), else the code's decoder.
    locator: Locator,
    /// The CRC shifts a full chunk needs, prepared once ([`Codec::shift`]): over a third of
    /// its payload groups and over the rest after two thirds (its three chains); over a
    /// check block of [`CHECK_BLOCK`] bytes and over its last check block, for chunks whose
    /// check blocks are pieces ([`Codec::chunk_crc`]); and over the chains of those two
    /// pieces ([`nt::copy_crc3`]).
    shifts: Vec<Shift>,
    /// When the CPU has SSE4.2: the evidence for the three-chain CRC ([`crc::append3`]),
    /// taken once here.
    sse42: Option<Sse42>,
    /// When the kernel has a single-word fast path ([`Kernel::group64`]) on this CPU and
    /// rows are single words: the evidence, taken once here.
    fast: Option<Fast64>,
    /// When the kernel also takes the CRC of three groups at once
    /// ([`Kernel::group64_crc3`]) at `D = 64`: the evidence, taken once here.
    fused: Option<Fused64>,
    /// When the CPU has AVX2: the evidence under which the generic group kernels (every
    /// code, depth and block width without a hand-written path) run compiled for AVX2.
    avx2: Option<Avx2>,
    /// With `fused`: per data word `i` of a group, the key appending the bytes after it
    /// (`8 (k - 1 - i)` zero bytes), to mend the CRC of a group the decoder fixed.
    word_keys: Vec<ZeroKey>,
}

/// Scratch space of the group kernels.
struct Scratch<const B: usize> {
    /// Parity (or syndrome) rows of one lane block.
    par: Vec<V<B>>,
    /// The kernel's own scratch.
    kernel: Vec<V<B>>,
    /// One lane block's data rows when a row spans several blocks.
    gather: Vec<u8>,
    /// Parity rows of the single-word fast path.
    words: Vec<u64>,
}

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

/// The `k` data rows of one lane block as contiguous rows of `8 B` bytes: the group payload
/// itself when a row is one block, else gathered into `buf`. The rows are those of
/// `data[0]` followed by those of `data[1]` (the deep encoder reads the payload's whole rows
/// where they lie and the rest from a short buffer).
#[inline]
fn block_rows<'a, const B: usize>(
    data: [&'a [u8]; 2],
    k: usize,
    rb: usize,
    off: usize,
    buf: &'a mut Vec<u8>,
) -> &'a [u8] {
    if rb == 8 * B && data[1].is_empty() {
        return &data[0][..k * rb];
    }
    // Copies of a constant `8 B` bytes, which compile to a few vector moves (a call to
    // `memmove` per row cost more than the kernel).
    buf.resize(k * 8 * B, 0);
    let (a, b) = buf.split_at_mut(data[0].len() / rb * 8 * B);
    gather::<B>(a, data[0], rb, off);
    if !b.is_empty() {
        gather::<B>(b, data[1], rb, off);
    }
    buf
}

/// Bytes `off..off + 8 B` of each row of `rows` (rows of `rb` bytes), one after the other
/// into `dst`.
#[inline(always)]
fn gather<const B: usize>(dst: &mut [u8], rows: &[u8], rb: usize, off: usize) {
    for (dst, row) in dst.chunks_exact_mut(8 * B).zip(rows.chunks_exact(rb)) {
        dst.copy_from_slice(&row[off..off + 8 * B]);
    }
}

/// The block width (in 64-bit words) used for a row of `words` words. A row of exactly 64
/// words (`D = 4096`) is one block: the kernel then reads the group's rows in place, one
/// after the other, with no gather into lane blocks and no second pass to copy the data
/// rows (measured in docs/benchmarks.md, "D = 4096 rows as one block"). Wider blocks for the
/// deeper depths would hold whole kilobyte rows in the kernel's accumulators.
fn block_words(words: usize) -> usize {
    if words == 64 {
        return 64;
    }
    [8, 4, 2, 1]
        .into_iter()
        .find(|b| words.is_multiple_of(*b))
        .expect("1 divides")
}

/// Calls `$codec.$f::<B>(args)` with `B` the lane block width of the layout's rows
/// ([`block_words`]).
macro_rules! by_width {
    ($codec:ident . $f:ident ( $($a:expr),* )) => {{
        let codec = $codec;
        match block_words(codec.layout.row_bytes / 8) {
            64 => codec.$f::<64>($($a),*),
            8 => codec.$f::<8>($($a),*),
            4 => codec.$f::<4>($($a),*),
            2 => codec.$f::<2>($($a),*),
            _ => codec.$f::<1>($($a),*),
        }
    }};
}

impl Codec {
    /// Builds the codec for a layout; `decoding` also builds the single-error table.
    pub fn new(layout: Layout, decoding: bool) -> Codec {
        let code = code::build(&layout.spec);
        let kernel = Kernel::for_code(code.as_ref());
        let n = code.n();
        let k = code.k();
        let locator = Locator::new(code.as_ref(), &kernel, decoding);
        let third = layout.chunk_size / layout.group_data / 3 * layout.group_data;
        let last_piece = layout.chunk_size - (layout.chunk_size - 1) / CHECK_BLOCK * CHECK_BLOCK;
        let mut lens = vec![
            third,
            layout.chunk_size - 2 * third,
            CHECK_BLOCK,
            last_piece,
        ];
        for piece in [CHECK_BLOCK, last_piece] {
            let t = nt::chain(piece);
            lens.extend([t, piece - 2 * t]);
        }
        lens.sort_unstable();
        lens.dedup();
        let shifts = lens.into_iter().map(Shift::new).collect();
        let fast = kernel.fast64().filter(|_| layout.row_bytes == 8);
        let mut codec = Codec {
            sse42: Sse42::detect(),
            avx2: Avx2::detect(),
            fast,
            fused: kernel.fused64().filter(|_| fast.is_some()),
            word_keys: Vec::new(),
            shifts,
            layout,
            kernel,
            r: n - k,
            locator,
        };
        if decoding && codec.fused.is_some() {
            let k = codec.layout.k;
            codec.word_keys = (0..k).map(|i| ZeroKey::new(8 * (k - 1 - i))).collect();
        }
        codec
    }

    /// Scratch space for the group kernels of lane blocks of `B` words.
    fn scratch<const B: usize>(&self) -> Scratch<B> {
        Scratch {
            par: vec![V::<B>::zero(); self.r],
            kernel: vec![V::<B>::zero(); self.kernel.scratch_len()],
            gather: Vec::new(),
            words: vec![0; self.r],
        }
    }

    /// The operator appending `len` zero bytes to a CRC: prepared for the lengths of a full
    /// chunk, built for others.
    fn shift(&self, len: usize) -> Shift {
        self.shifts
            .iter()
            .find(|s| s.bytes() == len)
            .copied()
            .unwrap_or_else(|| Shift::new(len))
    }

    /// Whether the check blocks of a chunk of `len` payload bytes are several pieces and
    /// the chunk has fewer than three whole groups (so no CRC chains run beside the
    /// kernels): the whole chunk's CRC is then joined from the pieces' CRCs
    /// ([`Codec::chunk_crc`]) instead of being taken in a pass of its own. This is the case
    /// of deep interleaving, where a chunk is one group.
    /// `area` is the payload area of the chunk's groups (a claimed `len` past it never is).
    fn by_pieces(&self, len: usize, area: usize) -> bool {
        let b = Blocks::of(len, self.layout.group_data);
        let few = len / self.layout.group_data < 3 && len <= area;
        matches!(b, Blocks::Pieces { .. }) && b.count() > 1 && few
    }

    /// The CRC-32C of a chunk's `payload` and, when they are taken on the way, of its check
    /// blocks. With `pieces` ([`Codec::by_pieces`]) each block's CRC is taken in one pass
    /// over the bytes and the whole one joined from them; otherwise the whole one is joined
    /// from the three chains `c` (as for [`Codec::join`], the first two over `third` bytes)
    /// and the blocks' CRCs are left to [`Codec::block_crcs`]. `known`, the blocks' CRCs when
    /// the decoder took them already ([`Codec::decode_deep`]), are joined whatever `pieces`
    /// says.
    fn chunk_crc(
        &self,
        pieces: bool,
        c: [u32; 3],
        third: usize,
        payload: &[u8],
        known: Option<Vec<u32>>,
    ) -> (Option<Vec<u32>>, u32) {
        let b = Blocks::of(payload.len(), self.layout.group_data);
        let crcs = match known {
            Some(crcs) => crcs,
            None if pieces => b.crcs(payload),
            None => return (None, self.join(c, third, payload.len())),
        };
        let whole = self.join_blocks(&b, &crcs);
        (Some(crcs), whole)
    }

    /// The CRC-32C of a chunk's payload from the CRCs of its check blocks `b`.
    fn join_blocks(&self, b: &Blocks, crcs: &[u32]) -> u32 {
        crcs.iter().enumerate().skip(1).fold(crcs[0], |a, (i, &c)| {
            self.shift(b.range(i).len()).combine(a, c)
        })
    }

    /// The CRC-32C of `src`, taken while it is streamed into `dst` ([`nt::copy_crc3`]).
    fn copy_crc(&self, dst: &mut [u8], src: &[u8]) -> u32 {
        let (t, c) = nt::copy_crc3(self.sse42, dst, src);
        self.join(c, t, src.len())
    }

    /// The CRC-32C of a chunk's `len` payload bytes from its three chains: `c[0]` and `c[1]`
    /// over the first two thirds of `third` bytes each, `c[2]` over the rest.
    fn join(&self, c: [u32; 3], third: usize, len: usize) -> u32 {
        if third == 0 {
            return c[2];
        }
        let first_two = self.shift(third).combine(c[0], c[1]);
        self.shift(len - 2 * third).combine(first_two, c[2])
    }

    /// The CRC-32C of each check block of a chunk's payload `data`, from the three chains
    /// `c` (as for [`Codec::join`]) when the blocks are the thirds, or from `crc`, the whole
    /// payload's, when there is one block; another pass over `data` otherwise.
    fn block_crcs(&self, data: &[u8], c: [u32; 3], crc: u32) -> Vec<u32> {
        match Blocks::of(data.len(), self.layout.group_data) {
            Blocks::Thirds { .. } => c.to_vec(),
            b if b.count() == 1 => vec![crc],
            b => b.crcs(data),
        }
    }

    /// Groups of each third of a chunk coded before their CRC is taken: one, unless groups
    /// are so small (short codes) that per-group calls would dominate.
    fn batch(&self) -> usize {
        (1024 / self.layout.group_data).max(1)
    }

    /// A group's payload cut in three pieces of whole words.
    fn cuts(&self) -> [usize; 4] {
        let gd = self.layout.group_data;
        let a = gd / 24 * 8;
        [0, a, 2 * a, gd]
    }

    /// Encodes one group: the payload `g` (`group_data` bytes) into `o` (`group_bytes`).
    #[inline]
    fn encode_group<const B: usize>(&self, g: &[u8], o: &mut [u8], s: &mut Scratch<B>) {
        let l = &self.layout;
        let (gd, rb) = (l.group_data, l.row_bytes);
        let (odata, opar) = o.split_at_mut(gd);
        if let Some(fast) = self.fast
            && self
                .kernel
                .group64::<true>(fast, &g[..gd], odata, &mut s.words)
        {
            for (w, dst) in s.words.iter().zip(opar.chunks_exact_mut(8)) {
                dst.copy_from_slice(&w.to_le_bytes());
            }
            return;
        }
        if rb == 8 * B {
            // One lane block per row: the kernel copies the data rows as it reads them.
            self.kernel.parity_copy::<B, true>(
                self.avx2,
                &g[..gd],
                odata,
                &mut s.par,
                &mut s.kernel,
            );
            for (v, dst) in s.par.iter().zip(opar.chunks_exact_mut(rb)) {
                v.store(dst);
            }
            return;
        }
        odata.copy_from_slice(&g[..gd]);
        self.parity_of_rows([odata, &[]], opar, s);
    }

    /// The parity rows `opar` of a group's data rows `data` (those of `data[0]`, then those
    /// of `data[1]`), lane block by lane block: each block's rows gathered when a row spans
    /// several blocks, then the kernel.
    fn parity_of_rows<const B: usize>(
        &self,
        data: [&[u8]; 2],
        opar: &mut [u8],
        s: &mut Scratch<B>,
    ) {
        let (rb, k) = (self.layout.row_bytes, self.layout.k);
        for off in (0..rb).step_by(8 * B) {
            let rows = block_rows::<B>(data, k, rb, off, &mut s.gather);
            self.kernel
                .parity(self.avx2, rows, &mut s.par, &mut s.kernel);
            for (v, dst) in s.par.iter().zip(opar.chunks_exact_mut(rb)) {
                v.store(&mut dst[off..]);
            }
        }
    }

    /// Encodes whole groups: `data` is a multiple of the group payload, `out` the same number
    /// of groups.
    pub fn encode_groups(&self, data: &[u8], out: &mut [u8]) {
        by_width!(self.encode_groups_b(data, out))
    }

    fn encode_groups_b<const B: usize>(&self, data: &[u8], out: &mut [u8]) {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        debug_assert_eq!(data.len() / gd * gb, out.len());
        let mut s = self.scratch::<B>();
        self.encode_run(data, out, &mut s);
    }

    /// Encodes consecutive whole groups: through [`Kernel::encode_run`] when their rows are
    /// one lane block and no single-word fast path applies, else group by group.
    #[inline]
    fn encode_run<const B: usize>(&self, data: &[u8], out: &mut [u8], s: &mut Scratch<B>) {
        let l = &self.layout;
        let (gd, gb) = (l.group_data, l.group_bytes);
        if l.row_bytes == 8 * B && self.fast.is_none() {
            let (par, scratch) = (&mut s.par, &mut s.kernel);
            return self
                .kernel
                .encode_run::<B>(self.avx2, data, out, gd, gb, par, scratch);
        }
        for (g, o) in data.chunks_exact(gd).zip(out.chunks_exact_mut(gb)) {
            self.encode_group(g, o, s);
        }
    }

    /// Encodes one chunk (`1..=chunk_size` bytes) into `out` (exactly its encoded size) and
    /// returns its CRC-32C.
    pub fn encode_chunk(&self, data: &[u8], index: u64, out: &mut [u8]) -> u32 {
        by_width!(self.encode_chunk_b(data, index, out))
    }

    fn encode_chunk_b<const B: usize>(&self, data: &[u8], index: u64, out: &mut [u8]) -> u32 {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        let groups = self.layout.groups_for(data.len());
        debug_assert_eq!(out.len(), groups * gb);
        let area = groups * gd;
        let tail_len = self.layout.tail(data.len());
        let direct = data.len().min(area - tail_len) / gd;
        let mut s = self.scratch::<B>();
        if groups == 1 && self.layout.row_bytes > 8 * B {
            return self.encode_deep(data, index, out, &mut s);
        }
        // The groups of the chunk's three thirds side by side: three independent CRC chains
        // over bytes the encoder has just brought into cache, joined at the end.
        let third = direct / 3;
        let cut = self.cuts();
        let mut c = [0u32; 3];
        if third > 0 {
            let batch = self.batch();
            if batch == 1 || self.fused.is_some() {
                for i in 0..third {
                    let at = [i, i + third, i + 2 * third];
                    if let Some(fused) = self.fused {
                        let g = at.map(|j| &data[j * gd..(j + 1) * gd]);
                        let [o0, o1, o2] = thirds(&mut out[i * gb..], third * gb, gb);
                        let (d0, p0) = o0.split_at_mut(gd);
                        let (d1, p1) = o1.split_at_mut(gd);
                        let (d2, p2) = o2.split_at_mut(gd);
                        if let Some((par, next)) =
                            self.kernel.group64_crc3(fused, g, [d0, d1, d2], cut, c)
                        {
                            for (words, p) in par.iter().zip([p0, p1, p2]) {
                                for (w, dst) in words.iter().zip(p.chunks_exact_mut(8)) {
                                    dst.copy_from_slice(&w.to_le_bytes());
                                }
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
        if rb > 8 * B || rb >= 512 {
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
    fn encode_deep<const B: usize>(
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
        let tail_len = self.layout.tail(data.len());
        let (odata, opar) = out.split_at_mut(gd);
        let b = Blocks::of(data.len(), gd);
        let crcs: Vec<u32> = (0..b.count())
            .map(|i| self.copy_crc(&mut odata[b.range(i)], &data[b.range(i)]))
            .collect();
        let crc = self.join_blocks(&b, &crcs);
        let tail = if tail_len == TAIL {
            tail_bytes(index, data.len(), crc).to_vec()
        } else {
            tail_bytes_v2(index, data.len(), &crcs)
        };
        let whole = data.len() / rb * rb;
        let end = &mut odata[whole..];
        fill_region(end, whole, data, gd - tail_len, &tail);
        let mut par = vec![0u8; gb - gd];
        self.parity_of_rows([&data[..whole], end], &mut par, s);
        nt::copy(opar, &par);
        crc
    }

    /// Decodes one group `genc` (group number `group` of its chunk) into its payload `o`,
    /// correcting it there.
    #[inline]
    fn decode_group<const B: usize>(
        &self,
        genc: &[u8],
        o: &mut [u8],
        group: usize,
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) {
        let l = &self.layout;
        let (gd, rb, k) = (l.group_data, l.row_bytes, l.k);
        let (edata, epar) = genc.split_at(gd);
        stats.codewords += l.interleave as u64;
        if B == 1
            && let Some(fast) = self.fast
            && self.kernel.group64::<true>(fast, edata, o, &mut s.words)
        {
            let mut nz = V::<B>::zero();
            for ((sy, w), prow) in s.par.iter_mut().zip(&s.words).zip(epar.chunks_exact(8)) {
                sy.0[0] = w ^ u64::from_le_bytes(prow.try_into().expect("8 bytes"));
                nz.0[0] |= sy.0[0];
            }
            if !nz.is_zero() {
                self.fix_block(genc, o, 0, &s.par, nz, group, stats, &mut 0);
            }
            return;
        }
        let single = rb == 8 * B;
        if !single {
            o.copy_from_slice(edata);
        }
        // With one word per row the decoder's kernel is faster portable (0.26x memcpy against
        // 0.16x for alien:5x5 at `D = 64` with AVX2, docs/benchmarks.md).
        let avx2 = self.avx2.filter(|_| B > 1);
        for off in (0..rb).step_by(8 * B) {
            if single {
                // One lane block per row: the kernel copies the data rows as it reads them.
                self.kernel
                    .parity_copy::<B, true>(avx2, edata, o, &mut s.par, &mut s.kernel);
            } else {
                let rows = block_rows::<B>([edata, &[]], k, rb, off, &mut s.gather);
                self.kernel.parity(avx2, rows, &mut s.par, &mut s.kernel);
            }
            let nz = kernel::add_received(&mut s.par, epar, rb, off);
            if nz.is_zero() {
                continue;
            }
            self.fix_block(genc, o, off, &s.par, nz, group, stats, &mut 0);
        }
    }

    /// Decodes whole groups (`enc` is a multiple of the group size) into their payload in
    /// `out`, correcting it there. Groups are numbered from `stats.codewords / D`.
    pub fn decode_groups(&self, enc: &[u8], out: &mut [u8], stats: &mut ChunkStats) {
        by_width!(self.decode_groups_b(enc, out, stats))
    }

    fn decode_groups_b<const B: usize>(&self, enc: &[u8], out: &mut [u8], stats: &mut ChunkStats) {
        let l = &self.layout;
        let (gd, gb) = (l.group_data, l.group_bytes);
        debug_assert_eq!(enc.len() / gb * gd, out.len());
        let mut s = self.scratch::<B>();
        let first = stats.codewords as usize / l.interleave;
        self.decode_run(enc, out, first, &mut s, stats);
    }

    /// Decodes consecutive whole groups, the first numbered `first`: the clean ones through
    /// [`Kernel::clean_run`] when their rows are one lane block and no single-word fast path
    /// applies, else group by group.
    #[inline]
    fn decode_run<const B: usize>(
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
        if l.row_bytes != 8 * B || self.fast.is_some() {
            let runs = enc.chunks_exact(gb).zip(out.chunks_exact_mut(gd));
            for (g, (genc, o)) in runs.enumerate() {
                self.decode_group(genc, o, first + g, s, stats);
            }
            return;
        }
        // With one word per row the decoder's kernel is faster portable (0.26x memcpy against
        // 0.16x for alien:5x5 at `D = 64` with AVX2, docs/benchmarks.md).
        let avx2 = self.avx2.filter(|_| B > 1);
        let mut at = 0;
        while at < groups {
            let (e, o) = (&enc[at * gb..], &mut out[at * gd..]);
            let (syn, scratch) = (&mut s.par, &mut s.kernel);
            let clean = self.kernel.clean_run::<B>(avx2, e, o, gd, gb, syn, scratch);
            stats.codewords += (clean * l.interleave) as u64;
            at += clean;
            if at == groups {
                break;
            }
            // Group `at`: its data rows are copied and its syndrome is in `s.par`.
            stats.codewords += l.interleave as u64;
            let nz = s.par.iter().fold(V::<B>::zero(), |a, &x| a | x);
            let genc = &enc[at * gb..(at + 1) * gb];
            let o = &mut out[at * gd..(at + 1) * gd];
            self.fix_block(genc, o, 0, &s.par, nz, first + at, stats, &mut 0);
            at += 1;
        }
    }

    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn fix_block<const B: usize>(
        &self,
        genc: &[u8],
        out: &mut [u8],
        off: usize,
        syn: &[V<B>],
        nz: V<B>,
        group: usize,
        stats: &mut ChunkStats,
        touched: &mut u128,
    ) {
        for t in 0..B {
            let mut word = nz.0[t];
            while word != 0 {
                let bit = word.trailing_zeros() as usize;
                word &= word - 1;
                let lane = (off / 8 + t) * 64 + bit;
                let key = if !self.locator.wants_key() {
                    0
                } else {
                    syn.iter()
                        .enumerate()
                        .fold(0u64, |a, (q, s)| a | (((s.0[t] >> bit) & 1) << q))
                };
                if !self.fix_lane(genc, out, lane, key, stats, touched) {
                    stats.uncorrectable += 1;
                    match stats.bad_lanes.last_mut() {
                        Some((gg, mask)) if *gg == group => mask[lane / 64] |= 1 << (lane % 64),
                        _ => {
                            let mut mask = vec![0u64; self.layout.interleave / 64];
                            mask[lane / 64] |= 1 << (lane % 64);
                            stats.bad_lanes.push((group, mask));
                        }
                    }
                }
            }
        }
    }

    /// Corrects one lane with a nonzero syndrome; false when the decoder gives up.
    fn fix_lane(
        &self,
        genc: &[u8],
        data: &mut [u8],
        lane: usize,
        key: u64,
        stats: &mut ChunkStats,
        touched: &mut u128,
    ) -> bool {
        let (rb, k) = (self.layout.row_bytes, self.layout.k);
        let (byte, mask) = (lane / 8, 1u8 << (lane % 8));
        let fix = self
            .locator
            .fix_lane(key, |row| genc[row * rb + byte] & mask != 0);
        stats.corrected_bits += fix.bits();
        fix.apply(|row| {
            if row < k {
                data[row * rb + byte] ^= mask;
                *touched |= 1u128.checked_shl(row as u32).unwrap_or(0);
            }
        })
    }

    /// Decodes one chunk of `enc.len() / group_bytes` groups carrying `len` payload bytes
    /// into `out` (the chunk's payload area, `groups * group_data` bytes, of which the first
    /// `len` are the payload) and checks the tail.
    ///
    /// A chunk verifies when its tail names `index` and `len` and every check block's CRC-32C
    /// matches. When it does not, `ranges` is every check block that failed, or the whole
    /// chunk when the tail itself cannot be trusted: no byte outside them is unproven.
    pub fn decode_chunk(&self, enc: &[u8], index: u64, len: usize, out: &mut [u8]) -> ChunkCheck {
        let h = self.whole_groups(enc, len) * self.layout.group_data;
        let (head, rest) = out.split_at_mut(h);
        let (sums, stats) = self.decode_chunk_parts(enc, len, head, rest);
        let n = len.min(out.len());
        self.verdict(sums, stats, index, len, out, out.len(), &out[..n])
    }

    /// [`Codec::decode_chunk`] into exactly the payload's place (`out` is `len` bytes, at
    /// most the area): the groups past the payload's whole groups, which hold the tail, are
    /// decoded into a scratch buffer and their payload bytes copied. The threaded decoder
    /// uses it where the area would reach into the next chunk's place.
    pub fn decode_chunk_exact(
        &self,
        enc: &[u8],
        index: u64,
        len: usize,
        out: &mut [u8],
    ) -> ChunkCheck {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        let area = enc.len() / gb * gd;
        debug_assert!(out.len() == len && len <= area);
        let h = self.whole_groups(enc, len) * gd;
        let mut rest = vec![0u8; area - h];
        let (sums, stats) = self.decode_chunk_parts(enc, len, &mut out[..h], &mut rest);
        out[h..].copy_from_slice(&rest[..len - h]);
        self.verdict(sums, stats, index, len, &rest, area, out)
    }

    /// Groups of a chunk that the payload fills: those the kernels decode a third at a time.
    fn whole_groups(&self, enc: &[u8], len: usize) -> usize {
        (len / self.layout.group_data).min(enc.len() / self.layout.group_bytes)
    }

    /// The groups of a chunk carrying `len` bytes decoded: its first whole groups into
    /// `head`, the rest into `rest`; returns the CRC sums it took and the statistics.
    fn decode_chunk_parts(
        &self,
        enc: &[u8],
        len: usize,
        head: &mut [u8],
        rest: &mut [u8],
    ) -> (Sums, ChunkStats) {
        let (sums, mut stats) = by_width!(self.decode_chunk_b(enc, len, head, rest));
        // Groups were decoded a third of the chunk apart: put their lane masks in order.
        stats.bad_lanes.sort_by_key(|(g, _)| *g);
        (sums, stats)
    }

    /// The verdict on a decoded chunk: `end` is the last bytes of its area of `area` bytes
    /// (where the tail is), `payload` its first `min(len, area)` bytes.
    #[allow(clippy::too_many_arguments)]
    fn verdict(
        &self,
        sums: Sums,
        stats: ChunkStats,
        index: u64,
        len: usize,
        end: &[u8],
        area: usize,
        payload: &[u8],
    ) -> ChunkCheck {
        let n = len.min(area);
        let Sums { c, third, crcs } = sums;
        let pieces = self.by_pieces(len, area);
        let (crcs, crc) = self.chunk_crc(pieces, c, third, &payload[..n], crcs);
        let whole = vec![(0, len as u64)];
        let Some(tail) = read_tail_end(end, area, &self.layout) else {
            return ChunkCheck::failed(stats, crc, 0, whole);
        };
        let stored = tail.crcs[0];
        if tail.index != index || tail.len != len {
            return ChunkCheck::failed(stats, crc, stored, whole);
        }
        let ranges = if tail.crcs.len() == 1 {
            // One block: the CRC the kernels took as they decoded.
            if stored == crc { Vec::new() } else { whole }
        } else {
            let blocks = Blocks::of(len, self.layout.group_data);
            let mut ranges = Vec::new();
            let crcs = crcs.unwrap_or_else(|| self.block_crcs(&payload[..len], c, crc));
            for (b, (got, want)) in crcs.iter().zip(&tail.crcs).enumerate() {
                if got != want {
                    let r = blocks.range(b);
                    push_range(&mut ranges, r.start as u64, r.end as u64);
                }
            }
            ranges
        };
        ChunkCheck {
            ok: ranges.is_empty(),
            stats,
            crc,
            stored_crc: stored,
            tail_ok: true,
            ranges,
        }
    }

    /// What correcting a group's received data rows `received` into `fixed` (single-word
    /// rows; the rows the decoder changed are among the bits of `touched`) does to a CRC-32C
    /// register that took `received`: the CRC is linear, so the register that takes `fixed`
    /// instead differs by the CRC of the change alone (from a zero register, without
    /// inversions), the sum over the changed words of each word's CRC moved past the words
    /// after it. `fused` shows that the CPU runs the CRC shift keys ([`ZeroKey`]).
    fn crc_of_change(
        &self,
        fused: Fused64,
        received: &[u8],
        fixed: &[u8],
        mut touched: u128,
    ) -> u32 {
        let _ = fused;
        assert!(
            self.word_keys.len() <= 128,
            "fused groups have at most 128 rows"
        );
        let (r, _) = received.as_chunks::<8>();
        let (f, _) = fixed.as_chunks::<8>();
        let mut reg = 0;
        while touched != 0 {
            let i = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            let change = u64::from_le_bytes(r[i]) ^ u64::from_le_bytes(f[i]);
            if change != 0 {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `fused` (`Kernel::fused64`) shows that the CPU has PCLMULQDQ and
                // SSE4.2.
                unsafe {
                    reg ^= self.word_keys[i].apply(ZeroKey::word(change));
                }
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("fused kernels are x86-64 only: {change}");
            }
        }
        reg
    }

    /// Decodes the groups of one chunk and returns the CRC sums of its first `len` bytes (as
    /// for [`Codec::decode_chunk_parts`]).
    fn decode_chunk_b<const B: usize>(
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
        let mut c = [0u32; 3];
        if third > 0 {
            // Groups from each third, a batch at a time (one group unless they are small),
            // then the CRC over the three batches just decoded.
            let batch = self.batch();
            let cut = self.cuts();
            for i in (0..third).step_by(batch) {
                if B == 1
                    && let Some(fused) = self.fused
                {
                    // One group from each third at a time, the CRC taken by the kernel over
                    // the received data rows, then mended for any group the decoder fixed.
                    for i in i..(i + batch).min(third) {
                        let at = [i, i + third, i + 2 * third];
                        let genc = at.map(|j| &enc[j * gb..(j + 1) * gb]);
                        let o = thirds(&mut out[i * gd..], third * gd, gd);
                        let edata = genc.map(|g| &g[..gd]);
                        let (par, next) = self
                            .kernel
                            .group64_crc3(fused, edata, o, cut, c)
                            .expect("a fused kernel");
                        c = next;
                        for (q, &j) in at.iter().enumerate() {
                            stats.codewords += self.layout.interleave as u64;
                            let mut nz = V::<B>::zero();
                            let epar = genc[q][gd..].chunks_exact(8);
                            for ((sy, w), prow) in s.par.iter_mut().zip(&par[q]).zip(epar) {
                                sy.0[0] = w ^ u64::from_le_bytes(prow.try_into().expect("8 bytes"));
                                nz.0[0] |= sy.0[0];
                            }
                            if !nz.is_zero() {
                                let o = &mut out[j * gd..(j + 1) * gd];
                                let mut touched = 0u128;
                                self.fix_block(
                                    genc[q],
                                    o,
                                    0,
                                    &s.par,
                                    nz,
                                    j,
                                    &mut stats,
                                    &mut touched,
                                );
                                c[q] ^= self.crc_of_change(fused, edata[q], o, touched);
                            }
                        }
                    }
                    continue;
                }
                let n = batch.min(third - i);
                for q in 0..3 {
                    let j = q * third + i;
                    let genc = &enc[j * gb..(j + n) * gb];
                    let o = &mut out[j * gd..(j + n) * gd];
                    self.decode_run(genc, o, j, &mut s, &mut stats);
                }
                let r = |q: usize| &out[(q * third + i) * gd..(q * third + i + n) * gd];
                c = crc::append3(self.sse42, c, r(0), r(1), r(2));
            }
        }
        // A chunk of one group of kilobyte rows, as the encoder's ([`Codec::encode_deep`]).
        if groups == 1 && len < gd && self.layout.row_bytes > 8 * B {
            let crcs = self.decode_deep(enc, len, &mut rest[..gd], &mut s, &mut stats);
            let crcs = Some(crcs);
            return (Sums { c, third: 0, crcs }, stats);
        }
        // The CRC chain of the rest, unless the verdict joins it from the pieces' CRCs.
        let pieces = self.by_pieces(len, groups * gd);
        for j in 3 * third..groups {
            let genc = &enc[j * gb..(j + 1) * gb];
            let o = if j < h {
                &mut out[j * gd..(j + 1) * gd]
            } else {
                &mut rest[(j - h) * gd..(j - h + 1) * gd]
            };
            self.decode_group(genc, o, j, &mut s, &mut stats);
            if !pieces {
                let payload = len.saturating_sub(j * gd).min(gd);
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

    /// Decodes a chunk that is one group `genc` of rows spanning several lane blocks (deep
    /// interleaving) into `o`, its payload area; returns the CRC-32C of each check block of
    /// its `len` decoded payload bytes.
    ///
    /// The first lane block's syndrome is taken first. When it is not zero the group is
    /// noisy, and it is decoded as any group ([`Codec::decode_group`]: copied into cache,
    /// corrected there), its CRCs taken after. Otherwise the received data rows are
    /// streamed to `o`, each check block's CRC taken on the way ([`Codec::copy_crc`]: one
    /// sequential read that brings the rows into cache, and no read of `o`), the parity rows
    /// are read once in order for the same reason (the kernels read a line or so of each
    /// row kilobytes apart, which from memory runs far below a sequential read), and the
    /// other lane blocks' syndromes follow; a lane to correct there is corrected in `o`, and
    /// the CRCs are taken again from `o`.
    fn decode_deep<const B: usize>(
        &self,
        genc: &[u8],
        len: usize,
        o: &mut [u8],
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) -> Vec<u32> {
        let l = &self.layout;
        let (gd, rb, k) = (l.group_data, l.row_bytes, l.k);
        let (edata, epar) = genc.split_at(gd);
        let b = Blocks::of(len, gd);
        let syndrome = |off: usize, s: &mut Scratch<B>| {
            let rows = block_rows::<B>([edata, &[]], k, rb, off, &mut s.gather);
            self.kernel
                .parity(self.avx2, rows, &mut s.par, &mut s.kernel);
            kernel::add_received(&mut s.par, epar, rb, off)
        };
        if !syndrome(0, s).is_zero() {
            self.decode_group(genc, o, 0, s, stats);
            return b.crcs(&o[..len]);
        }
        stats.codewords += l.interleave as u64;
        let crcs: Vec<u32> = (0..b.count())
            .map(|i| self.copy_crc(&mut o[b.range(i)], &edata[b.range(i)]))
            .collect();
        o[len..].copy_from_slice(&edata[len..]);
        touch(epar);
        let mut clean = true;
        for off in (8 * B..rb).step_by(8 * B) {
            let nz = syndrome(off, s);
            if !nz.is_zero() {
                self.fix_block(genc, o, off, &s.par, nz, 0, stats, &mut 0);
                clean = false;
            }
        }
        if clean { crcs } else { b.crcs(&o[..len]) }
    }
}

/// Reads one word of every 64-byte line of `bytes`, in order, so that they are in cache
/// for the strided reads that follow.
fn touch(bytes: &[u8]) {
    let (words, _) = bytes.as_chunks::<8>();
    let sum = words
        .iter()
        .step_by(8)
        .fold(0u64, |a, w| a ^ u64::from_ne_bytes(*w));
    std::hint::black_box(sum);
}

/// The CRC-32C sums a decoder took of a chunk's payload, for [`Codec::verdict`]: the three
/// chains (the first two over `third` bytes each), and the check blocks' CRCs when it took
/// them ([`Codec::decode_deep`]).
struct Sums {
    c: [u32; 3],
    third: usize,
    crcs: Option<Vec<u32>>,
}

/// The verdict on one decoded chunk.
#[derive(Debug)]
pub struct ChunkCheck {
    /// Decoder statistics.
    pub stats: ChunkStats,
    /// CRC-32C of the payload as decoded.
    pub crc: u32,
    /// CRC-32C the tail stores (its first check block's in version 2).
    pub stored_crc: u32,
    /// Whether the tail's index and length are the expected ones.
    pub tail_ok: bool,
    /// Whether the chunk verified.
    pub ok: bool,
    /// Damaged byte ranges within the chunk payload (empty when verified).
    pub ranges: Vec<(u64, u64)>,
}

impl ChunkCheck {
    fn failed(stats: ChunkStats, crc: u32, stored_crc: u32, ranges: Vec<(u64, u64)>) -> Self {
        ChunkCheck {
            stats,
            crc,
            stored_crc,
            tail_ok: false,
            ok: false,
            ranges,
        }
    }
}

/// Encoder state: header, chunks (with their frames and recovery chunks in version 2), end.
#[derive(Debug)]
pub struct EncodeCore {
    codec: Codec,
    /// Appends a full chunk's length of zeros to a CRC.
    full: Shift,
    header: [u8; BLOCK],
    info: StreamInfo,
    plan: Option<Plan>,
    stripes: Option<StripeEncoder>,
    meta: Option<Vec<u8>>,
    /// A recovery shard padded to whole groups.
    shard: Vec<u8>,
    index: u64,
    total: u64,
    crc: u32,
    /// The threads that encode a batch of chunks.
    workers: Workers,
}

impl EncodeCore {
    /// A core for a layout (already checked), the stream's id, its recovery plan (version 2
    /// only) and its metadata body.
    pub fn new(
        layout: Layout,
        stream_id: u64,
        plan: Option<Plan>,
        meta: Option<Vec<u8>>,
    ) -> Result<EncodeCore> {
        let info = StreamInfo {
            stream_id,
            stripe: plan.map_or(0, |p| p.stripe as u32),
            recovery: plan.map_or(0, |p| p.recovery as u32),
        };
        let header = header_block(&layout, &info);
        let stripes = match plan {
            Some(p) => Some(StripeEncoder::new(p, layout.chunk_size)?),
            None => None,
        };
        Ok(EncodeCore {
            full: Shift::new(layout.chunk_size),
            codec: Codec::new(layout, false),
            header,
            info,
            plan,
            stripes,
            meta,
            shard: Vec::new(),
            index: 0,
            total: 0,
            crc: 0,
            workers: Workers::default(),
        })
    }

    /// Encodes on `threads` threads (`0`: every core); the stream is the same for any
    /// count.
    pub fn set_threads(&mut self, threads: usize) {
        self.workers = Workers::new(threads);
    }

    /// Chunks encoded in one batch ([`parallel::CHUNKS_PER_THREAD`] per thread, at most
    /// [`parallel::MAX_BATCH_BYTES`] of encoded chunks).
    pub fn batch(&self) -> usize {
        self.workers.batch_of(self.codec.layout.chunk_bytes + FRAME)
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.codec.layout
    }

    fn v1(&self) -> bool {
        self.codec.layout.version == VERSION_1
    }

    fn frame(&self, kind: Kind) -> Frame {
        Frame::new(kind, &self.codec.layout, self.plan, self.info.stream_id)
    }

    /// Appends the header region (and, in version 2, the metadata frame).
    pub fn start(&self, out: &mut Buf) {
        let mut region = Vec::with_capacity(self.codec.layout.region());
        region_bytes(&self.header, self.codec.layout.slot, &mut region);
        out.extend(&region);
        if let (false, Some(meta)) = (self.v1(), &self.meta) {
            let mut f = self.frame(Kind::Meta);
            f.length = meta.len() as u64;
            f.check = crc32c::crc32c(meta);
            out.extend(&f.to_bytes());
            out.extend(meta);
        }
    }

    /// Appends one chunk (`1..=chunk_size` bytes), and a stripe's recovery chunks when it
    /// completes one.
    pub fn chunk(&mut self, data: &[u8], out: &mut Buf) -> Result<()> {
        debug_assert!(!data.is_empty() && data.len() <= self.codec.layout.chunk_size);
        self.chunks(data, out)
    }

    /// Appends consecutive chunks: `data` is whole chunks, the last one possibly shorter (a
    /// stream's last chunk). A batch of [`EncodeCore::batch`] chunks of one stripe at a time
    /// is encoded (the chunks split into runs, [`Workers::parts`] of them) and then added to
    /// the recovery coder together (its shards split into as many byte ranges), while they are
    /// still in cache, so that its accumulators are read and written once per batch.
    pub fn chunks(&mut self, data: &[u8], out: &mut Buf) -> Result<()> {
        let cs = self.codec.layout.chunk_size;
        let mut rest = data;
        while !rest.is_empty() {
            let room = match (&self.stripes, self.plan) {
                (Some(st), Some(p)) => p.stripe - st.added(),
                _ => usize::MAX,
            };
            let n = rest.len().div_ceil(cs).min(self.batch()).min(room);
            let (batch, after) = rest.split_at((n * cs).min(rest.len()));
            let chunks: Vec<&[u8]> = batch.chunks(cs).collect();
            self.encode_batch(&chunks, out);
            if let Some(st) = &mut self.stripes {
                st.add_many_on(&chunks, &self.workers)?;
                if st.full() {
                    self.recovery_chunks(out)?;
                }
            }
            rest = after;
        }
        Ok(())
    }

    /// Appends consecutive data chunks, each with its frame (version 2) and groups: the
    /// chunks are coded in runs ([`Workers::parts`]), each into its own part of `out`; their CRCs
    /// are then joined into the stream's in order.
    fn encode_batch(&mut self, chunks: &[&[u8]], out: &mut Buf) {
        let l = &self.codec.layout;
        let frame = (!self.v1()).then(|| self.frame(Kind::Data));
        let head = if frame.is_some() { FRAME } else { 0 };
        let sizes: Vec<usize> = chunks
            .iter()
            .map(|c| head + l.groups_for(c.len()) * l.group_bytes)
            .collect();
        let mut dst = out.grow(sizes.iter().sum());
        let mut jobs = Vec::new();
        for run in parallel::runs(chunks.len(), self.workers.parts()) {
            let (mine, after) = dst.split_at_mut(sizes[run.clone()].iter().sum());
            dst = after;
            let (codec, first) = (&self.codec, self.index + run.start as u64);
            let (data, sizes) = (&chunks[run.clone()], &sizes[run]);
            jobs.push(move || encode_run(codec, frame, first, data, sizes, mine));
        }
        let crcs = self.workers.run(jobs);
        for (c, crc) in chunks.iter().zip(crcs.into_iter().flatten()) {
            self.crc = combine(&self.full, self.crc, crc, c.len());
            self.index += 1;
            self.total += c.len() as u64;
        }
    }

    /// Appends the recovery chunks of the stripe that has just ended.
    fn recovery_chunks(&mut self, out: &mut Buf) -> Result<()> {
        let Some(st) = &mut self.stripes else {
            return Ok(());
        };
        let data = st.added();
        let stripe = (self.index - data as u64) / self.plan.map_or(1, |p| p.stripe as u64);
        let count = self.plan.map_or(0, |p| p.recovery_for(data));
        let mut f = Frame::new(
            Kind::Recovery,
            &self.codec.layout,
            self.plan,
            self.info.stream_id,
        );
        f.index = stripe;
        let (codec, shard) = (&self.codec, &mut self.shard);
        st.finish(|number, s| {
            f.length = StripeShape {
                data: data as u16,
                recovery: count as u16,
                number: number as u16,
            }
            .pack();
            f.check = crc32c::crc32c(s);
            out.extend(&f.to_bytes());
            let l = &codec.layout;
            let groups = recovery_groups(l);
            shard.clear();
            shard.extend_from_slice(s);
            shard.resize(groups * l.group_data, 0);
            codec.encode_groups(shard, out.grow(groups * l.group_bytes));
            Ok(())
        })?;
        Ok(())
    }

    /// Appends the last stripe's recovery chunks and the end (version 2: three copies of the
    /// end frame; version 1: the trailer region).
    pub fn finish(&mut self, out: &mut Buf) -> Result<()> {
        let slot = self.codec.layout.slot;
        let block = if self.v1() {
            let t = Trailer {
                total_len: self.total,
                chunks: self.index,
                crc: self.crc,
            };
            trailer_block(&t, format::block_crc(&self.header))
        } else {
            // Copy 0 goes before the last stripe's recovery chunks, copies 1 and 2 after
            // them, so that no single sector holds all three when there are some.
            let mut f = self.frame(Kind::End);
            f.index = self.index;
            f.length = self.total;
            f.check = self.crc;
            for copy in 0..3 {
                f.copy = copy;
                out.extend(&f.to_bytes());
                out.grow(slot - BLOCK).fill(0);
                if copy == 0 {
                    self.recovery_chunks(out)?;
                }
            }
            return Ok(());
        };
        let mut region = Vec::with_capacity(self.codec.layout.region());
        region_bytes(&block, slot, &mut region);
        out.extend(&region);
        Ok(())
    }
}

/// Encodes consecutive chunks numbered from `first` into `out`, each taking its `sizes`
/// bytes: its frame (when `frame` is the stream's data frame) and its groups. Returns the
/// chunks' CRC-32Cs.
fn encode_run(
    codec: &Codec,
    frame: Option<Frame>,
    first: u64,
    chunks: &[&[u8]],
    sizes: &[usize],
    mut out: &mut [u8],
) -> Vec<u32> {
    let mut crcs = Vec::with_capacity(chunks.len());
    for (j, (data, &size)) in chunks.iter().zip(sizes).enumerate() {
        let index = first + j as u64;
        let (mut dst, after) = std::mem::take(&mut out).split_at_mut(size);
        out = after;
        if let Some(mut f) = frame {
            f.index = index;
            f.length = data.len() as u64;
            let (head, body) = dst.split_at_mut(FRAME);
            head.copy_from_slice(&f.to_bytes());
            dst = body;
        }
        crcs.push(codec.encode_chunk(data, index, dst));
    }
    crcs
}

/// Groups that hold one recovery shard.
pub fn recovery_groups(l: &Layout) -> usize {
    shard_bytes(l.chunk_size).div_ceil(l.group_data)
}

/// Decoder state: everything after the header.
#[derive(Debug)]
pub struct DecodeCore {
    codec: Codec,
    full: Shift,
    header: Header,
    header_crc: u32,
    lenient: bool,
    report: Report,
    index: u64,
    crc: u32,
}

impl DecodeCore {
    /// A core for a header found by [`format::probe_header`].
    pub fn new(layout: Layout, block: &[u8; BLOCK], corrected_bits: u64) -> DecodeCore {
        let header = Header::from_layout(&layout, 0, None);
        let report = Report {
            corrected_bits,
            header_corrected_bits: corrected_bits,
            bytes_in: layout.region() as u64,
            spec: layout.spec.to_string(),
            interleave: layout.interleave as u64,
            chunk_size: layout.chunk_size as u64,
            checksum_ok: true,
            ..Report::default()
        };
        DecodeCore {
            full: Shift::new(layout.chunk_size),
            codec: Codec::new(layout, true),
            header,
            header_crc: format::block_crc(block),
            lenient: false,
            report,
            index: 0,
            crc: 0,
        }
    }

    /// Lenient (keep damaged data, record it) or strict (fail on it).
    pub fn set_lenient(&mut self, yes: bool) {
        self.lenient = yes;
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The report so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.codec.layout
    }

    /// Decodes the chunk `enc` carrying `len` bytes, appending to `out`. In strict mode an
    /// unverified chunk is an error and nothing of it is appended.
    fn chunk_of(&mut self, enc: &[u8], len: usize, out: &mut Buf) -> Result<()> {
        let start = out.len();
        let l = &self.codec.layout;
        let offset = self.index * l.chunk_size as u64;
        let area = out.grow(enc.len() / l.group_bytes * l.group_data);
        let check = self.codec.decode_chunk(enc, self.index, len, area);
        out.truncate(start + len);
        let r = &mut self.report;
        r.bytes_in += enc.len() as u64;
        r.codewords += check.stats.codewords;
        r.corrected_bits += check.stats.corrected_bits;
        r.uncorrectable_codewords += check.stats.uncorrectable;
        r.chunks += 1;
        self.crc = combine(&self.full, self.crc, check.crc, len);
        let index = self.index;
        self.index += 1;
        if !check.ok {
            r.checksum_ok = false;
            r.damaged_chunks += 1;
            if !self.lenient {
                out.truncate(start);
                let (a, b) = (offset, offset + len as u64);
                return Err(if check.stats.uncorrectable > 0 {
                    Error::Corrupt {
                        reason: format!(
                            "chunk {index} (bytes {a}..{b}): {} codewords could not be corrected",
                            check.stats.uncorrectable
                        ),
                    }
                } else if !check.tail_ok {
                    Error::Corrupt {
                        reason: format!(
                            "chunk {index} (bytes {a}..{b}): its tail does not name chunk {index} of {len} bytes"
                        ),
                    }
                } else {
                    Error::Checksum {
                        what: format!("chunk {index} (bytes {a}..{b})"),
                        expected: check.stored_crc,
                        got: check.crc,
                    }
                });
            }
            for (a, b) in check.ranges {
                push_range(&mut r.damaged_ranges, offset + a, offset + b);
            }
        }
        r.bytes_out += len as u64;
        Ok(())
    }

    /// Decodes a full chunk (`enc.len() == chunk_bytes`), known to be followed by more than
    /// the trailer.
    pub fn chunk(&mut self, enc: &[u8], out: &mut Buf) -> Result<()> {
        debug_assert_eq!(enc.len(), self.codec.layout.chunk_bytes);
        let len = self.codec.layout.chunk_size;
        self.chunk_of(enc, len, out)
    }

    /// Decodes everything after the full chunks: the last (short) chunk, if any, and the
    /// trailer, then checks the whole stream.
    pub fn finish(&mut self, rest: &[u8], out: &mut Buf) -> Result<()> {
        let l = self.codec.layout.clone();
        let region = l.region();
        let truncated = |reason: String| Error::Truncated { reason };
        if rest.len() < region {
            return Err(truncated(format!(
                "expected a {region}-byte trailer after chunk {}, found {} bytes",
                self.index,
                rest.len()
            )));
        }
        let (body, tr) = rest.split_at(rest.len() - region);
        let Some((trailer, flips)) = read_trailer(tr, l.slot, self.header_crc) else {
            return Err(truncated(format!(
                "no valid trailer in the last {region} bytes after chunk {} (the stream ends early, or its trailer is damaged beyond repair)",
                self.index
            )));
        };
        self.report.trailer_corrected_bits = flips;
        self.report.corrected_bits += flips;
        let cs = l.chunk_size as u64;
        let chunks = trailer.total_len.div_ceil(cs);
        if trailer.chunks != chunks {
            return Err(Error::Corrupt {
                reason: format!(
                    "trailer names {} chunks for {} bytes, expected {chunks}",
                    trailer.chunks, trailer.total_len
                ),
            });
        }
        let done = self.index;
        if done > chunks || (done == chunks && !body.is_empty()) {
            return Err(Error::Corrupt {
                reason: format!(
                    "expected {chunks} chunks ({} bytes), found more",
                    trailer.total_len
                ),
            });
        }
        if done < chunks {
            let last_len = trailer.total_len - done * cs;
            let need = if last_len > cs {
                l.chunk_bytes as u64 + 1
            } else {
                (l.groups_for(last_len as usize) * l.group_bytes) as u64
            };
            if (body.len() as u64) < need || done + 1 < chunks {
                return Err(truncated(format!(
                    "expected {} chunks ({} bytes), found {done} and {} bytes",
                    chunks,
                    trailer.total_len,
                    body.len()
                )));
            }
            if body.len() as u64 != need {
                return Err(Error::Corrupt {
                    reason: format!(
                        "expected the last chunk in {need} bytes, found {}",
                        body.len()
                    ),
                });
            }
            self.chunk_of(body, last_len as usize, out)?;
        }
        self.report.bytes_in += region as u64;
        if self.crc != trailer.crc {
            self.report.checksum_ok = false;
            if !self.lenient {
                return Err(Error::Checksum {
                    what: "the whole stream".into(),
                    expected: trailer.crc,
                    got: self.crc,
                });
            }
        }
        Ok(())
    }
}

/// An output buffer that reuses initialised memory: the first `len` bytes are in use, and the
/// vector may hold more bytes, already initialised, that growing reuses without zeroing them
/// again (so a buffer reused across calls costs no memset).
#[derive(Debug, Default)]
pub struct Buf {
    bytes: Vec<u8>,
    len: usize,
}

impl Buf {
    /// An empty buffer over a vector's memory (its contents are overwritten).
    pub fn from_vec(bytes: Vec<u8>) -> Buf {
        Buf { bytes, len: 0 }
    }

    /// Bytes in use.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes in use.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Makes `n` more bytes in use and returns them (contents unspecified: what was there,
    /// as written through [`Buf::spare`], or zeros).
    pub fn grow(&mut self, n: usize) -> &mut [u8] {
        let end = self.len + n;
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        let s = &mut self.bytes[self.len..end];
        self.len = end;
        s
    }

    /// Makes exactly `len` bytes in use (new bytes unspecified).
    pub fn resize(&mut self, len: usize) {
        if len > self.len {
            self.grow(len - self.len);
        } else {
            self.len = len;
        }
    }

    /// The bytes `from..to` past those in use (`from >= len`), made available without
    /// changing the length: a later [`Buf::grow`] or [`Buf::resize`] over them keeps what was
    /// written there (the decoder writes chunks ahead into their places this way).
    pub fn spare(&mut self, from: usize, to: usize) -> &mut [u8] {
        assert!(
            self.len <= from && from <= to,
            "spare bytes past those in use"
        );
        if self.bytes.len() < to {
            self.bytes.resize(to, 0);
        }
        &mut self.bytes[from..to]
    }

    /// The bytes in use, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.bytes[..self.len]
    }

    /// Appends bytes.
    pub fn extend(&mut self, src: &[u8]) {
        self.grow(src.len()).copy_from_slice(src);
    }

    /// Keeps the first `len` bytes in use.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Nothing in use.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The bytes in use, as a vector.
    pub fn into_vec(mut self) -> Vec<u8> {
        self.bytes.truncate(self.len);
        self.bytes
    }
}

/// Writes bytes `from..from + dst.len()` of a chunk's last region into `dst`: the region is
/// `rest` (the payload after the whole groups), zeros up to `at`, then `tail`.
fn fill_region(dst: &mut [u8], from: usize, rest: &[u8], at: usize, tail: &[u8]) {
    let to = from + dst.len();
    let clip = |a: usize, b: usize| a.clamp(from, to)..b.clamp(from, to);
    let (r, z, t) = (
        clip(0, rest.len()),
        clip(rest.len(), at),
        clip(at, at + tail.len()),
    );
    // Empty pieces are skipped: their clipped bounds may lie past the source.
    if !r.is_empty() {
        dst[r.start - from..r.end - from].copy_from_slice(&rest[r]);
    }
    dst[z.start - from..z.end - from].fill(0);
    if !t.is_empty() {
        dst[t.start - from..t.end - from].copy_from_slice(&tail[t.start - at..t.end - at]);
    }
}

/// The three pieces of `len` bytes at `0`, `step` and `2 step` of `buf`.
fn thirds(buf: &mut [u8], step: usize, len: usize) -> [&mut [u8]; 3] {
    let (a, rest) = buf.split_at_mut(step);
    let (b, c) = rest.split_at_mut(step);
    [&mut a[..len], &mut b[..len], &mut c[..len]]
}

/// `crc(A ++ B)`, with the prepared operator when `B` is a full chunk.
fn combine(full: &Shift, crc_a: u32, crc_b: u32, len_b: usize) -> u32 {
    if len_b == full.bytes() {
        full.combine(crc_a, crc_b)
    } else {
        Shift::new(len_b).combine(crc_a, crc_b)
    }
}

/// Appends `[a, b)` to sorted, merged ranges (ranges arrive in increasing order).
pub fn push_range(ranges: &mut Vec<(u64, u64)>, a: u64, b: u64) {
    if a >= b {
        return;
    }
    match ranges.last_mut() {
        Some(last) if last.1 >= a => last.1 = last.1.max(b),
        _ => ranges.push((a, b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::Spec;
    use crate::stream::naive;
    use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

    /// A small spec of any family, with every alien shape.
    #[derive(Clone, Debug)]
    struct AnySpec(Spec);

    impl Arbitrary for AnySpec {
        fn arbitrary(g: &mut Gen) -> Self {
            let pick = |g: &mut Gen, lo: usize, hi: usize| lo + usize::arbitrary(g) % (hi - lo + 1);
            let spec = match u8::arbitrary(g) % 6 {
                0 | 1 => Spec::Alien {
                    rows: pick(g, 1, 12),
                    cols: pick(g, 1, 12),
                },
                2 => Spec::Secded(pick(g, 4, 140)),
                3 => Spec::Hamming(pick(g, 3, 140)),
                4 => Spec::Repetition(pick(g, 1, 9)),
                _ => Spec::Parity(pick(g, 2, 40)),
            };
            AnySpec(spec)
        }
    }

    fn layout(spec: &Spec, d: usize) -> Layout {
        Layout::new(spec, d, 0).unwrap()
    }

    fn bytes(seed: u64, len: usize) -> Vec<u8> {
        use rand::{RngCore, SeedableRng};
        let mut v = vec![0u8; len];
        rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut v);
        v
    }

    const DEPTHS: [usize; 8] = [64, 128, 192, 512, 1024, 4096, 8192, 12288];

    /// Every fast path (the kernels that take the CRC themselves three groups at a time,
    /// the single-word AVX2 kernels, the generic kernels compiled for AVX2, the SSE4.2 CRC)
    /// gives the same encoded bytes, CRCs, decoded bytes and reports as the portable
    /// group-by-group path, for codes with and without hand-written kernels and at depths
    /// with one and several lane blocks per row, on clean chunks, at bit error rates up to
    /// far past what the code corrects, and over garbage.
    #[test]
    fn fast_paths_match_the_portable_one() {
        let mut fused_seen = 0;
        for (spec, depth) in [
            ("secded:72", 64),
            ("alien:9x9", 64),
            ("alien:5x5", 512),
            ("secded:39", 1024),
            ("alien:4x5", 4096),
            ("alien:9x9", 4096),
            ("secded:72", 4096),
            ("hamming:15", 128),
        ] {
            let code = spec.parse().unwrap();
            let spec = format!("{spec} D={depth}");
            // Chunks of several groups, so that the three CRC chains are exercised at every
            // depth (the default chunk of the deep layouts is one group).
            let mut l = layout(&code, depth);
            if l.chunk_size < 9 * l.group_data {
                l = Layout::new(&code, depth, 9 * l.group_data).unwrap();
            }
            let fused = Codec::new(l.clone(), true);
            let mut plain = Codec::new(l.clone(), true);
            plain.fused = None;
            plain.fast = None;
            plain.sse42 = None;
            plain.avx2 = None;
            fused_seen += usize::from(fused.fused.is_some());
            let cs = l.chunk_size;
            for (n, len) in [
                cs,
                cs - 1,
                cs - 7 * l.group_data - 3,
                3 * l.group_data + 5,
                100,
            ]
            .into_iter()
            .enumerate()
            {
                let data = bytes(n as u64, len);
                let size = l.groups_for(len) * l.group_bytes;
                let (mut a, mut b) = (vec![0u8; size], vec![0u8; size]);
                let crc = fused.encode_chunk(&data, 9, &mut a);
                assert_eq!(crc, plain.encode_chunk(&data, 9, &mut b), "{spec} {len}");
                assert_eq!(crc, crc32c::crc32c(&data), "{spec} {len}");
                assert!(a == b, "{spec} {len}: encoded bytes differ");
                for (m, ber) in [0.0, 1e-4, 3e-3, 3e-2].into_iter().enumerate() {
                    let mut enc = a.clone();
                    crate::stream::bench::apply_ber(&mut enc, ber, (10 * n + m) as u64);
                    if m == 3 {
                        let g = size / 3;
                        enc[g..(g + 5000).min(size)].fill(0x5A);
                    }
                    let out_len = l.groups_for(len) * l.group_data;
                    let (mut x, mut y) = (vec![0u8; out_len], vec![0u8; out_len]);
                    let cx = fused.decode_chunk(&enc, 9, len, &mut x);
                    let cy = plain.decode_chunk(&enc, 9, len, &mut y);
                    let what = format!("{spec} {len} BER {ber}");
                    assert!(x == y, "{what}: decoded bytes differ");
                    assert_eq!(
                        (cx.crc, cx.ok, cx.tail_ok),
                        (cy.crc, cy.ok, cy.tail_ok),
                        "{what}"
                    );
                    assert_eq!(cx.ranges, cy.ranges, "{what}");
                    let st = |c: &ChunkCheck| {
                        let s = &c.stats;
                        (
                            s.codewords,
                            s.corrected_bits,
                            s.uncorrectable,
                            s.bad_lanes.clone(),
                        )
                    };
                    assert_eq!(st(&cx), st(&cy), "{what}");
                    assert_eq!(cx.crc, crc32c::crc32c(&x[..len]), "{what}");
                    if ber == 0.0 {
                        assert!(cx.ok && x[..len] == data[..], "{what}");
                    } else if len > 100_000 && depth == 64 {
                        assert!(cx.stats.corrected_bits > 0, "{what}");
                    }
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::features().avx2 && crate::cpu::features().sse42 {
            assert_eq!(fused_seen, 2, "both fused kernels exercised");
        }
        let _ = fused_seen;
    }

    #[test]
    fn fill_region_writes_any_window_of_the_region() {
        let (rest, tail) = ((1..=7).collect::<Vec<u8>>(), [0xA0, 0xA1, 0xA2]);
        for at in 7..12 {
            let mut region = rest.clone();
            region.resize(at, 0);
            region.extend_from_slice(&tail);
            for from in 0..region.len() {
                for len in 0..=region.len() - from {
                    let mut dst = vec![0xEE; len];
                    fill_region(&mut dst, from, &rest, at, &tail);
                    assert_eq!(
                        dst,
                        region[from..from + len],
                        "at {at} from {from} len {len}"
                    );
                }
            }
        }
    }

    /// Deep interleaving with the default chunk (one group, check blocks in pieces): the
    /// payload written in place in the output, its parity taken from there, the chunk CRC
    /// joined from the pieces' CRCs. Encoded bytes equal the per-codeword reference over the
    /// payload, zeros and a tail built from the `crc32c` crate's CRCs; decoding damaged
    /// chunks equals the reference decoder, and the CRCs are the crate's.
    #[test]
    fn deep_chunks_match_the_reference() {
        for (spec, depth) in [
            ("alien:9x9", 32768),
            ("secded:72", 8192),
            ("hamming:31", 12288),
            ("alien:4x5", 65536),
            ("alien:5x4", 8192),
            ("alien:4x4", 8192),
            ("parity:9", 16384),
        ] {
            let code: Spec = spec.parse().unwrap();
            let l = layout(&code, depth);
            let (gd, gb) = (l.group_data, l.group_bytes);
            let codec = Codec::new(l.clone(), true);
            let reference = code::build(&code);
            let lens = [l.chunk_size, l.chunk_size - 4093, 70_000, 5000, 1];
            for (n, len) in lens.into_iter().filter(|&n| n <= l.chunk_size).enumerate() {
                let what = format!("{spec} D={depth} len {len}");
                let data = bytes(n as u64, len);
                let groups = l.groups_for(len);
                let mut enc = vec![0u8; groups * gb];
                assert_eq!(
                    codec.encode_chunk(&data, 3, &mut enc),
                    crc32c::crc32c(&data)
                );
                let crcs = Blocks::of(len, gd).crcs(&data);
                let tail = tail_bytes_v2(3, len, &crcs);
                let mut area = data.clone();
                area.resize(groups * gd - tail.len(), 0);
                area.extend_from_slice(&tail);
                let naive: Vec<u8> = area
                    .chunks(gd)
                    .flat_map(|g| naive::encode_group(reference.as_ref(), depth, g))
                    .collect();
                assert!(enc == naive, "{what}: encoded bytes differ");
                // Errors in every lane block, and errors only past the first lane block (the
                // deep decoder has then streamed the rows out before it meets them).
                let half = l.interleave / 2;
                for (errors, from) in [(0, 0), (1, 0), (3, 0), (1, half), (3, half)] {
                    let mut bad = enc.clone();
                    for g in 0..groups {
                        let seed = n as u64 ^ 9 ^ from as u64;
                        damage_from(&mut bad[g * gb..(g + 1) * gb], &l, seed, errors, from);
                    }
                    let mut out = vec![0u8; groups * gd];
                    let check = codec.decode_chunk(&bad, 3, len, &mut out);
                    let want: Vec<u8> = bad
                        .chunks(gb)
                        .flat_map(|g| naive::decode_group(reference.as_ref(), depth, g).data)
                        .collect();
                    assert!(out == want, "{what}, {errors} errors: decoded bytes differ");
                    let mut exact = vec![0u8; len];
                    let part = codec.decode_chunk_exact(&bad, 3, len, &mut exact);
                    assert!(
                        exact[..] == want[..len],
                        "{what}, {errors} errors: exact differs"
                    );
                    assert_eq!((part.ok, part.crc), (check.ok, check.crc), "{what}");
                    assert_eq!(check.crc, crc32c::crc32c(&out[..len]), "{what}");
                    // Never silently wrong; clean chunks verify.
                    let clean = out[..len] == data[..];
                    assert!(clean || !check.ok, "{what}, {errors} errors: wrong and ok");
                    assert!(check.ok || errors > 0, "{what}: a clean chunk fails");
                    // A chunk whose area (payload and tail) is repaired verifies.
                    assert!(
                        check.ok || want != area,
                        "{what}, {errors} errors: repaired, failed"
                    );
                }
            }
        }
    }

    fn encode_matches(spec: AnySpec, seed: u64, depth: u8, groups: u8) -> TestResult {
        let d = DEPTHS[depth as usize % DEPTHS.len()];
        let l = layout(&spec.0, d);
        let codec = Codec::new(l.clone(), false);
        let groups = 1 + groups as usize % 3;
        let data = bytes(seed, groups * l.group_data);
        let mut fast = vec![0u8; groups * l.group_bytes];
        codec.encode_groups(&data, &mut fast);
        let code = code::build(&spec.0);
        let naive: Vec<u8> = data
            .chunks(l.group_data)
            .flat_map(|g| naive::encode_group(code.as_ref(), d, g))
            .collect();
        TestResult::from_bool(fast == naive)
    }

    #[test]
    fn bit_sliced_encoding_matches_the_per_codeword_reference() {
        QuickCheck::new()
            .tests(300)
            .quickcheck(encode_matches as fn(AnySpec, u64, u8, u8) -> TestResult);
    }

    #[test]
    fn every_family_and_shape_encodes_like_the_reference() {
        let mut specs: Vec<Spec> = Vec::new();
        for m in 1..=8 {
            for n in 1..=8 {
                specs.push(Spec::Alien { rows: m, cols: n });
            }
        }
        specs.extend((4..=80).map(Spec::Secded));
        specs.extend((3..=80).map(Spec::Hamming));
        specs.extend((1..=5).map(Spec::Repetition));
        specs.extend((2..=9).map(Spec::Parity));
        // Grids wider than the fixed widths (18 or more columns), and Hamming codes of more
        // than 256 grid rows (check rows past the kernel's fixed array).
        for (m, n) in [(3, 19), (4, 21), (5, 20), (2, 37)] {
            specs.push(Spec::Alien { rows: m, cols: n });
        }
        specs.extend([Spec::Hamming(2100), Spec::Secded(4500)]);
        for (i, spec) in specs.into_iter().enumerate() {
            assert!(
                !encode_matches(AnySpec(spec), i as u64, i as u8, 0).is_failure(),
                "{spec}"
            );
        }
    }

    /// Flips `errors[lane]` random bits of each lane of one group.
    fn damage(enc: &mut [u8], l: &Layout, seed: u64, max_errors: usize) {
        damage_from(enc, l, seed, max_errors, 0);
    }

    /// Up to `max_errors` flipped bits in each lane of a group from lane `from` on.
    fn damage_from(enc: &mut [u8], l: &Layout, seed: u64, max_errors: usize, from: usize) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        for lane in from..l.interleave {
            let e = rng.gen_range(0..=max_errors);
            for _ in 0..e {
                let row = rng.gen_range(0..l.n);
                enc[row * l.row_bytes + lane / 8] ^= 1 << (lane % 8);
            }
        }
    }

    fn decode_matches(spec: AnySpec, seed: u64, depth: u8, max_errors: u8) -> TestResult {
        let d = DEPTHS[depth as usize % DEPTHS.len()];
        let l = layout(&spec.0, d);
        let codec = Codec::new(l.clone(), true);
        let data = bytes(seed, l.group_data);
        let mut enc = vec![0u8; l.group_bytes];
        codec.encode_groups(&data, &mut enc);
        damage(&mut enc, &l, seed ^ 1, max_errors as usize % 4);
        let mut out = vec![0u8; l.group_data];
        let mut stats = ChunkStats::default();
        codec.decode_groups(&enc, &mut out, &mut stats);
        let code = code::build(&spec.0);
        let reference = naive::decode_group(code.as_ref(), d, &enc);
        let lanes: Vec<usize> = stats
            .bad_lanes
            .iter()
            .flat_map(|(_, mask)| {
                (0..d).filter(move |&lane| mask[lane / 64] >> (lane % 64) & 1 == 1)
            })
            .collect();
        TestResult::from_bool(
            out == reference.data
                && stats.corrected_bits == reference.corrected_bits
                && stats.uncorrectable == reference.uncorrectable.len() as u64
                && lanes == reference.uncorrectable
                && stats.codewords == d as u64,
        )
    }

    #[test]
    fn bit_sliced_decoding_matches_the_per_codeword_reference() {
        QuickCheck::new()
            .tests(300)
            .quickcheck(decode_matches as fn(AnySpec, u64, u8, u8) -> TestResult);
    }

    /// A chunk decoded into exactly its payload's place (the threaded decoder's way at the end
    /// of a run) gives the bytes and the verdict of a chunk decoded into its whole area, with
    /// damage, with a tail that names another chunk, at any length.
    fn exact_matches(spec: AnySpec, seed: u64, depth: u8, max_errors: u8) -> TestResult {
        let d = DEPTHS[depth as usize % DEPTHS.len()];
        let l = layout(&spec.0, d);
        let len = 1 + (seed as usize >> 8) % l.chunk_size.min(3 * l.group_data + 100);
        let codec = Codec::new(l.clone(), true);
        let data = bytes(seed, len);
        let mut enc = vec![0u8; l.groups_for(len) * l.group_bytes];
        codec.encode_chunk(&data, 7, &mut enc);
        let last = enc.len() - l.group_bytes;
        damage(
            &mut enc[..l.group_bytes],
            &l,
            seed ^ 1,
            max_errors as usize % 4,
        );
        damage(&mut enc[last..], &l, seed ^ 2, max_errors as usize % 4);
        let index = if seed.is_multiple_of(5) { 8 } else { 7 };
        let mut area = vec![0u8; l.area_for(len)];
        let whole = codec.decode_chunk(&enc, index, len, &mut area);
        let mut exact = vec![0u8; len];
        let part = codec.decode_chunk_exact(&enc, index, len, &mut exact);
        TestResult::from_bool(
            area[..len] == exact[..] && format!("{whole:?}") == format!("{part:?}"),
        )
    }

    #[test]
    fn exact_decoding_matches_decoding_into_the_area() {
        QuickCheck::new()
            .tests(200)
            .quickcheck(exact_matches as fn(AnySpec, u64, u8, u8) -> TestResult);
    }
}
/// Per-group costs, the data in cache (the table in `docs/benchmarks.md`):
/// `cargo test --release --lib micro_kernel -- --ignored --nocapture`.
#[cfg(test)]
mod micro {
    use super::*;

    /// Best of 40 runs of `f`, in nanoseconds per group of the `groups` it handles.
    fn best(groups: usize, mut f: impl FnMut()) -> f64 {
        (0..40)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed().as_nanos() as f64 / groups as f64
            })
            .fold(f64::MAX, f64::min)
    }

    /// Encoding 256 chunks with its input and its output each either in memory (a fresh
    /// chunk every time) or in cache (the same chunk over and over), against a memcpy of the
    /// 256 chunks timed just before: where the in-memory time goes.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn memory_decomposition() {
        for spec in ["alien:9x9", "secded:72"] {
            let l = Layout::new(&spec.parse().unwrap(), 64, 0).unwrap();
            let codec = Codec::new(l.clone(), true);
            let chunks = 256;
            let data = crate::stream::bench::random_payload(chunks * l.chunk_size, 1);
            let mut copy = vec![0u8; data.len()];
            let mut enc = vec![0u8; chunks * l.chunk_bytes];
            let mut ratios: [Vec<f64>; 4] = Default::default();
            for _ in 0..7 {
                let t = std::time::Instant::now();
                copy.copy_from_slice(std::hint::black_box(&data));
                let memcpy = t.elapsed().as_secs_f64();
                for (r, (in_mem, out_mem)) in ratios.iter_mut().zip([
                    (true, true),
                    (true, false),
                    (false, true),
                    (false, false),
                ]) {
                    let t = std::time::Instant::now();
                    for c in 0..chunks {
                        let (ci, co) = (usize::from(in_mem) * c, usize::from(out_mem) * c);
                        let input = &data[ci * l.chunk_size..(ci + 1) * l.chunk_size];
                        let out = &mut enc[co * l.chunk_bytes..(co + 1) * l.chunk_bytes];
                        codec.encode_chunk(std::hint::black_box(input), 0, out);
                    }
                    r.push(memcpy / t.elapsed().as_secs_f64());
                }
            }
            let [a, b, c, d] = ratios.map(|mut v| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            });
            println!(
                "{spec} encode / memcpy (medians of 7): input and output in memory {a:.3}, \
                 input in memory {b:.3}, output in memory {c:.3}, both in cache {d:.3}"
            );
        }
    }

    #[test]
    #[ignore = "a measurement, not a check"]
    fn micro_kernel() {
        for spec in ["alien:9x9", "secded:72"] {
            let l = Layout::new(&spec.parse().unwrap(), 64, 0).unwrap();
            let codec = Codec::new(l.clone(), true);
            // Two whole chunks (2 MiB): in the last-level cache.
            let data = crate::stream::bench::random_payload(2 * l.chunk_size, 1);
            let groups = 2 * l.chunk_groups;
            let mut sink = 0u64;
            let mut copy = vec![0u8; data.len()];
            let memcpy = best(groups, || copy.copy_from_slice(std::hint::black_box(&data)));
            let crc = best(groups, || {
                sink ^= u64::from(crc32c::crc32c(std::hint::black_box(&data)))
            });
            let third = data.len() / 3;
            let crc3 = best(groups, || {
                let d = std::hint::black_box(&data);
                let c = crc::append3(
                    codec.sse42,
                    [0; 3],
                    &d[..third],
                    &d[third..2 * third],
                    &d[2 * third..3 * third],
                );
                sink ^= u64::from(c[0]);
            });
            let mut par = vec![V::<1>::zero(); codec.r];
            let mut scr = vec![V::<1>::zero(); codec.kernel.scratch_len()];
            let mut odata = vec![0u8; l.group_data];
            let portable = best(groups, || {
                for g in data.chunks_exact(l.group_data) {
                    let g = std::hint::black_box(g);
                    codec
                        .kernel
                        .parity_copy::<1, true>(None, g, &mut odata, &mut par, &mut scr);
                    sink ^= par[0].0[0];
                }
            });
            let mut words = vec![0u64; codec.r];
            let f64 = codec.fast.expect("a fast kernel on this CPU");
            let fast = best(groups, || {
                for g in data.chunks_exact(l.group_data) {
                    let g = std::hint::black_box(g);
                    assert!(codec.kernel.group64::<true>(f64, g, &mut odata, &mut words));
                    sink ^= words[0];
                }
            });
            let mut enc = vec![0u8; 2 * l.chunk_bytes];
            let encode = best(groups, || {
                for (c, o) in data
                    .chunks_exact(l.chunk_size)
                    .zip(enc.chunks_exact_mut(l.chunk_bytes))
                {
                    sink ^= u64::from(codec.encode_chunk(std::hint::black_box(c), 0, o));
                }
            });
            let mut dec = vec![0u8; 2 * l.chunk_groups * l.group_data];
            let dec_chunks = |enc: &[u8], dec: &mut [u8]| {
                let mut bad = 0;
                // Every chunk was encoded as chunk 0.
                for (c, o) in enc
                    .chunks_exact(l.chunk_bytes)
                    .zip(dec.chunks_exact_mut(l.chunk_groups * l.group_data))
                {
                    bad += u64::from(!codec.decode_chunk(c, 0, l.chunk_size, o).ok);
                }
                bad
            };
            let decode = best(groups, || {
                sink ^= dec_chunks(std::hint::black_box(&enc), &mut dec)
            });
            let mut noisy = enc.clone();
            crate::stream::bench::apply_ber(&mut noisy, 1e-4, 3);
            let decode_noisy = best(groups, || {
                sink ^= dec_chunks(std::hint::black_box(&noisy), &mut dec)
            });
            std::hint::black_box((sink, &copy));
            println!(
                "{spec} ns/group: memcpy {memcpy:.1}, crc32c crate {crc:.1}, crc x3 {crc3:.1}, \
                 portable kernel+copy {portable:.1}, fast kernel+copy {fast:.1}, encode {encode:.1}, \
                 decode {decode:.1}, decode at BER 1e-4 {decode_noisy:.1}"
            );
        }
    }
}
