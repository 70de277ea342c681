//! The column pass: a group of rows of 512 bytes to 8 KiB (`D = 4096` to 65536) of a code
//! with few data rows, coded in one pass, 64 bytes of every row at a time (groups in order
//! here; chunks of one group in [`super::deep_columns`]).
//!
//! Copying a group with its CRC and then making its parity (or syndrome) from the rows in
//! cache leaves memory idle while the kernel runs: alien:3x3 at `D = 32768` encoded at
//! 0.37x memcpy so, against 0.78 for a throwaway loop that loads a line of each row, streams
//! it out, folds it into its row's CRC register and makes the parity lines from the same
//! registers (docs/benchmarks.md, "The column pass (2026-11-28, afternoon)"). Here, for each
//! 64-byte column of the output's lines:
//!
//! - each data row's line is loaded, streamed to the output (non-temporal), folded into
//!   the row's CRC register ([`RowFold`]) and kept in L1 for the parity;
//! - each parity line is summed in registers from the lines of its data rows
//!   ([`Plan::parity_sets`]), then streamed after the data rows (encoding), or added to the
//!   received one, the sum written to the syndrome rows and ORed, column by column, into
//!   one more row (which words hold a lane to decide) and into the group's flag (decoding);
//! - the same lines of the next group are asked for from memory, into L2
//!   ([`prefetch::line_l2`]: they are used a group later, or in one-group chunks two steps
//!   later, and asked for into L1 they made the pass slower; in one process, the two
//!   alternated, 128 MiB, clean decode at `D = 32768` gained alien:8x3 0.65 -> 0.82x memcpy,
//!   secded:22 0.65 -> 0.76, alien:3x5 0.56 -> 0.64, 4x3 0.72 -> 0.77, and at `D = 16384`
//!   alien:3x3 0.50 -> 0.75; encoding 0-10 %; at `D = 4096` alike; docs/benchmarks.md,
//!   "Lines asked for into L2").
//!
//! [`STEP`] lines of every row are taken at a time.
//!
//! The output need not start at a multiple of 64. Its lines then start `h` bytes into each
//! row, and the line across the end of a row and the start of the next (the *wrap*) holds
//! the last `64 - h` bytes of one row and the first `h` of the next: the columns are taken
//! at `h, h + 64, ...` from the start of every row, and a last column of every row's last
//! `64 - h` bytes and first `h` (masked loads; byte copies on 256-bit registers,
//! [`Line::wrap`]) gives the kernel the bytes of the wraps; each
//! wrap line is blended from two rows' (data or parity). Every row's CRC register covers
//! the row's bytes from `h` to `h` past its end (the next row's first `h` bytes, through its
//! wrap), so that the registers are of consecutive pieces of the payload of one length;
//! the first `h` bytes and the last row's last `64 - h` are taken apart.
//!
//! The pass runs on lines of one 512-bit register where the CPU has AVX-512, and of two
//! 256-bit ones where it has AVX2 and VPCLMULQDQ only ([`line`]); there the codec takes it on
//! fewer shapes ([`narrow_pays`]).

use super::Codec;
use crate::slice::kernel::{Plan, V};
use crate::slice::prefetch;
use crate::stream::crc::{self, Folding, RowFold};
use line::{Line, Pair};
use std::arch::x86_64::*;

mod line;

/// The most data rows of a group in the column pass. Codes of up to 17 gained at
/// `D = 4096` (encode alien:3x3 0.37 -> 0.68x memcpy, secded:16 0.48 -> 0.66, hamming:22 0.53
/// -> 0.61), those of 33 and more lost (alien:4x9 0.75 -> 0.57, alien:8x5 0.72 -> 0.57,
/// secded:72 at `D = 32768` 0.66 -> 0.60; docs/benchmarks.md, "The column pass (2026-11-28,
/// afternoon)"). (A step loads four lines of every row, 132 for 33 rows: more, I take it,
/// than the processor keeps in flight; not measured.)
pub(super) const MAX_ROWS: usize = 24;

/// The longest rows of the column pass (`D = 65536`). At 8 KiB rows every code it takes has
/// chunks of one group ([`super::deep_columns`]), which gained on the copy and the
/// whole-row kernel there (encode hamming:22 0.55 -> 0.70x memcpy, alien:4x5 0.68 -> 0.80,
/// secded:16 0.49 -> 0.59; docs/benchmarks.md, "One-group chunks through the column
/// pass"). (An earlier limit of 4 KiB came from a reading at 65536 of codes whose chunks
/// the pass did not take then.)
const MAX_ROW_BYTES: usize = 8192;

