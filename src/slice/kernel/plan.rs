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
//! [`Kernel::parity`] on every family and width. The executor runs it compiled (`compile`):
//! runs of rows sharing an accumulator, whose sum is held in registers 128 bytes at a time
//! (512 in its AVX-512 build).

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

    /// A call of the executor in the build `build`: [`Plan::parity`] (`received` empty) or
    /// [`Plan::syndrome`] (`received`: the received parity rows and `any`) over strips of
    /// the rows ([`Stage::Whole`]), or a banded call over accumulators of whole rows of
    /// `rb` bytes.
    #[allow(clippy::too_many_arguments)]
    fn execute(
        &self,
        build: Build,
        rows: [&[u8]; 2],
        rb: usize,
        out: &mut [u8],
        received: (&[u8], &mut [u64]),
        acc: &mut Vec<u64>,
        stage: Stage,
    ) {
        if let Stage::Whole = stage {
            self.check(rows, rb, out);
        }
        let w = self.strip(rb, build.lane());
        let len = match stage {
            Stage::Whole => w,
            Stage::Feed(_) | Stage::Out => rb,
        };
        let call = Call {
            rows,
            rb,
            w,
            out,
            received,
            acc: aligned(acc, self.accs * len / 8),
            stage,
        };
        plan_block(build, self, call);
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

    /// The portable source of [`Plan::parity`], [`Plan::syndrome`] and the banded calls
    /// ([`Plan::feed`], [`Plan::parity_of_fed`], [`Plan::syndrome_of_fed`]), inlined into
    /// its three builds. (The executor moved whole into a module of its own ran slower, in
    /// both orders against this build: encode alien:63x63 at `D = 32768` and 65536
    /// 0.96-1.09 -> 0.83-0.97x memcpy, alien:9x9 and secded:72 by 0.04-0.25; kept here.)
    #[inline(always)]
    fn parity_body<const L: usize>(&self, call: Call<'_>) {
        let Call {
            rows,
            rb,
            w,
            out,
            received: (received, any),
            acc,
            stage,
        } = call;
        // (The strip loop inside each stage: one loop with the stage matched in it made the
        // whole-row kernel slower in an alternated run, alien:9x9 and secded:72 at `D =
        // 32768` 1.00-1.04 -> 0.87-0.91x memcpy.)
        let strips = (0..rb).step_by(w).map(|at| (at, w.min(rb - at)));
        match stage {
            Stage::Whole => {
                let stride = w / 8;
                for (at, len) in strips {
                    self.feed_strip::<L>(&self.runs, rows, 0, rb, at, len, acc, stride);
                    self.out_strip(rb, at, len, acc, stride, out, (received, &mut *any));
                }
            }
            Stage::Feed(first) => {
                let k = first + (rows[0].len() + rows[1].len()) / rb;
                let [runs, empty] = self.runs_within(first..k);
                for (at, len) in strips {
                    let acc = &mut acc[at / 8..];
                    self.feed_strip::<L>(runs, rows, first, rb, at, len, acc, rb / 8);
                    self.feed_strip::<L>(empty, rows, first, rb, at, len, acc, rb / 8);
                }
            }
            Stage::Out => {
                for (at, len) in strips {
                    let acc = &mut acc[at / 8..];
                    self.out_strip(rb, at, len, acc, rb / 8, out, (received, &mut *any));
                }
            }
        }
    }

    /// Adds bytes `at..at + len` of each row of `runs` to the accumulators: the rows are
    /// `rows[0]` then `rows[1]` (whole rows of `rb` bytes, the first numbered `base`), and
    /// accumulator `a` holds those bytes' words from word `a * stride` of `acc`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn feed_strip<const L: usize>(
        &self,
        runs: &[Run],
        rows: [&[u8]; 2],
        base: usize,
        rb: usize,
        at: usize,
        len: usize,
        acc: &mut [u64],
        stride: usize,
    ) {
        let split = base + rows[0].len() / rb;
        // A run's rows as at most two stretches of consecutive rows, one in each part.
        let stretches = |run: &Run| {
            let (a, b) = (run.first, run.first + run.len);
            let (m, n) = (a.min(split), b.min(split));
            let (c, d) = (a.max(split) - split, b.max(split) - split);
            [
                (&rows[0][(m - base) * rb..(n - base) * rb], m..n),
                (&rows[1][c * rb..d * rb], split + c..split + d),
            ]
        };
        let words = len / 8;
        // Whole lanes, then (in the AVX-512 build) one of 16 words, then four words and
        // single words at the end of a row.
        let main = words / L * L;
        let half = main + (words - main) / LANE * LANE;
        let fours = half + (words - half) / 4 * 4;
        for run in runs {
            let parts = stretches(run);
            self.run_words::<L>(run, &parts, rb, at, 0..main, stride, acc);
            self.run_words::<LANE>(run, &parts, rb, at, main..half, stride, acc);
            self.run_words::<4>(run, &parts, rb, at, half..fours, stride, acc);
            self.run_words::<1>(run, &parts, rb, at, fours..words, stride, acc);
        }
    }

    /// Runs the program over bytes `at..at + len` of the accumulators (as
    /// [`Plan::feed_strip`] holds them) and writes those bytes of the parity rows `out`, or
    /// with `received` (the received parity rows) of the syndrome rows, adding them into
    /// `any` as [`Plan::syndrome`] does.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn out_strip(
        &self,
        rb: usize,
        at: usize,
        len: usize,
        acc: &mut [u64],
        stride: usize,
        out: &mut [u8],
        (received, any): (&[u8], &mut [u64]),
    ) {
        let words = len / 8;
        for &Xor { dst, src, copy } in &self.program {
            let (d, s) = pair(acc, dst as usize * stride, src as usize * stride, words);
            if copy {
                d.copy_from_slice(s);
            } else {
                for (d, s) in d.iter_mut().zip(s.iter()) {
                    *d ^= *s;
                }
            }
        }
        for (q, &o) in self.outs.iter().enumerate() {
            let dst = out[q * rb + at..][..len].as_chunks_mut::<8>().0;
            let src = &acc[o as usize * stride..][..words];
            if received.is_empty() {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = s.to_ne_bytes();
                }
            } else {
                let e = received[q * rb + at..][..len].as_chunks::<8>().0;
                let any = &mut any[at / 8..][..words];
                for (((d, s), e), a) in dst.iter_mut().zip(src).zip(e).zip(any) {
                    let v = s ^ u64::from_ne_bytes(*e);
                    *d = v.to_ne_bytes();
                    *a |= v;
                }
            }
        }
    }

    /// The words `span` (from byte `at` of each row) of a run's rows (`parts`: stretches of
    /// consecutive rows of `rb` bytes, with their numbers), `L` at a time: the shared
    /// accumulator's `L` words held while each row's are added to them and to the row's
    /// other accumulator. Accumulator `a` starts at word `a * stride` of `acc`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn run_words<const L: usize>(
        &self,
        run: &Run,
        parts: &[(&[u8], std::ops::Range<usize>); 2],
        rb: usize,
        at: usize,
        span: std::ops::Range<usize>,
        stride: usize,
        acc: &mut [u64],
    ) {
        let shared = usize::from(run.shared) * stride;
        for wi in span.step_by(L) {
            let mut s = [0u64; L];
            if !run.fresh {
                s.copy_from_slice(&acc[shared + wi..][..L]);
            }
            for (rows, ps) in parts.iter().filter(|(rows, _)| !rows.is_empty()) {
                match run.consecutive {
                    Some((base, fresh)) => {
                        // (`ps` starts at or after the run's first row: the part is not empty.)
                        let a = (usize::from(base) + ps.start - run.first) * stride + wi;
                        let at = at + 8 * wi;
                        if fresh {
                            consecutive_rows::<L, true>(rows, rb, at, &mut s, acc, a, stride);
                        } else {
                            consecutive_rows::<L, false>(rows, rb, at, &mut s, acc, a, stride);
                        }
                    }
                    None => {
                        let others = &self.others[ps.clone()];
                        for (r, o) in rows.chunks_exact(rb).zip(others) {
                            let x = load_words::<L>(r, at + 8 * wi);
                            for (s, x) in s.iter_mut().zip(&x) {
                                *s ^= *x;
                            }
                            if o.acc != NONE {
                                let d = &mut acc[o.acc as usize * stride + wi..][..L];
                                add_or_copy(d, &x, o.fresh);
                            }
                        }
                    }
                }
            }
            if run.shared != NONE {
                acc[shared + wi..][..L].copy_from_slice(&s);
            }
            for t in &self.sinks[run.sinks.clone()] {
                let d = &mut acc[t.acc as usize * stride + wi..][..L];
                add_or_copy(d, &s, t.fresh);
            }
        }
    }
}

