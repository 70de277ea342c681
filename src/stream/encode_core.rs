//! The stream encoder's state machine, slice in and slice out: header, chunks (with their
//! frames and, in version 2, the recovery chunks of each stripe), end. The one-shot
//! functions and [`super::Encoder`] are thin layers over it.

use super::buf::Buf;
use super::codec::Codec;
use super::crc::{self, Shift};
use super::format::{
    self, BLOCK, Layout, StreamInfo, Trailer, VERSION_1, header_block, region_bytes, trailer_block,
};
use super::frame::{FRAME, Frame, Kind, StripeShape};
use super::parallel::{self, Workers};
use super::stripe::{Partial, Plan, StripeEncoder, shard_bytes};
use crate::error::Result;

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
    index: u64,
    total: u64,
    crc: u32,
    /// The threads that encode a batch of chunks.
    workers: Workers,
    /// Whether the caller keeps the output in memory without reading it back soon
    /// ([`EncodeCore::set_kept`]).
    kept: bool,
    /// A staging buffer per thread when the output is streamed ([`EncodeCore::streams`]).
    stages: Vec<Vec<u8>>,
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
            index: 0,
            total: 0,
            crc: 0,
            workers: Workers::default(),
            kept: false,
            stages: Vec::new(),
        })
    }

    /// Encodes on `threads` threads (`0`: every core); the stream is the same for any
    /// count.
    pub fn set_threads(&mut self, threads: usize) {
        self.workers = Workers::new(threads);
    }

    /// Says whether the output stays in memory, not read back soon (a one-shot encode into
    /// a buffer: [`super::encode_into`]), rather than going out batch by batch (the
    /// [`super::Encoder`] writes each batch's output right after encoding it, and should
    /// find it in cache). Only kept output is streamed past the caches
    /// ([`EncodeCore::streams`]).
    pub fn set_kept(&mut self, kept: bool) {
        self.kept = kept;
    }

    /// Chunks encoded in one batch: [`Workers::encode_batch_of`] the encoded chunk size, or
    /// [`Workers::batch_of`] when a set of recovery accumulators per thread does not fit
    /// ([`StripeEncoder::partials_fit`]) and each batch is multiplied in a pass of its own,
    /// which must find it in cache (at 10 %, 66-chunk batches encoded at 0.17x memcpy on
    /// 2 threads against 0.24x for 16).
    pub fn batch(&self) -> usize {
        let bytes = self.codec.layout.chunk_bytes + FRAME;
        match &self.stripes {
            Some(st) if !self.sets_fit(st) => self.workers.batch_of(bytes),
            _ => self.workers.encode_batch_of(bytes),
        }
    }

    /// Whether a set of recovery accumulators per thread fits ([`StripeEncoder::partials_fit`]):
    /// the jobs then multiply their chunks into their thread's set; otherwise each batch is
    /// multiplied in a pass of its own ([`StripeEncoder::add_many_on`]).
    fn sets_fit(&self, st: &StripeEncoder) -> bool {
        st.partials_fit(self.workers.threads())
    }

    /// The threads it encodes on.
    pub fn workers(&self) -> &Workers {
        &self.workers
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.codec.layout
    }

    /// Whether each chunk is encoded into a per-thread staging buffer and copied out with
    /// streaming stores ([`super::nt::copy`]): for kept output ([`EncodeCore::set_kept`];
    /// `tilecode encode` of a cached file to `/dev/null` ran 41 -> 45 ms streamed, its
    /// reading thread and the copy competing for the two cores), on several threads, for
    /// chunks of at most [`parallel::SMALL_CHUNK`] encoded bytes (the buffer stays in the
    /// core's cache). Two threads share a memory bandwidth that one core's memcpy fills, and
    /// ordinary stores read every output line before writing it: streamed, two-thread
    /// encodes went from 0.78 / 0.85 to 0.81 / 0.88 of memcpy without recovery and
    /// 0.625 / 0.69 to 0.66 / 0.70 at 2 % (alien:9x9 / secded:72, 4 alternated `tilecode
    /// bench` rounds; at 5 %, 0.47 / 0.49 to 0.46 / 0.46 in 6); on one thread they fell
    /// from 0.66 / 0.715 to 0.58 / 0.60 (the copy costs more than it saves), so one thread
    /// keeps ordinary stores. Streaming the decoder's output the same way gained nothing
    /// (docs/benchmarks.md). Not for chunks whose payload the codec itself streams
    /// ([`Codec::streams_chunks`]: deep and in-order chunks, from `D = 512` on for most
    /// codes): their payload went into the staging buffer with streaming stores and came
    /// back from memory, and two threads encoded slower than one (without the stage,
    /// alien:5x5 at `D = 32768` 0.42 -> 0.76 of one core's memcpy, secded:72 0.54 -> 0.89;
    /// docs/benchmarks.md, "Two threads: decoding ahead bounded").
    fn streams(&self) -> bool {
        self.kept
            && self.workers.threads() > 1
            && self.codec.layout.chunk_bytes <= parallel::SMALL_CHUNK
            && !self.codec.streams_chunks()
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
            f.check = crc::checksum(meta);
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
            let sets = self.workers.threads();
            let fit = self.stripes.as_ref().is_some_and(|st| self.sets_fit(st));
            // The stripe taken out for the batch, so that its jobs can fill its accumulators
            // while the encoder's other fields are borrowed.
            let mut stripes = self.stripes.take();
            let result = match &mut stripes {
                Some(st) if fit => st
                    .partials(chunks.len(), sets)
                    .map(|p| self.encode_batch(&chunks, p, out)),
                Some(st) => {
                    self.encode_batch(&chunks, Vec::new(), out);
                    st.add_many_on(&chunks, &self.workers)
                }
                None => {
                    self.encode_batch(&chunks, Vec::new(), out);
                    Ok(())
                }
            };
            self.stripes = stripes;
            result?;
            if self.stripes.as_ref().is_some_and(|st| st.full()) {
                self.recovery_chunks(out)?;
            }
            rest = after;
        }
        Ok(())
    }

    /// Appends consecutive data chunks, each with its frame (version 2) and groups: the
    /// chunks are coded in runs ([`Workers::parts`]), each into its own part of `out` and,
    /// when `partials` has a set per run, into that set of recovery accumulators; their
    /// CRCs are then joined into the stream's in order.
    fn encode_batch(&mut self, chunks: &[&[u8]], partials: Vec<Partial<'_>>, out: &mut Buf) {
        let l = &self.codec.layout;
        let frame = (!self.v1()).then(|| self.frame(Kind::Data));
        let head = if frame.is_some() { FRAME } else { 0 };
        let sizes: Vec<usize> = chunks
            .iter()
            .map(|c| head + l.groups_for(c.len()) * l.group_bytes)
            .collect();
        let mut dst = out.grow(sizes.iter().sum());
        let mut stages = std::mem::take(&mut self.stages);
        if self.streams() {
            stages.resize_with(self.workers.threads(), Vec::new);
        } else {
            stages.clear();
        }
        let mut jobs = Vec::new();
        let runs = chunks.len().div_ceil(RUN_CHUNKS).max(self.workers.parts());
        for run in parallel::runs(chunks.len(), runs) {
            let (mine, after) = dst.split_at_mut(sizes[run.clone()].iter().sum());
            dst = after;
            let (codec, first, at) = (&self.codec, self.index + run.start as u64, run.start);
            let (data, sizes) = (&chunks[run.clone()], &sizes[run]);
            jobs.push(move |lane: &mut Lane<'_, '_>| {
                let acc = lane.acc.as_mut().map(|p| (p, at));
                let stage = lane.stage.as_deref_mut();
                encode_run(codec, frame, first, data, sizes, acc, stage, mine)
            });
        }
        let mut partials = partials.into_iter();
        let mut stage = stages.iter_mut();
        let mut lanes: Vec<Lane<'_, '_>> = (0..self.workers.threads())
            .map(|_| Lane {
                acc: partials.next(),
                stage: stage.next(),
            })
            .collect();
        let crcs = self.workers.run_with(&mut lanes, jobs);
        drop(lanes);
        self.stages = stages;
        for (c, crc) in chunks.iter().zip(crcs.into_iter().flatten()) {
            self.crc = self.full.combine_len(self.crc, crc, c.len());
            self.index += 1;
            self.total += c.len() as u64;
        }
    }

    /// Appends the recovery chunks of the stripe that has just ended, each encoded on the
    /// workers (the other threads would otherwise wait for them).
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
        let (codec, workers) = (&self.codec, &self.workers);
        let l = &codec.layout;
        let size = FRAME + recovery_groups(l) * l.group_bytes;
        st.finish_on(workers, |shards| {
            let mut dst = out.grow(shards.len() * size);
            let mut jobs = Vec::with_capacity(shards.len());
            for (number, &shard) in shards.iter().enumerate() {
                let (mine, after) = std::mem::take(&mut dst).split_at_mut(size);
                dst = after;
                let shape = StripeShape {
                    data: data as u16,
                    recovery: count as u16,
                    number: number as u16,
                };
                jobs.push(move || encode_recovery(codec, f, shape, shard, mine));
            }
            workers.run(jobs);
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

/// What one thread of a batch works with: its set of recovery accumulators and, when the
/// output is streamed, its staging buffer.
struct Lane<'a, 's> {
    acc: Option<Partial<'a>>,
    stage: Option<&'s mut Vec<u8>>,
}

/// Encodes consecutive chunks numbered from `first` into `out`, each taking its `sizes`
/// bytes: its frame (when `frame` is the stream's data frame) and its groups, and, with
/// `acc` (a set of recovery accumulators and the batch position of the first chunk), adds
/// them into the set after them, while they are in cache. With a `stage`, each chunk's
/// groups are encoded there and streamed into `out` ([`super::nt::copy`]). Returns the
/// chunks' CRC-32Cs.
#[allow(clippy::too_many_arguments)]
fn encode_run(
    codec: &Codec,
    frame: Option<Frame>,
    first: u64,
    chunks: &[&[u8]],
    sizes: &[usize],
    acc: Option<(&mut Partial<'_>, usize)>,
    mut stage: Option<&mut Vec<u8>>,
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
        match stage.as_deref_mut() {
            Some(stage) => {
                stage.resize(dst.len(), 0);
                crcs.push(codec.encode_chunk(data, index, stage));
                super::nt::copy(dst, stage);
            }
            None => crcs.push(codec.encode_chunk(data, index, dst)),
        }
    }
    if let Some((p, at)) = acc {
        p.add(at, chunks);
    }
    crcs
}

/// Encodes recovery shard `shape.number` of a stripe into `out`: its frame (`f`, the
/// stripe's recovery frame, given the shape and the shard's CRC) and the shard zero-padded to
/// whole groups. The shard's whole groups are encoded where they are; only the groups past
/// them (the last, partial one) are padded in a copy.
fn encode_recovery(codec: &Codec, mut f: Frame, shape: StripeShape, shard: &[u8], out: &mut [u8]) {
    f.length = shape.pack();
    f.check = crc::checksum(shard);
    let (head, body) = out.split_at_mut(FRAME);
    head.copy_from_slice(&f.to_bytes());
    let l = &codec.layout;
    let whole = shard.len() / l.group_data;
    let (data, rest) = shard.split_at(whole * l.group_data);
    let (full, last) = body.split_at_mut(whole * l.group_bytes);
    codec.encode_groups(data, full);
    if !last.is_empty() {
        let mut padded = vec![0u8; (recovery_groups(l) - whole) * l.group_data];
        padded[..rest.len()].copy_from_slice(rest);
        codec.encode_groups(&padded, last);
    }
}

/// Chunks in one job of a batch: each job encodes its chunks and then multiplies them into
/// its thread's recovery accumulators while they are still in the core's cache.
const RUN_CHUNKS: usize = 4;

/// Groups that hold one recovery shard.
pub fn recovery_groups(l: &Layout) -> usize {
    shard_bytes(l.chunk_size).div_ceil(l.group_data)
}