/// The most lines a data row's line is loaded into the parity lines, on average
/// ([`Plan::parity_sets`]): the pass sums each parity line from the data rows' lines afresh,
/// where the whole-row kernel shares partial sums. Alien boards of sides 3 and 5 (2.4 and 4.2
/// sums a row), hamming:22 (2.5) and secded:16 (3.2) gained at `D = 4096` (encode 1.2-2x,
/// clean decode up to 1.5x); alien:5x5 (6.1) lost 7-12 %, alien:3x17 (16) 20 %.
const MAX_SUMS_A_ROW: usize = 5;

/// Evidence that the CPU runs the column pass (AVX-512 F and BW, or AVX2; VPCLMULQDQ,
/// PCLMULQDQ and SSE4.2), with the CRC constants of the codec's rows and its parity rows as
/// sets of data rows.
#[derive(Clone, Debug)]
pub(super) struct Columns {
    rows: RowFold,
    /// Whether the pass runs on 512-bit registers (else on 256-bit ones: [`Pair`]).
    wide: bool,
    /// Parity row `q` is the sum of the data rows of the bits of `sets[q]`
    /// ([`Plan::parity_sets`]).
    sets: Vec<u64>,
}

impl Columns {
    /// The column pass for groups of the plan's data rows of `row_bytes` bytes, where the CPU
    /// has what it needs and the group suits it (rows of 512 bytes to [`MAX_ROW_BYTES`], at
    /// most [`MAX_ROWS`] data rows, at most [`MAX_SUMS_A_ROW`] sums a row); on 256-bit
    /// registers, only where they were measured to pay ([`narrow_pays`]).
    pub(super) fn detect(row_bytes: usize, plan: &Plan) -> Option<Columns> {
        let fold = Folding::detect()?;
        let pays = match fold {
            Folding::Wide(_) => crate::cpu::features().avx512bw,
            Folding::Narrow(_) => narrow_pays(row_bytes, plan.data_rows()),
        };
        pays.then(|| Columns::of(fold, row_bytes, plan)).flatten()
    }

    /// The column pass on the registers of `fold` where the group suits it.
    pub(super) fn of(fold: Folding, row_bytes: usize, plan: &Plan) -> Option<Columns> {
        let k = plan.data_rows();
        let rows = (512..=MAX_ROW_BYTES).contains(&row_bytes) && row_bytes.is_multiple_of(64);
        if !(rows && (1..=MAX_ROWS).contains(&k)) {
            return None;
        }
        let sets = plan.parity_sets()?;
        let sums: usize = sets.iter().map(|m| m.count_ones() as usize).sum();
        (sums <= MAX_SUMS_A_ROW * k).then(|| Columns {
            rows: RowFold::new(fold, row_bytes),
            wide: matches!(fold, Folding::Wide(_)),
            sets: sets.to_vec(),
        })
    }

    /// Parity row `q` as the set of data rows it sums (bit `i` for data row `i`).
    pub(super) fn sets(&self) -> &[u64] {
        &self.sets
    }
}

/// Whether the column pass on 256-bit registers ([`Pair`]: AVX2 without AVX-512, AMD Zen 3)
/// pays for groups of `k` data rows of `row_bytes`. In one process, the pass and the codec
/// without it alternated (64 MiB, medians of nine paired ratios), it gained at rows of 8 KiB
/// (`D = 65536`: encode 1.0-1.3x, hamming:22 1.19-1.26, alien:3x5 1.10-1.23, clean decode
/// 0.93-1.16) and, for codes of five data rows or fewer (alien:3x3), at rows of 2 KiB and
/// more (encode 1.3-2.0x, clean decode 0.95-1.4x); it lost on clean decode at rows of 512
/// bytes (alien:3x3, 4x3, 3x5, 5x3, 8x3, secded:16 and 22 at `D = 4096` 0.73-0.90) and
/// encoded and decoded 0.8-1.0x at 4 KiB (docs/benchmarks.md, "The column pass on 256-bit
/// registers").
fn narrow_pays(row_bytes: usize, k: usize) -> bool {
    row_bytes >= MAX_ROW_BYTES || k <= 5 && row_bytes >= 2048
}

