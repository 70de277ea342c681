//! Whole-row kernels for rows of many lane blocks (deep interleaving): each family's parity
//! rows as a plan of XORs of whole rows, run over strips of the rows.
//!
//! The lane-block kernels ([`Kernel::parity`]) hold one block of every row at a time, so a
//! row of many blocks is either gathered block by block into a buffer or read at the row
//! stride (where, at a stride of 4 KiB, the same block of every row falls in one L1 set).
//! A [`Plan`] reads every data row once, in order, and adds it into the one or two
//! accumulator rows it feeds (its row and column parity, its Hamming grid row and column,
//! ...); a short program over the accumulators then makes the parity rows. The rows are
//! taken a strip (`Plan::strip`) at a time, so that the accumulators of a strip stay
//! in L1. The plan of every family is derived here from its [`Kernel`], and tested against
//! [`Kernel::parity`] on every family and width. The executor (`executor`) runs it compiled
//! (`compile`): runs of rows sharing an accumulator, whose sum is held in registers 128
//! bytes at a time (512 in its AVX-512 build); large groups feed it a band of rows at a
//! time (`bands`).

use super::Kernel;
use crate::cpu::{Avx2, Avx512};

/// No accumulator.
const NONE: u16 = u16::MAX;

/// Bytes of accumulator rows a strip may hold (a share of L1).
const STRIP_BUDGET: usize = 24 * 1024;

/// Words of a row a run takes at a time ([`Plan::run_words`]): 128 bytes, four AVX2
/// registers of the shared accumulator held across the run's rows.
const LANE: usize = 16;

/// The same in the AVX-512 build: 512 bytes, eight AVX-512 registers, so that eight lines
/// of a row are in flight at once. With four (256 bytes) the executor ran rows in cache at
/// 29-74 GB/s; with eight, 37-82 (alien:17x17's rows of 512 bytes 50 -> 76 GB/s,
/// hamming:72's of 4 KiB 34 -> 46), and the deep codec 4-12 % faster (clean decode of
/// secded:137 at `D = 32768` 0.64 -> 0.70x memcpy); sixteen spill (docs/benchmarks.md,
/// "Eight lines a row in flight"). (Four were twice the two of the AVX2 build: alien:9x33's
/// rows of 4 KiB from L2 1.4x faster.)
const WIDE_LANE: usize = 64;

/// The build of the executor that runs a plan.
#[derive(Clone, Copy, Debug)]
enum Build {
    Portable,
    Avx2(Avx2),
    Avx512(Avx512),
}

impl Build {
    /// The widest build the `avx2` evidence allows: AVX-512 where the CPU has it too, or
    /// the portable one without the evidence.
    fn of(avx2: Option<Avx2>) -> Build {
        match (avx2, Avx512::detect()) {
            (Some(_), Some(wide)) => Build::Avx512(wide),
            (Some(avx2), None) => Build::Avx2(avx2),
            (None, _) => Build::Portable,
        }
    }

    /// Bytes of a row a run takes at a time.
    fn lane(self) -> usize {
        8 * match self {
            Build::Avx512(_) => WIDE_LANE,
            _ => LANE,
        }
    }
}

/// One step of a plan's program: `acc[dst] ^= acc[src]`, or `acc[dst] = acc[src]` when
/// `copy` (the first write to `dst`, which then need not start from zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Xor {
    dst: u16,
    src: u16,
    copy: bool,
}

/// Consecutive data rows `first..first + len` that all add to the accumulator `shared` (a
/// row of an Alien grid, a Hamming grid row): a strip of it is held in registers while the
/// run's rows are read, each of them also added to its own other accumulator
/// ([`Plan::others`]). `fresh`: the run is the first to write `shared`, which then starts
/// from zero rather than from memory; `shared` is [`NONE`] when nothing reads the sum but
/// the `sinks`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Run {
    shared: u16,
    fresh: bool,
    first: usize,
    len: usize,
    /// The accumulators the run's sum is also added to ([`Plan::sinks`]).
    sinks: std::ops::Range<usize>,
    /// When the rows' others are the accumulators `base, base + 1, ...` in order, all of
    /// them written first by these rows or none (`fresh`): `Some((base, fresh))`, and the
    /// executor steps through them without reading [`Plan::others`] (an Alien grid row's
    /// columns, a Hamming grid row's full byte).
    consecutive: Option<(u16, bool)>,
}

