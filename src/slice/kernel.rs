//! Bit-sliced parity kernels: the parity rows of a group of `D` codewords from its data rows,
//! with word-wide XORs, following each family's structure.
//!
//! A group is `n` rows of `D` bits; row `p` holds bit `p` of every codeword (lane `l` is byte
//! `l / 8`, bit `l % 8` of the row). Rows `0..k` are the message bits in the code's message
//! order, rows `k..n` the remaining codeword positions in increasing order. The kernels work on
//! a block of `B` 64-bit words (`64 B` lanes) at a time, so that the inner loops are plain
//! word-array XORs the compiler vectorises. The kernels copy the data rows as they read them
//! ([`Kernel::parity_copy`]), so the encoder and decoder move every data word once.
//!
//! For single-word rows (`D = 64`, the default) the common codes have AVX2 kernels chosen at
//! run time (alien boards with nine columns, Hamming and SECDED codes up to length 128): see
//! the `avx2` module and `docs/benchmarks.md` for how they are built and what they cost.
//! `secded:72` has its row plans fixed at compile time ([`Secded72`]), and `secded:72` and
//! `alien:9x9` have kernels that also take the chunk's CRC-32C, three groups at a time
//! ([`Kernel::group64_crc3`]), so that the CRC instructions run beside the vector work.

use crate::code::{BlockCode, Spec};
use crate::cpu::{self, Avx2};
use crate::game::alien::Shape;
use std::ops::{BitOr, BitXor, BitXorAssign};

/// `B` words of 64 lanes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct V<const B: usize>(pub [u64; B]);

impl<const B: usize> V<B> {
    /// All lanes zero.
    #[inline(always)]
    pub fn zero() -> Self {
        V([0; B])
    }

    /// Reads `8 B` little-endian bytes.
    #[inline(always)]
    pub fn load(bytes: &[u8]) -> Self {
        let bytes = &bytes[..8 * B];
        let mut v = [0u64; B];
        for (w, c) in v.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        }
        V(v)
    }

    /// Writes `8 B` little-endian bytes.
    #[inline(always)]
    pub fn store(self, bytes: &mut [u8]) {
        let bytes = &mut bytes[..8 * B];
        for (w, c) in self.0.iter().zip(bytes.chunks_exact_mut(8)) {
            c.copy_from_slice(&w.to_le_bytes());
        }
    }

    /// `self` when `keep`, else zero.
    #[inline(always)]
    pub fn masked(mut self, keep: bool) -> Self {
        let m = 0u64.wrapping_sub(keep as u64);
        for w in self.0.iter_mut() {
            *w &= m;
        }
        self
    }

    /// True when every lane is zero.
    #[inline(always)]
    pub fn is_zero(&self) -> bool {
        self.0.iter().fold(0, |a, &w| a | w) == 0
    }
}

impl<const B: usize> BitXor for V<B> {
    type Output = Self;
    #[inline(always)]
    fn bitxor(mut self, o: Self) -> Self {
        for i in 0..B {
            self.0[i] ^= o.0[i];
        }
        self
    }
}

impl<const B: usize> BitXorAssign for V<B> {
    #[inline(always)]
    fn bitxor_assign(&mut self, o: Self) {
        for i in 0..B {
            self.0[i] ^= o.0[i];
        }
    }
}

impl<const B: usize> BitOr for V<B> {
    type Output = Self;
    #[inline(always)]
    fn bitor(mut self, o: Self) -> Self {
        for i in 0..B {
            self.0[i] |= o.0[i];
        }
        self
    }
}

/// How the single-word fast path loads one grid row of a Hamming code (eight positions,
/// some of them data rows) from the group's data rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowPlan {
    /// Columns 0..8 are data rows `at..at + 8`.
    Full(usize),
    /// Columns 1..8 are data rows `at..at + 7` (column 0 is a power of two): the eight rows
    /// from `at - 1`, lane 0 cleared.
    Tail(usize),
    /// Columns 3, 5, 6, 7 are data rows `at..at + 4` (the first grid row of a Hamming code).
    First(usize),
}

impl RowPlan {
    /// The plan of every grid row, or `None` when some row is none of the three kinds
    /// (short codes whose last grid row is partial): those take the general kernel.
    fn for_grid(grid: &[u8], starts: &[usize]) -> Option<Vec<RowPlan>> {
        let k: usize = grid.iter().map(|m| m.count_ones() as usize).sum();
        grid.iter()
            .zip(starts)
            .map(|(&mask, &at)| match mask {
                0xFF if at + 8 <= k => Some(RowPlan::Full(at)),
                0xFE if at >= 1 && at + 7 <= k => Some(RowPlan::Tail(at)),
                0xE8 if at + 4 <= k => Some(RowPlan::First(at)),
                _ => None,
            })
            .collect()
    }
}

/// Where the Hamming fast path finds its row plans: in the kernel at run time ([`DynPlans`]),
/// or in a type, fixed at compile time, for the codes that matter most ([`Secded72`]), so
/// that the fast path is compiled for that plan alone (unrolled, no dispatch per row).
pub trait Plans: Copy {
    /// The plan of every grid row.
    fn rows(&self) -> &[RowPlan];
    /// Number of Hamming check rows.
    fn checks(&self) -> usize;
    /// Whether an overall parity row comes first (SECDED).
    fn overall(&self) -> bool;
    /// Number of data rows in the group `src` (one word each).
    fn data_words(&self, src: &[u8]) -> usize {
        src.len() / 8
    }
}

/// Row plans held by a [`Kernel::Hamming`].
#[derive(Clone, Copy, Debug)]
pub struct DynPlans<'a> {
    rows: &'a [RowPlan],
    checks: usize,
    overall: bool,
}

impl Plans for DynPlans<'_> {
    fn rows(&self) -> &[RowPlan] {
        self.rows
    }
    fn checks(&self) -> usize {
        self.checks
    }
    fn overall(&self) -> bool {
        self.overall
    }
}

/// The row plans of `secded:72`, the (72, 64) code, fixed at compile time.
#[derive(Clone, Copy, Debug)]
pub struct Secded72;

impl Secded72 {
    /// Positions 3, 5, 6, 7; 9..16; 17..24; 24..32; 33..40; 40..48; 48..56; 56..64; 65..72.
    const ROWS: [RowPlan; 9] = [
        RowPlan::First(0),
        RowPlan::Tail(4),
        RowPlan::Tail(11),
        RowPlan::Full(18),
        RowPlan::Tail(26),
        RowPlan::Full(33),
        RowPlan::Full(41),
        RowPlan::Full(49),
        RowPlan::Tail(57),
    ];
}

impl Plans for Secded72 {
    fn rows(&self) -> &[RowPlan] {
        &Self::ROWS
    }
    fn checks(&self) -> usize {
        7
    }
    fn overall(&self) -> bool {
        true
    }
    fn data_words(&self, src: &[u8]) -> usize {
        assert!(src.len() >= 8 * 64, "secded:72 groups carry 64 data rows");
        64
    }
}

/// Evidence that this CPU runs the AVX2 group kernels of [`Kernel::group64`] (AVX2 and
/// POPCNT, by [`crate::cpu::features`]). Only [`Kernel::fast64`] makes one, so a codec
/// checks the CPU once, when it is built, not once per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fast64(());

/// Evidence that this CPU runs the fused kernels of [`Kernel::group64_crc3`]: what
/// [`Fast64`] shows, and SSE4.2 and PCLMULQDQ (also what the CRC shift keys of the decoder
/// need). Only [`Kernel::fused64`] makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fused64(());

