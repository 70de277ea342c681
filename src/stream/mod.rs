//! The streaming codec: container format, bit-sliced interleaved kernels, Read/Write adapters.
//!
//! A stream is a header region, chunks of bit-sliced codeword groups, and a trailer region
//! (`docs/format.md` specifies every byte). Three tiers, as in flate2:
//!
//! * one-shot functions: [`encode`], [`decode`], [`decode_lenient`] (and the `_into` variants
//!   that reuse an output buffer);
//! * I/O adapters: [`Encoder`] (`io::Write`) and [`Decoder`] (`io::Read`), memory O(chunk);
//! * the codec core in `codec` that both are built on, slice in and slice out.
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
mod codec;
mod crc;
pub mod format;
pub mod kernel;
pub mod naive;
mod read;
mod write;

pub use read::Decoder;
pub use write::Encoder;

use crate::code::Spec;
use crate::error::{Error, Result};
use bytes::Bytes;
use codec::{Buf, DecodeCore, EncodeCore};
use format::{Layout, Probe};

/// How to encode a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The code (any spec).
    pub code: Spec,
    /// Interleave depth `D`: codewords per group, bits per row; a multiple of 64 from 64 to
    /// 1 048 576. A burst of up to `D` flipped bits is corrected by any code with `t >= 1`.
    pub interleave: usize,
    /// Payload bytes per chunk (at most 64 MiB); `0` picks the default for the code, about
    /// 1 MiB rounded so that chunks fill whole groups.
    pub chunk_size: usize,
}

impl Default for Options {
    /// `alien:9x9`, interleave 64, chunks of 1 048 824 bytes (2017 groups of 520 bytes, less
    /// the 16-byte chunk tail).
    fn default() -> Self {
        Options::new(Spec::Alien { rows: 9, cols: 9 }, 64)
    }
}

impl Options {
    /// Options for a code and interleave depth with the default chunk size for them (when the
    /// pair is out of range the chunk size is left at `0`, and [`Options::validate`] says why).
    pub fn new(code: Spec, interleave: usize) -> Options {
        let chunk_size = format::default_chunk_size(&code, interleave).unwrap_or(0);
        Options {
            code,
            interleave,
            chunk_size,
        }
    }

    /// Checks the options: the spec, the interleave depth (a multiple of 64, 64..=1 << 20),
    /// and the caps on groups (64 MiB), chunks (64 MiB payload, 256 MiB encoded).
    pub fn validate(&self) -> Result<()> {
        self.layout().map(|_| ())
    }

    /// The layout these options describe.
    pub(crate) fn layout(&self) -> Result<Layout> {
        let spec = format::check_spec(&self.code)?;
        Layout::new(&spec, self.interleave, self.chunk_size)
    }

    /// The size of the encoded stream for `len` input bytes.
    pub fn encoded_len(&self, len: u64) -> Result<u64> {
        Ok(self.layout()?.encoded_len(len))
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
}

impl Header {
    fn from_layout(l: &Layout) -> Header {
        Header {
            code: l.spec,
            interleave: l.interleave,
            chunk_size: l.chunk_size,
            version: format::VERSION,
            region_bytes: l.region(),
            group_bytes: l.group_bytes,
            chunk_bytes: l.chunk_bytes,
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
}

impl Report {
    /// Clean (nothing corrected), Repaired (corrections or detections, all data verified) or
    /// Damaged (a chunk or the whole stream failed its check).
    pub fn status(&self) -> StreamStatus {
        if !self.checksum_ok || !self.damaged_ranges.is_empty() {
            StreamStatus::Damaged
        } else if self.corrected_bits > 0 || self.uncorrectable_codewords > 0 {
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
    let layout = opts.layout()?;
    let mut buf = Buf::from_vec(std::mem::take(out));
    let cs = layout.chunk_size;
    let mut core = EncodeCore::new(layout);
    core.start(&mut buf);
    for chunk in data.chunks(cs) {
        core.chunk(chunk, &mut buf);
    }
    core.finish(&mut buf);
    *out = buf.into_vec();
    Ok(())
}

/// Decodes a whole stream, strictly: any damage the code could not repair is an error
/// (`Corrupt` or `Checksum`); a short stream is `Truncated`; a bad start `NotTilecode` or
/// `BadHeader`.
pub fn decode(data: &[u8]) -> Result<(Bytes, Report)> {
    let mut out = Vec::new();
    let report = decode_into(data, false, &mut out)?;
    Ok((Bytes::from(out), report))
}

/// Decodes a whole stream, best effort: damaged data is kept as decoded and recorded in the
/// report. A stream that is not one, has a bad header or is truncated is still an error.
pub fn decode_lenient(data: &[u8]) -> Result<(Bytes, Report)> {
    let mut out = Vec::new();
    let report = decode_into(data, true, &mut out)?;
    Ok((Bytes::from(out), report))
}

/// Decodes a whole stream into `out`, replacing its contents (memory reused as by
/// [`encode_into`]), strictly or leniently. On error `out` holds the verified chunks decoded
/// before it.
pub fn decode_into(data: &[u8], lenient: bool, out: &mut Vec<u8>) -> Result<Report> {
    let mut buf = Buf::from_vec(std::mem::take(out));
    let result = decode_buf(data, lenient, &mut buf);
    *out = buf.into_vec();
    result
}

fn decode_buf(data: &[u8], lenient: bool, buf: &mut Buf) -> Result<Report> {
    let mut core = start_decode(data)?;
    core.set_lenient(lenient);
    let l = core.layout().clone();
    let mut pos = l.region();
    // A chunk is known to be full only when more than a trailer follows it: a short last
    // chunk may take as many groups as a full one.
    while data.len() - pos > l.chunk_bytes + l.region() {
        core.chunk(&data[pos..pos + l.chunk_bytes], buf)?;
        pos += l.chunk_bytes;
    }
    core.finish(&data[pos..], buf)?;
    Ok(core.into_report())
}

/// Reads the header of a whole stream held in memory.
pub fn read_header(data: &[u8]) -> Result<Header> {
    Ok(start_decode(data)?.header().clone())
}

fn start_decode(data: &[u8]) -> Result<DecodeCore> {
    match format::probe_header(data, true)? {
        Probe::Found {
            layout,
            block,
            corrected_bits,
        } => Ok(DecodeCore::new(*layout, &block, corrected_bits)),
        Probe::NeedMore(n) => Err(Error::Truncated {
            reason: format!("expected at least {n} header bytes, found {}", data.len()),
        }),
    }
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