/// Lines of every row the column pass takes at a time.
const STEP: usize = 4;

/// Scratch space of the column pass: a step's lines of every data row ([`STEP`] lines, and
/// one line), and the data rows' CRC registers (64 bytes each, of either width's
/// [`Line`]).
pub(super) struct ColumnScratch {
    wide: Vec<V<{ 8 * STEP }>>,
    one: Vec<V<8>>,
    regs: Vec<__m512i>,
}

impl Codec {
    /// The codec with the column pass on 256-bit registers wherever the group suits it
    /// (the tests: that pass on every shape, on a CPU with AVX-512 too), or `None` where the
    /// CPU has no 256-bit fold or the group does not suit the pass.
    #[cfg(test)]
    pub(super) fn with_narrow_columns(mut self) -> Option<Codec> {
        let cols = Columns::of(Folding::narrow()?, self.layout.row_bytes, &self.plan)?;
        self.columns = Some(cols);
        Some(self)
    }

    /// Scratch space for the column pass.
    pub(super) fn column_scratch(&self) -> ColumnScratch {
        let k = self.layout.k;
        ColumnScratch {
            wide: vec![V::zero(); k],
            one: vec![V::zero(); k],
            // SAFETY: an all-zero `__m512i` is a valid value.
            regs: vec![unsafe { std::mem::zeroed() }; k],
        }
    }

    /// Encodes the group `g` (its payload) into `o` (the group's bytes) in one pass and
    /// returns `crc32c(prefix ++ g)` from `crc`, `crc32c(prefix)`. The lines of `ahead`
    /// (the next group's payload, or nothing) are asked for on the way. The stores are not
    /// fenced ([`crate::stream::nt::fence`]).
    pub(super) fn encode_columns(
        &self,
        cols: &Columns,
        crc: u32,
        g: &[u8],
        o: &mut [u8],
        ahead: &[u8],
        s: &mut ColumnScratch,
    ) -> u32 {
        let l = &self.layout;
        assert_eq!(g.len(), l.group_data, "a group");
        let rows = Rows::new(g, l.k, &[], l.k);
        let mut c = [0];
        let chains = [Chain { rows: 0..l.k, crc }];
        self.encode_pass(cols, rows, &chains, &mut c, o, ahead, s);
        c[0]
    }

