//! Bit-sliced parity kernels: the parity rows of a group of `D` codewords from its data rows,
//! with word-wide XORs, following each family's structure.
//!
//! A group is `n` rows of `D` bits; row `p` holds bit `p` of every codeword (lane `l` is byte
//! `l / 8`, bit `l % 8` of the row). Rows `0..k` are the message bits in the code's message
//! order, rows `k..n` the remaining codeword positions in increasing order. The kernels work on
//! a block of `B` 64-bit words (`64 B` lanes) at a time, so that the inner loops are plain
//! word-array XORs the compiler vectorises.

use crate::code::{BlockCode, Spec};
use crate::game::alien::Shape;
use std::ops::{BitOr, BitXor, BitXorAssign};

/// `B` words of 64 lanes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
        Kernel::Hamming {
            grid,
            checks,
            overall,
        }
    }

    /// Scratch blocks [`Kernel::parity`] needs.
    pub fn scratch_len(&self) -> usize {
        match self {
            Kernel::AlienOddOdd { m, n }
            | Kernel::AlienEvenOdd { m, n }
            | Kernel::AlienOddEven { m, n } => m + n,
            _ => 0,
        }
    }

    /// The parity rows of one lane block. `rows` holds the block's `k` data rows, `8 B`
    /// bytes each, one after the other; parity row `q` goes to `out[q]`.
    #[inline]
    pub fn parity<const B: usize>(&self, rows: &[u8], out: &mut [V<B>], scratch: &mut [V<B>]) {
        let mut rows = Rows::<B>(rows);
        match self {
            Kernel::Empty => {}
            &Kernel::AlienOddOdd { m, n } => {
                let (c, r) = scratch.split_at_mut(n);
                let c = &mut c[1..];
                let r = &mut r[1..m];
                c.fill(V::zero());
                r.fill(V::zero());
                grid(rows.take((m - 1) * (n - 1)), n - 1, r, c);
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
                c.fill(V::zero());
                r.fill(V::zero());
                grid(rows.take(m * (n - 1)), n - 1, r, c);
                let r0b = r[0] ^ rows.one();
                for (o, &ri) in out.iter_mut().zip(&r[1..]) {
                    *o = ri ^ r0b;
                }
            }
            &Kernel::AlienOddEven { m, n } => {
                let (c, r) = scratch.split_at_mut(n);
                let r = &mut r[1..m];
                c.fill(V::zero());
                r.fill(V::zero());
                grid(rows.take((m - 1) * n), n, r, c);
                let c0b = c[0] ^ rows.one();
                for (o, &cj) in out.iter_mut().zip(&c[1..]) {
                    *o = cj ^ c0b;
                }
            }
            Kernel::Hamming {
                grid,
                checks,
                overall,
            } => {
                let (head, h) = out.split_at_mut(usize::from(*overall));
                let h = &mut h[..*checks];
                h.fill(V::zero());
                let mut cols = [V::<B>::zero(); 8];
                let mut all = V::zero();
                for (t, &mask) in grid.iter().enumerate() {
                    let g = match mask {
                        0xFF => hamming_row::<B, 0, 8>(rows.take(8), &mut cols),
                        // The grid rows of the powers of two 8, 16, 32, ...
                        0xFE => hamming_row::<B, 1, 7>(rows.take(7), &mut cols),
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
                for x in rows.take(k).chunks_exact(8 * B) {
                    acc ^= V::load(x);
                }
                out[0] = acc;
            }
        }
    }
}

/// Adds the row parities (`r[i]` for each group of `cols` rows) and column parities (`c[j]`) of
/// a grid of rows stored row-major: two XORs per row. Common widths are compiled with the
/// column parities in registers.
#[inline(always)]
fn grid<const B: usize>(block: &[u8], cols: usize, r: &mut [V<B>], c: &mut [V<B>]) {
    match cols {
        0 => {}
        1 => grid_fixed::<B, 1>(block, r, c),
        2 => grid_fixed::<B, 2>(block, r, c),
        4 => grid_fixed::<B, 4>(block, r, c),
        6 => grid_fixed::<B, 6>(block, r, c),
        8 => grid_fixed::<B, 8>(block, r, c),
        10 => grid_fixed::<B, 10>(block, r, c),
        12 => grid_fixed::<B, 12>(block, r, c),
        14 => grid_fixed::<B, 14>(block, r, c),
        16 => grid_fixed::<B, 16>(block, r, c),
        _ => {
            for (ri, row) in r.iter_mut().zip(block.chunks_exact(cols * 8 * B)) {
                let mut acc = V::zero();
                for (cj, x) in c.iter_mut().zip(row.chunks_exact(8 * B)) {
                    let x = V::load(x);
                    acc ^= x;
                    *cj ^= x;
                }
                *ri ^= acc;
            }
        }
    }
}

#[inline(always)]
fn grid_fixed<const B: usize, const C: usize>(block: &[u8], r: &mut [V<B>], c: &mut [V<B>]) {
    let mut cc = [V::<B>::zero(); C];
    for (ri, row) in r.iter_mut().zip(block.chunks_exact(C * 8 * B)) {
        let mut acc = V::zero();
        for (cj, x) in cc.iter_mut().zip(row.chunks_exact(8 * B)) {
            let x = V::load(x);
            acc ^= x;
            *cj ^= x;
        }
        *ri ^= acc;
    }
    for (cj, x) in c.iter_mut().zip(cc) {
        *cj ^= x;
    }
}

/// One grid row of a Hamming code with data rows at columns `O..O + L`: adds each row to
/// its column and returns their sum.
#[inline(always)]
fn hamming_row<const B: usize, const O: usize, const L: usize>(
    seg: &[u8],
    cols: &mut [V<B>; 8],
) -> V<B> {
    let mut acc = V::zero();
    for (c, x) in cols[O..O + L].iter_mut().zip(seg.chunks_exact(8 * B)) {
        let x = V::load(x);
        acc ^= x;
        *c ^= x;
    }
    acc
}

/// A cursor over contiguous rows of `8 B` bytes.
struct Rows<'a, const B: usize>(&'a [u8]);

impl<'a, const B: usize> Rows<'a, B> {
    /// The next `count` rows.
    #[inline(always)]
    fn take(&mut self, count: usize) -> &'a [u8] {
        let (a, b) = self.0.split_at(count * 8 * B);
        self.0 = b;
        a
    }

    /// The next row.
    #[inline(always)]
    fn one(&mut self) -> V<B> {
        V::load(self.take(1))
    }
}
