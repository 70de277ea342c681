//! Blocked elimination for large matrices: strips of 4096 columns, each cleared from the other
//! rows in one cache-blocked pass, instead of one pass over the matrix per 64 columns.
//!
//! The [`panel`](super::panel) eliminator reads and writes every row once per 64 pivots. Past
//! about 10000 rows the matrix no longer fits the caches and that traffic, not the XORs, sets its
//! speed. Here, for each strip of columns `C` (a [`Level`]):
//! 1. rows whose `C` parts span those of all remaining rows are picked, moved up and reduced
//!    among themselves, the result `P` in reduced echelon form on `C` (an identity on its pivot
//!    columns). First, the rows just below the pivots so far, a few more than `C` has columns,
//!    are reduced in place by the level below: on a random matrix they reach a pivot in every
//!    column, and then no other row can add one. Failing that, the rows are picked by the level
//!    below on a copy of the strip (at the bottom level, blocks of `64 * BLOCK_WORDS` columns,
//!    by a basis kept by lowest set bit) and then reduced by it (at the bottom, by the panel
//!    eliminator);
//! 2. every other row `x` (with `!full`, every row below) becomes `x + c P`, where `c` is `x`'s
//!    own bits at the pivot columns (the unique combination of `P` that clears them). Rows below
//!    the pivots then vanish on `C`, since their `C` part lies in the span of `P`'s, and rows
//!    above keep their non-pivot entries, as the reduced form wants. That is a product, done by
//!    a [tiled](super::tiled) Four Russians pass: each row is read and written once per strip
//!    from memory.
//!
//! At the outer level the reduced form is the row echelon form followed by a
//! [back substitution](super::backsub) that only touches the words with a column that is not a
//! pivot: for a square matrix of nearly full rank, a third less work than clearing the rows
//! above as the strips go (the lower levels, whose columns past their strip all ride along, do
//! that).
//!
//! The result is the same reduced (or, with `!full`, row) echelon form as the panel eliminator's:
//! the reduced form is unique and the tests hold every level to the panel eliminator and to the
//! naive reference. Large matrices run in huge pages ([`huge`](super::huge)).

use super::bitvec::words_for;
use super::matrix::{swap_rows, tail_mask};
use super::panel;
use super::tiled::StripUpdate;

/// Columns of a block at the bottom level, in words.
const BLOCK_WORDS: usize = 4;

/// Words of a strip at the outer level: 4096 columns.
const STRIP_WORDS: usize = 16 * BLOCK_WORDS;
/// Destination rows updated together for one chunk of words, so that they stay in the L2 cache
/// while the tables of every block of the strip are applied to them.
const TILE_ROWS: usize = 4096;

/// Brings columns `0..ncols` of the `rows` rows of `data` (row `i` at words
/// `i * stride..(i + 1) * stride`) to reduced row echelon form (`full`) or to row echelon form
/// with reduced pivot columns among the pivot rows only (`!full`). Row operations apply to whole
/// rows. Returns the pivot columns in order.
pub(super) fn eliminate(
    data: &mut [u64],
    rows: usize,
    stride: usize,
    ncols: usize,
    full: bool,
) -> Vec<usize> {
    debug_assert!(ncols <= 64 * stride && data.len() >= rows * stride);
    let level = Level {
        strip_words: STRIP_WORDS,
        tile_rows: TILE_ROWS,
    };
    super::huge::with_huge_pages(&mut data[..rows * stride], |d| {
        if full {
            level.rref(d, rows, stride, ncols)
        } else {
            level.eliminate(d, rows, stride, 0, ncols, false, None)
        }
    })
}

/// One level of the elimination: strips of `strip_words` words, each cleared from the other rows
/// in one tiled pass. The strip's pivot rows are found and reduced by the level below (blocks of
/// [`BLOCK_WORDS`] words), whose own pivot rows are found by a basis and reduced by the panel
/// eliminator.
#[derive(Clone, Copy)]
struct Level {
    strip_words: usize,
    tile_rows: usize,
}

