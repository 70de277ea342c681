//! The version 1 stream decoder's state machine, slice in and slice out: chunks in order,
//! then the trailer and the whole stream's CRC. (Version 2 streams go through
//! [`super::framed`].)

use super::buf::Buf;
use super::codec::{Codec, push_range};
use super::crc::Shift;
use super::format::{self, BLOCK, Layout, read_trailer};
use super::{Header, Report};
use crate::error::{Error, Result};

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
        self.crc = self.full.combine_len(self.crc, check.crc, len);
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
