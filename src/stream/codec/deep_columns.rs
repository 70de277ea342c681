//! Chunks of one group through the column pass ([`super::columns`]).
//!
//! At `D = 32768` most codes the pass takes have chunks of one group (secded:16's of 44 KiB,
//! hamming:22's of 68 KiB), which the deep path copies with the CRC of each check block and
//! then codes from cache with the whole-row kernel ([`Codec::encode_deep`],
//! [`Codec::decode_deep`]). Here such a group is coded in one pass:
//!
//! - **The check blocks' CRCs.** A one-group chunk's check blocks are pieces of
//!   [`CHECK_BLOCK`] bytes, whole rows when the row length divides it (taken only then).
//!   Each block's whole rows before the payload's last partial row are a chain of the pass
//!   ([`Chain`]: the rows' CRC registers folded into one); the block's bytes from there
//!   (the payload's last partial row, or the whole block when it starts there) are added
//!   after.
//! - **Encoding, the tail.** The rows from the payload's last partial row on (its bytes,
//!   zeros, then the tail) are built in a buffer. The tail carries the blocks' CRCs, known
//!   only once the pass is done, and the pass codes the last data row with zeros in its
//!   place; so the output lines that hold the tail's bytes (in the last data row, and at
//!   the same place in every parity row that sums it) are made again from the rows and
//!   streamed over the pass's: a line or two of a few rows.
//! - **Decoding** takes the CRCs of the bytes received, as [`Codec::decode_deep`] does, and
//!   corrects the group from the syndrome rows the pass wrote.

use super::columns::{Chain, ColumnScratch, Columns, Rows};
use super::decode::ChunkStats;
use super::{Codec, Scratch};
use crate::stream::crc;
use crate::stream::format::{Blocks, CHECK_BLOCK, TAIL, tail_bytes, tail_bytes_v2};
use crate::stream::nt;
use std::ops::Range;

/// How far ahead in each row the pass asks for the lines it will read (its `ahead`: the
/// rows themselves from this many bytes on), so that the rows, read 256 bytes of each at a
/// time, come from memory in time: 512 bytes (two steps). Without it the pass ran slower
/// than the copy and the whole-row kernel it replaces (encode secded:22 at `D = 32768`
/// 0.47x memcpy against 0.50, clean decode 0.40 against 0.51); with 256, 384, 512, 768,
/// 1024 and 2048 bytes, 512 was the best or near it for every code measured
/// (docs/benchmarks.md, "One-group chunks through the column pass").
const AHEAD_IN_ROW: usize = 512;

/// A check block of a one-group chunk as the pass takes it: its whole rows before the
/// payload's last partial row (a chain of the pass, when there are any), then its bytes
/// from there.
struct Piece {
    rows: Range<usize>,
    rest: Range<usize>,
}

/// The pieces of the blocks `b` of a one-group chunk of `len` payload bytes in rows of `rb`
/// bytes (which divide [`CHECK_BLOCK`]).
fn pieces(b: &Blocks, rb: usize, len: usize) -> Vec<Piece> {
    let f = len / rb;
    (0..b.count())
        .map(|i| {
            let r = b.range(i);
            let a = r.start / rb;
            let rows = a..(r.end / rb).min(f).max(a);
            let rest = (rows.end * rb).max(r.start)..r.end;
            Piece { rows, rest }
        })
        .collect()
}

/// The chains of the pieces that have whole rows, each CRC from scratch.
fn chains(pieces: &[Piece]) -> Vec<Chain> {
    let whole = pieces.iter().filter(|p| !p.rows.is_empty());
    whole
        .map(|p| Chain {
            rows: p.rows.clone(),
            crc: 0,
        })
        .collect()
}

/// Each block's CRC-32C: its chain's CRC (from `sums`, one for each piece with whole rows),
/// then the bytes of `payload` from there.
fn block_crcs(pieces: &[Piece], sums: &[u32], payload: &[u8]) -> Vec<u32> {
    let mut sums = sums.iter();
    pieces
        .iter()
        .map(|p| {
            let c = if p.rows.is_empty() {
                0
            } else {
                *sums.next().expect("a CRC for every chain")
            };
            crc::append(c, &payload[p.rest.clone()])
        })
        .collect()
}

impl Codec {
    /// Whether one-group chunks take the column pass: the codec has it, and a check block
    /// is whole rows.
    pub(super) fn deep_columns(&self) -> Option<&Columns> {
        let rb = self.layout.row_bytes;
        self.columns
            .as_ref()
            .filter(|_| CHECK_BLOCK.is_multiple_of(rb))
    }

