//! The `io::Read` decoder.

use super::codec::{Buf, DecodeCore};
use super::format::{self, Probe};
use super::{Header, Report, replay};
use crate::error::Error;
use std::io::{self, Read};

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
#[derive(Debug)]
pub struct Decoder<R: Read> {
    inner: R,
    core: DecodeCore,
    /// Encoded bytes read but not yet decoded.
    input: Vec<u8>,
    eof: bool,
    /// Decoded bytes not yet returned, from `pos`.
    out: Buf,
    pos: usize,
    done: bool,
    failed: Option<Error>,
}

/// Reads until `buf` holds `want` bytes or the input ends; returns whether it ended.
fn fill<R: Read>(r: &mut R, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    while buf.len() < want {
        let old = buf.len();
        buf.resize(want, 0);
        match r.read(&mut buf[old..]) {
            Ok(0) => {
                buf.truncate(old);
                return Ok(true);
            }
            Ok(n) => buf.truncate(old + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(old),
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    }
    Ok(false)
}

impl<R: Read> Decoder<R> {
    /// A decoder reading from `r`; reads and checks the header now. Errors: `InvalidData`
    /// carrying [`Error::NotTilecode`] or [`Error::BadHeader`], `UnexpectedEof` carrying
    /// [`Error::Truncated`], or the reader's own error.
    pub fn new(mut r: R) -> io::Result<Self> {
        let mut input = Vec::new();
        let mut eof = false;
        let (layout, block, corrected) = loop {
            match format::probe_header(&input, eof)? {
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
                    eof = fill(&mut r, &mut input, n)?;
                }
            }
        };
        input.drain(..layout.region());
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
            self.eof = fill(&mut self.inner, &mut self.input, chunk + region)?;
        }
        self.out.clear();
        self.pos = 0;
        let result = if self.input.len() >= chunk + region {
            let r = self.core.chunk(&self.input[..chunk], &mut self.out);
            self.input.drain(..chunk);
            r
        } else {
            self.done = true;
            let r = self.core.finish(&self.input, &mut self.out);
            self.input = Vec::new();
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
        loop {
            if self.pos < self.out.len() {
                let n = buf.len().min(self.out.len() - self.pos);
                buf[..n].copy_from_slice(&self.out.as_slice()[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if let Some(e) = &self.failed {
                return Err(replay(e).into());
            }
            if self.done || buf.is_empty() {
                return Ok(0);
            }
            self.step()?;
        }
    }
}
