//! The version 2 decoder. It reads frames in order, finds the next frame of its stream at any
//! byte offset after damage (a cut, an insertion, garbage, a foreign stream), decodes each
//! chunk where its frame says, and resolves a stripe at a time: chunks that are missing or
//! failed their check are rebuilt from the stripe's recovery chunks when enough survive,
//! and otherwise reported (`docs/format.md`, "Decoding a version 2 stream").
//!
//! Output is produced a stripe at a time into the caller's buffer, so memory is one stripe
//! of payload plus one frame of input, whatever the stream says.

mod ahead;

use super::buf::Buf;
use super::codec::{ChunkStats, Codec, push_range};
use super::crc::{self, Shift};
use super::encode_core::recovery_groups;
use super::format::{Blocks, Layout, payload_in_groups, read_tail};
use super::frame::{self, FRAME, Frame, Kind, MAX_META, Metadata, StripeShape};
use super::parallel::Workers;
use super::source::Source;
use super::stripe::{self, Plan, shard_bytes};
use super::{Header, Report};
use crate::error::{Error, Result};
use crate::slice::prefetch;
use std::collections::VecDeque;

/// What became of one data chunk of the current stripe.
#[derive(Clone, Debug)]
enum Slot {
    /// Verified: its payload length and CRC-32C.
    Good { len: usize, crc: u32 },
    /// Decoded, but checks failed: the failed ranges within the chunk.
    Damaged { len: usize, ranges: Vec<(u64, u64)> },
    /// Never found, or cut short.
    Lost,
}

/// What the end frame states.
#[derive(Clone, Copy, Debug)]
struct End {
    chunks: u64,
    total: u64,
    crc: u32,
}

/// The version 2 decoding state.
#[derive(Debug)]
pub struct FramedDecoder {
    codec: Codec,
    header: Header,
    stream_id: u64,
    plan: Option<Plan>,
    full: Shift,
    lenient: bool,
    report: Report,
    /// Index of the first chunk of the current stripe.
    base: u64,
    /// The current stripe's chunks seen so far, from `base`.
    slots: Vec<Slot>,
    /// Where the current stripe's payload starts in the output buffer.
    out_base: usize,
    /// The current stripe's shape, from its recovery frames.
    shape: Option<StripeShape>,
    /// The current stripe's recovery shards that verified.
    shards: Vec<(usize, Vec<u8>)>,
    /// Payload ranges of the chunks rebuilt from recovery shards: only the end frame's
    /// whole-stream CRC checks them, so they are reported damaged when it fails.
    rebuilt: Vec<(u64, u64)>,
    end: Option<End>,
    /// CRC-32C of the payload resolved so far, while every chunk has been restored.
    crc: Option<u32>,
    /// Where the next frame should start.
    expected_at: u64,
    /// Bytes skipped since the last frame taken (a resync is counted when one is taken).
    lost: bool,
    done: bool,
    metadata: Option<Metadata>,
    /// Decode every recovery chunk, not only those a damaged stripe needs.
    check_recovery: bool,
    /// The input has ended.
    at_end_of_input: bool,
    /// Where the last frame header repaired by a bit flip starts (counted once).
    repaired_at: Option<u64>,
    /// The threads that decode runs of chunks ahead ([`FramedDecoder::decode_ahead`]).
    workers: Workers,
    /// Chunks decoded ahead and not yet taken, in stream order.
    ahead: VecDeque<ahead::Decoded>,
    /// One buffer per job of [`FramedDecoder::decode_ahead`], reused from batch to batch:
    /// where a run's last chunk decodes the groups past its payload's whole groups (at most
    /// one chunk's area, [`Codec::decode_chunk_exact`]).
    tails: Vec<Vec<u8>>,
}

