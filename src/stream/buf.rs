//! An output buffer that reuses initialised memory.

/// An output buffer that reuses initialised memory: the first `len` bytes are in use, and the
/// vector may hold more bytes, already initialised, that growing reuses without zeroing them
/// again (so a buffer reused across calls costs no memset).
#[derive(Debug, Default)]
pub struct Buf {
    bytes: Vec<u8>,
    len: usize,
}

impl Buf {
    /// An empty buffer over a vector's memory (its contents are overwritten).
    pub fn from_vec(bytes: Vec<u8>) -> Buf {
        Buf { bytes, len: 0 }
    }

    /// Bytes in use.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes in use.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Makes `n` more bytes in use and returns them (contents unspecified: what was there,
    /// as written through [`Buf::spare`], or zeros).
    pub fn grow(&mut self, n: usize) -> &mut [u8] {
        let end = self.len + n;
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        let s = &mut self.bytes[self.len..end];
        self.len = end;
        s
    }

    /// Makes exactly `len` bytes in use (new bytes unspecified).
    pub fn resize(&mut self, len: usize) {
        if len > self.len {
            self.grow(len - self.len);
        } else {
            self.len = len;
        }
    }

    /// The bytes `from..to` past those in use (`from >= len`), made available without
    /// changing the length: a later [`Buf::grow`] or [`Buf::resize`] over them keeps what was
    /// written there (the decoder writes chunks ahead into their places this way).
    pub fn spare(&mut self, from: usize, to: usize) -> &mut [u8] {
        assert!(
            self.len <= from && from <= to,
            "spare bytes past those in use"
        );
        if self.bytes.len() < to {
            self.bytes.resize(to, 0);
        }
        &mut self.bytes[from..to]
    }

    /// The bytes in use, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.bytes[..self.len]
    }

    /// Appends bytes.
    pub fn extend(&mut self, src: &[u8]) {
        self.grow(src.len()).copy_from_slice(src);
    }

    /// Keeps the first `len` bytes in use.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Nothing in use.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The bytes in use, as a vector.
    pub fn into_vec(mut self) -> Vec<u8> {
        self.bytes.truncate(self.len);
        self.bytes
    }
}
