//! Where encoded bytes come from: a slice held in memory (no copy) or an `io::Read` read
//! ahead into a buffer. The decoders look ahead through [`Source::peek`] and move on with
//! [`Source::advance`], so one decoder serves the one-shot functions and the `Decoder`.

use std::io::{self, Read};

/// Encoded input with a cursor.
pub trait Source {
    /// The bytes from the cursor on: at least `want` of them unless the input ends first
    /// (a slice gives everything it has).
    fn peek(&mut self, want: usize) -> io::Result<&[u8]>;
    /// Moves the cursor `n` bytes on (at most what `peek` returned).
    fn advance(&mut self, n: usize);
    /// The cursor's offset from the start of the input.
    fn offset(&self) -> u64;
}

/// A whole stream in memory.
#[derive(Debug)]
pub struct SliceSource<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> SliceSource<'a> {
    /// The slice, with the cursor at `pos`.
    pub fn new(data: &'a [u8], pos: usize) -> Self {
        SliceSource {
            data,
            pos: pos.min(data.len()),
        }
    }
}

impl Source for SliceSource<'_> {
    fn peek(&mut self, _want: usize) -> io::Result<&[u8]> {
        Ok(&self.data[self.pos..])
    }

    fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.data.len());
    }

    fn offset(&self) -> u64 {
        self.pos as u64
    }
}

/// The first read-ahead buffer's size.
const MIN_READ: usize = 64 << 10;

/// Encoded bytes read ahead: `buf[start..end]`. The vector keeps its (initialised) length,
/// so refilling it costs no zeroing.
#[derive(Debug, Default)]
pub struct Input {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Input {
    /// The bytes held.
    pub fn data(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// How many bytes are held.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Drops `n` bytes from the front.
    pub fn consume(&mut self, n: usize) {
        self.start += n.min(self.len());
    }

    /// Reads until `want` bytes are held or the input ends; returns whether it ended.
    pub fn fill<R: Read>(&mut self, r: &mut R, want: usize) -> io::Result<bool> {
        if self.len() >= want {
            return Ok(false);
        }
        if self.start + want > self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        while self.len() < want {
            // The buffer grows with what arrives, never to what a header merely claims.
            if self.end == self.buf.len() {
                let grown = (2 * self.buf.len()).max(MIN_READ).min(want);
                self.buf.resize(grown, 0);
            }
            let stop = (self.start + want).min(self.buf.len());
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

/// An `io::Read` with a read-ahead buffer.
#[derive(Debug)]
pub struct ReadSource<R> {
    /// The reader.
    pub inner: R,
    /// Bytes read and not yet passed.
    pub input: Input,
    eof: bool,
    offset: u64,
}

impl<R: Read> ReadSource<R> {
    /// A source over `inner` whose first bytes have already been read into `input`.
    pub fn new(inner: R, input: Input, eof: bool, offset: u64) -> Self {
        ReadSource {
            inner,
            input,
            eof,
            offset,
        }
    }
}

impl<R: Read> Source for ReadSource<R> {
    fn peek(&mut self, want: usize) -> io::Result<&[u8]> {
        if !self.eof && self.input.len() < want {
            self.eof = self.input.fill(&mut self.inner, want)?;
        }
        Ok(self.input.data())
    }

    fn advance(&mut self, n: usize) {
        let n = n.min(self.input.len());
        self.input.consume(n);
        self.offset += n as u64;
    }

    fn offset(&self) -> u64 {
        self.offset
    }
}
