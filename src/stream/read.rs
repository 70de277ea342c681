//! The `io::Read` decoder.

use super::codec::{Buf, DecodeCore};
use super::format::{self, Probe};
use super::{Header, Report, replay};
use crate::error::Error;
use std::io::{self, BufRead, Read};

/// Decodes a tilecode stream read from `R`.
///
/// The header is read and checked by [`Decoder::new`]. Chunks are decoded one at a time, so
/// memory is O(chunk); since the trailer is only known at the end of the input, the decoder
/// holds one chunk plus the trailer's size of encoded bytes. Strict by default: a chunk that
/// fails its check is an `InvalidData` error carrying [`Error::Corrupt`] or
/// [`Error::Checksum`], and none of its bytes are returned (earlier chunks, already verified,
/// have been). [`Decoder::keep_damaged`] returns damaged chunks as decoded and records them in
/// the report instead. A stream that ends early is an `UnexpectedEof` error carrying
/// [`Error::Truncated`] in both modes.
///
/// It is also an `io::BufRead`: `fill_buf` hands out the decoded chunk itself, which saves a
/// copy when the bytes go straight on to a writer (as in `tilecode decode`).
#[derive(Debug)]
pub struct Decoder<R: Read> {
    inner: R,
    core: DecodeCore,
    /// Encoded bytes read but not yet decoded.
    input: Input,
    eof: bool,
    /// Decoded bytes not yet returned, from `pos`.
    out: Buf,
    pos: usize,
    done: bool,
    failed: Option<Error>,
}

/// Encoded bytes read ahead: `buf[start..end]`. The vector keeps its (initialised) length,
/// so refilling it costs no zeroing.
#[derive(Debug, Default)]
struct Input {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Input {
    fn data(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    fn len(&self) -> usize {
        self.end - self.start
    }

    fn consume(&mut self, n: usize) {
        self.start += n.min(self.len());
    }

    /// Reads until `want` bytes are held or the input ends; returns whether it ended.
    fn fill<R: Read>(&mut self, r: &mut R, want: usize) -> io::Result<bool> {
        if self.len() >= want {
            return Ok(false);
        }
        if self.start + want > self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.buf.len() < want {
                self.buf.resize(want, 0);
            }
        }
        while self.len() < want {
            let stop = self.start + want;
            match r.read(&mut self.buf[self.end..stop]) {
                Ok(0) => return Ok(true),
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(false)
    }
}

impl<R: Read> Decoder<R> {
    /// A decoder reading from `r`; reads and checks the header now. Errors: `InvalidData`
    /// carrying [`Error::NotTilecode`] or [`Error::BadHeader`], `UnexpectedEof` carrying
    /// [`Error::Truncated`], or the reader's own error.
    pub fn new(mut r: R) -> io::Result<Self> {
        let mut input = Input::default();
        let mut eof = false;
        let (layout, block, corrected) = loop {
            match format::probe_header(input.data(), eof)? {
                Probe::Found {
                    layout,
                    block,
                    corrected_bits,
                } => break (*layout, block, corrected_bits),
                Probe::NeedMore(n) => {
                    if eof {
                        return Err(Error::Truncated {
                            reason: format!(
                                "expected at least {n} header bytes, found {}",
                                input.len()
                            ),
                        }
                        .into());
                    }
                    eof = input.fill(&mut r, n)?;
                }
            }
        };
        input.consume(layout.region());
        Ok(Decoder {
            inner: r,
            core: DecodeCore::new(layout, &block, corrected),
            input,
            eof,
            out: Buf::default(),
            pos: 0,
            done: false,
            failed: None,
        })
    }

    /// Lenient mode (`true`): return damaged data as decoded and record the damage in the
    /// report instead of failing.
    pub fn keep_damaged(mut self, yes: bool) -> Self {
        self.core.set_lenient(yes);
        self
    }

    /// The stream's header.
    pub fn header(&self) -> &Header {
        self.core.header()
    }

    /// What decoding found so far; final once `read` has returned `Ok(0)`.
    pub fn report(&self) -> &Report {
        self.core.report()
    }

    /// The reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The reader, mutably (reading from it directly corrupts the stream).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The reader back.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Decodes the next chunk (or the end of the stream) into `out`.
    fn step(&mut self) -> io::Result<()> {
        let l = self.core.layout();
        let (chunk, region) = (l.chunk_bytes, l.region());
        if !self.eof {
            // One byte past the trailer's size tells a full chunk from a short last one that
            // takes as many groups.
            self.eof = self.input.fill(&mut self.inner, chunk + region + 1)?;
        }
        self.out.clear();
        self.pos = 0;
        let result = if self.input.len() > chunk + region {
            let r = self.core.chunk(&self.input.data()[..chunk], &mut self.out);
            self.input.consume(chunk);
            r
        } else {
            self.done = true;
            let r = self.core.finish(self.input.data(), &mut self.out);
            self.input = Input::default();
            r
        };
        result.map_err(|e| {
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
            if self.done {
                return Ok(&[]);
            }
            self.step()?;
        }
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.out.len());
    }
}