    /// Encodes a group whose data rows are `rows` into `o` (the group's bytes) in one pass,
    /// and writes to `crcs` the CRC-32C of each chain of rows (see [`Chain`]). The lines
    /// of `ahead` are asked for on the way. The stores are not fenced.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn encode_pass(
        &self,
        cols: &Columns,
        rows: Rows<'_>,
        chains: &[Chain],
        crcs: &mut [u32],
        o: &mut [u8],
        ahead: &[u8],
        s: &mut ColumnScratch,
    ) {
        let l = &self.layout;
        assert_eq!(o.len(), l.group_bytes, "a group");
        assert_eq!(rows.count, l.k, "the data rows");
        self.check(cols, rows, l.k, chains, crcs, s);
        // (No syndrome: encoding.)
        let none: (&mut [u8], &mut [u64]) = (&mut [], &mut []);
        // SAFETY: `cols` shows that the CPU has the features; the shapes are checked.
        unsafe {
            let rb = l.row_bytes;
            match (cols.wide, rows.split < rows.count) {
                (true, true) => {
                    pass_wide::<false, true>(cols, rb, rows, chains, crcs, o, ahead, s, none)
                }
                (true, false) => {
                    pass_wide::<false, false>(cols, rb, rows, chains, crcs, o, ahead, s, none)
                }
                (false, true) => {
                    pass_narrow::<false, true>(cols, rb, rows, chains, crcs, o, ahead, s, none)
                }
                (false, false) => {
                    pass_narrow::<false, false>(cols, rb, rows, chains, crcs, o, ahead, s, none)
                }
            }
        };
    }

    /// Copies the received group `genc`'s data rows to `o` (its payload) in one pass with
    /// their syndrome rows, written to `syn.0` (`n - k` rows) with the OR of them word by
    /// word to `syn.1` (`row_bytes / 8` words), and returns
    /// `crc32c(prefix ++ data rows)` from `crc` and whether the syndrome is nonzero (the
    /// group has errors to correct: the data rows are copied as received). The lines of
    /// `ahead` (the next received group, or nothing) are asked for on the way. The stores
    /// are not fenced ([`crate::stream::nt::fence`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decode_columns(
        &self,
        cols: &Columns,
        crc: u32,
        genc: &[u8],
        o: &mut [u8],
        ahead: &[u8],
        s: &mut ColumnScratch,
        syn: (&mut [u8], &mut [u64]),
    ) -> (u32, bool) {
        let mut c = [0];
        let chains = [Chain {
            rows: 0..self.layout.k,
            crc,
        }];
        let dirty = self.decode_pass(cols, genc, &chains, &mut c, o, ahead, s, syn);
        (c[0], dirty)
    }

    /// [`Codec::decode_columns`] with the CRC-32C of each chain of data rows (see
    /// [`Chain`]) written to `crcs`; returns whether the syndrome is nonzero.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decode_pass(
        &self,
        cols: &Columns,
        genc: &[u8],
        chains: &[Chain],
        crcs: &mut [u32],
        o: &mut [u8],
        ahead: &[u8],
        s: &mut ColumnScratch,
        syn: (&mut [u8], &mut [u64]),
    ) -> bool {
        let l = &self.layout;
        assert_eq!(
            (genc.len(), o.len()),
            (l.group_bytes, l.group_data),
            "a group"
        );
        assert_eq!(
            (syn.0.len(), syn.1.len()),
            (self.r * l.row_bytes, l.row_bytes / 8),
            "a syndrome row for every parity row, and their OR"
        );
        let rows = Rows::new(genc, l.k + self.r, &[], l.k + self.r);
        self.check(cols, rows, l.k, chains, crcs, s);
        // SAFETY: `cols` shows that the CPU has the features; the shapes are checked.
        unsafe {
            let rb = l.row_bytes;
            if cols.wide {
                pass_wide::<true, false>(cols, rb, rows, chains, crcs, o, ahead, s, syn)
            } else {
                pass_narrow::<true, false>(cols, rb, rows, chains, crcs, o, ahead, s, syn)
            }
        }
    }

    /// The shapes the pass takes: the code's rows, every row there to be read, chains of
    /// data rows in order with a CRC for each.
    fn check(
        &self,
        cols: &Columns,
        rows: Rows<'_>,
        k: usize,
        chains: &[Chain],
        crcs: &[u32],
        s: &ColumnScratch,
    ) {
        let rb = self.layout.row_bytes;
        assert_eq!(
            (s.regs.len(), cols.sets.len()),
            (k, self.r),
            "the code's rows"
        );
        assert!(
            rows.src.len() >= rows.split * rb && rows.split <= rows.count,
            "the rows before the split"
        );
        assert!(
            rows.rest.len() >= (rows.count - rows.split) * rb,
            "the rows after the split"
        );
        assert_eq!(crcs.len(), chains.len(), "a CRC for every chain");
        let mut end = 0;
        for c in chains {
            assert!(
                end <= c.rows.start && c.rows.start < c.rows.end && c.rows.end <= k,
                "chains of data rows in order"
            );
            end = c.rows.end;
        }
    }
}

/// Where the column pass reads a group's rows: rows `0..split` one after the other in
/// `src`, the others in `rest` (the encoder's deep chunks build their last rows apart);
/// `count` rows in all (the data rows encoding, every row decoding).
#[derive(Clone, Copy, Debug)]
pub(super) struct Rows<'a> {
    src: &'a [u8],
    split: usize,
    rest: &'a [u8],
    count: usize,
}

impl<'a> Rows<'a> {
    /// `count` rows, the first `split` in `src` and the others in `rest`.
    pub(super) fn new(src: &'a [u8], split: usize, rest: &'a [u8], count: usize) -> Rows<'a> {
        Rows {
            src,
            split,
            rest,
            count,
        }
    }

    /// Row `i`, of `rb` bytes.
    pub(super) fn row(&self, i: usize, rb: usize) -> &'a [u8] {
        if i < self.split {
            &self.src[i * rb..][..rb]
        } else {
            &self.rest[(i - self.split) * rb..][..rb]
        }
    }
}

