//! The streaming codec: container format, bit-sliced interleaved kernels, Read/Write adapters.
//!
//! A stream is a header region, chunks of bit-sliced codeword groups, and a trailer region
//! (`docs/format.md` specifies every byte). Three tiers, as in flate2:
//!
//! * one-shot functions: [`encode`], [`decode`], [`decode_lenient`] (and the `_into` variants
//!   that reuse an output buffer);
//! * I/O adapters: [`Encoder`] (`io::Write`) and [`Decoder`] (`io::Read`), memory O(chunk);
//! * the state machines in `encode_core`, `decode_core` and `framed` that both are built on,
//!   slice in and slice out, over the chunk coder in `codec`.
//!
//! ```
//! use tilecode::stream::{self, Options, StreamStatus};
//! let data = b"the quick brown fox".repeat(100);
//! let mut enc = stream::encode(&data, &Options::default()).unwrap().to_vec();
//! enc[1000] ^= 0x10; // one flipped bit
//! let (dec, report) = stream::decode(&enc).unwrap();
//! assert_eq!(&dec[..], &data[..]);
//! assert_eq!(report.status(), StreamStatus::Repaired);
//! ```

pub mod bench;
mod buf;
mod codec;
mod crc;
mod decode_core;
mod encode_core;
pub mod format;
pub mod frame;
mod framed;
pub mod gf256;
pub mod naive;
mod nt;
mod open;
pub mod parallel;
mod read;
mod source;
pub mod stripe;
mod write;

pub use frame::Metadata;
pub use read::Decoder;
pub use write::Encoder;

use crate::code::Spec;
use crate::error::{Error, Result};
use buf::Buf;
use bytes::Bytes;
use encode_core::EncodeCore;
use format::Layout;
use source::SliceSource;
use stripe::Plan;

/// The recovery percentage `tilecode encode` uses unless told otherwise: stripes of 100 data
/// chunks and 2 recovery chunks ([`stripe::Plan::for_percent`]), enough for a lost 4 KiB
/// sector or a cut or insertion of up to 4 KiB anywhere (docs/format.md).
pub const DEFAULT_RECOVERY: f64 = 2.0;

/// Below this many default chunks of input, [`Options::for_input_len`] makes chunks smaller.
pub const SMALL_INPUT_CHUNKS: usize = 16;
/// The least payload a chunk made smaller for a short input carries: its frame then spans
/// more than a 4 KiB sector, which can therefore touch at most two chunks.
pub const MIN_SMALL_CHUNK: usize = 4096;

/// How to encode a stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The code (any spec).
    pub code: Spec,
    /// Interleave depth `D`: codewords per group, bits per row; a multiple of 64 from 64 to
    /// 1 048 576. A burst of up to `D` flipped bits is corrected by any code with `t >= 1`.
    pub interleave: usize,
    /// Payload bytes per chunk (at most 64 MiB); `0` picks the default for the code: in
    /// version 2 the most whole groups that fit 64 KiB, in version 1 about 1 MiB.
    pub chunk_size: usize,
    /// Recovery chunks, as a percentage of the data chunks (0 to 100; version 2 only):
    /// Reed–Solomon chunks that rebuild whole lost chunks ([`stripe::Plan::for_percent`]).
    pub recovery: f64,
    /// The format version to write: 2 (default), or 1 for readers older than version 2.
    pub version: u8,
    /// The stream's id (version 2); `None` draws a random one.
    pub stream_id: Option<u64>,
    /// The input file's name, mode and modification time, recorded in a metadata frame
    /// (version 2).
    pub metadata: Option<Metadata>,
    /// Threads that encode (`0`: every core; default 1). The stream is byte for byte the
    /// same for every count; on several threads each adds up to
    /// [`parallel::ENCODE_BYTES_PER_THREAD`] of encoded output
    /// ([`parallel::Workers::encode_batch_of`]) and a set of recovery accumulators to the
    /// memory an encode holds (docs/format.md, "Threads").
    pub threads: usize,
}

impl Default for Options {
    /// `alien:9x9`, interleave 64, chunks of 195 496 bytes (376 groups of 520 payload bytes,
    /// less the chunk's 24-byte tail of checks), [`DEFAULT_RECOVERY`] percent of recovery
    /// chunks.
    fn default() -> Self {
        Options::new(Spec::Alien { rows: 9, cols: 9 }, 64)
    }
}

