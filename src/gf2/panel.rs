//! Gauss-Jordan elimination on panels of 64 columns (one word), the straightforward eliminator:
//! every panel's pivots are cleared from the other rows in one Four Russians pass over the whole
//! matrix. It is the reference for [`blocked`](super::blocked) and the only eliminator that tracks
//! the row transform.
//!
//! For each panel it
//! 1. picks, scanning down from the current pivot row, rows whose panel words are independent
//!    (a basis kept by lowest set bit, one word per row: cheap);
//! 2. moves them up and reduces them among themselves (Gauss-Jordan on at most 64 rows), which
//!    fixes the panel's pivot columns, in order;
//! 3. clears the panel's pivot columns from every other row in one Four Russians pass: a row's
//!    coefficient for the pivot row of column `p` is just its own bit `p`, so the panel word,
//!    masked to the pivot columns, indexes the tables directly.
//!
//! Tracking the transform `T` (with `T A = R`) uses that only pivot rows are ever added to other
//! rows: the columns of `T` that are not identity columns are those of rows already chosen as
//! pivots. They are stored compactly, in the order the rows were chosen, so the transform part of
//! every pass is only as wide as the rank so far; one column permutation at the end restores the
//! original order.

use super::bitvec::words_for;
use super::matrix::{swap_rows, tail_mask, xor_rows};
use super::russians::{CHUNK, Sources, Tables};

/// Below this many rows to update, building tables costs more than adding rows directly.
const TABLE_MIN_ROWS: usize = 128;

/// The compact transform carried along by [`eliminate`].
pub(super) struct Track {
    /// First word of the transform part of each row; the matrix being reduced is before it.
    pub(super) t_start: usize,
    /// `orig[i]`: the original index of the row now at position `i`.
    pub(super) orig: Vec<usize>,
    /// `chosen[s]`: the original index of the `s`-th row chosen as a pivot; compact column `s`
    /// of the transform stands for original row `chosen[s]`.
    pub(super) chosen: Vec<usize>,
}

/// Brings columns `0..ncols` of the `rows` rows of `data` (row `i` at words
/// `i * stride..(i + 1) * stride`) to reduced row echelon form (`full`) or to row echelon form
/// with reduced pivot columns among the pivot rows only (`!full`, rows above a pivot are left
/// alone). Every row must be zero before word `first_word`; elimination starts there. Row
/// operations apply to whole rows. Returns the pivot columns in order.
pub(super) fn eliminate(
    data: &mut [u64],
    rows: usize,
    stride: usize,
    first_word: usize,
    ncols: usize,
    full: bool,
    mut track: Option<&mut Track>,
) -> Vec<usize> {
    let a_end = track.as_ref().map_or(stride, |t| t.t_start);
    debug_assert!(ncols <= 64 * a_end);
    debug_assert!(data.len() >= rows * stride);
    let mut pivots = Vec::new();
    let mut idx = vec![0u64; rows];
    let mut tables: Option<Tables> = None;
    let mut chosen_rows = Vec::with_capacity(64);
    let mut r = 0;
    for w in first_word..words_for(ncols) {
        if r == rows {
            break;
        }
        let mask = if 64 * (w + 1) <= ncols {
            !0
        } else {
            tail_mask(ncols)
        };

        // 1. Rows with independent panel words.
        let limit = (mask.count_ones() as usize).min(rows - r);
        let mut basis = [0u64; 64];
        chosen_rows.clear();
        for i in r..rows {
            let mut x = data[i * stride + w] & mask;
            while x != 0 {
                let b = x.trailing_zeros() as usize;
                if basis[b] == 0 {
                    basis[b] = x;
                    chosen_rows.push(i);
                    break;
                }
                x ^= basis[b];
            }
            if chosen_rows.len() == limit {
                break;
            }
        }
        let k = chosen_rows.len();
        if k == 0 {
            continue;
        }
        // The chosen rows are increasing and each is at or below its target, so plain swaps
        // move them to r..r + k without disturbing the ones still to move.
        for (j, &i) in chosen_rows.iter().enumerate() {
            swap_rows(data, stride, r + j, i);
            if let Some(t) = track.as_deref_mut() {
                t.orig.swap(r + j, i);
            }
        }
        let t_range = match track.as_deref_mut() {
            Some(t) => {
                // The chosen rows' identity columns become explicit compact columns r..r + k.
                for j in r..r + k {
                    data[j * stride + t.t_start + j / 64] |= 1u64 << (j % 64);
                    t.chosen.push(t.orig[j]);
                }
                t.t_start..t.t_start + words_for(r + k)
            }
            None => 0..0,
        };
        let segments = [w..a_end, t_range];

        // 2. Gauss-Jordan among the chosen rows, on the panel's columns in order.
        let mut sources: Sources = [None; 64];
        let mut pivot_mask = 0u64;
        let mut done = 0;
        let mut bits = mask;
        while bits != 0 && done < k {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let bit = 1u64 << b;
            let Some(j) = (r + done..r + k).find(|&j| data[j * stride + w] & bit != 0) else {
                continue;
            };
            let p = r + done;
            swap_rows(data, stride, p, j);
            if let Some(t) = track.as_deref_mut() {
                t.orig.swap(p, j);
            }
            for j in r..r + k {
                if j != p && data[j * stride + w] & bit != 0 {
                    for seg in &segments {
                        xor_rows(data, stride, p, j, seg.clone());
                    }
                }
            }
            sources[b] = Some(p);
            pivot_mask |= bit;
            pivots.push(64 * w + b);
            done += 1;
        }
        debug_assert_eq!(done, k, "the chosen rows are independent on the panel");

        // 3. Clear the pivot columns from the other rows.
        let lo = if full { 0 } else { r + k };
        let mut targets = 0;
        for (i, x) in idx.iter_mut().enumerate().skip(lo) {
            *x = if (r..r + k).contains(&i) {
                0
            } else {
                data[i * stride + w] & pivot_mask
            };
            targets += usize::from(*x != 0);
        }
        if targets < TABLE_MIN_ROWS {
            for (i, &x) in idx.iter().enumerate().skip(lo) {
                let mut x = x;
                while x != 0 {
                    let b = x.trailing_zeros() as usize;
                    x &= x - 1;
                    let p =
                        sources[b].unwrap_or_else(|| unreachable!("indices are masked to pivots"));
                    for seg in &segments {
                        xor_rows(data, stride, p, i, seg.clone());
                    }
                }
            }
        } else {
            let tables = tables.get_or_insert_with(Tables::new);
            tables.set_sources(&sources);
            for seg in &segments {
                let mut off = seg.start;
                while off < seg.end {
                    let len = CHUNK.min(seg.end - off);
                    tables.build(data, stride, &sources, off, len);
                    tables.apply(data, stride, &idx, lo..rows, off, len);
                    off += len;
                }
            }
        }
        r += k;
    }
    pivots
}
