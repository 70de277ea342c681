//! The Method of Four Russians: add to many rows, in one pass, combinations of up to 64 source
//! rows chosen by the bits of one index word per destination row.
//!
//! The 64 index bits are split into eight groups of eight. For each group with at least one
//! source row, a table holds all 256 combinations of its (up to) eight source rows; a destination
//! row then takes one table entry per group instead of up to 64 row additions. The tables are
//! built for one chunk of [`CHUNK`] words at a time (8 x 256 x 64 bytes = 128 KiB, fitting the
//! L2 cache) and every destination row is updated for that chunk before the next chunk's tables
//! are built, so each pass streams the destination rows once.
//!
//! Row elimination (`reduce.rs`) and the matrix product (`product.rs`) are both such passes.

use std::ops::Range;

/// Words per table entry: one 64-byte cache line.
pub(crate) const CHUNK: usize = 8;
const GROUPS: usize = 8;
const ENTRIES: usize = 256;

/// For each of the 64 bits of an index word, the source row that bit selects (`None`: a zero
/// row, the bit is ignored).
pub(crate) type Sources = [Option<usize>; 64];

type Entry = [u64; CHUNK];

/// Reusable lookup tables for one pass.
pub(crate) struct Tables {
    /// The groups (0..8) with at least one source row, in increasing order.
    groups: Vec<usize>,
    /// `tables[s]` belongs to `groups[s]`.
    tables: Box<[[Entry; ENTRIES]; GROUPS]>,
    /// Whether the CPU has AVX2 ([`crate::cpu::features`], checked once here): the builds and
    /// applications then run their AVX2 builds.
    avx2: bool,
}

impl Tables {
    /// Empty tables.
    pub(crate) fn new() -> Self {
        let tables: Box<[[Entry; ENTRIES]; GROUPS]> = vec![[[0u64; CHUNK]; ENTRIES]; GROUPS]
            .into_boxed_slice()
            .try_into()
            .unwrap_or_else(|_| unreachable!("eight tables were allocated"));
        Tables {
            groups: Vec::with_capacity(GROUPS),
            tables,
            avx2: crate::cpu::features().avx2,
        }
    }

    /// Chooses the groups that the coming builds fill; returns false when no bit has a source.
    pub(crate) fn set_sources(&mut self, sources: &Sources) -> bool {
        self.groups.clear();
        self.groups
            .extend((0..GROUPS).filter(|&g| sources[g * 8..g * 8 + 8].iter().any(Option::is_some)));
        !self.groups.is_empty()
    }

    /// Fills the tables with the combinations of the source rows' words `off..off + len` of
    /// `src` (row `r` starts at word `r * stride`).
    pub(crate) fn build(
        &mut self,
        src: &[u64],
        stride: usize,
        sources: &Sources,
        off: usize,
        len: usize,
    ) {
        let (groups, tables) = (&self.groups[..], &mut *self.tables);
        by_len!(
            self.avx2,
            len,
            build_tables,
            avx2_build_tables,
            groups,
            tables,
            src,
            stride,
            sources,
            off
        )
    }

    /// Adds to words `off..off + len` of each destination row `i` in `rows` the combination
    /// selected by `idx[i]` (rows with a zero index are skipped).
    pub(crate) fn apply(
        &self,
        dst: &mut [u64],
        stride: usize,
        idx: &[u64],
        rows: Range<usize>,
        off: usize,
        len: usize,
    ) {
        if self.groups.len() == GROUPS {
            let t = &*self.tables;
            by_len!(
                self.avx2,
                len,
                apply_all_groups,
                avx2_apply_all_groups,
                t,
                dst,
                stride,
                idx,
                rows,
                off
            )
        } else {
            apply_some_groups(&self.tables, &self.groups, dst, stride, idx, rows, off, len);
        }
    }
}

