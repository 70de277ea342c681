//! Helpers shared by the fuzz targets (included with `#[path]`, not a crate of its own).

#![allow(dead_code)]

use std::io::{self, Read};
use tilecode::code::Spec;
use tilecode::stream::Options;

/// Codes that correct one error per codeword (so single flips and bursts must be repaired).
pub const CORRECTING: &[&str] = &[
    "alien:9x9",
    "alien:3x3",
    "alien:5x7",
    "alien:3x5",
    "secded:72",
    "secded:8",
    "hamming:31",
    "hamming:7",
    "repetition:3",
    "repetition:5",
    // A grid of 18 data columns (wider than the portable kernels' fixed widths; at `D = 64`
    // the AVX2 alien kernel's widest, a row of 4q + 2 words), and a Hamming code past 128
    // positions whose 4.6 KiB groups at `D = 64` go in order on the fast kernel.
    "alien:3x19",
    "hamming:600",
];

/// Every family, including codes that only detect.
pub const ALL: &[&str] = &[
    "alien:9x9",
    "alien:4x5",
    "alien:5x4",
    "alien:3x3",
    "alien:2x2",
    "secded:72",
    "hamming:31",
    "repetition:3",
    "parity:9",
    "secded:150",
];

/// Options from a few selector bytes: code from `codes`, depth 64..=512 (one `depth` in
/// sixteen 4096, where the codes of few data rows take the line pass), small chunks so
/// that short inputs span several of them; one `chunk` in four (from `0xC000`) gives chunks
/// of 12 to 28 KiB instead, which hold three or more groups of 4 KiB (alien:9x9 and secded:72
/// at `D = 512`; alien:3x3 and 3x5 at `D = 4096`): with [`payload`], the codec's in-order
/// paths.
pub fn options(codes: &[&str], code: u8, depth: u8, chunk: u16) -> Options {
    let spec = codes[code as usize % codes.len()]
        .parse::<Spec>()
        .expect("a valid spec");
    let chunk_size = if chunk >= 0xC000 {
        12_480 + 1024 * (chunk as usize % 16)
    } else {
        1 + chunk as usize % 3000
    };
    Options {
        chunk_size,
        // Every other stream without recovery chunks, so that both layouts are fuzzed.
        recovery: if chunk % 2 == 0 { 0.0 } else { 5.0 },
        stream_id: Some(u64::from(chunk)),
        ..Options::new(
            spec,
            if depth % 16 == 15 {
                4096
            } else {
                64 * (1 + depth as usize % 8)
            },
        )
    }
}

/// The payload: `data`, then, for one `grow` in sixteen and chunks of 12 KiB or more
/// ([`options`]), 12 to 20 KiB more bytes drawn from it, so that inputs far below
/// libFuzzer's length limit still fill chunks of three or more 4 KiB groups (the codec's
/// in-order paths). Rare, short and never in small chunks, because such an input runs some
/// fifty times longer than the others under the sanitizer (and in one-byte chunks, whose
/// stream is six hundred times the payload, a minute).
pub fn payload(data: &[u8], grow: u16, chunk_size: usize) -> Vec<u8> {
    let mut v = data.to_vec();
    if grow % 16 == 0 && chunk_size >= 12_480 {
        // xorshift64
        let mut x = u64::from(grow) | 1 << 32;
        v.extend((0..12288 + (grow as usize >> 4) % 8192).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        }));
    }
    v
}

/// A reader that hands out its data in pieces of the given sizes (cycled; 0 counts as 1).
pub struct Pieces<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    i: usize,
}

impl<'a> Pieces<'a> {
    /// Pieces of `data`, sized by `sizes` (empty: one byte at a time).
    pub fn new(data: &'a [u8], sizes: &[u8]) -> Self {
        let sizes = if sizes.is_empty() {
            vec![1]
        } else {
            sizes.iter().map(|&s| (s as usize).max(1)).collect()
        };
        Pieces { data, sizes, i: 0 }
    }
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.i % self.sizes.len()];
        self.i += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