impl Options {
    /// Options for a code and interleave depth with the default chunk size and recovery (when
    /// the pair is out of range the chunk size is left at `0`, and [`Options::validate`] says
    /// why).
    pub fn new(code: Spec, interleave: usize) -> Options {
        let chunk_size = format::default_chunk_size(&code, interleave).unwrap_or(0);
        Options {
            code,
            interleave,
            chunk_size,
            recovery: DEFAULT_RECOVERY,
            version: format::VERSION,
            stream_id: None,
            metadata: None,
            threads: 1,
        }
    }

    /// These options for an input of `len` bytes known in advance: when the input is
    /// shorter than [`SMALL_INPUT_CHUNKS`] default chunks and the chunk size is the default,
    /// chunks shrink to about `len / 16` (whole groups, at least 4 KiB of payload, so that a
    /// frame still spans a 4 KiB sector). A stripe's (at least two) recovery chunks then cost
    /// an eighth of the input or less instead of two whole 64 KiB chunks.
    pub fn for_input_len(mut self, len: u64) -> Options {
        let Ok(l) = self.layout() else {
            return self;
        };
        let default = format::default_chunk_size(&self.code, self.interleave).unwrap_or(0);
        let small = len < (SMALL_INPUT_CHUNKS * default) as u64;
        if self.version == format::VERSION_1 || self.chunk_size != default || !small {
            return self;
        }
        let want = ((len / SMALL_INPUT_CHUNKS as u64) as usize).max(MIN_SMALL_CHUNK);
        let groups = (want + format::TAIL + 8).div_ceil(l.group_data);
        let fits = format::payload_in_groups(groups, l.group_data, self.version);
        self.chunk_size = fits.max(1).min(default);
        self
    }

    /// These options with `threads` encoding threads (`0`: every core).
    pub fn with_threads(mut self, threads: usize) -> Options {
        self.threads = threads;
        self
    }

    /// These options with `percent` of recovery chunks.
    pub fn with_recovery(mut self, percent: f64) -> Options {
        self.recovery = percent;
        self
    }

    /// Checks the options: the spec, the interleave depth (a multiple of 64, 64..=1 << 20),
    /// the caps on groups (64 MiB), chunks (64 MiB payload, 256 MiB encoded), the version and
    /// the recovery percentage.
    pub fn validate(&self) -> Result<()> {
        self.layout()?;
        self.plan().map(|_| ())
    }

    /// The layout these options describe.
    pub(crate) fn layout(&self) -> Result<Layout> {
        if self.version != format::VERSION && self.version != format::VERSION_1 {
            return Err(Error::Limit {
                what: format!("format version {}", self.version),
                reason: format!("expected {} or {}", format::VERSION_1, format::VERSION),
            });
        }
        let spec = format::check_spec(&self.code)?;
        let cs = if self.version == format::VERSION_1
            && self.chunk_size == format::default_chunk_size(&spec, self.interleave).unwrap_or(0)
        {
            0
        } else {
            self.chunk_size
        };
        Layout::with_version(&spec, self.interleave, cs, self.version)
    }

    /// The recovery plan (`None` for no recovery chunks).
    pub(crate) fn plan(&self) -> Result<Option<Plan>> {
        let plan = Plan::for_percent(self.recovery, self.layout()?.chunk_size)?;
        if plan.is_some() && self.version == format::VERSION_1 {
            return Err(Error::Limit {
                what: "recovery chunks".into(),
                reason: "format version 1 has none: use recovery 0 with version 1".into(),
            });
        }
        Ok(plan)
    }

    /// The size of the encoded stream for `len` input bytes.
    pub fn encoded_len(&self, len: u64) -> Result<u64> {
        let l = self.layout()?;
        if l.version == format::VERSION_1 {
            return Ok(l.encoded_len(len));
        }
        let cs = l.chunk_size as u64;
        let data = |p: usize| (frame::FRAME + l.groups_for(p) * l.group_bytes) as u64;
        let full = len / cs;
        let rest = (len % cs) as usize;
        let mut total = l.region() as u64 + 3 * l.slot as u64;
        if let Some(m) = &self.metadata {
            total += (frame::FRAME + m.to_bytes().len()) as u64;
        }
        total += full * data(l.chunk_size) + if rest > 0 { data(rest) } else { 0 };
        if let Some(p) = self.plan()? {
            let chunks = len.div_ceil(cs);
            let stripes = chunks / p.stripe as u64;
            let last = (chunks % p.stripe as u64) as usize;
            let rec = (frame::FRAME + encode_core::recovery_groups(&l) * l.group_bytes) as u64;
            let count = stripes * p.recovery as u64
                + if last > 0 {
                    p.recovery_for(last) as u64
                } else {
                    0
                };
            total += count * rec;
        }
        Ok(total)
    }