/// `len` words of `acc` from a multiple of 64 bytes (`acc` grown as needed), so that no
/// 64-byte load or store of an accumulator straddles two cache lines. With the strips where
/// the allocator put them (16 bytes past a multiple of 64 for large vectors), the executor
/// ran 1.2-1.5x slower from cache (alien:9x9's rows of 4 KiB 52 -> 65 GB/s, secded:137's
/// 49 -> 74), and the deep codec 0-8 % slower (docs/benchmarks.md, "Accumulators on whole
/// cache lines").
fn aligned(acc: &mut Vec<u64>, len: usize) -> &mut [u64] {
    acc.resize(len + 7, 0);
    let at = acc.as_ptr().align_offset(64);
    &mut acc[at..at + len]
}

/// The `L` words from byte `at` of row `r`.
#[inline(always)]
fn load_words<const L: usize>(r: &[u8], at: usize) -> [u64; L] {
    let bytes = r[at..][..8 * L].as_chunks::<8>().0;
    std::array::from_fn(|i| u64::from_ne_bytes(bytes[i]))
}

/// `d = x` when `copy`, else `d ^= x`.
#[inline(always)]
fn add_or_copy(d: &mut [u64], x: &[u64], copy: bool) {
    if copy {
        d.copy_from_slice(x);
    } else {
        for (d, x) in d.iter_mut().zip(x) {
            *d ^= *x;
        }
    }
}

