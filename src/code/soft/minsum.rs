//! Min-sum belief propagation on the row and column parity checks of an odd-by-odd Alien Tiles
//! board or of a single-parity-check product code.
//!
//! A word of an odd-by-odd `m x n` board is a codeword exactly when all its `m + n` line
//! parities are equal (see `docs/theory.md`). With one hidden bit `x` for that common parity the
//! code is the Tanner graph of `m + n` checks: row `i` is `x + sum_j c_ij = 0`, column `j` is
//! `x + sum_i c_ij = 0`. Every cell sits in two checks (its row and its column, as in a product
//! code of single-parity checks); `x` sits in all of them and has no channel value. The decoder
//! runs layered normalised min-sum: a pass over the rows, then over the columns, each check
//! sending every neighbour `ALPHA * (product of the other signs) * (smallest other magnitude)`,
//! and stops as soon as the hard decision of the posteriors is a codeword.
//!
//! The product code `product:MxN` has the same checks with `x = 0`: row `i` is
//! `sum_j c_ij = 0`, column `j` is `sum_i c_ij = 0`, and the decoder runs them without the
//! hidden bit (the row and column passes of a turbo product decoder of single-parity checks).

use super::{SoftDecoder, unavailable};
use crate::code::{BlockCode, Spec};
use crate::error::Result;
use crate::gf2::BitVec;

/// The normalisation of the min-sum messages (min-sum overestimates the sum-product
/// magnitudes; a factor of about 0.75 corrects most of it for checks of this degree).
pub const ALPHA: f32 = 0.75;

/// The min-sum decoder of an odd-by-odd alien code or a product code.
#[derive(Debug)]
pub struct MinSumDecoder {
    m: usize,
    n: usize,
    iterations: usize,
    /// True for the alien code (checks `x + line = 0`), false for the product code (`x = 0`).
    hidden: bool,
}

/// The messages of one decoding.
struct Messages {
    /// Row check `i` to cell `(i, j)`, at `i * n + j`.
    row: Vec<f32>,
    /// Column check `j` to cell `(i, j)`.
    col: Vec<f32>,
    /// Row checks to the hidden bit.
    row_x: Vec<f32>,
    /// Column checks to the hidden bit.
    col_x: Vec<f32>,
}

impl MinSumDecoder {
    /// Min-sum with at most `iterations` row-and-column passes.
    ///
    /// # Errors
    /// [`crate::Error::Limit`] for anything but an odd-by-odd alien code of at least 3 x 3 or
    /// a product code, or no iterations.
    pub fn new(code: &dyn BlockCode, iterations: usize) -> Result<Self> {
        let (m, n, hidden) = match code.spec() {
            Spec::Alien { rows, cols } if rows % 2 == 1 && cols % 2 == 1 && rows.min(cols) >= 3 => {
                (rows, cols, true)
            }
            Spec::Product { rows, cols } => (rows, cols, false),
            spec => {
                return Err(unavailable(
                    code,
                    "iterative",
                    format!(
                        "expected an odd-by-odd alien board of at least 3x3 or a product code (their row and column checks), found {spec}"
                    ),
                ));
            }
        };
        if iterations == 0 {
            return Err(unavailable(
                code,
                "iterative",
                "expected at least 1 iteration, found 0".into(),
            ));
        }
        Ok(MinSumDecoder {
            m,
            n,
            iterations,
            hidden,
        })
    }

    /// True when the bits are a codeword: all row and column parities equal (alien) or zero
    /// (product).
    fn is_codeword(&self, bits: &[bool]) -> bool {
        let (m, n) = (self.m, self.n);
        let row = |i: usize| bits[i * n..(i + 1) * n].iter().fold(false, |a, &b| a ^ b);
        let col = |j: usize| (0..m).fold(false, |a, i| a ^ bits[i * n + j]);
        let x = self.hidden && row(0);
        (0..m).all(|i| row(i) == x) && (0..n).all(|j| col(j) == x)
    }
}

/// One min-sum check update: `inputs` are the messages into the check; `outputs[t]` receives
/// `ALPHA * prod_{s != t} sign(inputs[s]) * min_{s != t} |inputs[s]|`.
fn check(inputs: &[f32], outputs: &mut [f32]) {
    let (mut min1, mut min2, mut arg, mut neg) = (f32::INFINITY, f32::INFINITY, 0, false);
    for (t, &v) in inputs.iter().enumerate() {
        let a = v.abs();
        neg ^= v < 0.0;
        if a < min1 {
            min2 = min1;
            min1 = a;
            arg = t;
        } else if a < min2 {
            min2 = a;
        }
    }
    for (t, (o, &v)) in outputs.iter_mut().zip(inputs).enumerate() {
        let mag = ALPHA * if t == arg { min2 } else { min1 };
        *o = if neg ^ (v < 0.0) { -mag } else { mag };
    }
}

impl SoftDecoder for MinSumDecoder {
    fn name(&self) -> &'static str {
        "min_sum"
    }

    fn decode(&self, llr: &[f32], out: &mut BitVec) -> bool {
        let (m, n) = (self.m, self.n);
        assert_eq!(llr.len(), m * n, "one LLR per codeword bit");
        let mut bits: Vec<bool> = llr.iter().map(|&l| l < 0.0).collect();
        let mut ok = self.is_codeword(&bits);
        let mut msg = Messages {
            row: vec![0.0; m * n],
            col: vec![0.0; m * n],
            row_x: vec![0.0; m],
            col_x: vec![0.0; n],
        };
        let mut inputs = vec![0f32; m.max(n) + 1];
        let mut outputs = vec![0f32; m.max(n) + 1];
        for _ in 0..self.iterations {
            if ok {
                break;
            }
            let mut x_total: f32 = msg.row_x.iter().chain(&msg.col_x).sum();
            for i in 0..m {
                for j in 0..n {
                    inputs[j] = llr[i * n + j] + msg.col[i * n + j];
                }
                let deg = n + usize::from(self.hidden);
                inputs[n] = x_total - msg.row_x[i];
                check(&inputs[..deg], &mut outputs[..deg]);
                msg.row[i * n..(i + 1) * n].copy_from_slice(&outputs[..n]);
                if self.hidden {
                    x_total += outputs[n] - msg.row_x[i];
                    msg.row_x[i] = outputs[n];
                }
            }
            for j in 0..n {
                for i in 0..m {
                    inputs[i] = llr[i * n + j] + msg.row[i * n + j];
                }
                let deg = m + usize::from(self.hidden);
                inputs[m] = x_total - msg.col_x[j];
                check(&inputs[..deg], &mut outputs[..deg]);
                for (i, &o) in outputs[..m].iter().enumerate() {
                    msg.col[i * n + j] = o;
                }
                if self.hidden {
                    x_total += outputs[m] - msg.col_x[j];
                    msg.col_x[j] = outputs[m];
                }
            }
            for (t, b) in bits.iter_mut().enumerate() {
                *b = llr[t] + msg.row[t] + msg.col[t] < 0.0;
            }
            ok = self.is_codeword(&bits);
        }
        *out = BitVec::from_bools(&bits);
        !ok
    }
}