const BASE: Level = Level {
    strip_words: BLOCK_WORDS,
    tile_rows: usize::MAX,
};

impl Level {
    /// The level that finds and reduces this level's pivot rows: strips a quarter as wide.
    fn below(self) -> Level {
        if self.strip_words / 4 <= BLOCK_WORDS {
            BASE
        } else {
            Level {
                strip_words: self.strip_words / 4,
                tile_rows: self.tile_rows,
            }
        }
    }
}

impl Level {
    /// The reduced row echelon form of columns `0..ncols`: the row echelon form, then
    /// [`back_substitute`](super::backsub::back_substitute), which leaves the rows above each
    /// strip's pivots alone except on the words with a column that is not a pivot.
    fn rref(self, data: &mut [u64], rows: usize, stride: usize, ncols: usize) -> Vec<usize> {
        let pivots = self.eliminate(data, rows, stride, 0, ncols, false, None);
        super::backsub::back_substitute(data, stride, &pivots, self.strip_words, self.tile_rows);
        pivots
    }

    /// As [`eliminate`], for rows that are zero before word `first_word`; records the row swaps
    /// in `perm` when given.
    #[allow(clippy::too_many_arguments)]
    fn eliminate(
        self,
        data: &mut [u64],
        rows: usize,
        stride: usize,
        first_word: usize,
        ncols: usize,
        full: bool,
        mut perm: Option<&mut [usize]>,
    ) -> Vec<usize> {
        let words = words_for(ncols);
        let mut pivots = Vec::new();
        let mut step = StripUpdate::default();
        let (mut r, mut w) = (0, first_word);
        let mut try_candidates = true;
        while w < words && r < rows {
            let sw = self.strip_words.min(words - w);
            let strip_end = ncols.min(64 * (w + sw));

            // 1. The strip's pivot rows, moved up to r..r + k and reduced among themselves.
            let strip_pivots = self.strip_pivots(
                data,
                (rows, stride),
                (r, w, strip_end),
                &mut perm,
                &mut try_candidates,
            );
            let k = strip_pivots.len();
            if k == 0 {
                w += sw;
                continue;
            }

            // 2. Clear the pivot columns from the other rows: x += c P, c = x's pivot bits.
            let mut pivot_masks = vec![0u64; sw];
            for &p in &strip_pivots {
                let b = p - 64 * w;
                pivot_masks[b / 64] |= 1u64 << (b % 64);
            }
            let lo = if full { 0 } else { r + k };
            step.start(&strip_pivots, r, w, sw, rows);
            for i in (lo..r).chain(r + k..rows) {
                for (t, &m) in pivot_masks.iter().enumerate() {
                    step.set(i, t, data[i * stride + w + t] & m);
                }
            }
            let trailing = w..stride;
            step.run(
                data,
                stride,
                lo..rows,
                std::slice::from_ref(&trailing),
                self.tile_rows,
            );
            pivots.extend(strip_pivots);
            r += k;
            w += sw;
        }
        pivots
    }
}