impl FramedDecoder {
    /// A decoder for a stream of this layout, id and recovery plan, whose first frame is
    /// expected at offset `expected_at`.
    pub fn new(
        layout: Layout,
        stream_id: u64,
        plan: Option<Plan>,
        expected_at: u64,
        report: Report,
    ) -> FramedDecoder {
        let header = Header::from_layout(&layout, stream_id, plan);
        FramedDecoder {
            full: Shift::new(layout.chunk_size),
            codec: Codec::new(layout, true),
            header,
            stream_id,
            plan,
            lenient: false,
            report,
            base: 0,
            slots: Vec::new(),
            out_base: 0,
            shape: None,
            shards: Vec::new(),
            rebuilt: Vec::new(),
            end: None,
            crc: Some(0),
            expected_at,
            lost: false,
            done: false,
            metadata: None,
            check_recovery: false,
            at_end_of_input: false,
            repaired_at: None,
            workers: Workers::default(),
            tails: Vec::new(),
            ahead: VecDeque::new(),
        }
    }

    /// Decode on `threads` threads (`0`: every core): runs of chunks are decoded ahead in
    /// parallel (module `ahead`); the result is the same for every count.
    pub fn set_threads(&mut self, threads: usize) {
        self.workers = Workers::new(threads);
    }

    /// Lenient (keep damaged data, record it) or strict (fail on it).
    pub fn set_lenient(&mut self, yes: bool) {
        self.lenient = yes;
    }

    /// Decode and check every recovery chunk (as `verify` does), not only the ones needed.
    pub fn set_check_recovery(&mut self, yes: bool) {
        self.check_recovery = yes;
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The report so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The metadata frame's contents, once read.
    pub fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }

    /// Whether the stream has been decoded to its end.
    pub fn done(&self) -> bool {
        self.done
    }

    fn layout(&self) -> &Layout {
        &self.codec.layout
    }

    fn stripe_len(&self) -> u64 {
        self.plan.map_or(1, |p| p.stripe as u64)
    }

    fn next(&self) -> u64 {
        self.base + self.slots.len() as u64
    }

    fn ours(&self, f: &Frame) -> bool {
        let l = self.layout();
        f.stream_id == self.stream_id
            && f.spec == l.spec
            && f.interleave as usize == l.interleave
            && f.chunk_size as usize == l.chunk_size
            && f.plan() == self.plan
    }

    /// Encoded bytes of a data chunk carrying `len` bytes.
    fn data_body(&self, len: usize) -> usize {
        self.layout().groups_for(len) * self.layout().group_bytes
    }

    fn recovery_body(&self) -> usize {
        recovery_groups(self.layout()) * self.layout().group_bytes
    }

    /// Payload bytes of chunk `i` (the end frame fixes the last one).
    fn len_of(&self, i: u64) -> usize {
        let cs = self.layout().chunk_size as u64;
        match self.end {
            Some(e) if i + 1 == e.chunks => (e.total - i * cs) as usize,
            _ => cs as usize,
        }
    }

    /// Decodes until the current stripe is resolved (its payload appended to `out`) or the
    /// stream ends; with several threads, until no chunk decoded ahead is left as well (so
    /// `out` may then hold several stripes).
    pub fn step<S: Source>(&mut self, src: &mut S, out: &mut Buf) -> Result<()> {
        if self.slots.is_empty() {
            self.out_base = out.len();
        }
        while !self.done {
            let at = src.offset();
            if self.ahead.front().is_some_and(|d| d.at() != at) {
                self.ahead.clear();
            }
            // Not once the stripe has its every data chunk: the frame at the cursor then
            // closes it, and decoding ahead past it would keep the step from returning (a
            // stream without recovery, one chunk a stripe, was decoded whole into `out`).
            let open = self.next() < self.base + self.stripe_len();
            if self.workers.threads() > 1 && self.ahead.is_empty() && open && at == self.expected_at
            {
                self.decode_ahead(src, out)?;
            }
            let buf = src.peek(FRAME)?;
            if buf.len() < FRAME {
                let n = buf.len();
                self.cut(src, n);
                return self.at_eof(out);
            }
            let parsed = if at == self.expected_at {
                Frame::parse_repairing(&buf[..FRAME])
            } else {
                Frame::parse(&buf[..FRAME]).map(|f| (f, 0))
            };
            let resolved = match parsed {
                Some((f, flips)) if self.ours(&f) => {
                    if self.lost {
                        self.lost = false;
                        self.report.resyncs += 1;
                    }
                    // A frame that first closes the stripe before it is read twice.
                    if flips > 0 && self.repaired_at != Some(at) {
                        self.repaired_at = Some(at);
                        self.report.corrected_bits += flips;
                    }
                    self.frame(f, src, out)?
                }
                _ => self.lost_sync(src, out)?,
            };
            if resolved && self.ahead.is_empty() {
                return Ok(());
            }
        }
        self.ahead.clear();
        Ok(())
    }

