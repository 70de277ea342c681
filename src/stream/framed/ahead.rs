//! Decoding ahead on several threads. When the frames from the cursor on are consecutive
//! data frames of the stream, each sealed, each where the one before it ends and each
//! followed by a sealed frame of the stream (what a clean or lightly damaged stream looks
//! like), their bodies are decoded in parallel into their places in the output, a run of
//! consecutive chunks per job
//! ([`Workers::parts`](crate::stream::parallel::Workers::parts)). The state machine then
//! reads those frames as it always does, and where it would decode one of them it takes the result decoded ahead instead,
//! if the chunk, its frame's offset and its place in the output are the ones predicted;
//! anything else (a resync, a misplaced or damaged frame, a headless chunk) drops what is
//! left and goes on one thread. Every decision is the sequential one, so the output and the
//! report are the same for every thread count.

use super::{FRAME, FramedDecoder};
use crate::error::Result;
use crate::stream::buf::Buf;
use crate::stream::codec::{ChunkCheck, Codec};
use crate::stream::frame::{Frame, Kind};
use crate::stream::parallel;
use crate::stream::source::Source;

/// A chunk decoded ahead of the state machine.
#[derive(Debug)]
pub(super) struct Decoded {
    /// Offset of its frame in the input.
    at: u64,
    /// Chunk index and payload bytes, from its frame.
    index: u64,
    len: usize,
    /// Where its payload starts in the output.
    off: usize,
    /// The verdict, as [`Codec::decode_chunk`] gave it.
    check: ChunkCheck,
}

/// One chunk to decode ahead: its frame's offset from the cursor, index and length.
#[derive(Clone, Copy)]
struct Next {
    pos: usize,
    index: u64,
    len: usize,
}

impl Decoded {
    /// Offset of its frame in the input.
    pub(super) fn at(&self) -> u64 {
        self.at
    }
}

impl FramedDecoder {
    /// Where chunk `i` goes in the output.
    pub(super) fn out_offset(&self, i: u64) -> usize {
        self.out_base + (i - self.base) as usize * self.layout().chunk_size
    }

    /// At the cursor (where the next frame is expected), decodes the run of data frames
    /// that follows, up to a batch, in parallel, when there are two or more.
    pub(super) fn decode_ahead<S: Source>(&mut self, src: &mut S, out: &mut Buf) -> Result<()> {
        let cs = self.layout().chunk_size;
        let batch = self.workers.batch_of(FRAME + self.data_body(cs));
        let window = batch * (FRAME + self.data_body(cs)) + FRAME;
        let at = src.offset();
        let buf = src.peek(window)?;
        let ours = |b: &[u8]| Frame::parse(b).filter(|f| self.ours(f));
        let mut next = Vec::with_capacity(batch);
        let (mut pos, mut index) = (0, self.next());
        while next.len() < batch {
            let Some(f) = buf.get(pos..pos + FRAME).and_then(ours) else {
                break;
            };
            let len = f.length as usize;
            if f.kind != Kind::Data || f.index != index || len == 0 || len > cs {
                break;
            }
            let end = pos + FRAME + self.data_body(len);
            if buf.get(end..end + FRAME).and_then(ours).is_none() {
                break;
            }
            next.push(Next { pos, index, len });
            (pos, index) = (end, index + 1);
            if len < cs {
                // Only the stream's last chunk is short.
                break;
            }
        }
        if next.len() < 2 {
            return Ok(());
        }
        let l = self.layout();
        let first = self.out_offset(next[0].index);
        if out.len() > first {
            // Not where the state machine would put it: leave it to the state machine.
            return Ok(());
        }
        let last = next[next.len() - 1];
        let end = self.out_offset(last.index) + l.area_for(last.len);
        let mut place = out.spare(first, end);
        let runs = parallel::runs(next.len(), self.workers.parts());
        let mut jobs = Vec::with_capacity(runs.len());
        self.tails.resize_with(runs.len(), Vec::new);
        for ((r, run), tail) in runs.iter().enumerate().zip(self.tails.iter_mut()) {
            let stop = match runs.get(r + 1) {
                Some(after) => after.start * cs,
                None => end - first,
            };
            let (mine, rest) = place.split_at_mut(stop - run.start * cs);
            place = rest;
            let chunks = &next[run.clone()];
            let codec = &self.codec;
            jobs.push(move || decode_run(codec, buf, chunks, mine, tail));
        }
        let checks = self.workers.run(jobs);
        for (n, check) in next.iter().zip(checks.into_iter().flatten()) {
            let off = self.out_offset(n.index);
            self.ahead.push_back(Decoded {
                at: at + n.pos as u64,
                index: n.index,
                len: n.len,
                off,
                check,
            });
        }
        Ok(())
    }

    /// The verdict on chunk `i` of `len` bytes whose frame is at `at` and whose payload goes
    /// to `off`, if it was decoded ahead; otherwise drops everything decoded ahead.
    pub(super) fn take_ahead(
        &mut self,
        at: u64,
        i: u64,
        len: usize,
        off: usize,
    ) -> Option<ChunkCheck> {
        match self.ahead.front() {
            Some(d) if (d.at, d.index, d.len, d.off) == (at, i, len, off) => {
                self.ahead.pop_front().map(|d| d.check)
            }
            _ => {
                self.ahead.clear();
                None
            }
        }
    }
}

/// Decodes consecutive full chunks (the last one possibly short) into `out`, which starts at
/// the first one's place and ends where the next run starts: each chunk into its whole area
/// where that fits (its tail is then overwritten by the next chunk, as on one thread), into
/// exactly its payload otherwise (the rest of its area in `tail`).
fn decode_run(
    codec: &Codec,
    buf: &[u8],
    chunks: &[Next],
    out: &mut [u8],
    tail: &mut Vec<u8>,
) -> Vec<ChunkCheck> {
    let l = &codec.layout;
    let cs = l.chunk_size;
    chunks
        .iter()
        .enumerate()
        .map(|(j, n)| {
            let body = l.groups_for(n.len) * l.group_bytes;
            let enc = &buf[n.pos + FRAME..n.pos + FRAME + body];
            let off = j * cs;
            let area = l.area_for(n.len);
            if off + area <= out.len() {
                codec.decode_chunk(enc, n.index, n.len, &mut out[off..off + area])
            } else {
                codec.decode_chunk_exact(enc, n.index, n.len, &mut out[off..off + n.len], tail)
            }
        })
        .collect()
}