/// A run of consecutive data rows whose bytes one CRC covers (a check block's rows, or a
/// whole group's), from `crc`, the CRC-32C of what comes before them. Its registers take
/// the bytes from the start of its first row to the end of its last, so that the line
/// across its last row and the next is not folded into them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Chain {
    /// The data rows.
    pub(super) rows: std::ops::Range<usize>,
    /// The CRC-32C before them.
    pub(super) crc: u32,
}

/// What every step of the column pass over one group reads.
struct Pass<'a> {
    cols: &'a Columns,
    rb: usize,
    k: usize,
    /// Where the output's lines start in every row.
    h: usize,
    /// The rows: `0..split` from `src`, the others from `rest`.
    src: *const u8,
    split: usize,
    rest: *const u8,
    dst: *mut u8,
    ahead: &'a [u8],
    /// Decoding, the syndrome rows.
    syn: *mut u8,
    /// Decoding, the OR of the syndrome rows: one row, which words hold a lane to decide.
    any: *mut u8,
    /// Bit `i`: data row `i` starts a chain; its register starts from `heads[i]`, the
    /// CRC-32C of what comes before the chain and of the row's first `h` bytes.
    starts: u64,
    heads: [u32; MAX_ROWS],
    /// Bit `i`: the line across data rows `i - 1` and `i` is folded into neither's register
    /// (a chain ends or starts at `i`).
    cuts: u64,
}

impl Pass<'_> {
    /// The first byte of row `i` (a pointer inside the row's source for `i` below the
    /// rows' count).
    #[inline(always)]
    fn row(&self, i: usize) -> *const u8 {
        if i < self.split {
            self.src.wrapping_add(i * self.rb)
        } else {
            self.rest.wrapping_add((i - self.split) * self.rb)
        }
    }
}

/// The first `N` lines of the data rows of the set `m` (bits of `lines`, rows of a step's
/// lines), summed line by line.
///
/// # Safety
///
/// The CPU has the features of `L` ([`Line`]); `m` has no bit past `lines.len()`;
/// `N <= B / 8`.
#[inline(always)]
unsafe fn sum<L: Line, const B: usize, const N: usize>(lines: &[V<B>], mut m: u64) -> [L; N] {
    // SAFETY: the caller's contract.
    unsafe {
        let mut a = [L::zero(); N];
        while m != 0 {
            let b = lines.get_unchecked(m.trailing_zeros() as usize);
            m &= m - 1;
            for (l, a) in a.iter_mut().enumerate() {
                *a = a.xor(L::load(b.0.as_ptr().add(8 * l).cast()));
            }
        }
        a
    }
}

/// One step of the column pass: the `N` lines (`B = 8 N` words) from byte `x` of every row
/// (`x + 64 N` at most `rb - 64 + h`); decoding, the syndrome's lines ORed into `any` and,
/// line by line, into the OR row (`Pass::any`). With `SPLIT` the data rows are read from
/// where [`Pass::row`] puts them, else every row from the one source `src`, at the stores'
/// offsets.
///
/// # Safety
///
/// As for [`pass`], with `x` as above.
#[inline(always)]
unsafe fn step<L: Line, const B: usize, const N: usize, const DECODE: bool, const SPLIT: bool>(
    p: &Pass<'_>,
    x: usize,
    lines: &mut [V<B>],
    regs: &mut [L],
    any: &mut L,
) {
    // SAFETY (the loads and stores): every offset `y` into a row has `y + 64 <= rb` and the
    // row is one of the pass's rows (loads) or of `dst`, of the syndrome rows or their OR
    // row (stores), so the 64 bytes are inside; each store to `dst` is `h` past a multiple
    // of 64 from its start, a multiple of 64.
    unsafe {
        for (i, (b, reg)) in lines.iter_mut().zip(regs.iter_mut()).enumerate() {
            for l in 0..N {
                let at = i * p.rb + x + 64 * l;
                if at < p.ahead.len() {
                    prefetch::line_l2(p.ahead.as_ptr().add(at));
                }
                // (One pointer for the contiguous rows, as for the stores: working out each
                // row's start instead made the groups in order 1.3-1.5x slower at `D = 4096`.)
                let from = if SPLIT {
                    p.row(i).add(x + 64 * l)
                } else {
                    p.src.add(at)
                };
                let v = L::load(from);
                v.stream(p.dst.add(at));
                *reg = if x + 64 * l != p.h {
                    L::step(&p.cols.rows, *reg, v)
                } else if p.starts >> i & 1 != 0 {
                    L::first(p.heads[i], v)
                } else {
                    v
                };
                v.store(b.0.as_mut_ptr().add(8 * l).cast());
            }
        }
        let mut ors = [L::zero(); N];
        for (q, &m) in p.cols.sets.iter().enumerate() {
            let par = sum::<L, B, N>(lines, m);
            for (l, v) in par.into_iter().enumerate() {
                let at = (p.k + q) * p.rb + x + 64 * l;
                if DECODE {
                    if at < p.ahead.len() {
                        prefetch::line_l2(p.ahead.as_ptr().add(at));
                    }
                    let e = v.xor(L::load(p.src.add(at)));
                    e.store(p.syn.add(q * p.rb + x + 64 * l));
                    ors[l] = ors[l].or(e);
                } else {
                    v.stream(p.dst.add(at));
                }
            }
        }
        if DECODE {
            // (The OR row made here: made afterwards from the syndrome rows in cache, it was
            // an eighth of alien:3x3's decode at BER 1e-4.)
            for (l, o) in ors.into_iter().enumerate() {
                o.store(p.any.add(x + 64 * l));
                *any = any.or(o);
            }
        }
    }
}

