//! The `io::Read` decoder.

use super::buf::Buf;
use super::frame::Metadata;
use super::open::{self, Core};
use super::source::{Input, ReadSource};
use super::{Header, Report, replay};
use crate::error::Error;
use std::io::{self, BufRead, Read};

/// Decodes a tilecode stream read from `R`.
///
/// The header is read and checked by [`Decoder::new`]. A version 2 stream is decoded a stripe
/// at a time (a version 1 stream a chunk at a time), so memory is one stripe of payload and
/// one frame of input, whatever the stream says. Strict by default: a chunk that can be
/// neither verified nor rebuilt is an `InvalidData` error carrying [`Error::Corrupt`] or
/// [`Error::Checksum`], and none of its bytes are returned (the verified bytes before it
/// are). [`Decoder::keep_damaged`] returns damaged chunks as decoded, lost ones as zeros,
/// and records them in the report instead. A stream that ends early is an `UnexpectedEof`
/// error carrying [`Error::Truncated`] in both modes.
///
/// It is also an `io::BufRead`: `fill_buf` hands out the decoded chunk itself, which saves a
/// copy when the bytes go straight on to a writer (as in `tilecode decode`).
#[derive(Debug)]
pub struct Decoder<R: Read> {
    src: ReadSource<R>,
    core: Core,
    /// Decoded bytes not yet returned, from `pos`.
    out: Buf,
    pos: usize,
    failed: Option<Error>,
}

impl<R: Read> Decoder<R> {
    /// A decoder reading from `r`; reads and checks the header now (or, when it is lost,
    /// finds the first frame). Errors: `InvalidData` carrying [`Error::NotTilecode`] or
    /// [`Error::BadHeader`], `UnexpectedEof` carrying [`Error::Truncated`], or the reader's
    /// own error.
    pub fn new(r: R) -> io::Result<Self> {
        let mut src = ReadSource::new(r, Input::default(), false, 0);
        let core = open::open(&mut src)?;
        Ok(Decoder {
            src,
            core,
            out: Buf::default(),
            pos: 0,
            failed: None,
        })
    }

    /// Lenient mode (`true`): return damaged data as decoded (lost chunks as zeros) and
    /// record the damage in the report instead of failing.
    pub fn keep_damaged(mut self, yes: bool) -> Self {
        self.core.set_lenient(yes);
        self
    }

    /// Decode and check every recovery chunk, not only those a damaged stripe needs (what
    /// `tilecode verify` does): damage there is reported even when the data is whole.
    pub fn check_recovery(mut self, yes: bool) -> Self {
        self.core.set_check_recovery(yes);
        self
    }

    /// Decode on `threads` threads (`0`: every core; default 1): runs of consecutive chunks
    /// whose frames sit where they should are decoded in parallel, everything else on one
    /// thread in order, so the output and the report are the same for every count. Each
    /// thread adds about [`CHUNKS_PER_THREAD`](super::parallel::CHUNKS_PER_THREAD) chunks
    /// (twice as many small ones) of input read ahead and of output to the memory held.
    /// Version 1 streams decode on one thread.
    pub fn threads(mut self, threads: usize) -> Self {
        self.core.set_threads(threads);
        self
    }

    /// The stream's header.
    pub fn header(&self) -> &Header {
        self.core.header()
    }

    /// What decoding found so far; final once `read` has returned `Ok(0)` (or an error).
    pub fn report(&self) -> &Report {
        self.core.report()
    }

    /// The file name, mode and modification time the stream records, once read (version 2
    /// streams written from a file).
    pub fn metadata(&self) -> Option<&Metadata> {
        self.core.metadata()
    }

    /// The reader.
    pub fn get_ref(&self) -> &R {
        &self.src.inner
    }

    /// The reader, mutably (reading from it directly corrupts the stream).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.src.inner
    }

    /// The reader back.
    pub fn into_inner(self) -> R {
        self.src.inner
    }

    /// Decodes the next piece of the stream into `out`.
    fn step(&mut self) -> io::Result<()> {
        self.out.clear();
        self.pos = 0;
        self.core.step(&mut self.src, &mut self.out).map_err(|e| {
            let again = replay(&e);
            self.failed = Some(e);
            again.into()
        })
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let data = self.fill_buf()?;
        let n = buf.len().min(data.len());
        buf[..n].copy_from_slice(&data[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// The decoded chunk itself, without a copy: `fill_buf` returns what is left of the current
/// chunk (decoding the next when it is used up), `consume` marks bytes as read.
impl<R: Read> BufRead for Decoder<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        loop {
            if self.pos < self.out.len() {
                return Ok(&self.out.as_slice()[self.pos..]);
            }
            if let Some(e) = &self.failed {
                return Err(replay(e).into());
            }
            if self.core.done() {
                return Ok(&[]);
            }
            if let Err(e) = self.step() {
                // What was verified before the failure is still returned first.
                if self.pos < self.out.len() {
                    continue;
                }
                return Err(e);
            }
        }
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.out.len());
    }
}
