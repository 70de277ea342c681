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
    /// has bit `b` set; `overall` adds the SECDED overall parity row in front.
    Hamming {
        /// Hamming position of each data row.
        positions: Vec<u32>,
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
            Spec::Hamming(_) => Kernel::Hamming {
                // Codeword index i is Hamming position i + 1.
                positions: code
                    .message_positions()
                    .iter()
                    .map(|&p| p as u32 + 1)
                    .collect(),
                checks: code.n() - code.k(),
                overall: false,
            },
            Spec::Secded(_) => Kernel::Hamming {
                // Index 0 is the overall parity; index i >= 1 is Hamming position i.
                positions: code.message_positions().iter().map(|&p| p as u32).collect(),
                checks: code.n() - code.k() - 1,
                overall: true,
            },
            Spec::Repetition(n) => Kernel::Repetition { checks: n - 1 },
            Spec::Parity(n) => Kernel::Parity { k: n - 1 },
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

    /// The parity rows of one lane block: data row `i` is the `8 B` bytes at
    /// `data[i * row_bytes + off..]`; parity row `q` goes to `out[q]`.
    #[inline]
    pub fn parity<const B: usize>(
        &self,
        data: &[u8],
        row_bytes: usize,
        off: usize,
        out: &mut [V<B>],
        scratch: &mut [V<B>],
    ) {
        let ld = |i: usize| V::<B>::load(&data[i * row_bytes + off..]);
        match self {
            Kernel::Empty => {}
            &Kernel::AlienOddOdd { m, n } => {
                let k = (m - 1) * (n - 1) + 1;
                let (c, r) = scratch.split_at_mut(n);
                c.fill(V::zero());
                let mut p = V::zero();
                let mut idx = 0;
                for ri in r.iter_mut().take(m).skip(1) {
                    let mut acc = V::zero();
                    for cj in c.iter_mut().skip(1) {
                        let x = ld(idx);
                        idx += 1;
                        acc ^= x;
                        *cj ^= x;
                    }
                    *ri = acc;
                    p ^= acc;
                }
                let pb = p ^ ld(k - 1);
                let (top, left) = out.split_at_mut(n - 1);
                for (o, &cj) in top.iter_mut().zip(&c[1..]) {
                    *o = cj ^ pb;
                }
                for (o, &ri) in left.iter_mut().zip(&r[1..m]) {
                    *o = ri ^ pb;
                }
            }
            &Kernel::AlienEvenOdd { m, n } => {
                let k = m * (n - 1) + 1;
                let r = &mut scratch[..m];
                let mut idx = 0;
                for ri in r.iter_mut() {
                    let mut acc = V::zero();
                    for _ in 1..n {
                        acc ^= ld(idx);
                        idx += 1;
                    }
                    *ri = acc;
                }
                let r0b = r[0] ^ ld(k - 1);
                for (o, &ri) in out.iter_mut().zip(&r[1..]) {
                    *o = ri ^ r0b;
                }
            }
            &Kernel::AlienOddEven { m, n } => {
                let k = (m - 1) * n + 1;
                let c = &mut scratch[..n];
                c.fill(V::zero());
                let mut idx = 0;
                for _ in 1..m {
                    for cj in c.iter_mut() {
                        *cj ^= ld(idx);
                        idx += 1;
                    }
                }
                let c0b = c[0] ^ ld(k - 1);
                for (o, &cj) in out.iter_mut().zip(&c[1..]) {
                    *o = cj ^ c0b;
                }
            }
            Kernel::Hamming {
                positions,
                checks,
                overall,
            } => {
                let (head, h) = out.split_at_mut(usize::from(*overall));
                let h = &mut h[..*checks];
                h.fill(V::zero());
                let mut all = V::zero();
                for (i, &p) in positions.iter().enumerate() {
                    let x = ld(i);
                    all ^= x;
                    let mut bits = p;
                    while bits != 0 {
                        h[bits.trailing_zeros() as usize] ^= x;
                        bits &= bits - 1;
                    }
                }
                if *overall {
                    for &hb in h.iter() {
                        all ^= hb;
                    }
                    head[0] = all;
                }
            }
            &Kernel::Repetition { checks } => {
                let x = ld(0);
                out[..checks].fill(x);
            }
            &Kernel::Parity { k } => {
                let mut acc = V::zero();
                for i in 0..k {
                    acc ^= ld(i);
                }
                out[0] = acc;
            }
        }
    }
}
