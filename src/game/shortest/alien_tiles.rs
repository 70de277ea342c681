//! Alien Tiles' shortest solutions from the structure of its kernel: O(mn) on even-by-odd
//! boards, an enumeration of row patterns with an exact greedy choice of the columns on
//! odd-by-odd ones.

use super::super::Board;
use super::super::alien::{self, Shape};
use super::super::gray;
use super::{Limits, Progress, Shortest};
use crate::gf2::BitVec;

/// One solution of an Alien Tiles game in O(mn), or `None` when it is unsolvable.
///
/// Odd-by-odd solvable games are easy (`k = board`); even-by-even ones are solved by
/// `psi(board)`; on even-by-odd boards `psi(board)` leaves `|k| * all-ones`, which pressing all
/// of row 0 clears (the paper, Sections 3.2 to 3.4); odd-by-even boards by transposition.
pub fn alien_solution(board: &Board) -> Option<Board> {
    let (m, n) = (board.rows(), board.cols());
    if m == 0 || n == 0 {
        return Some(board.clone());
    }
    if !alien::is_solvable(board) {
        return None;
    }
    Some(match Shape::of(m, n) {
        Shape::OddOdd => board.clone(),
        Shape::EvenEven => alien::psi(board),
        Shape::EvenOdd => {
            let mut k = alien::psi(board);
            if alien::psi(&k) != *board {
                flip_row(&mut k, 0);
            }
            k
        }
        Shape::OddEven => alien_solution(&board.transpose())?.transpose(),
    })
}

/// The shortest solution of an Alien Tiles game (exact), or `None` when it is unsolvable.
///
/// Even-by-even: the unique solution `psi(board)`. Even-by-odd (and transposed): O(mn) from the
/// kernel `{u_ij = a_i : |a| even}`. Odd-by-odd: kernel `{u_ij = a_i + b_j : |a| + |b| even}`;
/// `2^(min(m, n) - 1)` row patterns `a` are enumerated with the columns chosen greedily, so the
/// time grows exponentially with `min(m, n)` (a 25 x 25 board takes a quarter of a second,
/// 33 x 33 about a minute). Odd-by-odd boards with both sides above 64 are beyond any
/// enumeration: they get the local search of [`alien_shortest_with`], which is then not proven
/// optimal. Use [`alien_shortest_with`] for bounded time and to learn whether the answer is
/// proven.
pub fn alien_shortest(board: &Board) -> Option<Board> {
    let limits = Limits {
        alien_max_enum_bits: usize::MAX,
        ..Limits::default()
    };
    let s = alien_shortest_with(board, &limits, None)?;
    Some(Board::from_bits(board.rows(), board.cols(), s.presses).expect("board-sized presses"))
}

/// [`alien_shortest`] with limits and progress: odd-by-odd boards with
/// `min(m, n) - 1 > limits.alien_max_enum_bits` get a local search (alternating exact row and
/// column choices from several starts), reported with `optimal: false` unless its lower bound
/// meets it. `presses` are row-major.
pub fn alien_shortest_with(
    board: &Board,
    limits: &Limits,
    progress: Progress<'_>,
) -> Option<Shortest> {
    let (m, n) = (board.rows(), board.cols());
    let k = alien_solution(board)?;
    if m == 0 || n == 0 {
        return Some(exact(k.into_bits(), "unique"));
    }
    Some(match Shape::of(m, n) {
        Shape::EvenEven => exact(k.into_bits(), "unique"),
        Shape::EvenOdd => exact(shortest_even_odd(k).into_bits(), "closed-form"),
        Shape::OddEven => exact(
            shortest_even_odd(k.transpose()).transpose().into_bits(),
            "closed-form",
        ),
        Shape::OddOdd => {
            let transposed = m > n;
            let k = if transposed { k.transpose() } else { k };
            let lines = LineCounts::new(&k);
            let (s, out) = if k.rows() - 1 <= limits.alien_max_enum_bits.min(63) {
                let a = lines.enumerate(progress);
                let best = lines.finish(a);
                let w = best.weight();
                (
                    Shortest {
                        presses: BitVec::zeros(0),
                        optimal: true,
                        lower_bound: w,
                        method: "row-enumeration",
                    },
                    best,
                )
            } else {
                let best = alternate(&k);
                let lb = odd_odd_lower_bound(&k).min(best.weight());
                (
                    Shortest {
                        presses: BitVec::zeros(0),
                        optimal: lb == best.weight(),
                        lower_bound: lb,
                        method: "local-search",
                    },
                    best,
                )
            };
            let out = if transposed { out.transpose() } else { out };
            Shortest {
                presses: out.into_bits(),
                ..s
            }
        }
    })
}

