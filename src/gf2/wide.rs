//! The Method of Four Russians for a strip of index words per destination row: the product
//! step of the [`blocked`](super::blocked) eliminator.
//!
//! A set of tables covers [`TABLE_WORDS`] index words (256 bits): the bits are split into groups
//! of eight, each with a table of the 256 combinations of its (up to) eight source rows. The
//! tables are built for one chunk of [`CHUNK`] words (32 x 256 x 64 bytes = 512 KiB, within the
//! L2 cache) and applied to a run of destination rows for that chunk: a destination chunk takes
//! one table entry per group, summed in registers, and is read and written once per set of
//! tables. Where the CPU has AVX-512 a chunk is one register (explicit intrinsics for whole
//! chunks, so that the table indices stay scalar), else the same code is compiled for AVX2.

use std::ops::Range;

/// Index words that one set of tables covers.
pub(crate) const TABLE_WORDS: usize = 4;
/// Words per table entry: one 64-byte cache line, one AVX-512 register.
pub(crate) const CHUNK: usize = 8;
/// Index bits per table.
const GROUP_BITS: usize = 8;
const ENTRIES: usize = 1 << GROUP_BITS;
const PER_WORD: usize = 64 / GROUP_BITS;
const GROUPS: usize = PER_WORD * TABLE_WORDS;

type Entry = [u64; CHUNK];
type Table = [Entry; ENTRIES];

/// The index words of the destination rows: row `i`'s are `words[i * stride + first..]`, as
/// many as the tables were built for.
#[derive(Clone, Copy)]
pub(crate) struct Index<'a> {
    /// All index words.
    pub(crate) words: &'a [u64],
    /// Index words per destination row.
    pub(crate) stride: usize,
    /// The first index word of a row that these tables read.
    pub(crate) first: usize,
}

/// The vector extension the table code is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    /// Whatever the target enables.
    Portable,
    /// AVX2.
    Avx2,
    /// AVX-512F.
    Avx512,
}

impl Isa {
    /// The best one this CPU has ([`crate::cpu::features`]).
    fn detect() -> Isa {
        let f = crate::cpu::features();
        if f.avx512f {
            Isa::Avx512
        } else if f.avx2 {
            Isa::Avx2
        } else {
            Isa::Portable
        }
    }
}

/// Reusable lookup tables for one pass.
pub(crate) struct WideTables {
    /// `tables[g]` holds the combinations of the source rows of index bits `8 g..8 g + 8`.
    tables: Vec<Table>,
    /// How many index words are in use (`1..=TABLE_WORDS`).
    words: usize,
    /// The extension the builds and applications run with, checked once here.
    isa: Isa,
}

impl WideTables {
    /// Empty tables.
    pub(crate) fn new() -> Self {
        WideTables {
            tables: vec![[[0u64; CHUNK]; ENTRIES]; GROUPS],
            words: TABLE_WORDS,
            isa: Isa::detect(),
        }
    }

    /// Fills the tables with the combinations of words `off..off + len` (`len <= CHUNK`) of the
    /// source rows of `src` (row `r` starts at word `r * stride`): `sources[b]` is the row that
    /// index bit `b` (bit `b % 64` of index word `b / 64`) selects, `None` for a bit that is
    /// never set. Only the first `sources.len() / 64` index words are used.
    pub(crate) fn build(
        &mut self,
        src: &[u64],
        stride: usize,
        sources: &[Option<usize>],
        off: usize,
        len: usize,
    ) {
        debug_assert!(sources.len().is_multiple_of(64) && sources.len() <= 64 * TABLE_WORDS);
        self.words = sources.len() / 64;
        let (isa, tables) = (self.isa, &mut self.tables[..PER_WORD * self.words]);
        macro_rules! call {
            ($($l:literal)*) => {
                match len {
                    $($l => build_dispatch::<$l>(isa, tables, src, stride, sources, off),)*
                    _ => unreachable!("chunk of {len} words"),
                }
            };
        }
        call!(1 2 3 4 5 6 7 8)
    }

    /// Adds to words `off..off + len` of each destination row `i` in `rows` the combination
    /// selected by its index words (bits without a source given to [`build`](Self::build) must
    /// be zero; rows with a zero index are skipped).
    pub(crate) fn apply(
        &self,
        dst: &mut [u64],
        stride: usize,
        idx: Index,
        rows: Range<usize>,
        off: usize,
        len: usize,
    ) {
        let (isa, t) = (self.isa, &self.tables[..PER_WORD * self.words]);
        macro_rules! call {
            ($($l:literal)*) => {
                match len {
                    $($l => apply_dispatch::<$l>(isa, t, dst, stride, idx, rows, off),)*
                    _ => unreachable!("chunk of {len} words"),
                }
            };
        }
        call!(1 2 3 4 5 6 7 8)
    }
}

