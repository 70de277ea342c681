//! The verdict on a decoded chunk: its tail read and checked, the CRC of every check block
//! compared, and the ranges that failed (no byte outside them is unproven).

use super::Codec;
use super::crcs::Sums;
use super::decode::ChunkStats;
use crate::stream::format::{Blocks, read_tail_end};

impl Codec {
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
    /// decoded into `scratch` (whatever it holds; the decoders write every byte of it) and
    /// their payload bytes copied. The threaded decoder uses it where the area would reach
    /// into the next chunk's place, with a buffer per job that it keeps across batches.
    pub fn decode_chunk_exact(
        &self,
        enc: &[u8],
        index: u64,
        len: usize,
        out: &mut [u8],
        scratch: &mut Vec<u8>,
    ) -> ChunkCheck {
        let (gd, gb) = (self.layout.group_data, self.layout.group_bytes);
        let area = enc.len() / gb * gd;
        debug_assert!(out.len() == len && len <= area);
        let h = self.whole_groups(enc, len) * gd;
        scratch.resize(area - h, 0);
        let rest = &mut scratch[..];
        let (sums, stats) = self.decode_chunk_parts(enc, len, &mut out[..h], rest);
        out[h..].copy_from_slice(&rest[..len - h]);
        self.verdict(sums, stats, index, len, rest, area, out)
    }

    /// Groups of a chunk that the payload fills: those the kernels decode a third at a time.
    pub(super) fn whole_groups(&self, enc: &[u8], len: usize) -> usize {
        (len / self.layout.group_data).min(enc.len() / self.layout.group_bytes)
    }

    /// The groups of a chunk carrying `len` bytes decoded: its first whole groups into
    /// `head`, the rest into `rest`; returns the CRC sums it took and the statistics.
    pub(super) fn decode_chunk_parts(
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
    pub(super) fn verdict(
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
