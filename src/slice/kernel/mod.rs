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
//! run time (alien boards of 4 to 18 grid columns in `grid64`, Hamming and SECDED codes of
//! 3 to 21 check rows in `avx2`), run over whole runs of groups by `fast64`; the codes of at
//! most eight check rows and 32 data rows take their generator matrix instead ([`Matrix64`],
//! `matrix64`, on AVX-512 or on AVX2): see those modules and `docs/benchmarks.md` for how
//! they are built and what they cost.
//! `secded:72` has its row plans fixed at compile time ([`Secded72`]), and `secded:72` and
//! `alien:9x9` have kernels that also take the chunk's CRC-32C, three groups at a time
//! ([`Kernel::group64_crc3`]), so that the CRC instructions run beside the vector work.

use crate::code::{BlockCode, Spec};
use crate::cpu::{self, Avx2};
use crate::game::alien::Shape;
use crate::slice::prefetch;
use std::sync::Arc;

mod block;
mod plan;
mod rows;

#[cfg(target_arch = "x86_64")]
mod avx2;
mod fast64;
#[cfg(target_arch = "x86_64")]
mod grid64;
mod matrix64;

#[cfg(target_endian = "little")]
pub use block::block_bytes;
pub use block::{
    V, add_received, as_blocks, copy_short, store_blocks, store_parity, word_blocks, word_bytes,
};
use block::{blocks, blocks_mut};
pub use matrix64::Matrix64;
pub use plan::{Plan, SetProgram};
use rows::{Rows, grid, hamming_row};

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

/// The single-word fast path of a kernel on this CPU, and the evidence that the CPU runs
/// it: the AVX2 group kernels of [`Kernel::group64`] (AVX2 and POPCNT, by
/// [`crate::cpu::features`]), or the code's generator matrix on AVX-512 or AVX2
/// ([`Matrix64`]).
/// Only [`Kernel::fast64`] makes one, so a codec checks the CPU once, when it is built, not
/// once per group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fast64 {
    /// The matrix, for the codes that take it.
    matrix: Option<Arc<Matrix64>>,
    /// Whether the matrix runs on AVX-512 (else on AVX2: `matrix64::run_avx2`).
    wide: bool,
}

