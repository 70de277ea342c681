//! Chunks of one large group (the deep path from [`BANDED_FROM`] bytes of data rows) fed
//! to the plan a band at a time, each band right after the copy that streams it out.
//!
//! The deep path copies a chunk's payload with the CRC of each check block and then runs
//! the whole-row kernel over the data rows, which it reads again. Where the data rows are
//! megabytes (alien:63x63 at `D = 65536`: 31 MiB), that second read comes from memory, as
//! the first did. Here every band of whole runs ([`Plan::bands`](crate::slice::kernel::Plan::bands),
//! at most [`BAND`] bytes) is added into accumulators of whole rows
//! ([`Plan::feed`](crate::slice::kernel::Plan::feed)) as soon as the copy has passed it,
//! while its rows are in L2; the parity or syndrome rows come from the accumulators at the
//! end. The accumulators take a whole row each (1 MiB for alien:63x63 at `D = 65536`,
//! beside its chunks of 31 MiB).
//!
//! Measured against the build before, alternated in both orders (`scripts/bench_ab.py`, one
//! thread, medians of three rounds; docs/benchmarks.md, "Large groups fed to the plan in
//! bands"): encode alien:63x63 at `D = 65536` 0.61-0.62 -> 0.88-0.90x memcpy, clean decode
//! 0.63-0.65 -> 0.73; alien:33x63 0.66-0.68 -> 0.95-0.96 and 0.67-0.70 -> 0.75-0.76;
//! alien:64x63 0.61-0.64 -> 1.24-1.25 and 0.67-0.70 -> 1.13-1.21; alien:33x33 at `D = 32768`
//! 0.94-0.96 -> 1.07-1.08 and 0.82-0.90 -> 0.97-0.98.

use super::Codec;
use std::ops::Range;

/// Groups of at least this many bytes of data rows are fed in bands. Smaller ones, read
/// again from L2 or L3, lost when fed in bands (alien:9x9, secded:72, secded:137 and
/// alien:33x3 at `D = 32768` and 65536 by 0.07-0.17x memcpy), alien:17x17 at `D = 65536`
/// (2 MiB) too (encode 1.04-1.10 -> 0.98-0.99, noisy 0.68-0.69 -> 0.63-0.64, both orders);
/// those of 4 MiB gained (alien:33x33 at `D = 32768`, hamming:1024 and secded:1024).
pub(super) const BANDED_FROM: usize = 3 << 20;

/// Bytes of data rows a band holds at most, where its runs allow (whole runs, one at
/// least). As "at least this many", bands of two grid rows of alien:33x63 at `D = 32768`
/// (496 KiB, with 248 KiB of column sums beside them in L2) decoded slower than the
/// whole-row kernel after the copy (clean 0.77 against 0.81-0.85x memcpy); at most, one
/// grid row, 0.91-0.98. Bands of at least 128 KiB and 512 KiB ran within the noise of 256.
pub(super) const BAND: usize = 256 << 10;

/// The bands of a group still to feed.
pub(super) struct Feeder {
    bands: Vec<Range<usize>>,
    next: usize,
}

impl Codec {
    /// The bands of the codec's group, when it is fed in bands.
    pub(super) fn feeder(&self) -> Option<Feeder> {
        let (l, (from, band)) = (&self.layout, self.bands);
        (l.group_data >= from).then(|| Feeder {
            bands: self.plan.bands(l.row_bytes, band),
            next: 0,
        })
    }

    /// The codec with chunks of one group of at least `from` bytes of data rows fed in
    /// bands of `band` bytes (the tests: bands of small groups).
    #[cfg(test)]
    pub(super) fn with_bands(mut self, from: usize, band: usize) -> Codec {
        self.bands = (from, band);
        self
    }
}

impl Feeder {
    /// Feeds every band not fed yet that ends by data row `rows` (all of them, past the
    /// last), taking the rows of a range of them from `of` (two parts, as
    /// [`Plan::feed`](crate::slice::kernel::Plan::feed) takes them).
    pub(super) fn upto<'a>(
        &mut self,
        codec: &Codec,
        rows: usize,
        of: impl Fn(Range<usize>) -> [&'a [u8]; 2],
        acc: &mut Vec<u64>,
    ) {
        let rb = codec.layout.row_bytes;
        while let Some(b) = self.bands.get(self.next).filter(|b| b.end <= rows) {
            codec.plan.feed(codec.avx2, of(b.clone()), b.start, rb, acc);
            self.next += 1;
        }
    }
}