/// [`pass`] with 512-bit lines.
///
/// # Safety
///
/// As for [`pass`], the CPU having AVX-512 F and BW, VPCLMULQDQ and SSE4.2.
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,sse4.2")]
#[allow(clippy::too_many_arguments)]
unsafe fn pass_wide<const DECODE: bool, const SPLIT: bool>(
    cols: &Columns,
    rb: usize,
    rows: Rows<'_>,
    chains: &[Chain],
    crcs: &mut [u32],
    dst: &mut [u8],
    ahead: &[u8],
    s: &mut ColumnScratch,
    syn: (&mut [u8], &mut [u64]),
) -> bool {
    // SAFETY: the caller's contract.
    unsafe { pass::<__m512i, DECODE, SPLIT>(cols, rb, rows, chains, crcs, dst, ahead, s, syn) }
}

/// [`pass`] with lines of two 256-bit registers.
///
/// # Safety
///
/// As for [`pass`], the CPU having AVX2, VPCLMULQDQ, PCLMULQDQ and SSE4.2.
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.2")]
#[allow(clippy::too_many_arguments)]
unsafe fn pass_narrow<const DECODE: bool, const SPLIT: bool>(
    cols: &Columns,
    rb: usize,
    rows: Rows<'_>,
    chains: &[Chain],
    crcs: &mut [u32],
    dst: &mut [u8],
    ahead: &[u8],
    s: &mut ColumnScratch,
    syn: (&mut [u8], &mut [u64]),
) -> bool {
    // SAFETY: the caller's contract.
    unsafe { pass::<Pair, DECODE, SPLIT>(cols, rb, rows, chains, crcs, dst, ahead, s, syn) }
}

