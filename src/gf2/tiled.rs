//! The product step of the blocked eliminator, tiled for the caches: add to some words of many
//! rows the combinations of a strip's pivot rows that the rows' own index words select.
//!
//! [`WideTables`] cover 256 pivots at a time. For a tile of rows and each chunk of words, the
//! tables of every 256 pivots of the strip are built and applied in turn while the tile's chunk
//! stays in the L2 cache, so each row is read and written once per strip from memory.

use super::wide::{CHUNK, Index, TABLE_WORDS, WideTables};
use std::ops::Range;

/// One product step: a strip's pivot rows, the index words of the rows they are added to, and
/// the tables that add them (kept from one strip to the next).
#[derive(Default)]
pub(super) struct StripUpdate {
    tables: Option<WideTables>,
    idx: StripIndex,
    sources: Vec<Option<usize>>,
    /// Whether some index word is nonzero.
    nonzero: bool,
}

impl StripUpdate {
    /// Starts the step for the strip of `sw` words from word `w`, for the first `rows` rows
    /// (all index words zero): pivot row `first + j` has its pivot at column `pivots[j]`.
    pub(super) fn start(
        &mut self,
        pivots: &[usize],
        first: usize,
        w: usize,
        sw: usize,
        rows: usize,
    ) {
        self.sources.clear();
        self.sources.resize(64 * sw, None);
        for (j, &p) in pivots.iter().enumerate() {
            self.sources[p - 64 * w] = Some(first + j);
        }
        self.idx.reset(rows, sw);
        self.nonzero = false;
    }

    /// Sets index word `t` of row `i`: its bits select the pivot rows of strip columns
    /// `64 t..64 t + 64` (only bits at pivot columns may be set).
    #[inline]
    pub(super) fn set(&mut self, i: usize, t: usize, x: u64) {
        self.idx.set(i, t, x);
        self.nonzero |= x != 0;
    }

    /// Adds to the words `words` of each row in `rows` the pivot rows its index words select,
    /// `tile_rows` rows at a time (see [`update`]).
    pub(super) fn run(
        &mut self,
        data: &mut [u64],
        stride: usize,
        rows: Range<usize>,
        words: &[Range<usize>],
        tile_rows: usize,
    ) {
        if self.nonzero {
            let tables = self.tables.get_or_insert_with(WideTables::new);
            let (idx, sources) = (&self.idx, &self.sources[..]);
            update(tables, data, stride, idx, sources, rows, words, tile_rows);
        }
    }
}

/// Adds to the words `words` of each row `i` in `rows` the sum of the source rows selected by its
/// index words in `idx` (`sources.len() / 64` of them): for each tile of
/// `tile_rows` rows and each chunk of words, the tables of every block of the strip in turn, so
/// that the tile's chunk stays in the L2 cache while all of them are applied.
#[allow(clippy::too_many_arguments)]
fn update(
    tables: &mut WideTables,
    data: &mut [u64],
    stride: usize,
    idx: &StripIndex,
    sources: &[Option<usize>],
    rows: Range<usize>,
    words: &[Range<usize>],
    tile_rows: usize,
) {
    let mut tile = rows.start;
    while tile < rows.end {
        let tile_end = rows.end.min(tile.saturating_add(tile_rows));
        for range in words {
            let mut off = range.start;
            while off < range.end {
                let len = CHUNK.min(range.end - off);
                for (b, block) in sources.chunks(64 * TABLE_WORDS).enumerate() {
                    tables.build(data, stride, block, off, len);
                    tables.apply(data, stride, idx.block(b), tile..tile_end, off, len);
                }
                off += len;
            }
        }
        tile = tile_end;
    }
}

/// The index words of a strip's rows, stored by blocks of [`TABLE_WORDS`]: one block's words of
/// every row together, so that a table pass reads its indices in order. (Row by row, a row's
/// words for one set of tables were a whole strip away from the next row's, and their loads
/// missed the caches: a quarter of the table passes' time at 16384.)
#[derive(Default)]
struct StripIndex {
    words: Vec<u64>,
    rows: usize,
}

impl StripIndex {
    /// All zero, for `rows` rows of `sw` index words.
    fn reset(&mut self, rows: usize, sw: usize) {
        self.rows = rows;
        self.words.clear();
        self.words
            .resize(sw.div_ceil(TABLE_WORDS) * rows * TABLE_WORDS, 0);
    }

    /// Sets index word `t` of row `i`.
    #[inline]
    fn set(&mut self, i: usize, t: usize, x: u64) {
        self.words[((t / TABLE_WORDS) * self.rows + i) * TABLE_WORDS + t % TABLE_WORDS] = x;
    }

    /// The index words of block `b` (strip words `b * TABLE_WORDS..`).
    fn block(&self, b: usize) -> Index<'_> {
        let n = self.rows * TABLE_WORDS;
        Index {
            words: &self.words[b * n..(b + 1) * n],
            stride: TABLE_WORDS,
            first: 0,
        }
    }
}