/// A data row's accumulator other than its run's ([`NONE`] for none), and whether the row
/// is the first to write it (then a copy, not an XOR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Other {
    acc: u16,
    fresh: bool,
}

/// A family's parity rows as XORs of whole rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Number of accumulator rows.
    accs: usize,
    /// For each data row in order, the accumulators it is added to ([`NONE`] for none).
    feeds: Vec<[u16; 2]>,
    /// Run after every data row is added, in order.
    program: Vec<Xor>,
    /// Parity row `q` is accumulator `outs[q]`.
    outs: Vec<u16>,
    /// The feeds as the executor takes them ([`Plan::compile`]): runs of rows sharing one
    /// accumulator, and each row's other one.
    runs: Vec<Run>,
    others: Vec<Other>,
    sinks: Vec<Other>,
    /// [`Plan::parity_sets`].
    sets: Option<Vec<u64>>,
    /// [`Plan::set_program`].
    set_program: Option<SetProgram>,
}

/// A plan over sets of data rows (bit `i` for data row `i`, at most 64 rows): accumulator
/// `a` starts as the sum of the data rows of `feeds[a]`; each step `(dst, src, copy)` of
/// `program` in turn makes `acc[dst] ^= acc[src]` (`acc[dst] = acc[src]` when `copy`);
/// parity row `q` is then accumulator `outs[q]`. A data row of an Alien grid feeds its row's
/// and its column's sums, so alien:3x9's ten parity rows take 33 sums and 10 steps, against
/// 138 sums as sets of data rows ([`Plan::parity_sets`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetProgram {
    /// Each accumulator's data rows.
    pub feeds: Vec<u64>,
    /// The steps, in order.
    pub program: Vec<(usize, usize, bool)>,
    /// The accumulator of each parity row.
    pub outs: Vec<usize>,
}

impl SetProgram {
    /// Each parity row as the set of data rows it sums: the program run over the sets.
    pub fn parity_sets(&self) -> Vec<u64> {
        let mut acc = self.feeds.clone();
        for &(dst, src, copy) in &self.program {
            let v = acc[src];
            acc[dst] = if copy { v } else { acc[dst] ^ v };
        }
        self.outs.iter().map(|&o| acc[o]).collect()
    }
}

/// Builds a plan, naming accumulators as they are asked for.
struct Builder {
    plan: Plan,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            plan: Plan {
                accs: 0,
                feeds: Vec::new(),
                program: Vec::new(),
                outs: Vec::new(),
                runs: Vec::new(),
                others: Vec::new(),
                sinks: Vec::new(),
                sets: None,
                set_program: None,
            },
        }
    }

    /// `count` new accumulators; the first one's index.
    fn accs(&mut self, count: usize) -> u16 {
        let first = self.plan.accs;
        self.plan.accs += count;
        u16::try_from(self.plan.accs).expect("accumulators fit in u16");
        first as u16
    }

    fn feed(&mut self, a: u16, b: u16) {
        self.plan.feeds.push([a, b]);
    }

    fn xor(&mut self, dst: u16, src: u16) {
        self.plan.program.push(Xor {
            dst,
            src,
            copy: false,
        });
    }

    /// A grid of `rows x cols` data rows, row-major: each adds to its row's accumulator
    /// `r + i` (when `r` is given) and its column's `c + j` (when `c` is given).
    fn grid(&mut self, rows: usize, cols: usize, r: Option<u16>, c: Option<u16>) {
        for i in 0..rows {
            for j in 0..cols {
                let a = r.map_or(NONE, |r| r + i as u16);
                let b = c.map_or(NONE, |c| c + j as u16);
                self.feed(a, b);
            }
        }
    }
}

