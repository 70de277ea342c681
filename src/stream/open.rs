//! Opening a stream: its header (version 1 or 2), or, when the header is lost, the first
//! version 2 frame found at any offset. The result is a decoding core that steps through
//! the rest the same way for a slice in memory and for an `io::Read`.

use super::buf::Buf;
use super::decode_core::DecodeCore;
use super::format::{self, BLOCK, Probe, VERSION_1, probe_header, stream_info};
use super::frame::{self, FRAME, Frame, Metadata};
use super::framed::FramedDecoder;
use super::source::Source;
use super::stripe::Plan;
use super::{Header, Report};
use crate::error::{Error, Result};

/// How far into a stream whose header is lost the decoder looks for its first frame.
pub const MAX_START_SCAN: u64 = 64 << 20;

/// The decoding state of a version 1 or version 2 stream.
#[derive(Debug)]
pub enum Core {
    /// A version 1 stream: chunks back to back, the trailer at the end.
    V1(Box<DecodeCore>, bool),
    /// A version 2 stream: frames.
    V2(Box<FramedDecoder>),
}

impl Core {
    /// Lenient (keep damaged data) or strict.
    pub fn set_lenient(&mut self, yes: bool) {
        match self {
            Core::V1(c, _) => c.set_lenient(yes),
            Core::V2(c) => c.set_lenient(yes),
        }
    }

    /// Check every recovery chunk too (version 2).
    pub fn set_check_recovery(&mut self, yes: bool) {
        if let Core::V2(c) = self {
            c.set_check_recovery(yes);
        }
    }

    /// Decode on `threads` threads (`0`: every core; version 2).
    pub fn set_threads(&mut self, threads: usize) {
        if let Core::V2(c) = self {
            c.set_threads(threads);
        }
    }

    /// The header.
    pub fn header(&self) -> &Header {
        match self {
            Core::V1(c, _) => c.header(),
            Core::V2(c) => c.header(),
        }
    }

    /// The report so far.
    pub fn report(&self) -> &Report {
        match self {
            Core::V1(c, _) => c.report(),
            Core::V2(c) => c.report(),
        }
    }

    /// The metadata the stream records (version 2).
    pub fn metadata(&self) -> Option<&Metadata> {
        match self {
            Core::V1(..) => None,
            Core::V2(c) => c.metadata(),
        }
    }

    /// Whether the whole stream has been decoded.
    pub fn done(&self) -> bool {
        match self {
            Core::V1(_, done) => *done,
            Core::V2(c) => c.done(),
        }
    }

    /// Decodes the next piece (a chunk in version 1, a stripe in version 2), appending to
    /// `out`.
    pub fn step<S: Source>(&mut self, src: &mut S, out: &mut Buf) -> Result<()> {
        match self {
            Core::V2(c) => c.step(src, out),
            Core::V1(c, done) => {
                let l = c.layout();
                let (chunk, region) = (l.chunk_bytes, l.region());
                // One byte past the trailer's size tells a full chunk from a short last one
                // that takes as many groups.
                let buf = src.peek(chunk + region + 1)?;
                if buf.len() > chunk + region {
                    let r = c.chunk(&buf[..chunk], out);
                    src.advance(chunk);
                    r
                } else {
                    let n = buf.len();
                    *done = true;
                    let r = c.finish(buf, out);
                    src.advance(n);
                    r
                }
            }
        }
    }
}

/// Reads the header at the cursor and returns the core for the rest. A header damaged beyond
/// repair, or displaced by bytes cut or inserted, is looked for as the first version 2 frame
/// within [`MAX_START_SCAN`] bytes; if there is none, the header's own error stands.
pub fn open<S: Source>(src: &mut S) -> Result<Core> {
    let mut want = BLOCK;
    let error = loop {
        let buf = src.peek(want)?;
        let eof = buf.len() < want;
        match probe_header(buf, eof) {
            Ok(Probe::Found {
                layout,
                block,
                corrected_bits,
            }) => {
                src.advance(layout.region());
                if layout.version == VERSION_1 {
                    return Ok(Core::V1(
                        Box::new(DecodeCore::new(*layout, &block, corrected_bits)),
                        false,
                    ));
                }
                let info = stream_info(&block);
                let plan = Plan::checked(
                    info.stripe as usize,
                    info.recovery as usize,
                    layout.chunk_size,
                );
                let report = Report {
                    corrected_bits,
                    header_corrected_bits: corrected_bits,
                    bytes_in: layout.region() as u64,
                    ..base_report(&layout)
                };
                let at = src.offset();
                return Ok(Core::V2(Box::new(FramedDecoder::new(
                    *layout,
                    info.stream_id,
                    plan,
                    at,
                    report,
                ))));
            }
            Ok(Probe::NeedMore(n)) if !eof => want = n,
            Ok(Probe::NeedMore(n)) => {
                break Error::Truncated {
                    reason: format!("expected at least {n} header bytes, found {}", buf.len()),
                };
            }
            Err(e) => break e,
        }
    };
    match first_frame(src)? {
        Some(core) => Ok(core),
        None => Err(error),
    }
}

fn base_report(layout: &format::Layout) -> Report {
    Report {
        spec: layout.spec.to_string(),
        interleave: layout.interleave as u64,
        chunk_size: layout.chunk_size as u64,
        checksum_ok: true,
        ..Report::default()
    }
}

/// Looks for the first sealed version 2 frame whose layout is within the caps.
fn first_frame<S: Source>(src: &mut S) -> Result<Option<Core>> {
    let window = 1 << 20;
    let start = src.offset();
    loop {
        let buf = src.peek(window)?;
        let found = frame::find(buf, 0, |f: &Frame| f.layout().is_some());
        let n = buf.len();
        if let Some((q, f)) = found {
            let skipped = src.offset() - start + q as u64;
            src.advance(q);
            let layout = f.layout().expect("checked");
            let report = Report {
                skipped_bytes: skipped,
                bytes_in: skipped,
                resyncs: 1,
                ..base_report(&layout)
            };
            let plan = f.plan();
            let at = src.offset();
            return Ok(Some(Core::V2(Box::new(FramedDecoder::new(
                layout,
                f.stream_id,
                plan,
                at,
                report,
            )))));
        }
        if n < window || src.offset() - start > MAX_START_SCAN {
            return Ok(None);
        }
        src.advance(n - (FRAME - 1));
    }
}