/// How the parity rows of one family follow from its data rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// No parity rows (even-by-even alien boards).
    Empty,
    /// Odd-by-odd alien boards: row `0` and column `0` carry `c_j + p + b` and `r_i + p + b`
    /// from the row parities `r`, column parities `c` and total parity `p` of the data block.
    AlienOddOdd {
        /// Rows.
        m: usize,
        /// Columns.
        n: usize,
    },
    /// Even-by-odd alien boards: column `0` carries `r_i + r_0 + b`.
    AlienEvenOdd {
        /// Rows.
        m: usize,
        /// Columns.
        n: usize,
    },
    /// Odd-by-even alien boards: row `0` carries `c_j + c_0 + b`.
    AlienOddEven {
        /// Rows.
        m: usize,
        /// Columns.
        n: usize,
    },
    /// Shortened Hamming code: check row `b` is the XOR of the data rows whose Hamming position
    /// has bit `b` set; `overall` adds the SECDED overall parity row in front. Positions are
    /// seen as a grid of rows of eight (`p = 8 t + o`): the low three check rows follow from
    /// the eight column parities and the others from the grid row parities, two XORs per data
    /// row, as in the alien kernels.
    Hamming {
        /// Which of the eight positions of each grid row hold data rows (bit `o`).
        grid: Vec<u8>,
        /// The first data row of each grid row.
        starts: Vec<usize>,
        /// How the single-word fast path loads each grid row (see [`RowPlan`]), when every
        /// row can be loaded that way.
        plan: Option<Vec<RowPlan>>,
        /// Whether the plan is `secded:72`'s, which has a fast path of its own ([`Secded72`]).
        secded72: bool,
        /// Number of Hamming check rows.
        checks: usize,
        /// Whether an overall parity row comes first (SECDED).
        overall: bool,
    },
    /// Repetition code: every check row is the data row.
    Repetition {
        /// Number of check rows (`n - 1`).
        checks: usize,
    },
    /// Single parity check: the XOR of all data rows.
    Parity {
        /// Number of data rows.
        k: usize,
    },
    /// `product:MxN`: the last column carries the row parities of the `(m - 1) x (n - 1)`
    /// data block, the last row its column parities, the corner its total parity. Only the
    /// simulator runs it (the container refuses product codes).
    Product {
        /// Rows.
        m: usize,
        /// Columns.
        n: usize,
    },
}

impl Kernel {
    /// The kernel for a code, from its spec; `code` supplies the message order, which the
    /// kernel's structure must match (checked by the tests against `BlockCode::encode`).
    pub fn for_code(code: &dyn BlockCode) -> Kernel {
        match code.spec() {
            Spec::Alien { rows: m, cols: n } => match Shape::of(m, n) {
                Shape::EvenEven => Kernel::Empty,
                Shape::OddOdd => Kernel::AlienOddOdd { m, n },
                Shape::EvenOdd => Kernel::AlienEvenOdd { m, n },
                Shape::OddEven => Kernel::AlienOddEven { m, n },
            },
            // Hamming: codeword index i is Hamming position i + 1.
            Spec::Hamming(_) => Kernel::hamming(
                code.message_positions().iter().map(|&p| p + 1),
                code.n() - code.k(),
                false,
            ),
            // SECDED: index 0 is the overall parity; index i >= 1 is Hamming position i.
            Spec::Secded(_) => Kernel::hamming(
                code.message_positions().iter().copied(),
                code.n() - code.k() - 1,
                true,
            ),
            Spec::Repetition(n) => Kernel::Repetition { checks: n - 1 },
            Spec::Parity(n) => Kernel::Parity { k: n - 1 },
            Spec::Product { rows: m, cols: n } => Kernel::Product { m, n },
        }
    }

    fn hamming(positions: impl Iterator<Item = usize>, checks: usize, overall: bool) -> Kernel {
        let mut grid: Vec<u8> = Vec::new();
        let mut last = 0;
        for p in positions {
            // Message positions come in increasing order, so rows follow the grid.
            assert!(grid.is_empty() || p > last, "positions increase");
            last = p;
            if grid.len() <= p / 8 {
                grid.resize(p / 8 + 1, 0);
            }
            grid[p / 8] |= 1 << (p % 8);
        }
        let starts: Vec<usize> = grid
            .iter()
            .scan(0, |at, m| {
                let start = *at;
                *at += m.count_ones() as usize;
                Some(start)
            })
            .collect();
        let plan = RowPlan::for_grid(&grid, &starts);
        let secded72 = overall && checks == 7 && plan.as_deref() == Some(&Secded72::ROWS[..]);
        Kernel::Hamming {
            grid,
            starts,
            plan,
            secded72,
            checks,
            overall,
        }
    }

    /// Scratch blocks [`Kernel::parity`] needs.
    pub fn scratch_len(&self) -> usize {
        match self {
            Kernel::AlienOddOdd { m, n }
            | Kernel::AlienEvenOdd { m, n }
            | Kernel::AlienOddEven { m, n }
            | Kernel::Product { m, n } => m + n,
            _ => 0,
        }
    }

    /// The fast path for single-word rows (`D = 64`): the parity rows of the group `rows`
    /// (`k` words) into `par` (`n - k` words), copying `rows` to `copy` when `COPY`, in one
    /// pass with AVX2 (which `fast` shows the CPU has). Returns `false`, having done nothing,
    /// when this kernel has no such path ([`Kernel::fast64`] gives `None` for it);
    /// [`Kernel::parity_copy`] then does the same work.
    #[inline]
    pub fn group64<const COPY: bool>(
        &self,
        fast: Fast64,
        rows: &[u8],
        copy: &mut [u8],
        par: &mut [u64],
    ) -> bool {
        let _ = fast;
        if !self.has_group64_path() {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            match *self {
                Kernel::AlienOddOdd { m, n: 9 } => {
                    // SAFETY: `fast` shows that the CPU has AVX2 and POPCNT.
                    unsafe { avx2::alien_odd_odd8::<COPY>(rows, copy, m, par) };
                    return true;
                }
                Kernel::AlienEvenOdd { m, n: 9 } if m <= 64 => {
                    // SAFETY: as above.
                    unsafe { avx2::alien_even_odd8::<COPY>(rows, copy, m, par) };
                    return true;
                }
                Kernel::Hamming { secded72: true, .. } => {
                    // SAFETY: as above.
                    unsafe { avx2::hamming_plan::<COPY, _>(rows, copy, Secded72, par) };
                    return true;
                }
                Kernel::Hamming {
                    plan: Some(ref plan),
                    checks,
                    overall,
                    ..
                } if (3..=7).contains(&checks) && plan.len() <= 16 => {
                    let plans = DynPlans {
                        rows: plan,
                        checks,
                        overall,
                    };
                    // SAFETY: as above.
                    unsafe { avx2::hamming_plan::<COPY, _>(rows, copy, plans, par) };
                    return true;
                }
                Kernel::Hamming {
                    ref grid,
                    ref starts,
                    checks,
                    overall,
                    ..
                } if (3..=7).contains(&checks) && grid.len() <= 16 => {
                    // SAFETY: as above.
                    unsafe {
                        avx2::hamming::<COPY>(rows, copy, grid, starts, checks, overall, par)
                    };
                    return true;
                }
                _ => {}
            }
        }
        let _ = (rows, copy, par);
        false
    }

    /// Three groups at `D = 64` at once, for `secded:72` and `alien:9x9`: `src[q]` (the data
    /// rows) copied to `dst[q]` and its check rows returned in the first `n - k` words (as
    /// [`Kernel::group64`] writes them), and each group's data appended to its register of
    /// `crc` (CRC-32C), in one pass that runs the CRC instructions beside the parity
    /// kernels. The pieces of the three groups at `cut` (what the codec uses: `[0, 168, 336,
    /// 512]` for `secded:72`, `[0, 168, 336, 520]` for `alien:9x9`) are taken beside each
    /// group's kernel in turn, with the AVX2, SSE4.2 and PCLMULQDQ that `fused` shows the CPU
    /// has. `None`, having done nothing, for other codes ([`Kernel::fused64`] gives `None`
    /// for them).
    #[inline]
    pub fn group64_crc3(
        &self,
        fused: Fused64,
        src: [&[u8]; 3],
        dst: [&mut [u8]; 3],
        cut: [usize; 4],
        crc: [u32; 3],
    ) -> Option<([[u64; 16]; 3], [u32; 3])> {
        let _ = fused;
        #[cfg(target_arch = "x86_64")]
        match self {
            Kernel::AlienOddOdd { m: 9, n: 9 } => {
                assert_eq!(cut, [0, 168, 336, 520], "the cuts of a 520-byte group");
                // SAFETY: `fused` shows that the CPU has AVX2, POPCNT, SSE4.2 and PCLMULQDQ.
                return Some(unsafe { avx2::alien99_crc3(src, dst, crc) });
            }
            Kernel::Hamming { secded72: true, .. } => {
                assert_eq!(cut, [0, 168, 336, 512], "the cuts of a 512-byte group");
                // SAFETY: as above.
                return Some(unsafe { avx2::secded72_crc3(src, dst, crc) });
            }
            _ => {}
        }
        let _ = (src, dst, cut, crc);
        None
    }

