//! The `io::Write` encoder.

use super::Options;
use super::buf::Buf;
use super::encode_core::EncodeCore;
use std::io::{self, Write};

/// Encodes everything written to it into a tilecode stream written to `W`.
///
/// Input is gathered into chunks; each full chunk is encoded and written out (a write of
/// several whole chunks is encoded a batch at a time, straight from the caller's buffer),
/// so memory is O(chunk) whatever the length of the stream (the recovery layer adds its `R`
/// accumulators of one chunk each; on several threads ([`Options::threads`]) each adds up to
/// [`ENCODE_BYTES_PER_THREAD`](super::parallel::ENCODE_BYTES_PER_THREAD) of encoded chunks
/// waiting to be written, and a set of `R` accumulators), and the length need not be known
/// in advance. Writes of at least a batch of whole chunks ([`Encoder::batch`]) keep every
/// thread busy.
/// [`Encoder::finish`] writes the last chunk and the trailer; dropping the encoder does that
/// too, best effort, ignoring errors. [`Write::flush`] writes out every complete chunk and
/// flushes `W`, but cannot end a chunk early: the format fixes every chunk but the last.
#[derive(Debug)]
pub struct Encoder<W: Write> {
    inner: Option<W>,
    core: EncodeCore,
    /// Input not yet encoded (less than one chunk).
    chunk: Vec<u8>,
    /// Encoded bytes not yet written, from `pos`.
    out: Buf,
    pos: usize,
    /// The trailer has been appended to `out`.
    finished: bool,
}

impl<W: Write> Encoder<W> {
    /// An encoder writing to `w`; the options are validated now.
    pub fn new(w: W, opts: &Options) -> crate::Result<Self> {
        let core = opts.core()?;
        let mut out = Buf::default();
        core.start(&mut out);
        Ok(Encoder {
            inner: Some(w),
            chunk: Vec::with_capacity(core.layout().chunk_size),
            core,
            out,
            pos: 0,
            finished: false,
        })
    }

    /// The stream's chunk size: payload bytes in each chunk but the last.
    pub fn chunk_size(&self) -> usize {
        self.core.layout().chunk_size
    }

    /// Whole chunks the encoder takes in one batch from a write (on its threads): writes
    /// of at least this many chunks keep every thread busy.
    pub fn batch(&self) -> usize {
        self.core.batch()
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        self.inner.as_ref().expect("writer present until finish")
    }

    /// The writer, mutably (writing to it directly corrupts the stream).
    pub fn get_mut(&mut self) -> &mut W {
        self.inner.as_mut().expect("writer present until finish")
    }

    /// Writes out pending encoded bytes; a writer that accepts nothing is a `WriteZero` error.
    fn dump(&mut self) -> io::Result<()> {
        let w = self.inner.as_mut().expect("writer present until finish");
        while self.pos < self.out.len() {
            match w.write(&self.out.as_slice()[self.pos..]) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "the writer accepted no bytes of the encoded stream",
                    ));
                }
                Ok(n) => self.pos += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.out.clear();
        self.pos = 0;
        Ok(())
    }

    /// Writes the last chunk and the trailer, then flushes the writer. Safe to call again
    /// after an error (it resumes) or after success (it does nothing more).
    pub fn try_finish(&mut self) -> io::Result<()> {
        if !self.finished {
            self.dump()?;
            if !self.chunk.is_empty() {
                self.core.chunk(&self.chunk, &mut self.out)?;
                self.chunk.clear();
            }
            self.core.finish(&mut self.out)?;
            self.finished = true;
        }
        self.dump()?;
        self.get_mut().flush()
    }

    /// Finishes the stream and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.try_finish()?;
        Ok(self.inner.take().expect("writer present until finish"))
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.finished {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "write after the stream was finished",
            ));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        // Bounded memory: the previous chunk's bytes go out before a new chunk is encoded.
        self.dump()?;
        let cs = self.core.layout().chunk_size;
        if self.chunk.is_empty() && buf.len() >= cs {
            // Whole chunks straight from the caller's buffer, a batch at a time.
            let n = (buf.len() / cs).min(self.core.batch()) * cs;
            let (core, out) = (&mut self.core, &mut self.out);
            core.workers()
                .clone()
                .install(|| core.chunks(&buf[..n], out))?;
            return Ok(n);
        }
        let take = (cs - self.chunk.len()).min(buf.len());
        self.chunk.extend_from_slice(&buf[..take]);
        if self.chunk.len() == cs {
            self.core.chunk(&self.chunk, &mut self.out)?;
            self.chunk.clear();
        }
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.dump()?;
        self.get_mut().flush()
    }
}

impl<W: Write> Drop for Encoder<W> {
    fn drop(&mut self) {
        if self.inner.is_some() {
            let _ = self.try_finish();
        }
    }
}