    /// Where the next frame of the stream starts in `buf` (a frame header and the body
    /// after it) when it starts before `end`, inside the body: bytes were cut from this
    /// chunk. `None` when it starts at `end`, or no frame of the stream starts before it (a
    /// frame found further on means a damaged header or bytes inserted into this chunk,
    /// which decoding the body where it is expected finds out).
    fn misplaced_next(&self, buf: &[u8], end: usize) -> Option<usize> {
        // (A next header with one flipped bit is where it should be too: repaired here, it
        // saves the scan of the whole chunk, and it is repaired again when it is taken.)
        if buf.len() >= end + FRAME
            && Frame::parse_repairing(&buf[end..end + FRAME]).is_some_and(|(f, _)| self.ours(&f))
        {
            return None;
        }
        let within = &buf[..(end + FRAME - 1).min(buf.len())];
        let (q, _) = frame::find(within, FRAME, |f| self.ours(f))?;
        (q < end).then_some(q)
    }

    /// Whether `missing` whole chunks could have stood between the last frame taken and
    /// offset `at` (each takes at least a frame header and one group).
    fn explained(&self, at: u64, missing: u64) -> bool {
        let smallest = (FRAME + self.layout().group_bytes) as u64;
        missing <= at.saturating_sub(self.expected_at) / smallest + 1
    }

    /// Passes over `n` bytes that belong to no frame taken.
    fn skip<S: Source>(&mut self, src: &mut S, n: usize) {
        src.advance(n);
        self.report.skipped_bytes += n as u64;
        self.report.bytes_in += n as u64;
        self.lost |= n > 0;
    }

    /// Passes over the `n` last bytes of the input, a frame cut short: not a sign of damage
    /// inside the stream (see [`FramedDecoder::at_eof`]).
    fn cut<S: Source>(&mut self, src: &mut S, n: usize) {
        src.advance(n);
        self.report.skipped_bytes += n as u64;
        self.report.bytes_in += n as u64;
    }

    /// Passes over a frame that is ours but not needed (a duplicate, a recovery chunk of a
    /// stripe that lost nothing).
    fn pass<S: Source>(&mut self, src: &mut S, n: usize) -> Result<()> {
        let got = src.peek(n)?.len().min(n);
        src.advance(got);
        self.report.bytes_in += got as u64;
        self.expected_at = src.offset();
        Ok(())
    }

