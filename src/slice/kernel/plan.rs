//! Whole-row kernels for rows of many lane blocks (deep interleaving): each family's parity
//! rows as a plan of XORs of whole rows, run over strips of the rows.
//!
//! The lane-block kernels ([`Kernel::parity`]) hold one block of every row at a time, so a
//! row of many blocks is either gathered block by block into a buffer or read at the row
//! stride (where, at a stride of 4 KiB, the same block of every row falls in one L1 set).
//! A [`Plan`] reads every data row once, in order, and adds it into the one or two
//! accumulator rows it feeds (its row and column parity, its Hamming grid row and column,
//! ...); a short program over the accumulators then makes the parity rows. The rows are
//! taken a strip of [`Plan::strip`] bytes at a time, so that the accumulators of a strip stay
//! in L1. The plan of every family is derived here from its [`Kernel`], and tested against
//! [`Kernel::parity`] on every family and width.

use super::Kernel;
use crate::cpu::{self, Avx2};

/// No accumulator.
const NONE: u16 = u16::MAX;

/// Bytes of accumulator rows a strip may hold (a share of L1).
const STRIP_BUDGET: usize = 24 * 1024;

/// One step of a plan's program: `acc[dst] ^= acc[src]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Xor {
    dst: u16,
    src: u16,
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
        self.plan.program.push(Xor { dst, src });
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

    /// The strip width in bytes for rows of `rb` bytes: as much of a row as keeps every
    /// accumulator's strip within 24 KiB (`STRIP_BUDGET`), a whole number of 64-byte lines (at
    /// least one), and no more than the row.
    pub fn strip(&self, rb: usize) -> usize {
        let w = STRIP_BUDGET / self.accs.max(1) / 64 * 64;
        w.clamp(64, rb.next_multiple_of(64)).min(rb)
    }

    /// The parity rows (`out`, rows of `rb` bytes) of the data rows in `rows[0]` followed by
    /// those of `rows[1]` (whole rows of `rb` bytes, [`Plan::data_rows`] in all). `acc` is
    /// scratch, kept between calls. With the `avx2` evidence the loops run compiled for AVX2.
    pub fn parity(
        &self,
        avx2: Option<Avx2>,
        rows: [&[u8]; 2],
        rb: usize,
        out: &mut [u8],
        acc: &mut Vec<u64>,
    ) {
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
        let w = self.strip(rb);
        acc.resize(self.accs * w / 8, 0);
        plan_block(avx2, self, rows, rb, w, out, acc);
    }

    /// The portable source of [`Plan::parity`], inlined into its two builds.
    #[inline(always)]
    fn parity_body(&self, rows: [&[u8]; 2], rb: usize, w: usize, out: &mut [u8], acc: &mut [u64]) {
        let split = rows[0].len() / rb;
        let mut at = 0;
        while at < rb {
            let len = w.min(rb - at);
            let words = len / 8;
            let acc_of = |a: u16| a as usize * w / 8;
            acc.fill(0);
            for (p, &[a, b]) in self.feeds.iter().enumerate() {
                let (part, row) = if p < split {
                    (rows[0], p)
                } else {
                    (rows[1], p - split)
                };
                let x = part[row * rb + at..][..len].as_chunks::<8>().0;
                match (a, b) {
                    (NONE, NONE) => {}
                    (a, NONE) | (NONE, a) => {
                        let a = &mut acc[acc_of(a)..][..words];
                        for (a, x) in a.iter_mut().zip(x) {
                            *a ^= u64::from_ne_bytes(*x);
                        }
                    }
                    (a, b) => {
                        let (ra, rb_) = pair(acc, acc_of(a), acc_of(b), words);
                        for ((a, b), x) in ra.iter_mut().zip(rb_.iter_mut()).zip(x) {
                            let v = u64::from_ne_bytes(*x);
                            *a ^= v;
                            *b ^= v;
                        }
                    }
                }
            }
            for &Xor { dst, src } in &self.program {
                let (d, s) = pair(acc, acc_of(dst), acc_of(src), words);
                for (d, s) in d.iter_mut().zip(s.iter()) {
                    *d ^= *s;
                }
            }
            for (q, &o) in self.outs.iter().enumerate() {
                let dst = out[q * rb + at..][..len].as_chunks_mut::<8>().0;
                for (d, s) in dst.iter_mut().zip(&acc[acc_of(o)..][..words]) {
                    *d = s.to_ne_bytes();
                }
            }
            at += len;
        }
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

cpu::avx2_twins! {
    /// [`Plan::parity`], portable or compiled for AVX2.
    fn plan_block(
        plan: &Plan,
        rows: [&[u8]; 2],
        rb: usize,
        w: usize,
        out: &mut [u8],
        acc: &mut [u64],
    ) = Plan::parity_body;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::{self, Spec};
    use crate::slice::kernel::V;
    use rand::{RngCore, SeedableRng};

    /// Every family and many widths: the plan's parity rows equal the lane-block kernel's,
    /// block by block, on random rows of 8 to 520 bytes split anywhere between the two
    /// parts, portable and with AVX2.
    #[test]
    fn plans_match_the_lane_block_kernels() {
        let mut specs: Vec<Spec> = Vec::new();
        for m in 1..=9 {
            for n in 1..=9 {
                specs.push(Spec::Alien { rows: m, cols: n });
            }
        }
        specs.extend(
            [(17, 33), (33, 17), (16, 63), (63, 5), (64, 64)]
                .map(|(m, n)| Spec::Alien { rows: m, cols: n }),
        );
        specs.extend((4..=140).step_by(3).map(Spec::Secded));
        specs.extend((3..=140).step_by(3).map(Spec::Hamming));
        specs.extend([Spec::Secded(1024), Spec::Hamming(1024), Spec::Secded(72)]);
        specs.extend((2..=6).map(Spec::Repetition));
        specs.extend((2..=9).map(Spec::Parity));
        specs.extend([(3, 3), (4, 5), (8, 8)].map(|(m, n)| Spec::Product { rows: m, cols: n }));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
        let mut acc = Vec::new();
        for spec in specs {
            let code = code::build(&spec);
            let kernel = Kernel::for_code(code.as_ref());
            let (k, r) = (code.k(), code.n() - code.k());
            let plan = Plan::for_kernel(&kernel, k);
            assert_eq!((plan.data_rows(), plan.parity_rows()), (k, r), "{spec}");
            for rb in [8, 64, 72, 520] {
                let mut data = vec![0u8; k * rb];
                rng.fill_bytes(&mut data);
                // The lane-block kernel, one word (lane block of B = 1) at a time.
                let mut want = vec![0u8; r * rb];
                let mut par = vec![V::<1>::zero(); r];
                let mut scratch = vec![V::<1>::zero(); kernel.scratch_len()];
                for off in (0..rb).step_by(8) {
                    let rows: Vec<u8> = data
                        .chunks_exact(rb)
                        .flat_map(|row| row[off..off + 8].to_vec())
                        .collect();
                    kernel.parity::<1>(None, &rows, &mut par, &mut scratch);
                    for (q, v) in par.iter().enumerate() {
                        v.store(&mut want[q * rb + off..]);
                    }
                }
                let split = (rng.next_u32() as usize % (k + 1)) * rb;
                for avx2 in [None, Avx2::detect()] {
                    let mut got = vec![0xA5u8; r * rb];
                    let rows = [&data[..split], &data[split..]];
                    plan.parity(avx2, rows, rb, &mut got, &mut acc);
                    assert_eq!(got, want, "{spec} rb {rb} split {split}");
                }
            }
        }
    }

    /// Strips keep the accumulators within the budget, are whole lines, and cover a row.
    #[test]
    fn strips_fit_the_budget() {
        for spec in [Spec::Alien { rows: 9, cols: 9 }, Spec::Secded(1024)] {
            let code = code::build(&spec);
            let plan = Plan::for_kernel(&Kernel::for_code(code.as_ref()), code.k());
            for rb in [8, 64, 512, 4096, 8192] {
                let w = plan.strip(rb);
                assert!(w <= rb && w > 0, "{spec} {rb} {w}");
                assert!(w == rb || w.is_multiple_of(64), "{spec} {rb} {w}");
                assert!(w * plan.accs <= STRIP_BUDGET.max(64 * plan.accs));
            }
        }
    }
}
