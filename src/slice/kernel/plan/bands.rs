//! A plan run over a group's data rows a band at a time, into accumulators of whole rows.
//!
//! [`Plan::parity`] reads every data row a strip at a time, so a group of many megabytes
//! (alien:63x63 at `D = 65536`: 31 MiB of data rows) is read from memory once more after
//! the copy that streams it out. Fed a band of whole runs at a time ([`Plan::bands`]), each
//! band right after its copy brought it into L2 ([`Plan::feed`]), the plan reads the group
//! from memory once; the accumulators (a whole row each) stay in the caches between bands,
//! and the parity or syndrome rows are made from them at the end ([`Plan::parity_of_fed`],
//! [`Plan::syndrome_of_fed`]).

use super::{Build, Plan, Run, Stage};
use crate::cpu::Avx2;
use std::ops::Range;

impl Plan {
    /// The bands of a group of rows of `rb` bytes: consecutive ranges of data rows from
    /// row 0 to the last, each of whole runs of the executor (a run's rows share an
    /// accumulator held in registers), as many as fit in `budget` bytes (one at least, and
    /// the rows between runs, which feed nothing, with them); one band of no rows for a
    /// plan of none.
    pub fn bands(&self, rb: usize, budget: usize) -> Vec<Range<usize>> {
        let mut bands = Vec::new();
        let mut start = 0;
        let mut end = 0;
        for run in self.runs.iter().filter(|r| r.len > 0) {
            let next = run.first + run.len;
            if end > start && (next - start) * rb > budget {
                bands.push(start..end);
                start = end;
            }
            end = next;
        }
        // (One band at least, for the runs of no rows: a plan of no data rows.)
        if start < self.data_rows() || bands.is_empty() {
            bands.push(start..self.data_rows());
        }
        bands
    }

    /// The runs whose rows are the band `rows` (whole runs, as [`Plan::bands`] makes), and
    /// with the first band the runs of no rows that start the parity rows no row feeds.
    pub(super) fn runs_within(&self, rows: Range<usize>) -> [&[Run]; 2] {
        // (The runs of rows come first, in order; the empty ones after them.)
        let (real, empty) = self.runs.split_at(self.runs.partition_point(|r| r.len > 0));
        let a = real.partition_point(|r| r.first < rows.start);
        let b = real.partition_point(|r| r.first < rows.end);
        let runs = &real[a..b];
        assert!(
            runs.last().is_none_or(|r| r.first + r.len <= rows.end),
            "a band of whole runs"
        );
        [runs, if rows.start == 0 { empty } else { &[] }]
    }

    /// Adds the data rows of a band of [`Plan::bands`] (`rows[0]` then `rows[1]`, whole
    /// rows of `rb` bytes, the first numbered `first`) into `acc`, the accumulators as
    /// whole rows, kept between the calls for one group: the bands in order from the first.
    /// Then [`Plan::parity_of_fed`] or [`Plan::syndrome_of_fed`] take the rows from `acc`.
    pub fn feed(
        &self,
        avx2: Option<Avx2>,
        rows: [&[u8]; 2],
        first: usize,
        rb: usize,
        acc: &mut Vec<u64>,
    ) {
        assert!(
            rb.is_multiple_of(8) && rows.iter().all(|r| r.len().is_multiple_of(rb)),
            "whole rows of whole words"
        );
        let end = first + (rows[0].len() + rows[1].len()) / rb;
        assert!(end <= self.data_rows(), "rows of the plan");
        let build = Build::of(avx2);
        self.execute(
            build,
            rows,
            rb,
            &mut [],
            (&[], &mut []),
            acc,
            Stage::Feed(first),
        );
    }

    /// The parity rows (`out`, rows of `rb` bytes) of the data rows fed into `acc`
    /// ([`Plan::feed`], every band), as [`Plan::parity`] makes them.
    pub fn parity_of_fed(&self, avx2: Option<Avx2>, rb: usize, out: &mut [u8], acc: &mut Vec<u64>) {
        assert_eq!(out.len(), rb * self.parity_rows(), "every parity row");
        let build = Build::of(avx2);
        self.execute(build, [&[], &[]], rb, out, (&[], &mut []), acc, Stage::Out);
    }

    /// The syndrome rows (`out`) of the data rows fed into `acc` ([`Plan::feed`], every
    /// band) and the received parity rows `received`, the OR of them added into `any`, as
    /// [`Plan::syndrome`] makes them.
    #[allow(clippy::too_many_arguments)]
    pub fn syndrome_of_fed(
        &self,
        avx2: Option<Avx2>,
        received: &[u8],
        rb: usize,
        out: &mut [u8],
        any: &mut [u64],
        acc: &mut Vec<u64>,
    ) {
        assert_eq!(out.len(), rb * self.parity_rows(), "every parity row");
        assert_eq!(
            received.len(),
            out.len(),
            "a received row for every parity row"
        );
        assert_eq!(any.len(), rb / 8, "a word of `any` for every word of a row");
        let build = Build::of(avx2);
        self.execute(build, [&[], &[]], rb, out, (received, any), acc, Stage::Out);
    }
}