impl Plan {
    /// The plan of a kernel for a code of `k` data rows: the same parity rows as
    /// [`Kernel::parity`], in the same order (rows no kernel reads feed nothing).
    pub fn for_kernel(kernel: &Kernel, k: usize) -> Plan {
        let mut b = Builder::new();
        match *kernel {
            Kernel::Empty => {}
            Kernel::AlienOddOdd { m, n } => {
                // Parity rows: c_j + p + b for j in 1..n, then r_i + p + b for i in 1..m,
                // with p the XOR of the row parities.
                let r = b.accs(m - 1);
                let c = b.accs(n - 1);
                let pb = b.accs(1);
                b.grid(m - 1, n - 1, Some(r), Some(c));
                b.feed(pb, NONE);
                for i in 0..m - 1 {
                    b.xor(pb, r + i as u16);
                }
                for q in (0..n - 1)
                    .map(|j| c + j as u16)
                    .chain((0..m - 1).map(|i| r + i as u16))
                {
                    b.xor(q, pb);
                    b.plan.outs.push(q);
                }
            }
            Kernel::AlienEvenOdd { m, n } => {
                // r_i + r_0 + b for i in 1..m.
                let r = b.accs(m);
                let r0b = b.accs(1);
                b.grid(m, n - 1, Some(r), None);
                b.feed(r0b, NONE);
                b.xor(r0b, r);
                for i in 1..m {
                    b.xor(r + i as u16, r0b);
                    b.plan.outs.push(r + i as u16);
                }
            }
            Kernel::AlienOddEven { m, n } => {
                // c_j + c_0 + b for j in 1..n.
                let c = b.accs(n);
                let c0b = b.accs(1);
                b.grid(m - 1, n, None, Some(c));
                b.feed(c0b, NONE);
                b.xor(c0b, c);
                for j in 1..n {
                    b.xor(c + j as u16, c0b);
                    b.plan.outs.push(c + j as u16);
                }
            }
            Kernel::Hamming {
                ref grid,
                checks,
                overall,
                ..
            } => {
                // Each data row adds to its grid column and its grid row; check row 3 + s
                // is the XOR of the grid rows whose number has bit s, checks 0..3 come from
                // the columns, and the overall parity from all of them.
                let cols = b.accs(8);
                let rows = b.accs(grid.len());
                let h = b.accs(checks);
                let all = b.accs(1);
                for (t, &mask) in grid.iter().enumerate() {
                    for o in (0..8).filter(|o| mask >> o & 1 == 1) {
                        b.feed(cols + o as u16, rows + t as u16);
                    }
                }
                for t in 0..grid.len() {
                    let g = rows + t as u16;
                    b.xor(all, g);
                    let mut bits = t;
                    while bits != 0 {
                        b.xor(h + 3 + bits.trailing_zeros() as u16, g);
                        bits &= bits - 1;
                    }
                }
                let low: [&[u16]; 3] = [&[1, 3, 5, 7], &[2, 3, 6, 7], &[4, 5, 6, 7]];
                for (q, set) in low.iter().enumerate().take(checks) {
                    for &o in *set {
                        b.xor(h + q as u16, cols + o);
                    }
                }
                if overall {
                    for q in 0..checks {
                        b.xor(all, h + q as u16);
                    }
                    b.plan.outs.push(all);
                }
                b.plan.outs.extend((0..checks).map(|q| h + q as u16));
            }
            Kernel::Repetition { checks } => {
                let x = b.accs(1);
                b.feed(x, NONE);
                b.plan.outs.extend(std::iter::repeat_n(x, checks));
            }
            Kernel::Parity { k } => {
                let x = b.accs(1);
                for _ in 0..k {
                    b.feed(x, NONE);
                }
                b.plan.outs.push(x);
            }
            Kernel::Product { m, n } => {
                // r_i, then c_j, then the XOR of the r_i.
                let r = b.accs(m - 1);
                let c = b.accs(n - 1);
                let z = b.accs(1);
                b.grid(m - 1, n - 1, Some(r), Some(c));
                for i in 0..m - 1 {
                    b.xor(z, r + i as u16);
                }
                b.plan.outs.extend((0..m - 1).map(|i| r + i as u16));
                b.plan.outs.extend((0..n - 1).map(|j| c + j as u16));
                b.plan.outs.push(z);
            }
        }
        assert!(b.plan.feeds.len() <= k, "no more rows than the code has");
        b.plan.feeds.resize(k, [NONE, NONE]);
        b.plan.set_program = b.plan.over_sets();
        b.plan.sets = b.plan.set_program.as_ref().map(SetProgram::parity_sets);
        b.plan.compile();
        b.plan
    }

    /// Number of data rows the plan reads.
    pub fn data_rows(&self) -> usize {
        self.feeds.len()
    }