fn exact(presses: BitVec, method: &'static str) -> Shortest {
    let w = presses.weight();
    Shortest {
        presses,
        optimal: true,
        lower_bound: w,
        method,
    }
}

/// Even-by-odd boards: flipping whole row `i` of a solution changes its weight by
/// `n - 2|k_i|`; flip every row that gains, then restore `|a|` even by dropping the smallest
/// gain or adding the smallest loss, whichever costs less.
fn shortest_even_odd(mut k: Board) -> Board {
    let (m, n) = (k.rows(), k.cols());
    let deltas: Vec<i64> = (0..m)
        .map(|i| n as i64 - 2 * row_weight(&k, i) as i64)
        .collect();
    let mut take: Vec<bool> = deltas.iter().map(|&d| d < 0).collect();
    if take.iter().filter(|&&t| t).count() % 2 == 1 {
        // n is odd, so no delta is zero: the taken ones are negative, the others positive.
        let drop = (0..m).filter(|&i| take[i]).max_by_key(|&i| deltas[i]);
        let add = (0..m).filter(|&i| !take[i]).min_by_key(|&i| deltas[i]);
        match (drop, add) {
            (Some(dr), Some(ad)) => {
                if -deltas[dr] <= deltas[ad] {
                    take[dr] = false;
                } else {
                    take[ad] = true;
                }
            }
            (Some(dr), None) => take[dr] = false,
            _ => unreachable!("an odd count means something was taken"),
        }
    }
    for (i, &t) in take.iter().enumerate() {
        if t {
            flip_row(&mut k, i);
        }
    }
    k
}

fn row_weight(b: &Board, i: usize) -> usize {
    let n = b.cols();
    range_weight(b.bits().words(), i * n, n)
}

/// Number of ones among bits `start..start + len` of packed words.
fn range_weight(words: &[u64], start: usize, len: usize) -> usize {
    let mut total = 0;
    let (mut pos, end) = (start, start + len);
    while pos < end {
        let (w, r) = (pos / 64, pos % 64);
        let take = (64 - r).min(end - pos);
        let mask = if take == 64 {
            !0
        } else {
            ((1u64 << take) - 1) << r
        };
        total += (words[w] & mask).count_ones() as usize;
        pos += take;
    }
    total
}

/// Toggles every cell of row `i`.
fn flip_row(b: &mut Board, i: usize) {
    let n = b.cols();
    let words = b.bits_mut().words_mut();
    let (mut pos, end) = (i * n, (i + 1) * n);
    while pos < end {
        let (w, r) = (pos / 64, pos % 64);
        let take = (64 - r).min(end - pos);
        let mask = if take == 64 {
            !0
        } else {
            ((1u64 << take) - 1) << r
        };
        words[w] ^= mask;
        pos += take;
    }
}

/// Column counts for the odd-by-odd search on an `s x n` solution `k` (`s <= n`, both odd,
/// `s <= 64`).
///
/// For a row pattern `a`, column `j` of `k + a 1^T` has `w_j = |col_j + a|` ones; choosing
/// `b_j = [w_j > s/2]` leaves `min(w_j, s - w_j)`, and when `|a| + |b|` is odd the cheapest fix
/// flips the column with the least margin `s - 2 min(w_j, s - w_j)`.
///
/// The counts are bytes, eight to a `u64` (SWAR): a step adds one row's `+1`/`-1` byte masks
/// (never carrying, as every count stays in `0..=s`), then one pass computes the byte-wise
/// `min(w, s - w)`, their sum and the number of counts above `s/2` without leaving the words.
struct LineCounts {
    s: usize,
    n: usize,
    k: Board,
    /// Initial counts (a = 0), eight bytes to a word, padding bytes 0.
    w0: Vec<u64>,
    /// Per row: bytes 1 where `k_ij = 0`, so `a_i: 0 -> 1` adds them (and removes `minus`).
    plus: Vec<Vec<u64>>,
    /// Per row: bytes 1 where `k_ij = 1`.
    minus: Vec<Vec<u64>>,
}

const BYTES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
const EVEN_BYTES: u64 = 0x00FF_00FF_00FF_00FF;
const LOW_HALVES: u64 = 0x0000_FFFF_0000_FFFF;