    /// The evidence for [`Kernel::group64_crc3`] when it has a fast path for this kernel on
    /// this CPU (checked here, once per caller).
    pub fn fused64(&self) -> Option<Fused64> {
        let f = crate::cpu::features();
        let fast = self.fast64().is_some() && f.sse42 && f.pclmulqdq;
        let code = matches!(
            self,
            Kernel::Hamming { secded72: true, .. } | Kernel::AlienOddOdd { m: 9, n: 9 }
        );
        (fast && code).then_some(Fused64(()))
    }

    /// The evidence for [`Kernel::group64`] when it has a fast path for this kernel on this
    /// CPU (checked here, once per caller).
    pub fn fast64(&self) -> Option<Fast64> {
        let f = crate::cpu::features();
        (f.avx2 && f.popcnt && self.has_group64_path()).then_some(Fast64(()))
    }

    /// Whether [`Kernel::group64`] has a path for this kernel, CPU aside.
    fn has_group64_path(&self) -> bool {
        cfg!(target_arch = "x86_64")
            && match self {
                Kernel::AlienOddOdd { n: 9, .. } => true,
                Kernel::AlienEvenOdd { m, n: 9 } => *m <= 64,
                // Short codes (fewer than four grid rows) are faster through the portable
                // kernel than through the fast path's fixed setup.
                Kernel::Hamming { grid, checks, .. } => {
                    (3..=7).contains(checks) && (4..=16).contains(&grid.len())
                }
                _ => false,
            }
    }

    /// The parity rows of one lane block. `rows` holds the block's `k` data rows, `8 B`
    /// bytes each, one after the other; parity row `q` goes to `out[q]`. With the `avx2`
    /// evidence the kernel runs compiled for AVX2.
    pub fn parity<const B: usize>(
        &self,
        avx2: Option<Avx2>,
        rows: &[u8],
        out: &mut [V<B>],
        scratch: &mut [V<B>],
    ) {
        parity_block::<B, false>(avx2, self, rows, &mut [], out, scratch);
    }

    /// [`Kernel::parity`] that also copies `rows` to `copy` (of the same length) as it reads
    /// them, so that the encoder and the decoder move each data word once.
    pub fn parity_copy<const B: usize, const COPY: bool>(
        &self,
        avx2: Option<Avx2>,
        rows: &[u8],
        copy: &mut [u8],
        out: &mut [V<B>],
        scratch: &mut [V<B>],
    ) {
        parity_block::<B, COPY>(avx2, self, rows, copy, out, scratch);
    }