    /// The stream id to write: the one asked for, or a random one.
    pub(crate) fn id(&self) -> u64 {
        self.stream_id.unwrap_or_else(rand::random)
    }

    /// The encoder core for these options.
    pub(crate) fn core(&self) -> Result<EncodeCore> {
        let mut core = EncodeCore::new(
            self.layout()?,
            self.id(),
            self.plan()?,
            self.metadata.as_ref().map(Metadata::to_bytes),
        )?;
        core.set_threads(self.threads);
        Ok(core)
    }
}

/// What a stream's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The code.
    pub code: Spec,
    /// Interleave depth `D`.
    pub interleave: usize,
    /// Payload bytes of a full chunk.
    pub chunk_size: usize,
    /// Format version.
    pub version: u8,
    /// Bytes of the header region (three copies of the 64-byte header block, each in a slot
    /// of `max(64, D / 8)` bytes); the trailer region has the same size.
    pub region_bytes: usize,
    /// Encoded bytes of one group of `D` codewords.
    pub group_bytes: usize,
    /// Encoded bytes of a full chunk.
    pub chunk_bytes: usize,
    /// The stream's random id (version 2; 0 in version 1).
    pub stream_id: u64,
    /// Data chunks per stripe (0: no recovery chunks).
    pub stripe: usize,
    /// Recovery chunks per full stripe.
    pub recovery_chunks: usize,
}

impl Header {
    fn from_layout(l: &Layout, stream_id: u64, plan: Option<Plan>) -> Header {
        Header {
            code: l.spec,
            interleave: l.interleave,
            chunk_size: l.chunk_size,
            version: l.version,
            region_bytes: l.region(),
            group_bytes: l.group_bytes,
            chunk_bytes: l.chunk_bytes,
            stream_id,
            stripe: plan.map_or(0, |p| p.stripe),
            recovery_chunks: plan.map_or(0, |p| p.recovery),
        }
    }
}

/// What decoding found.
///
/// `codewords`, `corrected_bits` and `uncorrectable_codewords` count the codewords of the
/// data; the header and trailer are protected by three copies each, and the bits repaired
/// there are counted in `header_corrected_bits` and `trailer_corrected_bits` and also included
/// in `corrected_bits`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    /// Data codewords decoded.
    pub codewords: u64,
    /// Bits flipped back (data codewords, header and trailer copies).
    pub corrected_bits: u64,
    /// Data codewords with errors the decoder detected and could not correct.
    pub uncorrectable_codewords: u64,
    /// `[start, end)` byte offsets in the original data that may be wrong, merged and sorted:
    /// the bytes holding bits of uncorrectable codewords of chunks that failed their CRC, or
    /// the whole chunk when its CRC failed with every codeword decoded (a miscorrection).
    pub damaged_ranges: Vec<(u64, u64)>,
    /// Every chunk CRC and the whole-stream checksum verified.
    pub checksum_ok: bool,
    /// Encoded bytes consumed.
    pub bytes_in: u64,
    /// Original bytes produced.
    pub bytes_out: u64,
    /// Chunks decoded.
    pub chunks: u64,
    /// Chunks that failed their CRC.
    pub damaged_chunks: u64,
    /// Bits of the header copies that disagreed with the accepted header.
    pub header_corrected_bits: u64,
    /// Bits of the trailer copies that disagreed with their majority.
    pub trailer_corrected_bits: u64,
    /// The stream's code.
    pub spec: String,
    /// The stream's interleave depth.
    pub interleave: u64,
    /// The stream's chunk size.
    pub chunk_size: u64,
    /// Lost or damaged chunks rebuilt from recovery chunks (version 2).
    pub recovered_chunks: u64,
    /// Chunks missing or unverified that could not be rebuilt; their bytes are in
    /// `damaged_ranges` (zero-filled in the output).
    pub lost_chunks: u64,
    /// Times the decoder lost its place and found the next frame further on.
    pub resyncs: u64,
    /// Encoded bytes passed over because they belong to no frame taken (damage, insertions,
    /// foreign data).
    pub skipped_bytes: u64,
    /// Bytes after the end of a complete stream (padding, another stream), ignored.
    pub trailing_bytes: u64,
    /// Recovery chunks read that failed their check (the data may still be whole; its
    /// protection is weaker).
    pub damaged_recovery_chunks: u64,
    /// Chunks found and verified although their frame header was damaged.
    pub frames_repaired: u64,
    /// The end frame was lost, but the data is provably complete (the last chunk is short).
    pub end_missing: bool,
    /// The original length is not known: every copy of the end frame was lost, and either
    /// the last chunk too (the output's last chunk is then a full chunk's length of zeros
    /// or rebuilt bytes, inside `damaged_ranges`) or the chunks after the last one read
    /// (decoding then stops with an error after delivering what verified).
    pub length_unknown: bool,
}