/// Runs [`build_chunk`] compiled for `isa` (which the CPU has: [`Isa::detect`]).
#[inline(always)]
fn build_dispatch<const L: usize>(
    isa: Isa,
    tables: &mut [Table],
    src: &[u64],
    stride: usize,
    sources: &[Option<usize>],
    off: usize,
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` comes from `Isa::detect`: the CPU supports AVX-512F.
        Isa::Avx512 => unsafe { build_avx512::<L>(tables, src, stride, sources, off) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` comes from `Isa::detect`: the CPU supports AVX2.
        Isa::Avx2 => unsafe { build_avx2::<L>(tables, src, stride, sources, off) },
        _ => build_chunk::<L>(tables, src, stride, sources, off),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn build_avx512<const L: usize>(
    tables: &mut [Table],
    src: &[u64],
    stride: usize,
    sources: &[Option<usize>],
    off: usize,
) {
    build_chunk::<L>(tables, src, stride, sources, off)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn build_avx2<const L: usize>(
    tables: &mut [Table],
    src: &[u64],
    stride: usize,
    sources: &[Option<usize>],
    off: usize,
) {
    build_chunk::<L>(tables, src, stride, sources, off)
}

/// Table `g` gets the combinations of words `off..off + L` of the source rows of index bits
/// `8 g..8 g + 8`: entry `e` is entry `e` without its lowest bit plus that bit's row.
#[inline(always)]
fn build_chunk<const L: usize>(
    tables: &mut [Table],
    src: &[u64],
    stride: usize,
    sources: &[Option<usize>],
    off: usize,
) {
    for (table, group) in tables.iter_mut().zip(sources.chunks(GROUP_BITS)) {
        let mut rows = [[0u64; L]; GROUP_BITS];
        let mut any = false;
        for (row, s) in rows.iter_mut().zip(group) {
            if let Some(r) = *s {
                let start = r * stride + off;
                let words: &[u64; L] = src[start..start + L]
                    .try_into()
                    .unwrap_or_else(|_| unreachable!("a chunk is L words"));
                *row = *words;
                any = true;
            }
        }
        table[0] = [0; CHUNK];
        if !any {
            // Index bits without a source are never set: only entry 0 is read.
            continue;
        }
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

/// Runs [`apply_chunk`] compiled for `isa` (which the CPU has: [`Isa::detect`]).
#[inline(always)]
fn apply_dispatch<const L: usize>(
    isa: Isa,
    tables: &[Table],
    dst: &mut [u64],
    stride: usize,
    idx: Index,
    rows: Range<usize>,
    off: usize,
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            if L == CHUNK {
                // SAFETY: `isa` comes from `Isa::detect`: the CPU supports AVX-512F.
                return unsafe { apply_full_avx512(tables, dst, stride, idx, rows, off) };
            }
            // SAFETY: as above.
            unsafe { apply_avx512::<L>(tables, dst, stride, idx, rows, off) }
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` comes from `Isa::detect`: the CPU supports AVX2.
        Isa::Avx2 => unsafe { apply_avx2::<L>(tables, dst, stride, idx, rows, off) },
        _ => apply_chunk::<L>(tables, dst, stride, idx, rows, off),
    }
}

/// [`apply_chunk`] for a whole chunk, one AVX-512 register: the table indices are computed
/// with scalar shifts, one load per group (the vectorizer would otherwise gather them).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn apply_full_avx512(
    tables: &[Table],
    dst: &mut [u64],
    stride: usize,
    idx: Index,
    rows: Range<usize>,
    off: usize,
) {
    use std::arch::x86_64::{
        __m512i, _mm512_loadu_si512, _mm512_setzero_si512, _mm512_storeu_si512, _mm512_xor_si512,
    };
    let load = |e: &Entry| -> __m512i {
        // SAFETY: an entry is 64 readable bytes; the load is unaligned.
        unsafe { _mm512_loadu_si512(e.as_ptr().cast()) }
    };
    let end = rows.end;
    for i in rows {
        super::russians::prefetch(dst, (i + PREFETCH_ROWS).min(end - 1) * stride + off);
        let first = i * idx.stride + idx.first;
        let ix = &idx.words[first..first + tables.len() / PER_WORD];
        if ix.iter().all(|&x| x == 0) {
            continue;
        }
        let (mut a0, mut a1) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        for (word_tables, &x) in tables.chunks_exact(PER_WORD).zip(ix) {
            let mut x = x;
            for pair in word_tables.chunks_exact(2) {
                a0 = _mm512_xor_si512(a0, load(&pair[0][x as usize % ENTRIES]));
                a1 = _mm512_xor_si512(a1, load(&pair[1][(x >> GROUP_BITS) as usize % ENTRIES]));
                x >>= 2 * GROUP_BITS;
            }
        }
        let row = &mut dst[i * stride + off..i * stride + off + CHUNK];
        // SAFETY: the row slice is CHUNK = 8 words, 64 bytes; loads and stores are unaligned.
        unsafe {
            let d = _mm512_loadu_si512(row.as_ptr().cast());
            _mm512_storeu_si512(
                row.as_mut_ptr().cast(),
                _mm512_xor_si512(d, _mm512_xor_si512(a0, a1)),
            );
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn apply_avx512<const L: usize>(
    tables: &[Table],
    dst: &mut [u64],
    stride: usize,
    idx: Index,
    rows: Range<usize>,
    off: usize,
) {
    apply_chunk::<L>(tables, dst, stride, idx, rows, off)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn apply_avx2<const L: usize>(
    tables: &[Table],
    dst: &mut [u64],
    stride: usize,
    idx: Index,
    rows: Range<usize>,
    off: usize,
) {
    apply_chunk::<L>(tables, dst, stride, idx, rows, off)
}

/// How far ahead of the current row to prefetch: rows are a stride apart, often more than a
/// page, where hardware stride prefetchers give up.
const PREFETCH_ROWS: usize = 32;

#[inline(always)]
fn apply_chunk<const L: usize>(
    tables: &[Table],
    dst: &mut [u64],
    stride: usize,
    idx: Index,
    rows: Range<usize>,
    off: usize,
) {
    let end = rows.end;
    for i in rows {
        super::russians::prefetch(dst, (i + PREFETCH_ROWS).min(end - 1) * stride + off);
        let first = i * idx.stride + idx.first;
        let ix = &idx.words[first..first + tables.len() / PER_WORD];
        if ix.iter().all(|&x| x == 0) {
            continue;
        }
        let mut acc = [0u64; L];
        for (word_tables, &x) in tables.chunks_exact(PER_WORD).zip(ix) {
            for (g, table) in word_tables.iter().enumerate() {
                let e = &table[(x >> (GROUP_BITS * g)) as usize % ENTRIES];
                for k in 0..L {
                    acc[k] ^= e[k];
                }
            }
        }
        let start = i * stride + off;
        for (d, a) in dst[start..start + L].iter_mut().zip(acc) {
            *d ^= a;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every chunk length and every number of index words, against the sums done bit by bit.
    #[test]
    fn combinations_match_direct_sums() {
        let stride = 19;
        let nsrc = 300;
        let src: Vec<u64> = (0..(nsrc * stride) as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(23))
            .collect();
        for words in 1..=TABLE_WORDS {
            let sources: Vec<Option<usize>> = (0..64 * words)
                .map(|b| (b % 13 != 5 && !(72..80).contains(&b)).then_some((b * 7) % nsrc))
                .collect();
            let mask = |t: usize| -> u64 {
                (0..64)
                    .filter(|&b| sources[64 * t + b].is_some())
                    .fold(0, |m, b| m | 1 << b)
            };
            let ndst = 9;
            let mut idx = vec![0u64; ndst * TABLE_WORDS];
            for i in 0..ndst {
                for t in 0..words {
                    let x = (i as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> (i % 5);
                    idx[i * TABLE_WORDS + t] = if i == 3 { 0 } else { x & mask(t) };
                }
            }
            let mut dst: Vec<u64> = (0..(ndst * stride) as u64).collect();
            let mut want = dst.clone();
            for i in 0..ndst {
                for (b, s) in sources.iter().enumerate() {
                    if let (true, Some(r)) =
                        ((idx[i * TABLE_WORDS + b / 64] >> (b % 64)) & 1 == 1, s)
                    {
                        for k in 2..stride {
                            want[i * stride + k] ^= src[r * stride + k];
                        }
                    }
                }
            }
            let mut t = WideTables::new();
            let mut off = 2;
            while off < stride {
                let len = CHUNK.min(stride - off).min(1 + off % CHUNK);
                t.build(&src, stride, &sources, off, len);
                let index = Index {
                    words: &idx,
                    stride: TABLE_WORDS,
                    first: 0,
                };
                t.apply(&mut dst, stride, index, 0..ndst, off, len);
                off += len;
            }
            assert_eq!(dst, want, "{words} index words");
        }
    }
}
