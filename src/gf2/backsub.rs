//! Back substitution for the [`blocked`](super::blocked) eliminator: from its row echelon form to
//! the reduced form, strip by strip from the last, touching only the words that hold a column
//! that is not a pivot.
//!
//! Gauss-Jordan elimination clears each strip's pivot columns from the rows above it as it goes,
//! over the whole width to the strip's right; the rows above take as much work as the rows below.
//! Done afterwards and from the bottom up, that work shrinks to the columns that are not pivots:
//! when a strip's pivot rows are added to the rows above, both are already zero on the pivot
//! columns of every later strip, so those columns need no update. For a square matrix of nearly
//! full rank (a random one has rank `n`, `n - 1` or `n - 2`, most likely) almost every word is
//! all pivots, and the reduced form is nearly the identity: the back substitution reads the
//! strips' own words of the rows above and writes zeros there, plus a table pass over the few
//! words with a free column. This is the triangular solve that M4RI runs after its PLE
//! decomposition, done in place.

use super::tiled::StripUpdate;
use std::ops::Range;

/// Brings to reduced row echelon form `data` (row `i` at words `i * stride..(i + 1) * stride`)
/// in row echelon form with pivot columns `pivots` (pivot row `j` has its first one at
/// `pivots[j]`), whose pivot rows are reduced among themselves within each strip of
/// `strip_words` words (strip `s` starts at word `s * strip_words`), as the blocked eliminator
/// leaves them. The table passes run `tile_rows` rows at a time.
pub(super) fn back_substitute(
    data: &mut [u64],
    stride: usize,
    pivots: &[usize],
    strip_words: usize,
    tile_rows: usize,
) {
    let mut pivot_masks = vec![0u64; stride];
    for &p in pivots {
        pivot_masks[p / 64] |= 1u64 << (p % 64);
    }
    let strip_of = |p: usize| p / 64 / strip_words;
    let mut step = StripUpdate::default();
    let mut end = pivots.len();
    while end > 0 {
        let strip = strip_of(pivots[end - 1]);
        let start = pivots[..end].partition_point(|&p| strip_of(p) < strip);
        let w = strip * strip_words;
        let sw = strip_words.min(stride - w);
        let masks = &pivot_masks[w..w + sw];

        // The rows above: their bits at the strip's pivot columns are the coefficients; words
        // of nothing but pivot columns end up zero.
        step.start(&pivots[start..end], start, w, sw, start);
        for i in 0..start {
            let row = &mut data[i * stride + w..i * stride + w + sw];
            for (t, (d, &m)) in row.iter_mut().zip(masks).enumerate() {
                step.set(i, t, *d & m);
                if m == !0 {
                    *d = 0;
                }
            }
        }
        let words = free_words(&pivot_masks, w);
        step.run(data, stride, 0..start, &words, tile_rows);
        end = start;
    }
}

/// The runs of words from `w` on that hold a column that is not a pivot.
fn free_words(pivot_masks: &[u64], w: usize) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for t in (w..pivot_masks.len()).filter(|&t| pivot_masks[t] != !0) {
        match runs.last_mut() {
            Some(run) if run.end == t => run.end += 1,
            _ => runs.push(t..t + 1),
        }
    }
    runs
}