    /// Handles a frame of this stream at the cursor; true when a stripe was resolved (the
    /// frame itself may then be left for the next step).
    fn frame<S: Source>(&mut self, f: Frame, src: &mut S, out: &mut Buf) -> Result<bool> {
        match f.kind {
            Kind::Data => self.data_frame(f, src, out),
            Kind::Recovery => self.recovery_frame(f, src, out),
            Kind::Meta => {
                let len = f.length as usize;
                if len > MAX_META {
                    self.pass(src, FRAME)?;
                    return Ok(false);
                }
                let buf = src.peek(FRAME + len)?;
                if buf.len() >= FRAME + len && crc::checksum(&buf[FRAME..FRAME + len]) == f.check {
                    self.metadata = Metadata::parse(&buf[FRAME..FRAME + len]);
                }
                self.pass(src, FRAME + len)?;
                Ok(false)
            }
            Kind::End => {
                let slot = self.layout().slot;
                let end = End {
                    chunks: f.index,
                    total: f.length,
                    crc: f.check,
                };
                let k = self.stripe_len();
                // The last stripe's recovery chunks follow copy 0 when it is a short one.
                let more = self.plan.is_some() && !end.chunks.is_multiple_of(k);
                if f.copy == 0 && more {
                    self.pass(src, slot)?;
                    self.end.get_or_insert(end);
                    return Ok(false);
                }
                let region = (3 - f.copy as usize) * slot;
                self.pass(src, region)?;
                self.end.get_or_insert(end);
                self.finish_end(out)?;
                self.trailing(src)?;
                Ok(true)
            }
        }
    }

    fn data_frame<S: Source>(&mut self, f: Frame, src: &mut S, out: &mut Buf) -> Result<bool> {
        let (i, len) = (f.index, f.length as usize);
        if len == 0 || len > self.layout().chunk_size {
            return self.lost_sync(src, out);
        }
        let body = self.data_body(len);
        if !self.explained(src.offset(), i.saturating_sub(self.next())) {
            // More chunks missing than the bytes since the last frame could have held: not
            // a frame of this stream's order (crafted, or a stray copy).
            return self.lost_sync(src, out);
        }
        if i < self.next() {
            // A duplicated span: this chunk was taken already.
            self.pass(src, FRAME + body)?;
            return Ok(false);
        }
        if i >= self.base + self.stripe_len() {
            self.close(self.stripe_len(), out)?;
            return Ok(true);
        }
        while self.next() < i {
            self.slots.push(Slot::Lost);
        }
        let at = src.offset();
        let buf = src.peek(2 * FRAME + body)?;
        // The header after the next, which the next chunk's `misplaced_next` reads first:
        // waiting for it from memory was nine tenths of `Frame::parse`'s time, about 3 % of
        // a decode of chunks of 32 KiB (alien:9x9 at `D = 4096`; 1-2 % gained). (A hint:
        // the address need not lie in `buf`.)
        prefetch::line(buf.as_ptr().wrapping_add(2 * (FRAME + body)));
        if let Some(q) = self.misplaced_next(buf, FRAME + body) {
            // Bytes were cut from or inserted into this chunk: the next frame does not start
            // where its body ends. The chunk is lost; the next frame is taken where it is.
            self.slots.push(Slot::Lost);
            src.advance(FRAME);
            self.report.bytes_in += FRAME as u64;
            self.skip(src, q - FRAME);
            return Ok(false);
        }
        if buf.len() < FRAME + body {
            // Cut short by the end of the input.
            self.slots.push(Slot::Lost);
            let n = buf.len();
            self.cut(src, n);
            return Ok(false);
        }
        let slot = self.decode_data(at, &buf[FRAME..FRAME + body], i, len, out);
        self.slots.push(slot);
        src.advance(FRAME + body);
        self.report.bytes_in += (FRAME + body) as u64;
        self.expected_at = src.offset();
        Ok(false)
    }

    /// Decodes chunk `i`, whose frame is at `at`, into its place in the output (or takes it
    /// as decoded ahead).
    fn decode_data(&mut self, at: u64, enc: &[u8], i: u64, len: usize, out: &mut Buf) -> Slot {
        let off = self.out_offset(i);
        let area = self.layout().area_for(len);
        out.resize(off + area);
        let check = match self.take_ahead(at, i, len, off) {
            Some(check) => check,
            None => self
                .codec
                .decode_chunk(enc, i, len, &mut out.as_mut_slice()[off..off + area]),
        };
        out.resize(off + len);
        self.count_chunk(&check.stats);
        if check.ok {
            Slot::Good {
                len,
                crc: check.crc,
            }
        } else {
            Slot::Damaged {
                len,
                ranges: check.ranges,
            }
        }
    }

