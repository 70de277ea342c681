//! The portable kernels' inner loops: the row and column parities of a grid of rows (the
//! alien boards) and the grid rows of a Hamming code, each copying the rows it reads when
//! asked.

use super::V;
use super::block::Block;

/// Sets the row parities (`r[i]` for each group of `cols` rows) and column parities (`c[j]`)
/// of a grid of rows stored row-major: two XORs per row, copying each row to `block.1` when
/// `COPY`. Common widths are compiled with the column parities in registers.
#[inline(always)]
pub(super) fn grid<const B: usize, const COPY: bool>(
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
        _ if B == 1 => grid_wide::<B, COPY>(block, cols, r, c),
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

/// [`grid`] for other widths at `B = 1`: each row in pieces of eight columns (as
/// [`grid_row`], with their column parities in `c`, read and written once a piece), then the
/// last columns one by one. Cell by cell, the loop was scalar at `B = 1` and took 40 % of
/// the encoder's time for alien:33x33 at `D = 64`; at `B = 8` the pieces (512 bytes of
/// column parities) are slower than cell by cell (docs/benchmarks.md, "Wide grids at
/// `D = 64`").
#[inline(always)]
fn grid_wide<const B: usize, const COPY: bool>(
    (src, dst): (&[Block<B>], &mut [Block<B>]),
    cols: usize,
    r: &mut [V<B>],
    c: &mut [V<B>],
) {
    c.fill(V::zero());
    let full = cols / 8 * 8;
    let (c8, c1) = c.split_at_mut(full);
    let c8 = c8.as_chunks_mut::<8>().0;
    for (i, ri) in r.iter_mut().enumerate() {
        let row = &src[i * cols..(i + 1) * cols];
        let (s8, s1) = row.split_at(full);
        let mut acc = V::zero();
        if COPY {
            let (d8, d1) = dst[i * cols..(i + 1) * cols].split_at_mut(full);
            for ((cc, s), d) in c8
                .iter_mut()
                .zip(s8.as_chunks::<8>().0)
                .zip(d8.as_chunks_mut::<8>().0)
            {
                acc ^= grid_row(cc, s, Some(d));
            }
            for ((cj, s), d) in c1.iter_mut().zip(s1).zip(d1) {
                let x = V::from_block(s);
                *d = x.to_block();
                acc ^= x;
                *cj ^= x;
            }
        } else {
            for (cc, s) in c8.iter_mut().zip(s8.as_chunks::<8>().0) {
                acc ^= grid_row(cc, s, None);
            }
            for (cj, s) in c1.iter_mut().zip(s1) {
                let x = V::from_block(s);
                acc ^= x;
                *cj ^= x;
            }
        }
        *ri = acc;
    }
}

#[inline(always)]
pub(super) fn grid_fixed<const B: usize, const C: usize, const COPY: bool>(
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
pub(super) fn grid_row<const B: usize, const C: usize>(
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
/// its column and returns their sum (copying the rows to `seg.1` when `COPY`). Row by row,
/// as [`grid_row`]: a whole row of lane blocks held as one array (512 bytes at `B = 8`) was
/// moved through `memcpy` calls.
#[inline(always)]
pub(super) fn hamming_row<const B: usize, const O: usize, const L: usize, const COPY: bool>(
    (src, dst): (&[Block<B>], &mut [Block<B>]),
    cols: &mut [V<B>; 8],
) -> V<B> {
    let src: &[Block<B>; L] = src.try_into().expect("L rows");
    let mut dst: Option<&mut [Block<B>; L]> = COPY.then(|| dst.try_into().expect("L rows"));
    let mut acc = V::zero();
    for j in 0..L {
        let x = V::from_block(&src[j]);
        if let Some(d) = dst.as_deref_mut() {
            d[j] = x.to_block();
        }
        acc ^= x;
        cols[O + j] ^= x;
    }
    acc
}

/// A cursor over contiguous rows of `8 B` bytes, and over the copy of them when `COPY`.
pub(super) struct Rows<'a, 'b, const B: usize, const COPY: bool> {
    pub(super) src: &'a [Block<B>],
    pub(super) dst: &'b mut [Block<B>],
}

impl<'a, 'b, const B: usize, const COPY: bool> Rows<'a, 'b, B, COPY> {
    /// The next `count` rows, with their place in the copy (empty unless `COPY`).
    #[inline(always)]
    pub(super) fn take_pair(&mut self, count: usize) -> (&'a [Block<B>], &'b mut [Block<B>]) {
        let (a, b) = self.src.split_at(count);
        self.src = b;
        let dst = std::mem::take(&mut self.dst);
        let (c, d) = dst.split_at_mut(if COPY { count } else { 0 });
        self.dst = d;
        (a, c)
    }

    /// The next row.
    #[inline(always)]
    pub(super) fn one(&mut self) -> V<B> {
        let (src, dst) = self.take_pair(1);
        let x = V::from_block(&src[0]);
        if COPY {
            dst[0] = x.to_block();
        }
        x
    }
}