impl Level {
    /// Step 1: rows from `r` on whose strip parts (words `w..` up to column `end`) span those of
    /// all of them, moved up to `r..` and reduced among themselves; returns the strip's pivots.
    ///
    /// While `try_candidates` holds, the rows just below `r`, a few more than the strip has
    /// columns (or all rows left, if fewer), are first reduced in place by the level below.
    /// When they reach a pivot in every column of the strip (a random matrix's strip almost
    /// always does), no other row can add one: their pivot rows are the strip's, already moved
    /// up and reduced, and the other candidates are zero on the strip. That costs about as much
    /// as reducing the chosen rows alone, and saves searching a copy of the strip first.
    /// Otherwise (the candidates were only combined among themselves, which the search does not
    /// mind) `try_candidates` is cleared and the rows are searched for on a copy of the strip
    /// (at the bottom level, by a basis), moved up in their order and reduced.
    fn strip_pivots(
        self,
        data: &mut [u64],
        (rows, stride): (usize, usize),
        (r, w, end): (usize, usize, usize),
        perm: &mut Option<&mut [usize]>,
        try_candidates: &mut bool,
    ) -> Vec<usize> {
        if *try_candidates && self.strip_words > BLOCK_WORDS {
            let width = end - 64 * w;
            let candidates = (width + 64).min(rows - r);
            let block = &mut data[r * stride..(r + candidates) * stride];
            let sub_perm = perm.as_deref_mut().map(|p| &mut p[r..r + candidates]);
            let pivots = self
                .below()
                .eliminate(block, candidates, stride, w, end, true, sub_perm);
            if pivots.len() == width || r + candidates == rows {
                return pivots;
            }
            *try_candidates = false;
        }
        let chosen = if self.strip_words == BLOCK_WORDS {
            independent_rows(data, rows, stride, r, w, end)
        } else {
            self.below().strip_pivot_rows(data, rows, stride, r, w, end)
        };
        let k = chosen.len();
        for (j, &i) in chosen.iter().enumerate() {
            swap_rows(data, stride, r + j, i);
            if let Some(p) = perm.as_deref_mut() {
                p.swap(r + j, i);
            }
        }
        let pivot_rows = &mut data[r * stride..(r + k) * stride];
        let pivots = if self.strip_words == BLOCK_WORDS {
            panel::eliminate(pivot_rows, k, stride, w, end, true, None)
        } else {
            self.below()
                .eliminate(pivot_rows, k, stride, w, end, true, None)
        };
        debug_assert_eq!(pivots.len(), k, "the chosen rows are independent");
        pivots
    }
}

impl Level {
    /// Rows from `r` on whose words `w..` up to column `end` span those of all rows from `r`
    /// on, as this level finds them: the first rows of its row echelon form of a copy of the
    /// strip. Sorted. The rows just below `r`, a few more than the strip has columns, are tried
    /// first: when they reach a pivot in every column (a random matrix's strip almost always),
    /// no other row can add one, and the other rows need not be copied and reduced.
    #[allow(clippy::too_many_arguments)]
    fn strip_pivot_rows(
        self,
        data: &[u64],
        rows: usize,
        stride: usize,
        r: usize,
        w: usize,
        end: usize,
    ) -> Vec<usize> {
        let width = end - 64 * w;
        let candidates = (width + 64).min(rows - r);
        if candidates < rows - r {
            let chosen = self.strip_rows_among(data, r..r + candidates, stride, w, end);
            if chosen.len() == width {
                return chosen;
            }
        }
        self.strip_rows_among(data, r..rows, stride, w, end)
    }

    /// The rows among `range` that the row echelon form of their strip (words `w..` up to
    /// column `end`) chooses, sorted.
    fn strip_rows_among(
        self,
        data: &[u64],
        range: std::ops::Range<usize>,
        stride: usize,
        w: usize,
        end: usize,
    ) -> Vec<usize> {
        let sw = words_for(end - 64 * w);
        let tail = tail_mask(end);
        let n = range.len();
        let mut strip = vec![0u64; n * sw];
        for (row, i) in strip.chunks_exact_mut(sw).zip(range.clone()) {
            row.copy_from_slice(&data[i * stride + w..i * stride + w + sw]);
            row[sw - 1] &= tail;
        }
        let mut perm: Vec<usize> = (0..n).collect();
        let k = self
            .eliminate(&mut strip, n, sw, 0, end - 64 * w, false, Some(&mut perm))
            .len();
        let mut chosen: Vec<usize> = perm[..k].iter().map(|&i| range.start + i).collect();
        chosen.sort_unstable();
        chosen
    }
}