/// Byte-wise `min(x, s - x)` of eight counts, and a byte 1 where the count exceeds `s/2`.
/// Only adds, shifts and masks, so four of them fit one AVX2 register.
#[inline(always)]
fn min_bytes(x: u64, bias: u64, s_bytes: u64) -> (u64, u64) {
    let ge = (x + bias) & HIGH;
    let flag = ge >> 7;
    let full = ge | (ge - flag);
    (x ^ ((x ^ (s_bytes - x)) & full), flag)
}

/// The sum of four 16-bit lanes.
#[inline(always)]
fn fold16(acc: u64) -> u64 {
    let acc = (acc & LOW_HALVES) + ((acc >> 16) & LOW_HALVES);
    (acc & 0xFFFF_FFFF) + (acc >> 32)
}

impl LineCounts {
    fn new(k: &Board) -> LineCounts {
        let (s, n) = (k.rows(), k.cols());
        assert!(s <= 64, "row enumeration needs at most 64 rows");
        let words = n.div_ceil(8);
        let mut w0 = vec![0u64; words];
        let mut plus = vec![vec![0u64; words]; s];
        let mut minus = vec![vec![0u64; words]; s];
        for i in 0..s {
            for j in 0..n {
                let byte = 1u64 << (8 * (j % 8));
                if k.get(i, j) {
                    w0[j / 8] += byte;
                    minus[i][j / 8] |= byte;
                } else {
                    plus[i][j / 8] |= byte;
                }
            }
        }
        LineCounts {
            s,
            n,
            k: k.clone(),
            w0,
            plus,
            minus,
        }
    }

    /// `(sum_j min(w_j, s - w_j), #{j : w_j > s/2})` for the counts `w`.
    #[inline(always)]
    fn eval(&self, w: &[u64]) -> (u32, u32) {
        let s = self.s as u64;
        // Byte-wise: high bit set exactly where w > s/2 (w + 128 - h stays below 256).
        let bias = (0x80 - (s / 2 + 1)) * BYTES;
        let s_bytes = s * BYTES;
        let mut sum = 0u64;
        let mut cnt = 0u64;
        for block in w.chunks(128) {
            let mut acc = 0u64; // four 16-bit lanes
            let mut flags = 0u64; // eight byte lanes
            for &x in block {
                let (c, f) = min_bytes(x, bias, s_bytes);
                flags += f;
                acc += (c & EVEN_BYTES) + ((c >> 8) & EVEN_BYTES);
            }
            sum += fold16(acc);
            cnt += fold16((flags & EVEN_BYTES) + ((flags >> 8) & EVEN_BYTES));
        }
        (sum as u32, cnt as u32)
    }

    /// The largest `min(w_j, s - w_j)` over real columns.
    fn max_cost(&self, w: &[u64]) -> u32 {
        let s = self.s as u32;
        (0..self.n)
            .map(|j| {
                let x = ((w[j / 8] >> (8 * (j % 8))) & 0xFF) as u32;
                x.min(s - x)
            })
            .max()
            .unwrap_or(0)
    }

    /// Total weight for counts `w` and `|a| = a_weight`, with the parity fix; `u32::MAX` when
    /// it cannot beat `best`.
    #[inline]
    fn total(&self, w: &[u64], a_weight: u32, best: u32) -> u32 {
        let (sum, cnt) = self.eval(w);
        if (a_weight + cnt).is_multiple_of(2) {
            sum
        } else if sum + 1 >= best {
            // The fix costs at least 1.
            u32::MAX
        } else {
            sum + self.s as u32 - 2 * self.max_cost(w)
        }
    }

    /// Enumerates all row patterns with `a_0 = 0` in Gray-code order (flipping the whole
    /// pattern gives the same presses); returns the best `a` (bit `i` = row `i`).
    fn enumerate(&self, progress: Progress<'_>) -> u64 {
        // Boards of up to 32 columns keep the counts in registers.
        match self.w0.len() {
            1 => self.enumerate_fixed::<1>(progress),
            2 => self.enumerate_fixed::<2>(progress),
            3 => self.enumerate_fixed::<3>(progress),
            4 => self.enumerate_fixed::<4>(progress),
            _ => self.enumerate_any(progress),
        }
    }

    fn enumerate_any(&self, progress: Progress<'_>) -> u64 {
        let mut walk = AnyWalk {
            lines: self,
            best: self.total(&self.w0, 0, u32::MAX),
            w: self.w0.clone(),
            a: 0,
            a_weight: 0,
            best_a: 0,
        };
        gray::walk_bits(self.s - 1, progress, &mut walk);
        walk.best_a
    }