/// The column pass over one group of rows of `rb` bytes: `rows` are the payload's
/// (encoding) or the received group's (`DECODE`), `dst` the group (encoding) or its
/// payload. Writes to `crcs` the CRC-32C of each chain of data rows, from its `crc`;
/// returns, decoding, whether the syndrome is nonzero (its rows written to `syn.0`, the OR
/// of them to `syn.1`).
///
/// # Safety
///
/// The CPU has the features of `L` ([`Line`]); `rb` is a multiple of 64 of at least 128;
/// `rows` holds every row it counts, of `rb` bytes (the data rows of `s.regs.len()`, and
/// decoding the parity rows of `cols.sets` after them), `dst` is a whole group (encoding)
/// or its data rows; the chains are of data rows, in order, with a CRC for each in
/// `crcs`; decoding, `syn.0` has a row for every parity row and `syn.1` one row of words;
/// as [`Codec::check`] and the callers check.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn pass<L: Line, const DECODE: bool, const SPLIT: bool>(
    cols: &Columns,
    rb: usize,
    rows: Rows<'_>,
    chains: &[Chain],
    crcs: &mut [u32],
    dst: &mut [u8],
    ahead: &[u8],
    s: &mut ColumnScratch,
    syn: (&mut [u8], &mut [u64]),
) -> bool {
    let (k, r) = (s.regs.len(), cols.sets.len());
    // SAFETY: a line is 64 bytes aligned to at most 64, as the registers kept for it.
    let regs: &mut [L] = unsafe {
        const { assert!(size_of::<L>() == 64 && align_of::<L>() <= 64) };
        std::slice::from_raw_parts_mut(s.regs.as_mut_ptr().cast(), k)
    };
    // The output's lines start `h` bytes into every row.
    let h = (dst.as_ptr() as usize).wrapping_neg() & 63;
    let mut p = Pass {
        cols,
        rb,
        k,
        h,
        src: rows.src.as_ptr(),
        split: rows.split,
        rest: rows.rest.as_ptr(),
        dst: dst.as_mut_ptr(),
        ahead,
        syn: syn.0.as_mut_ptr(),
        any: syn.1.as_mut_ptr().cast(),
        starts: 0,
        heads: [0; MAX_ROWS],
        cuts: 0,
    };
    // SAFETY: `i` is a row of the pass; `len` bytes from `at` lie inside it.
    let bytes = |p: &Pass<'_>, i: usize, at: usize, len: usize| unsafe {
        std::slice::from_raw_parts(p.row(i).add(at), len)
    };
    for c in chains {
        let a = c.rows.start;
        p.heads[a] = crc::append(c.crc, bytes(&p, a, 0, h));
        p.starts |= 1 << a;
        p.cuts |= 1 << a | 1 << c.rows.end;
    }
    dst[..h].copy_from_slice(bytes(&p, 0, 0, h));
    // SAFETY (to the end): the features of `L` (the caller's contract). The steps stay
    // within `rb - 64 + h` of every row's start; the wraps' loads and stores are of the
    // bytes of one row ([`Line::wrap`], [`Line::put`]), and their lines are streamed `h`
    // past a multiple of 64, as the steps'.
    unsafe {
        let mut any = L::zero();
        let mut x = h;
        while x + 64 * STEP <= rb - 64 + h {
            step::<L, { 8 * STEP }, STEP, DECODE, SPLIT>(&p, x, &mut s.wide, regs, &mut any);
            x += 64 * STEP;
        }
        while x + 64 <= rb - 64 + h {
            step::<L, 8, 1, DECODE, SPLIT>(&p, x, &mut s.one, regs, &mut any);
            x += 64;
        }
        let dp = p.dst;
        let stream = |at: usize, v: L| v.stream(dp.add(at));
        // The wraps: each row's last `64 - h` bytes, then its first `h`.
        let wrap = |row: usize| L::wrap(p.row(row), rb, h);
        let mut before = L::zero();
        for i in 0..k {
            let w = wrap(i);
            w.store(s.one[i].0.as_mut_ptr().cast());
            if i > 0 {
                let line = L::blend(h, before, w);
                stream(i * rb - 64 + h, line);
                if p.cuts >> i & 1 == 0 {
                    regs[i - 1] = L::step(&cols.rows, regs[i - 1], line);
                }
            }
            before = w;
        }
        for (c, crc) in chains.iter().zip(crcs.iter_mut()) {
            let last = bytes(&p, c.rows.end - 1, rb - 64 + h, 64 - h);
            *crc = L::finish(&cols.rows, &regs[c.rows.clone()], last);
        }
        // (The sets have no bit past the `k` data rows: `Plan::parity_sets`.)
        let par = |q: usize| sum::<L, 8, 1>(&s.one, cols.sets[q])[0];
        if DECODE {
            let mut or = L::zero();
            for q in 0..r {
                let e = par(q).xor(wrap(k + q));
                e.put(p.syn.wrapping_add(q * rb), rb, h);
                or = or.or(e);
            }
            or.put(p.any, rb, h);
            any = any.or(or);
            let end = k * rb - 64 + h;
            dst[end..].copy_from_slice(bytes(&p, k - 1, rb - 64 + h, 64 - h));
            return any.nonzero();
        }
        for q in 0..r {
            let w = par(q);
            stream((k + q) * rb - 64 + h, L::blend(h, before, w));
            before = w;
        }
        let mut last = [0u8; 64];
        before.store(last.as_mut_ptr());
        let end = (k + r) * rb - 64 + h;
        dst[end..].copy_from_slice(&last[..64 - h]);
    }
    false
}