    /// Encodes a run of groups whose rows are one lane block each (`8 B` bytes): each group's
    /// `gd` bytes of data rows in `data` are copied to the start of its `gb` bytes in `out`,
    /// its parity rows written after them. One call for many small groups, so that the
    /// kernel's setup is not paid per group.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_run<const B: usize>(
        &self,
        avx2: Option<Avx2>,
        data: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        par: &mut [V<B>],
        scratch: &mut [V<B>],
    ) {
        encode_run_block::<B>(avx2, self, data, out, gd, gb, par, scratch);
    }

    /// The clean start of a run of received groups (layout as in [`Kernel::encode_run`]):
    /// copies each group's data rows to its `gd` bytes of `out` and computes its syndrome,
    /// until a group has a nonzero one. Returns the number of clean groups before it (all of
    /// them when the run is clean); the first damaged group's syndrome is left in `syn`, its
    /// data rows copied.
    #[allow(clippy::too_many_arguments)]
    pub fn clean_run<const B: usize>(
        &self,
        avx2: Option<Avx2>,
        enc: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        syn: &mut [V<B>],
        scratch: &mut [V<B>],
    ) -> usize {
        clean_run_block::<B>(avx2, self, enc, out, gd, gb, syn, scratch)
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn encode_run_body<const B: usize>(
        &self,
        data: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        par: &mut [V<B>],
        scratch: &mut [V<B>],
    ) {
        for (g, o) in data.chunks_exact(gd).zip(out.chunks_exact_mut(gb)) {
            let (od, op) = o.split_at_mut(gd);
            self.parity_body::<B, true>(g, od, par, scratch);
            for (v, dst) in par.iter().zip(op.chunks_exact_mut(8 * B)) {
                v.store(dst);
            }
        }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn clean_run_body<const B: usize>(
        &self,
        enc: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        syn: &mut [V<B>],
        scratch: &mut [V<B>],
    ) -> usize {
        let groups = enc.chunks_exact(gb).zip(out.chunks_exact_mut(gd));
        for (i, (e, o)) in groups.enumerate() {
            let (ed, ep) = e.split_at(gd);
            self.parity_body::<B, true>(ed, o, syn, scratch);
            if !add_received(syn, ep, 8 * B, 0).is_zero() {
                return i;
            }
        }
        enc.len() / gb
    }

    /// The portable source of [`Kernel::parity_copy`], inlined into its two builds.
    #[inline(always)]
    fn parity_body<const B: usize, const COPY: bool>(
        &self,
        rows: &[u8],
        copy: &mut [u8],
        out: &mut [V<B>],
        scratch: &mut [V<B>],
    ) {
        if COPY {
            assert_eq!(rows.len(), copy.len(), "a copy as long as the rows");
        }
        debug_assert_eq!(rows.len() % (8 * B), 0, "whole rows");
        let mut rows = Rows::<B, COPY> {
            src: blocks(rows),
            dst: blocks_mut(copy),
        };
        match self {
            Kernel::Empty => {}
            &Kernel::AlienOddOdd { m, n } => {
                let (c, r) = scratch.split_at_mut(n);
                let c = &mut c[1..];
                let r = &mut r[1..m];
                grid::<B, COPY>(rows.take_pair((m - 1) * (n - 1)), n - 1, r, c);
                let p = r.iter().fold(V::zero(), |a, &x| a ^ x);
                let pb = p ^ rows.one();
                let (top, left) = out.split_at_mut(n - 1);
                for (o, &cj) in top.iter_mut().zip(c.iter()) {
                    *o = cj ^ pb;
                }
                for (o, &ri) in left.iter_mut().zip(r.iter()) {
                    *o = ri ^ pb;
                }
            }
            &Kernel::AlienEvenOdd { m, n } => {
                let (c, r) = scratch.split_at_mut(n);
                let (c, r) = (&mut c[1..], &mut r[..m]);
                grid::<B, COPY>(rows.take_pair(m * (n - 1)), n - 1, r, c);
                let r0b = r[0] ^ rows.one();
                for (o, &ri) in out.iter_mut().zip(&r[1..]) {
                    *o = ri ^ r0b;
                }
            }
            &Kernel::AlienOddEven { m, n } => {
                let (c, r) = scratch.split_at_mut(n);
                let r = &mut r[1..m];
                grid::<B, COPY>(rows.take_pair((m - 1) * n), n, r, c);
                let c0b = c[0] ^ rows.one();
                for (o, &cj) in out.iter_mut().zip(&c[1..]) {
                    *o = cj ^ c0b;
                }
            }
            Kernel::Hamming {
                grid,
                checks,
                overall,
                ..
            } => {
                let (head, h) = out.split_at_mut(usize::from(*overall));
                let h = &mut h[..*checks];
                h.fill(V::zero());
                let mut cols = [V::<B>::zero(); 8];
                let mut all = V::zero();
                for (t, &mask) in grid.iter().enumerate() {
                    let g = match mask {
                        0xFF => hamming_row::<B, 0, 8, COPY>(rows.take_pair(8), &mut cols),
                        // The grid rows of the powers of two 8, 16, 32, ...
                        0xFE => hamming_row::<B, 1, 7, COPY>(rows.take_pair(7), &mut cols),
                        _ => {
                            let mut acc = V::zero();
                            for (o, c) in cols.iter_mut().enumerate() {
                                if mask >> o & 1 == 1 {
                                    let x = rows.one();
                                    acc ^= x;
                                    *c ^= x;
                                }
                            }
                            acc
                        }
                    };
                    all ^= g;
                    let mut bits = t;
                    while bits != 0 {
                        h[3 + bits.trailing_zeros() as usize] ^= g;
                        bits &= bits - 1;
                    }
                }
                // Columns with bit 0, 1, 2 set.
                let [_, c1, c2, c3, c4, c5, c6, c7] = cols;
                let low = [c1 ^ c3 ^ c5 ^ c7, c2 ^ c3 ^ c6 ^ c7, c4 ^ c5 ^ c6 ^ c7];
                for (hb, l) in h.iter_mut().zip(low) {
                    *hb = l;
                }
                if *overall {
                    head[0] = h.iter().fold(all, |a, &x| a ^ x);
                }
            }
            &Kernel::Repetition { checks } => {
                let x = rows.one();
                out[..checks].fill(x);
            }
            &Kernel::Parity { k } => {
                let mut acc = V::zero();
                for _ in 0..k {
                    acc ^= rows.one();
                }
                out[0] = acc;
            }
            &Kernel::Product { m, n } => {
                let (c, r) = scratch.split_at_mut(n);
                let (c, r) = (&mut c[..n - 1], &mut r[..m - 1]);
                grid::<B, COPY>(rows.take_pair((m - 1) * (n - 1)), n - 1, r, c);
                // Positions (i, n - 1), then (m - 1, j), then the corner.
                let (right, bottom) = out.split_at_mut(m - 1);
                right.copy_from_slice(r);
                bottom[..n - 1].copy_from_slice(c);
                bottom[n - 1] = r.iter().fold(V::zero(), |a, &x| a ^ x);
            }
        }
        // Rows no kernel reads (the even-by-even boards have no parity rows); usually none,
        // and then no call to `memcpy` per group.
        if COPY && !rows.src.is_empty() {
            rows.dst.copy_from_slice(rows.src);
        }
    }
}

/// Single-word rows (`B = 1`) as the bytes the kernels read: on a little-endian target a
/// row's `u64` is its lanes as they are; elsewhere the kernels' words are byte-swapped
/// consistently and `u64::from_le` turns them back.
#[inline(always)]
pub fn word_bytes(words: &[u64]) -> &[u8] {
    // SAFETY: `u64` has no padding and any byte is a valid `u8`; the byte slice covers exactly
    // the words' memory and borrows it for as long as `words`.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words)) }
}

/// Single-word rows as lane blocks of one word (`V<1>` is a `u64`), for kernels to write
/// their parity rows straight into `u64` words; little-endian targets only, where a lane
/// block's word is the row's `u64` as it is.
#[cfg(target_endian = "little")]
#[inline(always)]
pub fn word_blocks(words: &mut [u64]) -> &mut [V<1>] {
    // SAFETY: `V<1>` is `repr(transparent)` over `[u64; 1]`, which has the layout of `u64`.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<V<1>>(), words.len()) }
}

/// Turns the parity rows computed from the received data (`syn`) into the syndrome by adding
/// the received parity rows (rows of `rb` bytes in `received`, this lane block at `off`), and
/// returns the OR of the syndrome rows: zero exactly when every lane is clean.
#[inline(always)]
pub fn add_received<const B: usize>(
    syn: &mut [V<B>],
    received: &[u8],
    rb: usize,
    off: usize,
) -> V<B> {
    let mut nz = V::<B>::zero();
    for (sy, prow) in syn.iter_mut().zip(received.chunks_exact(rb)) {
        *sy ^= V::load(&prow[off..]);
        nz = nz | *sy;
    }
    nz
}

cpu::avx2_twins! {
    /// [`Kernel::parity_copy`], portable or compiled for AVX2.
    fn parity_block<const B: usize, const COPY: bool>(
        k: &Kernel,
        rows: &[u8],
        copy: &mut [u8],
        out: &mut [V<B>],
        scratch: &mut [V<B>],
    ) = Kernel::parity_body;

    /// [`Kernel::encode_run`], portable or compiled for AVX2.
    #[allow(clippy::too_many_arguments)]
    fn encode_run_block<const B: usize>(
        k: &Kernel,
        data: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        par: &mut [V<B>],
        scratch: &mut [V<B>],
    ) = Kernel::encode_run_body;

    /// [`Kernel::clean_run`], portable or compiled for AVX2.
    #[allow(clippy::too_many_arguments)]
    fn clean_run_block<const B: usize>(
        k: &Kernel,
        enc: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        syn: &mut [V<B>],
        scratch: &mut [V<B>],
    ) -> usize = Kernel::clean_run_body;
}

/// One lane block: `B` little-endian words.
type Block<const B: usize> = [[u8; 8]; B];

/// Bytes as lane blocks (whole blocks only; `len` a multiple of `8 B`).
#[inline(always)]
fn blocks<const B: usize>(bytes: &[u8]) -> &[Block<B>] {
    bytes.as_chunks::<8>().0.as_chunks::<B>().0
}

/// Bytes as mutable lane blocks.
#[inline(always)]
fn blocks_mut<const B: usize>(bytes: &mut [u8]) -> &mut [Block<B>] {
    bytes.as_chunks_mut::<8>().0.as_chunks_mut::<B>().0
}

impl<const B: usize> V<B> {
    #[inline(always)]
    fn from_block(b: &Block<B>) -> Self {
        V(b.map(u64::from_le_bytes))
    }

    #[inline(always)]
    fn to_block(self) -> Block<B> {
        self.0.map(u64::to_le_bytes)
    }
}

/// Sets the row parities (`r[i]` for each group of `cols` rows) and column parities (`c[j]`)
/// of a grid of rows stored row-major: two XORs per row, copying each row to `block.1` when
/// `COPY`. Common widths are compiled with the column parities in registers.
#[inline(always)]
fn grid<const B: usize, const COPY: bool>(
    block: (&[Block<B>], &mut [Block<B>]),
    cols: usize,
    r: &mut [V<B>],
    c: &mut [V<B>],
) {
    match cols {
        0 => r.fill(V::zero()),
        1 => grid_fixed::<B, 1, COPY>(block, r, c),
        2 => grid_fixed::<B, 2, COPY>(block, r, c),
        // Odd widths: product codes with an even number of columns.
        3 => grid_fixed::<B, 3, COPY>(block, r, c),
        4 => grid_fixed::<B, 4, COPY>(block, r, c),
        5 => grid_fixed::<B, 5, COPY>(block, r, c),
        6 => grid_fixed::<B, 6, COPY>(block, r, c),
        7 => grid_fixed::<B, 7, COPY>(block, r, c),
        8 => grid_fixed::<B, 8, COPY>(block, r, c),
        10 => grid_fixed::<B, 10, COPY>(block, r, c),
        12 => grid_fixed::<B, 12, COPY>(block, r, c),
        14 => grid_fixed::<B, 14, COPY>(block, r, c),
        16 => grid_fixed::<B, 16, COPY>(block, r, c),
        _ => {
            let (src, dst) = block;
            c.fill(V::zero());
            for (i, ri) in r.iter_mut().enumerate() {
                let mut acc = V::zero();
                for (j, cj) in c.iter_mut().enumerate() {
                    let at = i * cols + j;
                    let x = V::from_block(&src[at]);
                    if COPY {
                        dst[at] = x.to_block();
                    }
                    acc ^= x;
                    *cj ^= x;
                }
                *ri = acc;
            }
        }
    }
}

#[inline(always)]
fn grid_fixed<const B: usize, const C: usize, const COPY: bool>(
    (src, dst): (&[Block<B>], &mut [Block<B>]),
    r: &mut [V<B>],
    c: &mut [V<B>],
) {
    let src = src.as_chunks::<C>().0;
    let mut cc = [V::<B>::zero(); C];
    if COPY {
        let dst = dst.as_chunks_mut::<C>().0;
        for ((ri, s), d) in r.iter_mut().zip(src).zip(dst) {
            *ri = grid_row(&mut cc, s, Some(d));
        }
    } else {
        for (ri, s) in r.iter_mut().zip(src) {
            *ri = grid_row(&mut cc, s, None);
        }
    }
    for (cj, x) in c.iter_mut().zip(cc) {
        *cj = x;
    }
}

/// One row of [`grid_fixed`]: adds each of its `C` cells to its column parity in `cc`,
/// copies them to `d` if given, and returns their sum (the row's parity).
#[inline(always)]
fn grid_row<const B: usize, const C: usize>(
    cc: &mut [V<B>; C],
    s: &[Block<B>; C],
    mut d: Option<&mut [Block<B>; C]>,
) -> V<B> {
    let mut acc = V::zero();
    for j in 0..C {
        let x = V::from_block(&s[j]);
        if let Some(d) = d.as_deref_mut() {
            d[j] = x.to_block();
        }
        acc ^= x;
        cc[j] ^= x;
    }
    acc
}

/// One grid row of a Hamming code with data rows at columns `O..O + L`: adds each row to
/// its column and returns their sum (copying the rows to `seg.1` when `COPY`).
#[inline(always)]
fn hamming_row<const B: usize, const O: usize, const L: usize, const COPY: bool>(
    (src, dst): (&[Block<B>], &mut [Block<B>]),
    cols: &mut [V<B>; 8],
) -> V<B> {
    let src: &[Block<B>; L] = src.try_into().expect("L rows");
    let x: [V<B>; L] = std::array::from_fn(|j| V::from_block(&src[j]));
    if COPY {
        let dst: &mut [Block<B>; L] = dst.try_into().expect("L rows");
        *dst = x.map(V::to_block);
    }
    let mut acc = V::zero();
    for (c, x) in cols[O..O + L].iter_mut().zip(x) {
        acc ^= x;
        *c ^= x;
    }
    acc
}

/// A cursor over contiguous rows of `8 B` bytes, and over the copy of them when `COPY`.
struct Rows<'a, 'b, const B: usize, const COPY: bool> {
    src: &'a [Block<B>],
    dst: &'b mut [Block<B>],
}

impl<'a, 'b, const B: usize, const COPY: bool> Rows<'a, 'b, B, COPY> {
    /// The next `count` rows, with their place in the copy (empty unless `COPY`).
    #[inline(always)]
    fn take_pair(&mut self, count: usize) -> (&'a [Block<B>], &'b mut [Block<B>]) {
        let (a, b) = self.src.split_at(count);
        self.src = b;
        let dst = std::mem::take(&mut self.dst);
        let (c, d) = dst.split_at_mut(if COPY { count } else { 0 });
        self.dst = d;
        (a, c)
    }

    /// The next row.
    #[inline(always)]
    fn one(&mut self) -> V<B> {
        let (src, dst) = self.take_pair(1);
        let x = V::from_block(&src[0]);
        if COPY {
            dst[0] = x.to_block();
        }
        x
    }
}

/// AVX2 group kernels for single-word rows (`D = 64`): a grid row of eight words is two
/// 256-bit registers, the eight column parities two accumulators, and four row parities come
/// out of one transposing reduction; the copy of the data rows is stored from the same
/// registers. Tested against the portable kernels (`fast_kernels_match_the_portable_ones`)
/// and, through the codec, against `BlockCode`.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Plans, RowPlan};
    use std::arch::x86_64::*;

    /// The XOR of the four 64-bit lanes of each of `a[0..4]`, as one register.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn reduce4(a: [__m256i; 4]) -> __m256i {
        let t01 = _mm256_xor_si256(
            _mm256_unpacklo_epi64(a[0], a[1]),
            _mm256_unpackhi_epi64(a[0], a[1]),
        );
        let t23 = _mm256_xor_si256(
            _mm256_unpacklo_epi64(a[2], a[3]),
            _mm256_unpackhi_epi64(a[2], a[3]),
        );
        _mm256_xor_si256(
            _mm256_permute2x128_si256(t01, t23, 0x20),
            _mm256_permute2x128_si256(t01, t23, 0x31),
        )
    }

    /// The XOR of the four lanes of `a`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn reduce1(a: __m256i) -> u64 {
        let f = _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
        (_mm_cvtsi128_si64(f) ^ _mm_extract_epi64(f, 1)) as u64
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes(v: __m256i) -> [u64; 4] {
        let mut out = [0u64; 4];
        // SAFETY: `out` is 32 bytes; unaligned store.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
        out
    }

    #[inline]
    fn word(bytes: &[u8], i: usize) -> u64 {
        u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
    }

    /// A grid of `rows` rows of eight words at the start of `src`: copies it to `copy` when
    /// `COPY`, writes the row parities to `r[..rows]` and returns the column parities.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn grid8<const COPY: bool>(
        src: &[u8],
        copy: &mut [u8],
        rows: usize,
        r: &mut [u64],
    ) -> [u64; 8] {
        assert!(src.len() >= rows * 64 && r.len() >= rows);
        if COPY {
            assert!(copy.len() >= rows * 64);
        }
        let s = src.as_ptr().cast::<__m256i>();
        let d = copy.as_mut_ptr().cast::<__m256i>();
        let mut c0 = _mm256_setzero_si256();
        let mut c1 = _mm256_setzero_si256();
        let mut row = |i: usize| {
            // SAFETY: row `i < rows` lies within `src` (and `copy` when copying), checked
            // above; unaligned loads and stores.
            unsafe {
                let x0 = _mm256_loadu_si256(s.add(2 * i));
                let x1 = _mm256_loadu_si256(s.add(2 * i + 1));
                if COPY {
                    _mm256_storeu_si256(d.add(2 * i), x0);
                    _mm256_storeu_si256(d.add(2 * i + 1), x1);
                }
                c0 = _mm256_xor_si256(c0, x0);
                c1 = _mm256_xor_si256(c1, x1);
                _mm256_xor_si256(x0, x1)
            }
        };
        let mut i = 0;
        while i + 4 <= rows {
            let a = [row(i), row(i + 1), row(i + 2), row(i + 3)];
            r[i..i + 4].copy_from_slice(&lanes(reduce4(a)));
            i += 4;
        }
        while i < rows {
            r[i] = reduce1(row(i));
            i += 1;
        }
        let (lo, hi) = (lanes(c0), lanes(c1));
        [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
    }

    /// `Kernel::AlienOddOdd { m, n: 9 }`: `par` is the top row (column parities + p + b),
    /// then the left column (row parities + p + b).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn alien_odd_odd8<const COPY: bool>(
        src: &[u8],
        copy: &mut [u8],
        m: usize,
        par: &mut [u64],
    ) {
        let rows = m - 1;
        assert!(par.len() >= 8 + rows && src.len() >= rows * 64 + 8);
        let (top, left) = par.split_at_mut(8);
        let c = grid8::<COPY>(src, copy, rows, left);
        let b = word(src, rows * 8);
        if COPY {
            copy[rows * 64..rows * 64 + 8].copy_from_slice(&b.to_le_bytes());
        }
        let pb = left[..rows].iter().fold(b, |a, &x| a ^ x);
        for (t, cj) in top.iter_mut().zip(c) {
            *t = cj ^ pb;
        }
        for l in &mut left[..rows] {
            *l ^= pb;
        }
    }

    /// `Kernel::AlienEvenOdd { m, n: 9 }`: `par[i - 1]` is `r_i + r_0 + b`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn alien_even_odd8<const COPY: bool>(
        src: &[u8],
        copy: &mut [u8],
        m: usize,
        par: &mut [u64],
    ) {
        assert!((2..=64).contains(&m) && par.len() >= m - 1 && src.len() >= m * 64 + 8);
        let mut r = [0u64; 64];
        grid8::<COPY>(src, copy, m, &mut r);
        let b = word(src, m * 8);
        if COPY {
            copy[m * 64..m * 64 + 8].copy_from_slice(&b.to_le_bytes());
        }
        let r0b = r[0] ^ b;
        for (p, ri) in par.iter_mut().zip(&r[1..]) {
            *p = ri ^ r0b;
        }
    }

    /// `Kernel::Hamming` from its row plans (at most 16 grid rows, 3 to 7 check rows): the
    /// column parities of the grid of positions stay in two registers, the row sums are
    /// reduced four rows at a time, and the check rows above the third are sums of row sums.
    /// Monomorphised for each [`Plans`] source, so that a plan fixed at compile time is
    /// unrolled with its row kinds resolved.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn hamming_plan<const COPY: bool, P: Plans>(
        src: &[u8],
        copy: &mut [u8],
        plans: P,
        par: &mut [u64],
    ) {
        let (plan, checks, overall) = (plans.rows(), plans.checks(), plans.overall());
        assert!(plan.len() <= 16 && (3..=7).contains(&checks));
        assert!(par.len() >= checks + usize::from(overall));
        let k = plans.data_words(src);
        if COPY {
            // In blocks of 256 bytes, each unrolled: as one loop the copy would be turned
            // into a call to memcpy, which costs more than the copy itself at this size.
            let (src, copy) = (&src[..8 * k], &mut copy[..8 * k]);
            let mut blocks = copy.chunks_exact_mut(256).zip(src.chunks_exact(256));
            for (d, s) in &mut blocks {
                let (d, s) = (
                    d.as_mut_ptr().cast::<__m256i>(),
                    s.as_ptr().cast::<__m256i>(),
                );
                for i in 0..8 {
                    // SAFETY: 32-byte part `i < 8` of the 256-byte blocks; unaligned.
                    unsafe { _mm256_storeu_si256(d.add(i), _mm256_loadu_si256(s.add(i))) };
                }
            }
            // The rest word by word (whole words: a fixed-size copy, no call).
            let done = 8 * k / 256 * 256;
            let words = copy[done..]
                .chunks_exact_mut(8)
                .zip(src[done..].chunks_exact(8));
            for (d, s) in words {
                let d: &mut [u8; 8] = d.try_into().expect("8 bytes");
                *d = s.try_into().expect("8 bytes");
            }
        }
        let zero = _mm256_setzero_si256();
        let load = |at: usize| {
            let p = src[8 * at..8 * at + 32].as_ptr().cast::<__m256i>();
            // SAFETY: 32 bytes, bounds checked by the slice; unaligned load.
            unsafe { _mm256_loadu_si256(p) }
        };
        let (mut c0, mut c1) = (zero, zero);
        let mut sums = [zero; 16];
        for (sum, p) in sums.iter_mut().zip(plan) {
            let (x0, x1) = match *p {
                RowPlan::Full(at) => (load(at), load(at + 4)),
                RowPlan::Tail(at) => (
                    _mm256_blend_epi32(zero, load(at - 1), 0b1111_1100),
                    load(at + 3),
                ),
                RowPlan::First(at) => {
                    let w = load(at);
                    (
                        _mm256_blend_epi32(zero, _mm256_permute4x64_epi64(w, 0), 0b1100_0000),
                        _mm256_blend_epi32(zero, w, 0b1111_1100),
                    )
                }
            };
            c0 = _mm256_xor_si256(c0, x0);
            c1 = _mm256_xor_si256(c1, x1);
            *sum = _mm256_xor_si256(x0, x1);
        }
        // Grid row sums g_t, four to a register: gq[q] holds g_{4q..4q+4}.
        let gq: [__m256i; 4] = std::array::from_fn(|q| {
            reduce4([
                sums[4 * q],
                sums[4 * q + 1],
                sums[4 * q + 2],
                sums[4 * q + 3],
            ])
        });
        finish_hamming(c0, c1, gq, checks, overall, par);
    }

    /// The check rows from the column parities `c0`, `c1` of the position grid and its row
    /// sums `gq` (g_{4q..4q+4} in `gq[q]`), written to `par`: the `checks` Hamming check rows,
    /// after the overall parity (the sum of every data row and every check row) when
    /// `overall`. Check row `b < 3` sums the columns with bit `b`, check row `3 + b` the row
    /// sums g_t whose index t has bit b. Combined term by term: a loop over the first `checks`
    /// is vectorised into a masked load of values just stored one by one, which stalls on
    /// store forwarding.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn finish_hamming(
        c0: __m256i,
        c1: __m256i,
        gq: [__m256i; 4],
        checks: usize,
        overall: bool,
        par: &mut [u64],
    ) {
        let s = _mm256_xor_si256(
            _mm256_xor_si256(gq[0], gq[1]),
            _mm256_xor_si256(gq[2], gq[3]),
        );
        let sl = lanes(s);
        let (lo, hi) = (lanes(c0), lanes(c1));
        let c = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
        let h = [
            c[1] ^ c[3] ^ c[5] ^ c[7],
            c[2] ^ c[3] ^ c[6] ^ c[7],
            c[4] ^ c[5] ^ c[6] ^ c[7],
            sl[1] ^ sl[3],
            sl[2] ^ sl[3],
            reduce1(_mm256_xor_si256(gq[1], gq[3])),
            reduce1(_mm256_xor_si256(gq[2], gq[3])),
        ];
        let all = sl[0] ^ sl[1] ^ sl[2] ^ sl[3];
        let keep = |i: usize| 0u64.wrapping_sub(u64::from(i < checks));
        let total = all
            ^ h[0]
            ^ h[1]
            ^ h[2]
            ^ (h[3] & keep(3))
            ^ (h[4] & keep(4))
            ^ (h[5] & keep(5))
            ^ (h[6] & keep(6));
        let (head, rest) = par.split_at_mut(usize::from(overall));
        for (r, x) in rest[..checks].iter_mut().zip(h) {
            *r = x;
        }
        if overall {
            head[0] = total;
        }
    }

    /// `f` as exactly `LEN` words.
    fn words<const LEN: usize>(f: &[u8]) -> &[[u8; 8]; LEN] {
        let (w, rest) = f.as_chunks::<8>();
        assert!(rest.is_empty());
        w.try_into().expect("LEN words")
    }

    /// A fused kernel `$fed` run on three groups side by side, one CRC register per group
    /// (`$len` words of each piece, cut at `$cut`): the one body of the `*_crc3` entry points.
    macro_rules! crc3 {
        ($(#[$doc:meta])* $name:ident, $fed:ident, [$l0:literal, $l1:literal, $l2:literal],
         [$c1:literal, $c2:literal, $end:literal]) => {
            $(#[$doc])*
            ///
            /// # Safety
            /// The CPU must support AVX2 and SSE4.2.
            #[target_feature(enable = "avx2,sse4.2")]
            pub unsafe fn $name(
                src: [&[u8]; 3],
                dst: [&mut [u8]; 3],
                crc: [u32; 3],
            ) -> ([[u64; 16]; 3], [u32; 3]) {
                let mut x = registers(crc);
                let [d0, d1, d2] = dst;
                let par = [
                    $fed::<$l0>(src[0], d0, pieces(src, 0, $c1), &mut x),
                    $fed::<$l1>(src[1], d1, pieces(src, $c1, $c2), &mut x),
                    $fed::<$l2>(src[2], d2, pieces(src, $c2, $end), &mut x),
                ];
                (par, crcs(x))
            }
        };
    }

    /// Three pieces of `LEN` words whose CRC-32C instructions a fused kernel spreads over its
    /// `ROWS` grid rows, one CRC register per piece.
    struct Feed<'a, const LEN: usize, const ROWS: usize>([&'a [[u8; 8]; LEN]; 3]);

    impl<'a, const LEN: usize, const ROWS: usize> Feed<'a, LEN, ROWS> {
        fn new(feed: [&'a [u8]; 3]) -> Self {
            Feed([words(feed[0]), words(feed[1]), words(feed[2])])
        }

        /// Row `t`'s share: words `t LEN / ROWS .. (t + 1) LEN / ROWS` of each piece.
        #[inline]
        #[target_feature(enable = "sse4.2")]
        fn row(&self, t: usize, crc: &mut [u64; 3]) {
            for i in t * LEN / ROWS..(t + 1) * LEN / ROWS {
                for (x, f) in crc.iter_mut().zip(self.0) {
                    *x = _mm_crc32_u64(*x, u64::from_le_bytes(f[i]));
                }
            }
        }
    }

    /// The CRC registers of three CRC-32C values, and back.
    fn registers(crc: [u32; 3]) -> [u64; 3] {
        crc.map(|c| u64::from(!c))
    }

    fn crcs(x: [u64; 3]) -> [u32; 3] {
        x.map(|r| !(r as u32))
    }

    /// Bytes `a..b` of each of three groups.
    fn pieces(src: [&[u8]; 3], a: usize, b: usize) -> [&[u8]; 3] {
        [&src[0][a..b], &src[1][a..b], &src[2][a..b]]
    }

    /// One `secded:72` group (`src`, 64 data words): its words copied to `dst` and its 8
    /// check words returned (overall parity first; 16 words as [`alien99_fed`]'s, the last
    /// eight zero), with the CRC-32C instructions of three other pieces of `LEN`
    /// words (`feed`, one per register of `crc`) spread over its grid rows, so that the CRC
    /// unit and the vector units work side by side. Written out row by row: as a loop over
    /// the row plans, with the CRC loop inside, it is not unrolled.
    #[inline]
    #[target_feature(enable = "avx2,sse4.2")]
    fn secded72_fed<const LEN: usize>(
        src: &[u8],
        dst: &mut [u8],
        feed: [&[u8]; 3],
        crc: &mut [u64; 3],
    ) -> [u64; 16] {
        let src: &[u8; 512] = src[..512].try_into().expect("512 bytes");
        let dst: &mut [u8; 512] = (&mut dst[..512]).try_into().expect("512 bytes");
        let feed = Feed::<LEN, 9>::new(feed);
        let zero = _mm256_setzero_si256();
        let load = |at: usize| {
            let p = src[8 * at..8 * at + 32].as_ptr().cast::<__m256i>();
            // SAFETY: 32 bytes, bounds checked by the slice; unaligned load.
            unsafe { _mm256_loadu_si256(p) }
        };
        let d = dst.as_mut_ptr();
        let store = |at: usize, v: __m256i| {
            assert!(at + 4 <= 64);
            // SAFETY: words `at..at + 4` of the 512 bytes of `dst`; unaligned store.
            unsafe { _mm256_storeu_si256(d.add(8 * at).cast::<__m256i>(), v) }
        };
        // The rows' words are copied from the loads (a row that starts after a power of two
        // also rewrites the word before it, with the same value).
        let full = |at: usize| {
            let (a, b) = (load(at), load(at + 4));
            store(at, a);
            store(at + 4, b);
            (a, b)
        };
        let tail = |at: usize| {
            let (a, b) = (load(at - 1), load(at + 3));
            store(at - 1, a);
            store(at + 3, b);
            (_mm256_blend_epi32(zero, a, 0b1111_1100), b)
        };
        let (mut c0, mut c1) = (zero, zero);
        let mut add = |(x0, x1): (__m256i, __m256i)| {
            c0 = _mm256_xor_si256(c0, x0);
            c1 = _mm256_xor_si256(c1, x1);
            _mm256_xor_si256(x0, x1)
        };
        // Secded72::ROWS, row by row.
        feed.row(0, crc);
        let w = load(0);
        let first = (
            _mm256_blend_epi32(zero, _mm256_permute4x64_epi64(w, 0), 0b1100_0000),
            _mm256_blend_epi32(zero, w, 0b1111_1100),
        );
        let s0 = add(first);
        feed.row(1, crc);
        let s1 = add(tail(4));
        // Row 0's words 0..4 after row 1 has rewritten word 3 with the same value.
        store(0, w);
        feed.row(2, crc);
        let s2 = add(tail(11));
        feed.row(3, crc);
        let s3 = add(full(18));
        let g0 = reduce4([s0, s1, s2, s3]);
        feed.row(4, crc);
        let s4 = add(tail(26));
        feed.row(5, crc);
        let s5 = add(full(33));
        feed.row(6, crc);
        let s6 = add(full(41));
        feed.row(7, crc);
        let s7 = add(full(49));
        let g1 = reduce4([s4, s5, s6, s7]);
        feed.row(8, crc);
        let s8 = add(tail(57));
        let g2 = reduce4([s8, zero, zero, zero]);
        let mut par = [0u64; 16];
        finish_hamming(c0, c1, [g0, g1, g2, zero], 7, true, &mut par[..8]);
        par
    }

    crc3!(
        /// Three `secded:72` groups (see [`secded72_fed`]): copied, their check words returned,
        /// and the CRC-32C of each group's data appended to its own register of `crc`: the
        /// pieces `0..168`, `168..336` and `336..512` of the three groups are fed beside the
        /// kernels of groups 0, 1 and 2.
        secded72_crc3,
        secded72_fed,
        [21, 21, 22],
        [168, 336, 512]
    );

    /// One `alien:9x9` group (`src`, 65 data words: eight grid rows of eight, then the corner
    /// word `b`): its words copied to `dst` and its 16 check words returned (the top row,
    /// then the left column, as `alien_odd_odd8` writes them), with the CRC-32C instructions
    /// of three other pieces of `LEN` words spread over its grid rows (see [`secded72_fed`]).
    #[inline]
    #[target_feature(enable = "avx2,sse4.2")]
    fn alien99_fed<const LEN: usize>(
        src: &[u8],
        dst: &mut [u8],
        feed: [&[u8]; 3],
        crc: &mut [u64; 3],
    ) -> [u64; 16] {
        let src: &[u8; 520] = src[..520].try_into().expect("520 bytes");
        let dst: &mut [u8; 520] = (&mut dst[..520]).try_into().expect("520 bytes");
        let feed = Feed::<LEN, 8>::new(feed);
        let s = src.as_ptr().cast::<__m256i>();
        let d = dst.as_mut_ptr().cast::<__m256i>();
        let (mut c0, mut c1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        let mut row = |i: usize| {
            assert!(i < 8);
            // SAFETY: row `i < 8` (64 bytes) lies within the 520 bytes of `src` and `dst`;
            // unaligned loads and stores.
            unsafe {
                let x0 = _mm256_loadu_si256(s.add(2 * i));
                let x1 = _mm256_loadu_si256(s.add(2 * i + 1));
                _mm256_storeu_si256(d.add(2 * i), x0);
                _mm256_storeu_si256(d.add(2 * i + 1), x1);
                c0 = _mm256_xor_si256(c0, x0);
                c1 = _mm256_xor_si256(c1, x1);
                _mm256_xor_si256(x0, x1)
            }
        };
        feed.row(0, crc);
        let s0 = row(0);
        feed.row(1, crc);
        let s1 = row(1);
        feed.row(2, crc);
        let s2 = row(2);
        feed.row(3, crc);
        let s3 = row(3);
        let r0 = reduce4([s0, s1, s2, s3]);
        feed.row(4, crc);
        let s4 = row(4);
        feed.row(5, crc);
        let s5 = row(5);
        feed.row(6, crc);
        let s6 = row(6);
        feed.row(7, crc);
        let s7 = row(7);
        let r1 = reduce4([s4, s5, s6, s7]);
        let b = u64::from_le_bytes(src[512..].try_into().expect("8 bytes"));
        dst[512..].copy_from_slice(&b.to_le_bytes());
        // p + b: the total parity of the data block and the corner word.
        let pb = reduce1(_mm256_xor_si256(r0, r1)) ^ b;
        let pbv = _mm256_set1_epi64x(pb as i64);
        let (top, left) = (
            [_mm256_xor_si256(c0, pbv), _mm256_xor_si256(c1, pbv)],
            [_mm256_xor_si256(r0, pbv), _mm256_xor_si256(r1, pbv)],
        );
        let mut par = [0u64; 16];
        for (i, v) in top.into_iter().chain(left).enumerate() {
            par[4 * i..4 * i + 4].copy_from_slice(&lanes(v));
        }
        par
    }

    crc3!(
        /// Three `alien:9x9` groups (see [`alien99_fed`]): copied, their check words returned,
        /// and the CRC-32C of each group's data appended to its own register of `crc`: the
        /// pieces `0..168`, `168..336` and `336..520` of the three groups are fed beside the
        /// kernels of groups 0, 1 and 2.
        alien99_crc3,
        alien99_fed,
        [21, 21, 23],
        [168, 336, 520]
    );

    /// `Kernel::Hamming` with at most 16 grid rows (`n <= 128`) and 3 to 7 check rows: the
    /// column parities of the grid of positions stay in two registers, the grid row sums are
    /// reduced four rows at a time, and the check rows above the third are sums of row sums.
    ///
    /// # Safety
    /// The CPU must support AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    pub unsafe fn hamming<const COPY: bool>(
        src: &[u8],
        copy: &mut [u8],
        grid: &[u8],
        starts: &[usize],
        checks: usize,
        overall: bool,
        par: &mut [u64],
    ) {
        let t_max = grid.len();
        assert!((1..=16).contains(&t_max) && starts.len() == t_max && (3..=7).contains(&checks));
        let k = starts[t_max - 1] + grid[t_max - 1].count_ones() as usize;
        assert!(src.len() >= 8 * k && par.len() >= checks + usize::from(overall));
        if COPY {
            copy[..8 * k].copy_from_slice(&src[..8 * k]);
        }
        let zero = _mm256_setzero_si256();
        let (mut c0, mut c1) = (zero, zero);
        let row = |t: usize| -> (__m256i, __m256i) {
            let (mask, at) = (grid[t], starts[t]);
            if mask == 0xFF {
                let s = src[8 * at..8 * at + 64].as_ptr().cast::<__m256i>();
                // SAFETY: 64 bytes, bounds checked by the slice; unaligned loads.
                unsafe { (_mm256_loadu_si256(s), _mm256_loadu_si256(s.add(1))) }
            } else if mask == 0xFE && at >= 1 {
                // The word before the row and columns 1..8; lane 0 cleared.
                let s = src[8 * at - 8..8 * at + 56].as_ptr().cast::<__m256i>();
                // SAFETY: 64 bytes, bounds checked by the slice; unaligned loads.
                let x = unsafe { (_mm256_loadu_si256(s), _mm256_loadu_si256(s.add(1))) };
                (_mm256_blend_epi32(zero, x.0, 0b1111_1100), x.1)
            } else if mask == 0xE8 && src.len() >= 8 * at + 32 {
                // Positions 3, 5, 6, 7 (the first grid row of every Hamming code with at
                // least four data rows): words at, at + 1, at + 2, at + 3.
                let s = src[8 * at..8 * at + 32].as_ptr().cast::<__m256i>();
                // SAFETY: 32 bytes, bounds checked by the slice; unaligned load.
                let w = unsafe { _mm256_loadu_si256(s) };
                (
                    _mm256_blend_epi32(zero, _mm256_permute4x64_epi64(w, 0), 0b1100_0000),
                    _mm256_blend_epi32(zero, w, 0b1111_1100),
                )
            } else {
                let mut x = [0i64; 8];
                let mut j = at;
                for (o, xo) in x.iter_mut().enumerate() {
                    if mask >> o & 1 == 1 {
                        *xo = word(src, j) as i64;
                        j += 1;
                    }
                }
                (
                    _mm256_set_epi64x(x[3], x[2], x[1], x[0]),
                    _mm256_set_epi64x(x[7], x[6], x[5], x[4]),
                )
            }
        };
        // Grid row sums, reduced four rows at a time: gq[q] holds g_{4q..4q+4}.
        let mut gq = [zero; 4];
        for (q, g) in gq.iter_mut().enumerate().take(grid.len().div_ceil(4)) {
            let mut a = [zero; 4];
            for (j, aj) in a.iter_mut().enumerate() {
                let t = 4 * q + j;
                if t < grid.len() {
                    let (x0, x1) = row(t);
                    c0 = _mm256_xor_si256(c0, x0);
                    c1 = _mm256_xor_si256(c1, x1);
                    *aj = _mm256_xor_si256(x0, x1);
                }
            }
            *g = reduce4(a);
        }
        finish_hamming(c0, c1, gq, checks, overall, par);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code;
    use rand::{RngCore, SeedableRng};

    /// secded:72 takes its own compiled plan (so `fast_kernels_match_the_portable_ones`
    /// checks that plan), and no other code does.
    #[test]
    fn secded72_has_its_fixed_plan() {
        let fixed = |spec: Spec| {
            matches!(
                Kernel::for_code(code::build(&spec).as_ref()),
                Kernel::Hamming { secded72: true, .. }
            )
        };
        assert!(fixed(Spec::Secded(72)));
        for n in (4..=130).filter(|&n| n != 72) {
            assert!(!fixed(Spec::Secded(n)), "secded:{n}");
        }
        for n in 3..=130 {
            assert!(!fixed(Spec::Hamming(n)), "hamming:{n}");
        }
    }

    /// Every code with a single-word fast path: its parity rows and copy equal the portable
    /// kernel's, on random groups.
    #[test]
    fn fast_kernels_match_the_portable_ones() {
        let mut specs: Vec<Spec> = (1..=12).map(|m| Spec::Alien { rows: m, cols: 9 }).collect();
        specs.extend((4..=130).map(Spec::Secded));
        specs.extend((3..=130).map(Spec::Hamming));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut fast_paths = 0;
        for spec in specs {
            let code = code::build(&spec);
            let kernel = Kernel::for_code(code.as_ref());
            let (k, r) = (code.k(), code.n() - code.k());
            let Some(fast) = kernel.fast64() else {
                continue;
            };
            for _ in 0..20 {
                let mut rows = vec![0u8; 8 * k];
                rng.fill_bytes(&mut rows);
                let mut copy = vec![0u8; 8 * k];
                let mut par = vec![0u64; r];
                if !kernel.group64::<true>(fast, &rows, &mut copy, &mut par) {
                    break;
                }
                let mut bare = vec![0u64; r];
                assert!(kernel.group64::<false>(fast, &rows, &mut [], &mut bare));
                let mut want = vec![V::<1>::zero(); r];
                let mut scratch = vec![V::<1>::zero(); kernel.scratch_len()];
                let mut want_copy = vec![0u8; 8 * k];
                kernel.parity_copy::<1, true>(None, &rows, &mut want_copy, &mut want, &mut scratch);
                let want: Vec<u64> = want.iter().map(|v| v.0[0]).collect();
                assert_eq!(par, want, "{spec}");
                assert_eq!(bare, want, "{spec}");
                assert_eq!(copy, rows, "{spec}");
                assert_eq!(want_copy, rows, "{spec}");
                fast_paths += 1;
            }
        }
        if crate::cpu::features().avx2 && crate::cpu::features().popcnt {
            assert!(fast_paths > 2000, "{fast_paths}");
        }
        let _ = fast_paths;
    }
}