impl Report {
    /// Checks the promise a report makes about a decode of `original` that gave `output`:
    /// when the status is not damaged, the output is the original; when it is, the output
    /// has the original length (unless `length_unknown`) and every byte outside
    /// `damaged_ranges` is exact. Returns the first offset that breaks it, if any.
    pub fn unreported_difference(&self, original: &[u8], output: &[u8]) -> Option<u64> {
        let common = original.len().min(output.len());
        let first_diff = |a: usize, b: usize| (a..b).find(|&i| output[i] != original[i]);
        if self.status() != StreamStatus::Damaged {
            let at = first_diff(0, common).unwrap_or(common);
            return (original.len() != output.len() || at < common).then_some(at as u64);
        }
        if !self.length_unknown && original.len() != output.len() {
            return Some(common as u64);
        }
        let mut at = 0usize;
        for &(a, b) in self
            .damaged_ranges
            .iter()
            .chain([&(common as u64, common as u64)])
        {
            let a = (a as usize).min(common);
            if let Some(i) = first_diff(at.min(a), a) {
                return Some(i as u64);
            }
            at = at.max(b as usize);
        }
        None
    }

    /// Clean (nothing corrected), Repaired (corrections or detections, all data verified) or
    /// Damaged (a chunk or the whole stream failed its check).
    pub fn status(&self) -> StreamStatus {
        if !self.checksum_ok
            || !self.damaged_ranges.is_empty()
            || self.lost_chunks > 0
            || self.length_unknown
        {
            StreamStatus::Damaged
        } else if self.corrected_bits > 0
            || self.uncorrectable_codewords > 0
            || self.recovered_chunks > 0
            || self.skipped_bytes > 0
            || self.frames_repaired > 0
            || self.end_missing
        {
            StreamStatus::Repaired
        } else {
            StreamStatus::Clean
        }
    }
}

/// The verdict on a decoded stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamStatus {
    /// Nothing was corrected.
    Clean,
    /// Errors were corrected and every check passed.
    Repaired,
    /// Some data could not be restored.
    Damaged,
}

impl StreamStatus {
    /// `clean`, `repaired` or `damaged`.
    pub fn as_str(&self) -> &'static str {
        match self {
            StreamStatus::Clean => "clean",
            StreamStatus::Repaired => "repaired",
            StreamStatus::Damaged => "damaged",
        }
    }
}

impl std::fmt::Display for StreamStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Encodes `data` in one go.
pub fn encode(data: &[u8], opts: &Options) -> Result<Bytes> {
    let mut out = Vec::new();
    encode_into(data, opts, &mut out)?;
    Ok(Bytes::from(out))
}

/// Encodes `data` into `out`, replacing its contents; its memory is reused, so encoding
/// again into the same vector allocates and zeroes nothing.
pub fn encode_into(data: &[u8], opts: &Options, out: &mut Vec<u8>) -> Result<()> {
    let mut core = opts.core()?;
    core.set_kept(true);
    let mut buf = Buf::from_vec(std::mem::take(out));
    core.start(&mut buf);
    // On the pool, so that the encoder's batches start and end there (Workers::install).
    let workers = core.workers().clone();
    let result = workers.install(|| {
        core.chunks(data, &mut buf)
            .and_then(|_| core.finish(&mut buf))
    });
    *out = buf.into_vec();
    result
}

/// Decodes a whole stream, strictly: any damage that could not be repaired is an error
/// (`Corrupt` or `Checksum`); a stream that ends early is `Truncated`; a bad start
/// `NotTilecode` or `BadHeader`.
pub fn decode(data: &[u8]) -> Result<(Bytes, Report)> {
    let mut out = Vec::new();
    let report = decode_into(data, false, &mut out)?;
    Ok((Bytes::from(out), report))
}