    /// Adds a decoded chunk's counts to the report.
    fn count_chunk(&mut self, stats: &ChunkStats) {
        let r = &mut self.report;
        r.chunks += 1;
        r.codewords += stats.codewords;
        r.corrected_bits += stats.corrected_bits;
        r.uncorrectable_codewords += stats.uncorrectable;
    }

    fn recovery_frame<S: Source>(&mut self, f: Frame, src: &mut S, out: &mut Buf) -> Result<bool> {
        let body = self.recovery_body();
        let (Some(plan), stripe) = (self.plan, self.base / self.stripe_len()) else {
            self.pass(src, FRAME + body)?;
            return Ok(false);
        };
        let shape = StripeShape::unpack(f.length);
        let sane = shape.data >= 1
            && shape.data as usize <= plan.stripe
            && shape.recovery as usize <= plan.recovery
            && shape.number < shape.recovery;
        if f.index < stripe || !sane || (self.slots.len() > shape.data as usize) {
            self.pass(src, FRAME + body)?;
            return Ok(false);
        }
        if f.index > stripe {
            let missing = (f.index - stripe - 1).saturating_mul(plan.stripe as u64);
            if !self.explained(src.offset(), missing) {
                return self.lost_sync(src, out);
            }
            self.close(plan.stripe as u64, out)?;
            return Ok(true);
        }
        self.shape = Some(shape);
        while self.slots.len() < shape.data as usize {
            self.slots.push(Slot::Lost);
        }
        let missing = self
            .slots
            .iter()
            .filter(|s| !matches!(s, Slot::Good { .. }))
            .count();
        if missing > self.shards.len() || self.check_recovery {
            let buf = src.peek(FRAME + body)?;
            let l = self.layout();
            let mut shard = vec![0u8; recovery_groups(l) * l.group_data];
            let mut stats = ChunkStats::default();
            let ok = buf.len() >= FRAME + body && {
                self.codec
                    .decode_groups(&buf[FRAME..FRAME + body], &mut shard, &mut stats);
                shard.truncate(shard_bytes(l.chunk_size));
                crc::checksum(&shard) == f.check
            };
            let r = &mut self.report;
            r.codewords += stats.codewords;
            r.corrected_bits += stats.corrected_bits;
            r.uncorrectable_codewords += stats.uncorrectable;
            if ok {
                self.shards.push((shape.number as usize, shard));
            } else {
                r.damaged_recovery_chunks += 1;
            }
        }
        self.pass(src, FRAME + body)?;
        if shape.number + 1 == shape.recovery {
            // The stripe's last chunk lost, and no end frame read: it may be the stream's
            // last chunk, whose length only the end frame tells, and the end's later copies
            // follow these recovery chunks (copy 0, before them, may be what was lost). The
            // next frame resolves the stripe (the end, or the next stripe's first chunk), or
            // the end of the input does.
            if self.end.is_none() && matches!(self.slots.last(), Some(Slot::Lost)) {
                return Ok(false);
            }
            self.close(shape.data as u64, out)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// No frame of this stream at the cursor: look for the next one. When the header of the
    /// expected chunk was hit but its body is whole, the bytes up to the next frame decode
    /// as that chunk (its tail, inside the codewords, says which chunk it is).
    fn lost_sync<S: Source>(&mut self, src: &mut S, out: &mut Buf) -> Result<bool> {
        let at = src.offset();
        // Not when the last chunk is lost: it may be the stream's last, whose length only
        // the end frame can tell.
        if at == self.expected_at
            && self.plan.is_none()
            && self.slots.len() as u64 >= self.stripe_len()
            && !matches!(self.slots.last(), Some(Slot::Lost))
        {
            // The next chunk starts a stripe (of one, without recovery chunks): close the
            // last one first, then try the damaged frame as that chunk.
            self.close(self.stripe_len(), out)?;
            return Ok(true);
        }
        let window = 2 * FRAME + self.layout().chunk_bytes.max(self.recovery_body());
        let buf = src.peek(window)?;
        match frame::find(buf, 1, |f| self.ours(f)) {
            Some((q, _)) => {
                if at == self.expected_at && self.headless(&buf[..q], out) {
                    src.advance(q);
                    self.report.bytes_in += q as u64;
                    self.expected_at = src.offset();
                } else {
                    self.skip(src, q);
                }
            }
            None if buf.len() < window => {
                let n = buf.len();
                self.skip(src, n);
            }
            None => {
                let n = buf.len() - (FRAME - 1);
                self.skip(src, n);
            }
        }
        Ok(false)
    }

    /// Tries `bytes` (a damaged frame header and what follows it up to the next frame) as the
    /// next data chunk; true if it verified.
    fn headless(&mut self, bytes: &[u8], out: &mut Buf) -> bool {
        let l = self.layout().clone();
        let i = self.next();
        if bytes.len() <= FRAME || i >= self.base + self.stripe_len() {
            return false;
        }
        if let Some(e) = self.end
            && i >= e.chunks
        {
            return false;
        }
        let body = &bytes[FRAME..];
        if !body.len().is_multiple_of(l.group_bytes) || body.len() > l.chunk_bytes {
            return false;
        }
        let groups = body.len() / l.group_bytes;
        let area = groups * l.group_data;
        let hint = if groups == l.chunk_groups {
            l.chunk_size
        } else {
            match payload_in_groups(groups, l.group_data, l.version) {
                // Too small to hold a tail and a byte: not a chunk.
                0 => return false,
                h => h,
            }
        };
        let off = self.out_base + (i - self.base) as usize * l.chunk_size;
        out.resize(off + area);
        let slice = &mut out.as_mut_slice()[off..off + area];
        let check = self.codec.decode_chunk(body, i, hint, slice);
        let len = if check.ok {
            Some(hint)
        } else {
            read_tail(slice, &l)
                .filter(|t| {
                    t.index == i && Blocks::of(t.len, l.group_data).crcs(&slice[..t.len]) == t.crcs
                })
                .map(|t| t.len)
        };
        let Some(len) = len else {
            out.resize(self.out_base + (i - self.base) as usize * l.chunk_size);
            return false;
        };
        let crc = crc::checksum(&out.as_slice()[off..off + len]);
        out.resize(off + len);
        self.count_chunk(&check.stats);
        self.report.frames_repaired += 1;
        self.slots.push(Slot::Good { len, crc });
        true
    }

    /// Resolves the current stripe of `data` chunks: rebuilds what it can, reports the rest,
    /// and leaves its payload in `out`.
    fn close(&mut self, data: u64, out: &mut Buf) -> Result<()> {
        let data = data.max(self.slots.len() as u64);
        while (self.slots.len() as u64) < data {
            self.slots.push(Slot::Lost);
        }
        // The last stripe's last chunk, lost, with no end frame to say how long it was.
        let final_stripe = self
            .shape
            .is_some_and(|s| (s.data as u64) < self.stripe_len())
            || self.at_end_of_input;
        if self.end.is_none() && final_stripe && matches!(self.slots.last(), Some(Slot::Lost)) {
            self.report.length_unknown = true;
        }
        let cs = self.layout().chunk_size;
        let lens: Vec<usize> = (0..self.slots.len())
            .map(|j| match &self.slots[j] {
                Slot::Good { len, .. } | Slot::Damaged { len, .. } => *len,
                Slot::Lost => self.len_of(self.base + j as u64),
            })
            .collect();
        let offs: Vec<usize> = (0..lens.len()).map(|j| self.out_base + j * cs).collect();
        let end = offs
            .last()
            .map_or(self.out_base, |o| o + lens[lens.len() - 1]);
        out.resize(end);
        self.rebuild(&lens, &offs, out)?;
        let mut first_bad = None;
        for (j, slot) in self.slots.iter().enumerate() {
            let start = (self.base + j as u64) * cs as u64;
            let (o, len) = (offs[j], lens[j]);
            match slot {
                Slot::Good { crc, .. } => {
                    self.crc = self.crc.map(|c| self.full.combine_len(c, *crc, len));
                }
                Slot::Damaged { ranges, .. } => {
                    self.report.damaged_chunks += 1;
                    for &(a, b) in ranges {
                        push_range(&mut self.report.damaged_ranges, start + a, start + b);
                    }
                    self.crc = None;
                    first_bad.get_or_insert(j);
                }
                Slot::Lost => {
                    self.report.lost_chunks += 1;
                    out.as_mut_slice()[o..o + len].fill(0);
                    push_range(&mut self.report.damaged_ranges, start, start + len as u64);
                    self.crc = None;
                    first_bad.get_or_insert(j);
                }
            }
        }
        self.report.bytes_out += (end - self.out_base) as u64;
        if let (Some(j), false) = (first_bad, self.lenient) {
            out.resize(offs[j]);
            self.report.checksum_ok = false;
            self.done = true;
            let i = self.base + j as u64;
            let a = i * cs as u64;
            return Err(Error::Corrupt {
                reason: format!(
                    "chunk {i} (bytes {a}..{}) could not be restored",
                    a + lens[j] as u64
                ),
            });
        }
        if first_bad.is_some() {
            self.report.checksum_ok = false;
        }
        self.base += self.slots.len() as u64;
        self.slots.clear();
        self.shards.clear();
        self.shape = None;
        self.out_base = out.len();
        Ok(())
    }

    /// Rebuilds the current stripe's bad chunks from its recovery shards, when enough survive.
    fn rebuild(&mut self, lens: &[usize], offs: &[usize], out: &mut Buf) -> Result<()> {
        let bad = self
            .slots
            .iter()
            .filter(|s| !matches!(s, Slot::Good { .. }))
            .count();
        let Some(plan) = self.plan else {
            return Ok(());
        };
        if bad == 0 || self.shards.len() < bad {
            return Ok(());
        }
        let cs = self.layout().chunk_size;
        let rebuilt = {
            let data = out.as_slice();
            let slots = &self.slots;
            let have = |j: usize| match slots[j] {
                Slot::Good { .. } => Some(&data[offs[j]..offs[j] + lens[j]]),
                _ => None,
            };
            let shards: Vec<(usize, &[u8])> =
                self.shards.iter().map(|(n, s)| (*n, &s[..])).collect();
            stripe::rebuild(plan, cs, self.slots.len(), have, &shards)?
        };
        for (j, shard) in rebuilt.into_iter().flatten() {
            let (o, len) = (offs[j], lens[j]);
            out.as_mut_slice()[o..o + len].copy_from_slice(&shard[..len]);
            let crc = crc::checksum(&shard[..len]);
            self.slots[j] = Slot::Good { len, crc };
            self.report.recovered_chunks += 1;
            let a = (self.base + j as u64) * cs as u64;
            self.rebuilt.push((a, a + len as u64));
        }
        Ok(())
    }

    /// After the end frame: resolves every stripe up to the last chunk it names and checks
    /// the whole stream.
    fn finish_end(&mut self, out: &mut Buf) -> Result<()> {
        let e = self.end.expect("an end frame");
        let cs = self.layout().chunk_size as u64;
        if e.chunks != e.total.div_ceil(cs) {
            self.done = true;
            return Err(Error::Corrupt {
                reason: format!(
                    "end frame names {} chunks for {} bytes, expected {}",
                    e.chunks,
                    e.total,
                    e.total.div_ceil(cs)
                ),
            });
        }
        if self.next() > e.chunks {
            self.done = true;
            return Err(Error::Corrupt {
                reason: format!(
                    "end frame names {} chunks, found at least {}",
                    e.chunks,
                    self.next()
                ),
            });
        }
        // Chunks the damage removed: only as many as the bytes skipped can explain.
        let room = self.report.skipped_bytes / (FRAME + self.layout().group_bytes) as u64
            + 2 * self.stripe_len();
        if e.chunks - self.next() > room {
            self.done = true;
            return Err(Error::Corrupt {
                reason: format!(
                    "end frame names {} chunks, found {} and too few bytes for the rest",
                    e.chunks,
                    self.next()
                ),
            });
        }
        while self.base < e.chunks {
            let data = (e.chunks - self.base).min(self.stripe_len());
            self.close(data, out)?;
        }
        self.done = true;
        if let Some(crc) = self.crc
            && crc != e.crc
        {
            self.report.checksum_ok = false;
            // Every other byte delivered passed its check block's CRC: the rebuilt chunks
            // are what the failed whole-stream CRC leaves unproven.
            self.report.damaged_chunks += self.rebuilt.len() as u64;
            let ranges = &mut self.report.damaged_ranges;
            ranges.append(&mut self.rebuilt);
            ranges.sort_unstable();
            let merged = std::mem::take(ranges);
            for (a, b) in merged {
                push_range(ranges, a, b);
            }
            if !self.lenient {
                return Err(Error::Checksum {
                    what: "the whole stream".into(),
                    expected: e.crc,
                    got: crc,
                });
            }
        }
        Ok(())
    }

    /// Counts what follows the end frame.
    fn trailing<S: Source>(&mut self, src: &mut S) -> Result<()> {
        loop {
            let n = src.peek(1 << 16)?.len();
            if n == 0 {
                return Ok(());
            }
            src.advance(n);
            self.report.trailing_bytes += n as u64;
            self.report.bytes_in += n as u64;
        }
    }

    /// The input ended without an end frame.
    fn at_eof(&mut self, out: &mut Buf) -> Result<()> {
        if self.end.is_some() {
            // The end frame was read; only its later copies are missing.
            return self.finish_end(out);
        }
        self.at_end_of_input = true;
        let cs = self.layout().chunk_size;
        // Only the last chunk may be short: a short one proves the data complete.
        let complete = match self.slots.last() {
            Some(Slot::Good { len, .. } | Slot::Damaged { len, .. }) => *len < cs,
            _ => false,
        };
        if !complete {
            // Report what is there; the error that stands is the truncation. Chunks cut off
            // at the end cannot be rebuilt (their recovery chunks came after them) and their
            // length is unknown: they are not part of the output.
            self.lenient = true;
            if self.shards.is_empty() {
                while matches!(self.slots.last(), Some(Slot::Lost)) {
                    self.slots.pop();
                }
            }
        }
        let seen = self.slots.len() as u64;
        if seen > 0 || self.shape.is_some() {
            self.close(seen, out)?;
        }
        self.done = true;
        if complete {
            self.report.end_missing = true;
            return Ok(());
        }
        self.report.checksum_ok = false;
        if self.lost {
            // The input went on past the last frame taken: not cut short, but its end is
            // damaged beyond repair, and with it the length.
            self.report.length_unknown = true;
            return Err(Error::Corrupt {
                reason: format!(
                    "no end frame could be read after chunk {} ({} payload bytes restored): the end of the stream is damaged beyond repair, so the last chunks and the length are unknown",
                    self.base.saturating_sub(1),
                    self.report.bytes_out
                ),
            });
        }
        Err(Error::Truncated {
            reason: format!(
                "the stream ends after chunk {} without its end frame ({} payload bytes restored); it was cut short, or its end was damaged beyond repair",
                self.base.saturating_sub(1),
                self.report.bytes_out
            ),
        })
    }
}