/// Calls `$f::<L>` (or its AVX2 build `$avx2::<L>` when `$has_avx2`, which must be the
/// `avx2` flag of [`crate::cpu::features`]) with `L = $len`, `1 <= $len <= CHUNK`, so that
/// every chunk length gets straight-line code.
macro_rules! by_len {
    ($has_avx2:expr, $len:expr, $f:ident, $avx2:ident, $($arg:expr),*) => {{
        let avx2: bool = $has_avx2;
        match ($len, avx2) {
            (1, false) => $f::<1>($($arg),*),
            (2, false) => $f::<2>($($arg),*),
            (3, false) => $f::<3>($($arg),*),
            (4, false) => $f::<4>($($arg),*),
            (5, false) => $f::<5>($($arg),*),
            (6, false) => $f::<6>($($arg),*),
            (7, false) => $f::<7>($($arg),*),
            (8, false) => $f::<8>($($arg),*),
            // SAFETY (all arms below): `$has_avx2` is `cpu::features().avx2`: the CPU
            // supports AVX2.
            #[cfg(target_arch = "x86_64")]
            (1, true) => unsafe { $avx2::<1>($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            (2, true) => unsafe { $avx2::<2>($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            (3, true) => unsafe { $avx2::<3>($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            (4, true) => unsafe { $avx2::<4>($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            (5, true) => unsafe { $avx2::<5>($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            (6, true) => unsafe { $avx2::<6>($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            (7, true) => unsafe { $avx2::<7>($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            (8, true) => unsafe { $avx2::<8>($($arg),*) },
            (len, _) => unreachable!("chunk of {len} words"),
        }
    }};
}
use by_len;

/// Defines `$avx2`, the body of `$f` compiled with AVX2 enabled.
macro_rules! avx2_variant {
    ($avx2:ident, $f:ident, ($($arg:ident: $ty:ty),*)) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx2<const L: usize>($($arg: $ty),*) {
            $f::<L>($($arg),*)
        }
    };
}

avx2_variant!(avx2_build_tables, build_tables, (
    groups: &[usize],
    tables: &mut [[Entry; ENTRIES]; GROUPS],
    src: &[u64],
    stride: usize,
    sources: &Sources,
    off: usize
));

avx2_variant!(avx2_apply_all_groups, apply_all_groups, (
    tables: &[[Entry; ENTRIES]; GROUPS],
    dst: &mut [u64],
    stride: usize,
    idx: &[u64],
    rows: Range<usize>,
    off: usize
));

/// Table `slot` gets the combinations of words `off..off + L` of the eight source rows of
/// group `groups[slot]`: entry `e` is entry `e` without its lowest bit plus that bit's row.
#[inline(always)]
fn build_tables<const L: usize>(
    groups: &[usize],
    tables: &mut [[Entry; ENTRIES]; GROUPS],
    src: &[u64],
    stride: usize,
    sources: &Sources,
    off: usize,
) {
    for (table, &g) in tables.iter_mut().zip(groups) {
        let mut rows = [[0u64; L]; 8];
        for (row, s) in rows.iter_mut().zip(&sources[g * 8..g * 8 + 8]) {
            if let Some(r) = *s {
                row.copy_from_slice(&src[r * stride + off..r * stride + off + L]);
            }
        }
        table[0] = [0; CHUNK];
        for e in 1..ENTRIES {
            let row = &rows[e.trailing_zeros() as usize];
            let mut entry = table[e & (e - 1)];
            for k in 0..L {
                entry[k] ^= row[k];
            }
            table[e] = entry;
        }
    }
}

/// How far ahead of the current row to prefetch: rows are a stride apart, often more than a
/// page, where hardware stride prefetchers give up.
const PREFETCH_ROWS: usize = 8;

/// Hints that `data[at]` will be written soon (no effect when `at` is out of range).
#[inline(always)]
pub(crate) fn prefetch(data: &[u64], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(p) = data.get(at) {
        // SAFETY: prefetching has no architectural effect; the address is a valid reference.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (p as *const u64).cast::<i8>(),
            )
        };
    }
}

/// The common case of a full panel: all eight tables, `L` words per row.
#[inline(always)]
fn apply_all_groups<const L: usize>(
    tables: &[[Entry; ENTRIES]; GROUPS],
    dst: &mut [u64],
    stride: usize,
    idx: &[u64],
    rows: Range<usize>,
    off: usize,
) {
    let end = rows.end;
    for i in rows {
        prefetch(dst, (i + PREFETCH_ROWS).min(end - 1) * stride + off);
        let x = idx[i];
        if x == 0 {
            continue;
        }
        let start = i * stride + off;
        let row: &mut [u64; L] = (&mut dst[start..start + L])
            .try_into()
            .unwrap_or_else(|_| unreachable!("a chunk is L words"));
        let t0 = &tables[0][x as u8 as usize];
        let t1 = &tables[1][(x >> 8) as u8 as usize];
        let t2 = &tables[2][(x >> 16) as u8 as usize];
        let t3 = &tables[3][(x >> 24) as u8 as usize];
        let t4 = &tables[4][(x >> 32) as u8 as usize];
        let t5 = &tables[5][(x >> 40) as u8 as usize];
        let t6 = &tables[6][(x >> 48) as u8 as usize];
        let t7 = &tables[7][(x >> 56) as u8 as usize];
        for k in 0..L {
            row[k] ^= t0[k] ^ t1[k] ^ t2[k] ^ t3[k] ^ t4[k] ^ t5[k] ^ t6[k] ^ t7[k];
        }
    }
}

/// Partial panels and the last, short chunk of a row.
#[allow(clippy::too_many_arguments)]
fn apply_some_groups(
    tables: &[[Entry; ENTRIES]; GROUPS],
    groups: &[usize],
    dst: &mut [u64],
    stride: usize,
    idx: &[u64],
    rows: Range<usize>,
    off: usize,
    len: usize,
) {
    let end = rows.end;
    for i in rows {
        prefetch(dst, (i + PREFETCH_ROWS).min(end - 1) * stride + off);
        let x = idx[i];
        if x == 0 {
            continue;
        }
        let start = i * stride + off;
        let row = &mut dst[start..start + len];
        for (slot, &g) in groups.iter().enumerate() {
            let e = (x >> (8 * g)) as u8 as usize;
            if e != 0 {
                for (d, t) in row.iter_mut().zip(&tables[slot][e]) {
                    *d ^= t;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_match_direct_sums() {
        // 70 source rows of 11 words, 5 destination rows; bit b of an index selects row b + 3.
        let stride = 11;
        let src: Vec<u64> = (0..70 * stride as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
            .collect();
        let mut sources: Sources = [None; 64];
        for (b, s) in sources.iter_mut().enumerate() {
            // Leave a hole so that one group is partial and group 5 is empty.
            if b != 9 && !(40..48).contains(&b) {
                *s = Some(b + 3);
            }
        }
        let idx: Vec<u64> = vec![0, u64::MAX, 0x8000_0000_0000_0201, 0x0123_4567_89ab_cdef, 0];
        let mut dst = vec![0u64; idx.len() * stride];
        let mut want = dst.clone();
        for (i, &x) in idx.iter().enumerate() {
            for (b, s) in sources.iter().enumerate() {
                if let (true, Some(r)) = ((x >> b) & 1 == 1, s) {
                    for k in 0..stride {
                        want[i * stride + k] ^= src[r * stride + k];
                    }
                }
            }
        }
        let mut t = Tables::new();
        assert!(t.set_sources(&sources));
        let mut off = 0;
        while off < stride {
            let len = CHUNK.min(stride - off);
            t.build(&src, stride, &sources, off, len);
            t.apply(&mut dst, stride, &idx, 0..idx.len(), off, len);
            off += len;
        }
        assert_eq!(dst, want);
    }

    #[test]
    fn full_panel_fast_path_matches_direct_sums() {
        let stride = CHUNK;
        let src: Vec<u64> = (0..64 * stride as u64)
            .map(|i| (i + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9))
            .collect();
        let mut sources: Sources = [None; 64];
        for (b, s) in sources.iter_mut().enumerate() {
            *s = Some(63 - b);
        }
        let idx = vec![u64::MAX, 1, 1 << 63, 0xdead_beef_0bad_f00d];
        let mut dst = vec![7u64; idx.len() * stride];
        let mut want = dst.clone();
        for (i, &x) in idx.iter().enumerate() {
            for b in 0..64 {
                if (x >> b) & 1 == 1 {
                    for k in 0..stride {
                        want[i * stride + k] ^= src[(63 - b) * stride + k];
                    }
                }
            }
        }
        let mut t = Tables::new();
        assert!(t.set_sources(&sources));
        t.build(&src, stride, &sources, 0, CHUNK);
        t.apply(&mut dst, stride, &idx, 0..idx.len(), 0, CHUNK);
        assert_eq!(dst, want);
        assert!(!t.set_sources(&[None; 64]));
    }
}