/// Decodes a whole stream, best effort: damaged data is kept as decoded (lost chunks as
/// zeros) and recorded in the report. A stream that is not one, has a bad header and no
/// frame to start from, or ends early is still an error.
pub fn decode_lenient(data: &[u8]) -> Result<(Bytes, Report)> {
    let mut out = Vec::new();
    let report = decode_into(data, true, &mut out)?;
    Ok((Bytes::from(out), report))
}

/// Decodes a whole stream into `out`, replacing its contents (memory reused as by
/// [`encode_into`]), strictly or leniently. On error `out` holds the verified data decoded
/// before it.
pub fn decode_into(data: &[u8], lenient: bool, out: &mut Vec<u8>) -> Result<Report> {
    decode_report(data, lenient, out).map(|(r, _)| r)
}

/// [`decode_into`] that also returns the report when decoding failed part way (the error
/// then comes with the report of what was found before it).
pub fn decode_report(
    data: &[u8],
    lenient: bool,
    out: &mut Vec<u8>,
) -> Result<(Report, Option<Metadata>)> {
    let opts = DecodeOptions {
        lenient,
        ..DecodeOptions::default()
    };
    decode_with(data, &opts, out)
}

/// How to decode a stream in memory ([`decode_with`]); the [`Decoder`] adapter takes the
/// same settings from its builder methods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Keep damaged data (lost chunks as zeros) and report it, instead of failing on it.
    pub lenient: bool,
    /// Decode and check every recovery chunk, not only those a damaged stripe needs (as
    /// `tilecode verify` does).
    pub check_recovery: bool,
    /// Threads that decode (`0`: every core; default 1). The output and the report are the
    /// same for every count; each thread adds about [`parallel::CHUNKS_PER_THREAD`] chunks
    /// (twice as many small ones: [`parallel::Workers::batch_of`]) of input and of output to
    /// the memory a decode holds.
    pub threads: usize,
}

impl Default for DecodeOptions {
    /// Strict, recovery chunks read only when needed, one thread.
    fn default() -> Self {
        DecodeOptions {
            lenient: false,
            check_recovery: false,
            threads: 1,
        }
    }
}

impl DecodeOptions {
    /// These options with `threads` decoding threads (`0`: every core).
    pub fn with_threads(mut self, threads: usize) -> DecodeOptions {
        self.threads = threads;
        self
    }
}

/// Decodes a whole stream into `out` (replacing its contents, memory reused as by
/// [`encode_into`]) with the given options; returns the report and the metadata, or the
/// error with what was verified before it left in `out`.
///
/// With several threads, runs of consecutive chunks whose frames sit where they should are
/// decoded in parallel, and everything else (resynchronisation, misplaced or damaged frames,
/// recovery) on one thread, in the same order as with one: the output and the report are
/// the same for every thread count. Version 1 streams decode on one thread.
pub fn decode_with(
    data: &[u8],
    opts: &DecodeOptions,
    out: &mut Vec<u8>,
) -> Result<(Report, Option<Metadata>)> {
    let mut buf = Buf::from_vec(std::mem::take(out));
    let mut src = SliceSource::new(data, 0);
    // On the pool, so that the decoder's batches start and end there (Workers::install).
    let result = parallel::Workers::new(opts.threads).install(|| {
        open::open(&mut src).and_then(|mut core| {
            core.set_lenient(opts.lenient);
            core.set_check_recovery(opts.check_recovery);
            core.set_threads(opts.threads);
            while !core.done() {
                core.step(&mut src, &mut buf)?;
            }
            Ok((core.report().clone(), core.metadata().cloned()))
        })
    });
    *out = buf.into_vec();
    result
}

/// Reads the header of a whole stream held in memory (or, when it is lost, the layout the
/// first frame found states).
pub fn read_header(data: &[u8]) -> Result<Header> {
    Ok(open::open(&mut SliceSource::new(data, 0))?.header().clone())
}

/// A copy of an error, for adapters that must report the same failure again.
pub(crate) fn replay(e: &Error) -> Error {
    match e {
        Error::Truncated { reason } => Error::Truncated {
            reason: reason.clone(),
        },
        Error::Corrupt { reason } => Error::Corrupt {
            reason: reason.clone(),
        },
        Error::NotTilecode { reason } => Error::NotTilecode {
            reason: reason.clone(),
        },
        Error::BadHeader { reason } => Error::BadHeader {
            reason: reason.clone(),
        },
        Error::Checksum {
            what,
            expected,
            got,
        } => Error::Checksum {
            what: what.clone(),
            expected: *expected,
            got: *got,
        },
        other => Error::Io(std::io::Error::new(other.kind(), other.to_string())),
    }
}