/// The `L` words from byte `at` of each of `rows` (whole rows of `rb` bytes) added to `s`
/// and to the rows' others, consecutive accumulators of `stride` words whose words for the
/// first row start at word `a` of `acc`: copied into them when `FRESH`, else added.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn consecutive_rows<const L: usize, const FRESH: bool>(
    rows: &[u8],
    rb: usize,
    at: usize,
    s: &mut [u64; L],
    acc: &mut [u64],
    mut a: usize,
    stride: usize,
) {
    for r in rows.chunks_exact(rb) {
        let x = load_words::<L>(r, at);
        for (s, x) in s.iter_mut().zip(&x) {
            *s ^= *x;
        }
        add_or_copy(&mut acc[a..][..L], &x, FRESH);
        a += stride;
    }
}

/// The `len` words at `a` and at `b` of `acc` (`a != b`, the two ranges apart).
#[inline(always)]
fn pair(acc: &mut [u64], a: usize, b: usize, len: usize) -> (&mut [u64], &mut [u64]) {
    assert_ne!(a, b, "two accumulators");
    if a < b {
        let (lo, hi) = acc.split_at_mut(b);
        (&mut lo[a..][..len], &mut hi[..len])
    } else {
        let (lo, hi) = acc.split_at_mut(a);
        (&mut hi[..len], &mut lo[b..][..len])
    }
}

/// One call of the executor ([`Plan::parity_body`]): data rows of `rb` bytes (two parts),
/// the strip width `w`, the parity (or syndrome) rows `out`, the received parity rows and
/// the OR of the syndrome's words (empty for the parity), the accumulator strips (or whole
/// rows, banded), and what the call does.
struct Call<'a> {
    rows: [&'a [u8]; 2],
    rb: usize,
    w: usize,
    out: &'a mut [u8],
    received: (&'a [u8], &'a mut [u64]),
    acc: &'a mut [u64],
    stage: Stage,
}

/// What a call of the executor does.
#[derive(Clone, Copy)]
enum Stage {
    /// Every data row into accumulator strips, then the parity (syndrome) rows, a strip at
    /// a time.
    Whole,
    /// The rows of a band (the first numbered as given) into whole-row accumulators.
    Feed(usize),
    /// The parity (syndrome) rows from whole-row accumulators, every band fed.
    Out,
}

/// A call of the executor in the build `build`: the portable source
/// ([`Plan::parity_body`]) compiled as it is, for AVX2 with lanes of 128 bytes, or for
/// AVX-512 with lanes of 512 bytes.
fn plan_block(build: Build, plan: &Plan, call: Call<'_>) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        fn avx2(plan: &Plan, call: Call<'_>) {
            plan.parity_body::<LANE>(call)
        }
        #[target_feature(enable = "avx512f")]
        fn avx512(plan: &Plan, call: Call<'_>) {
            plan.parity_body::<WIDE_LANE>(call)
        }
        match build {
            // SAFETY: the `Avx2` evidence shows that the CPU has AVX2.
            Build::Avx2(_) => return unsafe { avx2(plan, call) },
            // SAFETY: the `Avx512` evidence shows that the CPU has AVX-512 F.
            Build::Avx512(_) => return unsafe { avx512(plan, call) },
            Build::Portable => {}
        }
    }
    plan.parity_body::<LANE>(call)
}

mod bands;
mod compile;

#[cfg(test)]
mod tests;