/// Rows from `r` on whose words `w..` up to column `end` (at most [`BLOCK_WORDS`] words) are
/// linearly independent, chosen greedily in order until they span all such rows' words.
fn independent_rows(
    data: &[u64],
    rows: usize,
    stride: usize,
    r: usize,
    w: usize,
    end: usize,
) -> Vec<usize> {
    let wn = words_for(end - 64 * w);
    let mut masks = [!0u64; BLOCK_WORDS];
    masks[wn - 1] = tail_mask(end);
    let limit = (end - 64 * w).min(rows - r);
    // basis[b]: a chosen vector whose lowest set bit is b (all zero: none yet).
    let mut basis = vec![[0u64; BLOCK_WORDS]; 64 * BLOCK_WORDS];
    let mut chosen = Vec::with_capacity(limit);
    for i in r..rows {
        if chosen.len() == limit {
            break;
        }
        let mut x = [0u64; BLOCK_WORDS];
        for t in 0..wn {
            x[t] = data[i * stride + w + t] & masks[t];
        }
        while let Some(t) = x.iter().position(|&v| v != 0) {
            let b = 64 * t + x[t].trailing_zeros() as usize;
            if basis[b][t] == 0 {
                basis[b] = x;
                chosen.push(i);
                break;
            }
            for (v, e) in x.iter_mut().zip(&basis[b]) {
                *v ^= e;
            }
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gf2::{BitMatrix, SplitMix64, naive};

    /// The levels tried: the real one, and small strips and tiles that larger shapes than a
    /// unit test can afford would reach.
    const LEVELS: [Level; 4] = [
        Level {
            strip_words: STRIP_WORDS,
            tile_rows: TILE_ROWS,
        },
        Level {
            strip_words: 8,
            tile_rows: 50,
        },
        Level {
            strip_words: 6,
            tile_rows: 7,
        },
        // Three levels: strips of 20 words, then of 5, then blocks.
        Level {
            strip_words: 20,
            tile_rows: 33,
        },
    ];

    /// The blocked eliminator against the panel eliminator and the naive reference.
    fn check(a: &BitMatrix) {
        let (rows, stride, cols) = (a.rows(), a.stride(), a.cols());
        let (want, want_pivots) = naive::Matrix::from_bit_matrix(a).rref();
        let mut panel_m = a.clone();
        let panel_pivots = panel::eliminate(panel_m.data_mut(), rows, stride, 0, cols, true, None);
        assert_eq!(panel_m, want.to_bit_matrix(), "panel rref of {rows}x{cols}");
        assert_eq!(panel_pivots, want_pivots);
        for level in LEVELS {
            let mut m = a.clone();
            let pivots = level.eliminate(m.data_mut(), rows, stride, 0, cols, true, None);
            assert_eq!(pivots, want_pivots, "pivots of {rows}x{cols}");
            assert_eq!(m, panel_m, "rref of {rows}x{cols}");
            let mut back = a.clone();
            let back_pivots = level.rref(back.data_mut(), rows, stride, cols);
            assert_eq!((&back_pivots, &back), (&pivots, &m), "back substitution");
            // Row echelon form: the same pivots, each the first one of its row, zero rows below
            // the rank, and the same row space (the same reduced form).
            let mut re = a.clone();
            let re_pivots = level.eliminate(re.data_mut(), rows, stride, 0, cols, false, None);
            assert_eq!(re_pivots, pivots);
            for (i, &p) in pivots.iter().enumerate() {
                assert!(
                    re.get(i, p) && (0..p).all(|j| !re.get(i, j)),
                    "row {i} starts at {p}"
                );
            }
            assert!((pivots.len()..rows).all(|i| re.row(i).iter().all(|&x| x == 0)));
            let re_pivots = level.eliminate(re.data_mut(), rows, stride, 0, cols, true, None);
            assert_eq!((re_pivots, re), (pivots, m));
        }
    }

    #[test]
    fn agrees_with_the_references_on_many_shapes() {
        let mut g = SplitMix64::new(17);
        for (r, c) in [
            (0, 0),
            (0, 9),
            (4, 0),
            (1, 1),
            (3, 300),
            (300, 3),
            (64, 64),
            (255, 257),
            (257, 255),
            (300, 700),
            (700, 300),
            (513, 513),
            (130, 1000),
            (150, 2700),
            (1400, 200),
        ] {
            check(&BitMatrix::random(r, c, &mut g));
        }
    }

    #[test]
    fn rank_deficient_and_structured() {
        let mut g = SplitMix64::new(18);
        // Products through thin middles: low rank, pivots spread over blocks.
        for (r, mid, c) in [
            (400, 37, 380),
            (300, 200, 520),
            (520, 260, 300),
            (90, 1, 600),
        ] {
            check(&BitMatrix::random(r, mid, &mut g).mul(&BitMatrix::random(mid, c, &mut g)));
        }
        // Sparse rows, zero columns and repeated rows.
        let mut a = BitMatrix::zeros(350, 450);
        for i in 0..350 {
            for j in [i % 450, (3 * i + 7) % 450, (i * i) % 450] {
                if j % 5 != 0 {
                    a.flip(i, j);
                }
            }
        }
        for i in (1..350).step_by(7) {
            let row = a.row(i - 1).to_vec();
            a.row_mut(i).copy_from_slice(&row);
        }
        check(&a);
        check(&BitMatrix::zeros(300, 300));
        check(&BitMatrix::identity(333));
    }

    #[test]
    fn ncols_inside_the_stride() {
        // Only the first ncols columns are eliminated; the words after them ride along.
        let mut g = SplitMix64::new(19);
        let a = BitMatrix::random(400, 64 * 7, &mut g);
        for ncols in [1, 63, 64, 200, 256, 300, 64 * 7] {
            let mut y = a.clone();
            let q = panel::eliminate(y.data_mut(), 400, 7, 0, ncols, true, None);
            for level in LEVELS {
                let mut x = a.clone();
                let p = level.eliminate(x.data_mut(), 400, 7, 0, ncols, true, None);
                assert_eq!((p, &x), (q.clone(), &y), "ncols {ncols}");
                let mut x = a.clone();
                let p = level.rref(x.data_mut(), 400, 7, ncols);
                assert_eq!((p, &x), (q.clone(), &y), "back substitution, ncols {ncols}");
            }
        }
    }

    /// Shapes where the back substitution meets many strips, free columns inside strips and
    /// after them, and rows past the rank, against the panel eliminator (itself held to the
    /// naive reference above).
    #[test]
    fn back_substitution_on_larger_shapes() {
        let mut g = SplitMix64::new(20);
        let mut shapes = vec![
            BitMatrix::random(300, 700, &mut g),
            BitMatrix::random(2100, 1500, &mut g),
            // Rank deficient: rank 900 of 1000, the free columns spread over every strip.
            BitMatrix::random(1000, 900, &mut g).mul(&BitMatrix::random(900, 1000, &mut g)),
            // Rank 1000 of 1500 rows: the rows just below the pivots fall short of a strip's
            // width, so the strips' pivot rows are searched for on a copy, whose levels reduce
            // their own candidates in place while recording the row order.
            BitMatrix::random(1500, 1000, &mut g).mul(&BitMatrix::random(1000, 1400, &mut g)),
        ];
        // Whole words of free columns: zero columns 128..256 and a repeated stretch.
        let mut a = BitMatrix::random(600, 640, &mut g);
        for i in 0..600 {
            for j in 128..256 {
                a.set(i, j, false);
            }
            for j in 400..470 {
                let v = a.get(i, j - 70);
                a.set(i, j, v);
            }
        }
        shapes.push(a);
        for a in shapes {
            let (rows, stride, cols) = (a.rows(), a.stride(), a.cols());
            let mut want = a.clone();
            let want_pivots = panel::eliminate(want.data_mut(), rows, stride, 0, cols, true, None);
            for level in LEVELS {
                let mut m = a.clone();
                let pivots = level.rref(m.data_mut(), rows, stride, cols);
                assert_eq!(pivots, want_pivots, "pivots of {rows}x{cols}");
                assert_eq!(m, want, "rref of {rows}x{cols}");
            }
        }
    }
}