    /// Number of parity rows it writes.
    pub fn parity_rows(&self) -> usize {
        self.outs.len()
    }

    /// Each parity row as the set of data rows it sums (bit `i` for data row `i`), for
    /// plans of at most 64 data rows: the codec's column pass sums a line of each of a
    /// parity row's data rows in registers, with no accumulator in memory.
    pub fn parity_sets(&self) -> Option<&[u64]> {
        self.sets.as_deref()
    }

    /// The plan over sets of data rows ([`SetProgram`]), for plans of at most 64 data rows.
    pub fn set_program(&self) -> Option<&SetProgram> {
        self.set_program.as_ref()
    }

    /// [`Plan::set_program`]: the plan as built (before [`Plan::compile`]) over sets of data
    /// rows instead of rows.
    fn over_sets(&self) -> Option<SetProgram> {
        if self.data_rows() > 64 {
            return None;
        }
        let mut feeds = vec![0u64; self.accs];
        for (i, f) in self.feeds.iter().enumerate() {
            for &a in f.iter().filter(|&&a| a != NONE) {
                feeds[usize::from(a)] ^= 1 << i;
            }
        }
        let step = |x: &Xor| (usize::from(x.dst), usize::from(x.src), x.copy);
        Some(SetProgram {
            feeds,
            program: self.program.iter().map(step).collect(),
            outs: self.outs.iter().map(|&o| usize::from(o)).collect(),
        })
    }

    /// The strip width in bytes for rows of `rb` bytes: as much of a row as keeps every
    /// accumulator's strip within 24 KiB (`STRIP_BUDGET`), a whole number of `lane`-byte
    /// lanes (at least one), and no more than the row.
    fn strip(&self, rb: usize, lane: usize) -> usize {
        let w = STRIP_BUDGET / self.accs.max(1) / lane * lane;
        w.clamp(lane, rb.next_multiple_of(lane)).min(rb)
    }

    /// The parity rows (`out`, rows of `rb` bytes) of the data rows in `rows[0]` followed by
    /// those of `rows[1]` (whole rows of `rb` bytes, [`Plan::data_rows`] in all). `acc` is
    /// scratch, kept between calls. With the `avx2` evidence the loops run compiled for AVX2,
    /// or for AVX-512 where the CPU has it.
    pub fn parity(
        &self,
        avx2: Option<Avx2>,
        rows: [&[u8]; 2],
        rb: usize,
        out: &mut [u8],
        acc: &mut Vec<u64>,
    ) {
        self.execute(
            Build::of(avx2),
            rows,
            rb,
            out,
            (&[], &mut []),
            acc,
            Stage::Whole,
        );
    }

    /// The shapes [`Plan::parity`] and [`Plan::syndrome`] take.
    fn check(&self, rows: [&[u8]; 2], rb: usize, out: &[u8]) {
        assert!(rb.is_multiple_of(8), "rows of whole words");
        assert!(
            rows.iter().all(|r| r.len().is_multiple_of(rb)),
            "whole rows"
        );
        assert_eq!(
            (rows[0].len() + rows[1].len()) / rb,
            self.data_rows(),
            "every data row"
        );
        assert_eq!(out.len(), rb * self.parity_rows(), "every parity row");
    }

    /// The syndrome rows (`out`): the parity rows of the data rows `rows` (as for
    /// [`Plan::parity`]) plus the received parity rows `received`, written as they are made;
    /// and the OR of them added into `any` (word `i` of every syndrome row into `any[i]`,
    /// `rb / 8` words), so that the caller finds the lanes to correct without reading the
    /// rows again.
    #[allow(clippy::too_many_arguments)]
    pub fn syndrome(
        &self,
        avx2: Option<Avx2>,
        rows: [&[u8]; 2],
        received: &[u8],
        rb: usize,
        out: &mut [u8],
        any: &mut [u64],
        acc: &mut Vec<u64>,
    ) {
        assert_eq!(
            received.len(),
            out.len(),
            "a received row for every parity row"
        );
        assert_eq!(any.len(), rb / 8, "a word of `any` for every word of a row");
        self.execute(
            Build::of(avx2),
            rows,
            rb,
            out,
            (received, any),
            acc,
            Stage::Whole,
        );
    }
}

mod bands;
mod compile;
mod executor;

use executor::Stage;

#[cfg(test)]
mod tests;