    /// [`Codec::encode_deep`] through the column pass: encodes a chunk of one group (its
    /// payload `data`, number `index`) into `out` and returns its CRC-32C.
    pub(super) fn encode_deep_columns<const B: usize>(
        &self,
        cols: &Columns,
        data: &[u8],
        index: u64,
        out: &mut [u8],
        s: &mut Scratch<B>,
    ) -> u32 {
        let l = &self.layout;
        let (gd, rb, k, len) = (l.group_data, l.row_bytes, l.k, data.len());
        let f = len / rb;
        let tail_len = l.tail(len);
        // Rows `f..k`: the payload's last partial row, zeros, and (once known) the tail.
        let mut last = std::mem::take(&mut s.rows);
        last.clear();
        last.resize((k - f) * rb, 0);
        last[..len - f * rb].copy_from_slice(&data[f * rb..]);
        let b = Blocks::of(len, gd);
        let pieces = pieces(&b, rb, len);
        let chains = chains(&pieces);
        let mut sums = vec![0; chains.len()];
        let mut cs = self.column_scratch();
        let rows = Rows::new(data, f, &last, k);
        let ahead = data.get(AHEAD_IN_ROW..).unwrap_or(&[]);
        self.encode_pass(cols, rows, &chains, &mut sums, out, ahead, &mut cs);
        let crcs = block_crcs(&pieces, &sums, data);
        let crc = self.join_blocks(&b, &crcs);
        let tail = if tail_len == TAIL {
            tail_bytes(index, len, crc).to_vec()
        } else {
            tail_bytes_v2(index, len, &crcs)
        };
        let at = gd - tail_len - f * rb;
        last[at..at + tail_len].copy_from_slice(&tail);
        self.restream_tail(cols, out, Rows::new(data, f, &last, k), tail_len);
        nt::fence();
        s.rows = last;
        crc
    }

    /// Makes again the lines of the encoded group `out` that hold the tail's `tail_len`
    /// bytes (the end of the last data row, and of every parity row that sums it) from the
    /// data rows `rows`, and streams them over those the pass wrote (whose last data row
    /// had zeros in the tail's place).
    fn restream_tail(&self, cols: &Columns, out: &mut [u8], rows: Rows<'_>, tail_len: usize) {
        let (rb, k) = (self.layout.row_bytes, self.layout.k);
        let sets = cols.sets();
        // Bytes `c..c + len` of row `i` of the group, a data or a parity row.
        let row = |i: usize, c: usize, v: &mut [u8]| {
            if i < k {
                v.copy_from_slice(&rows.row(i, rb)[c..c + v.len()]);
                return;
            }
            v.fill(0);
            let mut m = sets[i - k];
            while m != 0 {
                let j = m.trailing_zeros() as usize;
                m &= m - 1;
                for (d, x) in v.iter_mut().zip(&rows.row(j, rb)[c..]) {
                    *d ^= x;
                }
            }
        };
        // The output's lines start `h` bytes into every row.
        let h = (out.as_ptr() as usize).wrapping_neg() & 63;
        let parity = (0..self.r).filter(|&q| sets[q] >> (k - 1) & 1 != 0);
        let mut v = Vec::new();
        for i in std::iter::once(k - 1).chain(parity.map(|q| k + q)) {
            let (p0, p1) = ((i + 1) * rb - tail_len, (i + 1) * rb);
            // From the start of the line that holds `p0` (or of the group) to the end of the
            // line that holds `p1 - 1` (or of the group).
            let a = if p0 < h { 0 } else { h + (p0 - h) / 64 * 64 };
            let e = (h + (p1 - h).div_ceil(64) * 64).min(out.len());
            v.resize(e - a, 0);
            let mut at = a;
            while at < e {
                let (j, c) = (at / rb, at % rb);
                let n = (rb - c).min(e - at);
                row(j, c, &mut v[at - a..at - a + n]);
                at += n;
            }
            nt::stream(&mut out[a..e], &v);
        }
    }

    /// [`Codec::decode_deep`] through the column pass: decodes a chunk that is one group
    /// `genc` carrying `len` payload bytes into `o`, its payload area, and returns the
    /// CRC-32C of each of its check blocks.
    pub(super) fn decode_deep_columns<const B: usize>(
        &self,
        cols: &Columns,
        genc: &[u8],
        len: usize,
        o: &mut [u8],
        s: &mut Scratch<B>,
        stats: &mut ChunkStats,
    ) -> Vec<u32> {
        let l = &self.layout;
        let (gd, rb) = (l.group_data, l.row_bytes);
        let b = Blocks::of(len, gd);
        let pieces = pieces(&b, rb, len);
        let chains = chains(&pieces);
        let mut sums = vec![0; chains.len()];
        let mut cs: ColumnScratch = self.column_scratch();
        s.rows.resize(self.r * rb, 0);
        s.any.resize(rb / 8, 0);
        let ahead = genc.get(AHEAD_IN_ROW..).unwrap_or(&[]);
        let syn = (&mut s.rows[..], &mut s.any[..]);
        let dirty = self.decode_pass(cols, genc, &chains, &mut sums, o, ahead, &mut cs, syn);
        let edata = &genc[..gd];
        let crcs = block_crcs(&pieces, &sums, edata);
        if !dirty {
            nt::fence();
            return crcs;
        }
        let mut flips: Vec<(usize, u8)> = Vec::new();
        self.fix_syndrome_rows(genc, &mut flips, 0, s, stats);
        self.make_flips(o, edata, &b, &mut flips, crcs)
    }
}