    /// [`LineCounts::enumerate_any`] with the `W` count words in an array.
    fn enumerate_fixed<const W: usize>(&self, progress: Progress<'_>) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            if crate::cpu::features().avx2 {
                // SAFETY: the CPU supports AVX2 (`cpu::features`), checked just above.
                return unsafe { self.enumerate_fixed_avx2::<W>(progress) };
            }
        }
        self.enumerate_fixed_body::<W>(progress)
    }

    /// [`LineCounts::enumerate_fixed_body`] compiled for AVX2 (the `W` words of a step fit one
    /// register).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn enumerate_fixed_avx2<const W: usize>(&self, progress: Progress<'_>) -> u64 {
        self.enumerate_fixed_body::<W>(progress)
    }

    #[inline(always)]
    fn enumerate_fixed_body<const W: usize>(&self, progress: Progress<'_>) -> u64 {
        let s = self.s as u64;
        let arr = |v: &[u64]| -> [u64; W] { v.try_into().expect("W words") };
        let w: [u64; W] = arr(&self.w0);
        let mut walk = FixedWalk {
            lines: self,
            bias: (0x80 - (s / 2 + 1)) * BYTES,
            s_bytes: s * BYTES,
            steps: (0..self.s)
                .map(|i| (arr(&self.plus[i]), arr(&self.minus[i])))
                .collect(),
            best: self.total(&w, 0, u32::MAX),
            w,
            a: 0,
            a_weight: 0,
            best_a: 0,
        };
        gray::walk_bits(self.s - 1, progress, &mut walk);
        walk.best_a
    }

    /// The presses `k + a 1^T + 1 b^T` with the best `b` for `a` (parity fixed).
    fn finish(&self, a: u64) -> Board {
        let flips: Vec<bool> = (0..self.s).map(|i| (a >> i) & 1 == 1).collect();
        best_for_rows(&self.k, &flips).0
    }
}

/// The row-pattern walk of [`LineCounts::enumerate_any`]: any number of count words.
struct AnyWalk<'a> {
    lines: &'a LineCounts,
    w: Vec<u64>,
    a: u64,
    a_weight: u32,
    best: u32,
    best_a: u64,
}

impl gray::Visit for AnyWalk<'_> {
    /// Walk coordinate `i` is row `i + 1` (row 0 stays unflipped).
    #[inline(always)]
    fn visit(&mut self, i: usize, up: bool, _: u64) -> bool {
        let i = i + 1;
        let (add, sub) = if up {
            self.a_weight += 1;
            (&self.lines.plus[i], &self.lines.minus[i])
        } else {
            self.a_weight -= 1;
            (&self.lines.minus[i], &self.lines.plus[i])
        };
        for ((x, &p), &q) in self.w.iter_mut().zip(add).zip(sub) {
            *x = *x + p - q;
        }
        self.a ^= 1 << i;
        let t = self.lines.total(&self.w, self.a_weight, self.best);
        if t < self.best {
            self.best = t;
            self.best_a = self.a;
        }
        false
    }
}

/// The row-pattern walk of [`LineCounts::enumerate_fixed_body`]: the `W` count words in an
/// array, so that a step stays in registers.
struct FixedWalk<'a, const W: usize> {
    lines: &'a LineCounts,
    bias: u64,
    s_bytes: u64,
    /// Per row: the change when `a_i` goes 0 -> 1 (`plus`, `minus`); going back swaps them.
    steps: Vec<([u64; W], [u64; W])>,
    w: [u64; W],
    a: u64,
    a_weight: u32,
    best: u32,
    best_a: u64,
}

impl<const W: usize> gray::Visit for FixedWalk<'_, W> {
    /// Walk coordinate `i` is row `i + 1` (row 0 stays unflipped).
    #[inline(always)]
    fn visit(&mut self, i: usize, up: bool, _: u64) -> bool {
        let i = i + 1;
        let (p, q) = &self.steps[i];
        self.a ^= 1 << i;
        self.a_weight = if up {
            self.a_weight + 1
        } else {
            self.a_weight - 1
        };
        let mut acc = 0u64;
        let mut flags = 0u64;
        for t in 0..W {
            let x = if up {
                self.w[t] + p[t] - q[t]
            } else {
                self.w[t] + q[t] - p[t]
            };
            self.w[t] = x;
            let (c, f) = min_bytes(x, self.bias, self.s_bytes);
            flags += f;
            acc += (c & EVEN_BYTES) + ((c >> 8) & EVEN_BYTES);
        }
        let sum = fold16(acc) as u32;
        let cnt = flags.wrapping_mul(BYTES) >> 56;
        let t = if (self.a_weight + cnt as u32).is_multiple_of(2) {
            sum
        } else if sum + 1 >= self.best {
            u32::MAX
        } else {
            sum + self.lines.s as u32 - 2 * self.lines.max_cost(&self.w)
        };
        if t < self.best {
            self.best = t;
            self.best_a = self.a;
        }
        false
    }
}