impl Fast64 {
    /// The generator matrix, when the path is it.
    pub fn matrix(&self) -> Option<&Matrix64> {
        self.matrix.as_deref()
    }
}

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
        fast: &Fast64,
        rows: &[u8],
        copy: &mut [u8],
        par: &mut [u64],
    ) -> bool {
        let len = rows.len();
        self.run64::<COPY, { fast64::ONE }>(fast, rows, copy, len, len, par)
            .is_some()
    }

    /// [`Kernel::encode_run`] through the single-word fast path, when this kernel has one
    /// (`false`, having done nothing, when it has not): each group's `gd` bytes of data words
    /// in `data` copied to the start of its `gb` bytes in `out`, its parity words after
    /// them. `words` (`n - k` words) is the kernel's scratch.
    pub fn encode_run64(
        &self,
        fast: &Fast64,
        data: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        words: &mut [u64],
    ) -> bool {
        self.run64::<true, { fast64::ENCODE }>(fast, data, out, gd, gb, words)
            .is_some()
    }

    /// [`Kernel::clean_run`] through the single-word fast path, when this kernel has one
    /// (`None`, having done nothing, when it has not): the number of clean groups at the
    /// start of `enc`, their data words copied to `out`; the first group whose syndrome is
    /// not zero has its data words copied and its syndrome left in `words` (`n - k` words).
    pub fn clean_run64(
        &self,
        fast: &Fast64,
        enc: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        words: &mut [u64],
    ) -> Option<usize> {
        self.run64::<true, { fast64::CLEAN }>(fast, enc, out, gd, gb, words)
    }

    /// [`fast64::run`] when this kernel has a fast path.
    #[inline]
    fn run64<const COPY: bool, const MODE: u8>(
        &self,
        fast: &Fast64,
        src: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        words: &mut [u64],
    ) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(m) = &fast.matrix {
            // SAFETY: `fast` carries a matrix only when the CPU has AVX-512F (`wide`) or
            // AVX2.
            return Some(unsafe {
                if fast.wide {
                    matrix64::run::<COPY, MODE>(m, src, out, gd, gb, words)
                } else {
                    matrix64::run_avx2::<COPY, MODE>(m, src, out, gd, gb, words)
                }
            });
        }
        if !self.has_group64_path() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `fast` shows that the CPU has AVX2 and POPCNT.
        return unsafe { fast64::run::<COPY, MODE>(self, src, out, gd, gb, words) };
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (src, out, gd, gb, words);
            None
        }
    }

    /// Three groups at `D = 64` at once, for `secded:72` and `alien:9x9`: `src[q]` (the data
    /// rows) copied to `dst[q]` and its check rows put in the first `n - k` words of
    /// `par[q]` (as [`Kernel::group64`] writes them; an array the caller's loop keeps, not
    /// 384 bytes returned and moved), and each group's data appended to its register of
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
        par: &mut [[u64; 16]; 3],
        cut: [usize; 4],
        crc: [u32; 3],
    ) -> Option<[u32; 3]> {
        let _ = fused;
        #[cfg(target_arch = "x86_64")]
        match self {
            Kernel::AlienOddOdd { m: 9, n: 9 } => {
                assert_eq!(cut, [0, 168, 336, 520], "the cuts of a 520-byte group");
                // SAFETY: `fused` shows that the CPU has AVX2, POPCNT, SSE4.2 and PCLMULQDQ.
                return Some(unsafe { avx2::alien99_crc3(src, dst, par, crc) });
            }
            Kernel::Hamming { secded72: true, .. } => {
                assert_eq!(cut, [0, 168, 336, 512], "the cuts of a 512-byte group");
                // SAFETY: as above.
                return Some(unsafe { avx2::secded72_crc3(src, dst, par, crc) });
            }
            _ => {}
        }
        let _ = (src, dst, par, cut, crc);
        None
    }

    /// The evidence for [`Kernel::group64_crc3`] when it has a fast path for this kernel on
    /// this CPU (checked here, once per caller).
    pub fn fused64(&self) -> Option<Fused64> {
        let f = crate::cpu::features();
        let fast = self.group64_on_cpu() && f.sse42 && f.pclmulqdq;
        let code = matches!(
            self,
            Kernel::Hamming { secded72: true, .. } | Kernel::AlienOddOdd { m: 9, n: 9 }
        );
        (fast && code).then_some(Fused64(()))
    }

    /// The evidence for [`Kernel::group64`] when it has a fast path for this kernel on this
    /// CPU (checked here, once per caller): the generator matrix where the code suits it
    /// (on AVX2 as on AVX-512: in one process, 64 MiB at `D = 64`, the matrix on AVX2 against
    /// the codec without it, encode and clean decode alien:3x3 1.48-1.60 / 1.58-1.98,
    /// alien:5x3 1.44-1.68 / 1.65-1.67, secded:16 1.36-1.45 / 1.36-1.59, alien:3x5 1.19-1.28
    /// / 1.12-1.15, and no code below 1.03 / 0.94; docs/benchmarks.md, "The generator matrix
    /// on AVX2"), else the family's AVX2 group kernel.
    pub fn fast64(&self) -> Option<Fast64> {
        let f = crate::cpu::features();
        if (f.avx512f || f.avx2)
            && let Some(m) = self.matrix64()
        {
            return Some(Fast64 {
                matrix: Some(Arc::new(m)),
                wide: f.avx512f,
            });
        }
        self.group64_on_cpu().then_some(Fast64 {
            matrix: None,
            wide: false,
        })
    }

    /// Whether this CPU runs the AVX2 group kernel of [`Kernel::group64`] for this kernel
    /// (AVX2 and POPCNT, and a kernel for the code's size).
    fn group64_on_cpu(&self) -> bool {
        let f = crate::cpu::features();
        f.avx2 && f.popcnt && self.has_group64_path()
    }

    /// The generator matrix of the codes whose single-word fast path it is, CPU aside: those
    /// of at most eight check rows and 32 data rows ([`Matrix64`]; the family kernels are
    /// faster past them).
    fn matrix64(&self) -> Option<Matrix64> {
        let k = self.data_rows()?;
        let plan = Plan::for_kernel(self, k);
        Matrix64::new(plan.parity_sets()?, k)
    }

    /// The number of data rows of the kernel's code (`None` for the boards without parity
    /// rows, whose data rows no kernel reads).
    fn data_rows(&self) -> Option<usize> {
        Some(match *self {
            Kernel::Empty => return None,
            Kernel::AlienOddOdd { m, n } => (m - 1) * (n - 1) + 1,
            Kernel::Product { m, n } => (m - 1) * (n - 1),
            Kernel::AlienEvenOdd { m, n } => m * (n - 1) + 1,
            Kernel::AlienOddEven { m, n } => (m - 1) * n + 1,
            Kernel::Hamming { ref grid, .. } => grid.iter().map(|g| g.count_ones() as usize).sum(),
            Kernel::Repetition { .. } => 1,
            Kernel::Parity { k } => k,
        })
    }

    /// Whether [`Kernel::group64`] has a path for this kernel, CPU aside.
    fn has_group64_path(&self) -> bool {
        cfg!(target_arch = "x86_64")
            && match self {
                // Grids of 4 to 18 columns (a register over the last four words ends a
                // row of 4q + 2; rows of more than one strip were read strip by strip).
                Kernel::AlienOddOdd { n, .. } => (5..=19).contains(n),
                Kernel::AlienEvenOdd { m, n } => (5..=19).contains(n) && *m <= 64,
                Kernel::AlienOddEven { n, .. } => (4..=18).contains(n),
                // Short codes (fewer than four grid rows) are faster through the portable
                // kernel than through the fast path's fixed setup.
                Kernel::Hamming { grid, checks, .. } => {
                    (3..=avx2::MAX_CHECKS).contains(checks) && grid.len() >= 4
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
    /// its parity rows written after them, through the group kernel ([`Kernel::parity_copy`])
    /// one group at a time.
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

    /// The portable source of [`Kernel::encode_run`]: the group loop and the kernel compiled
    /// as one, so that no call and no spill of the kernel's arguments is paid per group.
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
            prefetch::group(g.as_ptr(), gd, o.as_ptr(), gb, 8 * B);
            let (od, op) = o.split_at_mut(gd);
            self.parity_body::<B, true>(g, od, par, scratch);
            store_parity(par, op);
        }
    }

    /// A run of received groups (layout as in [`Kernel::encode_run`]): copies each group's
    /// data rows to its `gd` bytes of `out` and computes its syndrome; a group whose
    /// syndrome is not zero has it kept in `syn` (`r` rows a group, one after the other:
    /// `syn` holds as many groups as `dirty`) and its number in `dirty`, and the run goes
    /// on, until `dirty` is full. Returns the number of groups done and of groups kept.
    /// (Stopped at each damaged group, a noisy decode paid a new call and a new start of
    /// the loop for every one, about a third of alien:17x3's groups at `D = 64` and BER
    /// 1e-4: its decode there rose 0.38 -> 0.50x memcpy going on; docs/benchmarks.md, "Runs
    /// that go on past damaged groups".)
    #[allow(clippy::too_many_arguments)]
    pub fn clean_run<const B: usize>(
        &self,
        avx2: Option<Avx2>,
        enc: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        syn: &mut [V<B>],
        dirty: &mut [usize],
        scratch: &mut [V<B>],
    ) -> (usize, usize) {
        clean_run_block::<B>(avx2, self, enc, out, gd, gb, syn, dirty, scratch)
    }

    /// The portable source of [`Kernel::clean_run`], compiled as one with the kernel.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn clean_run_body<const B: usize>(
        &self,
        enc: &[u8],
        out: &mut [u8],
        gd: usize,
        gb: usize,
        syn: &mut [V<B>],
        dirty: &mut [usize],
        scratch: &mut [V<B>],
    ) -> (usize, usize) {
        let r = (gb - gd) / (8 * B);
        assert!(
            !dirty.is_empty() && syn.len() >= r * dirty.len(),
            "room for the syndromes"
        );
        let mut kept = 0;
        let groups = enc.chunks_exact(gb).zip(out.chunks_exact_mut(gd));
        for (i, (e, o)) in groups.enumerate() {
            prefetch::group(e.as_ptr(), gb, o.as_ptr(), gd, 8 * B);
            let (ed, ep) = e.split_at(gd);
            let slot = &mut syn[kept * r..(kept + 1) * r];
            self.parity_body::<B, true>(ed, o, slot, scratch);
            // One word a row, few check rows: compared word by word with an early exit,
            // which is not vectorised (vector loads of the words the kernel has just stored
            // one by one wait for them; alien:3x3 clean decode at `D = 64` 0.14 -> 0.17x
            // memcpy). With 64 check rows (alien:3x63) that was slower: 0.41 -> 0.28.
            if B == 1
                && r <= SCALAR_COMPARE
                && slot
                    .iter()
                    .zip(ep.as_chunks::<8>().0)
                    .all(|(s, p)| s.0[0] == u64::from_le_bytes(*p))
            {
                continue;
            }
            if !add_received(slot, ep, 8 * B, 0).is_zero() {
                dirty[kept] = i;
                kept += 1;
                if kept == dirty.len() {
                    return (i + 1, kept);
                }
            }
        }
        (enc.len() / gb, kept)
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

/// The most check rows whose syndrome [`Kernel::clean_run`] compares word by word at
/// `B = 1`.
pub(super) const SCALAR_COMPARE: usize = 16;

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
        dirty: &mut [usize],
        scratch: &mut [V<B>],
    ) -> (usize, usize) = Kernel::clean_run_body;

}

#[cfg(test)]
mod tests;