/// Best odd-by-odd presses for fixed row flips `a` (a `Vec<bool>`), with the parity fix:
/// returns the presses and their weight.
fn best_for_rows(k: &Board, a: &[bool]) -> (Board, usize) {
    let (s, n) = (k.rows(), k.cols());
    let mut w = vec![0usize; n];
    for (i, &ai) in a.iter().enumerate().take(s) {
        for (j, wj) in w.iter_mut().enumerate() {
            if k.get(i, j) ^ ai {
                *wj += 1;
            }
        }
    }
    let mut b: Vec<bool> = w.iter().map(|&x| x > s / 2).collect();
    let parity = (a.iter().filter(|&&x| x).count() + b.iter().filter(|&&x| x).count()) % 2;
    if parity == 1 {
        let j = (0..n)
            .min_by_key(|&j| (s as i64 - 2 * w[j] as i64).abs())
            .expect("n >= 1");
        b[j] = !b[j];
    }
    let mut out = k.clone();
    for (i, &ai) in a.iter().enumerate().take(s) {
        for (j, &bj) in b.iter().enumerate() {
            if ai ^ bj {
                out.flip(i, j);
            }
        }
    }
    let wt = out.weight();
    (out, wt)
}

/// Local search for large odd-by-odd boards: from several starting row patterns, alternate the
/// exact best columns for the rows and the exact best rows for the columns until neither
/// improves.
fn alternate(k: &Board) -> Board {
    use rand::{Rng, SeedableRng};
    let s = k.rows();
    let mut starts: Vec<Vec<bool>> = vec![vec![false; s]];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5EED_A11E);
    for _ in 0..16 {
        starts.push((0..s).map(|_| rng.r#gen::<bool>()).collect());
    }
    let mut best: Option<(Board, usize)> = None;
    for a in starts {
        let (mut cur, mut w) = best_for_rows(k, &a);
        loop {
            // Rows given the current presses' columns: transpose, re-choose, transpose back.
            let (t, tw) = best_for_rows(&cur.transpose(), &vec![false; cur.cols()]);
            let (c, cw) = best_for_rows(&t.transpose(), &vec![false; s]);
            let (next, nw) = if tw <= cw {
                (t.transpose(), tw)
            } else {
                (c, cw)
            };
            if nw < w {
                cur = next;
                w = nw;
            } else {
                break;
            }
        }
        if best.as_ref().is_none_or(|b| w < b.1) {
            best = Some((cur, w));
        }
    }
    best.expect("at least one start").0
}

/// A lower bound for odd-by-odd boards: split the rows into blocks of at most 16; every
/// solution weighs at least the sum over blocks of the block's own optimum (ignoring the
/// parity condition), because `min(x + y, s - x - y) >= min(x, t - x) + min(y, s - t - y)`.
/// The same with columns; the larger bound wins.
fn odd_odd_lower_bound(k: &Board) -> usize {
    block_bound(k).max(block_bound(&k.transpose()))
}

fn block_bound(k: &Board) -> usize {
    let (s, n) = (k.rows(), k.cols());
    let mut total = 0usize;
    let mut start = 0;
    while start < s {
        let len = (s - start).min(16);
        // Block rows start..start+len: minimise sum_j min(d_j, len - d_j) over a (a_0 = 0).
        let cols: Vec<u32> = (0..n)
            .map(|j| (0..len).fold(0u32, |acc, i| acc | (u32::from(k.get(start + i, j)) << i)))
            .collect();
        let mut best = usize::MAX;
        for a in 0..(1u32 << (len - 1)) {
            let a = a << 1;
            let c: usize = cols
                .iter()
                .map(|&c| {
                    let d = (c ^ a).count_ones() as usize;
                    d.min(len - d)
                })
                .sum();
            best = best.min(c);
        }
        total += best;
        start += len;
    }
    total
}
