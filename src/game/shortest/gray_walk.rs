//! The exact Gray-code walk over the whole kernel: one XOR of a basis vector's group mask and
//! an incremental count per step.

use super::super::gray;
use super::{Groups, Progress};

/// Exact walk over all `2^d` kernel coordinates in Gray-code order. Returns the least weight
/// and the coordinates (bit `i` = basis vector `i`) that reach it.
///
/// Each group contributes `min(c0, c1)` plus `|c0 - c1|` when it sits on its worse side; the
/// worse-side indicators of all groups form a bit vector `y`, and the extra weights are split
/// into bit planes, so the weight is `base + sum_k 2^k popcount(y & plane_k)`. A step toggles
/// the groups of one basis vector in `y` (an XOR of its precomputed word list) and updates the
/// popcounts of the words it touched.
pub(super) fn gray_walk(groups: &Groups, d: usize, progress: Progress<'_>) -> (usize, u64) {
    let mut base: u64 = 0;
    // Groups that can change the weight: key != 0 and c0 != c1.
    let mut live: Vec<(u64, u64, bool)> = Vec::new(); // (key, |c0 - c1|, starts on worse side)
    for ((&k, &c0), &c1) in groups.keys.iter().zip(&groups.c0).zip(&groups.c1) {
        if k == 0 {
            base += c1;
        } else {
            base += c0.min(c1);
            if c0 != c1 {
                live.push((k, c0.abs_diff(c1), c1 > c0));
            }
        }
    }
    let g = live.len();
    let words = g.div_ceil(64).max(1);
    let max_delta = live.iter().map(|l| l.1).max().unwrap_or(0);
    let planes_n = (64 - max_delta.leading_zeros()) as usize;
    let mut planes = vec![vec![0u64; words]; planes_n];
    let mut y = vec![0u64; words];
    let mut rows: Vec<Vec<(usize, u64)>> = vec![Vec::new(); d];
    {
        let mut dense = vec![vec![0u64; words]; d];
        for (gi, &(k, delta, worse)) in live.iter().enumerate() {
            let (w, bit) = (gi / 64, 1u64 << (gi % 64));
            if worse {
                y[w] |= bit;
            }
            for (pi, plane) in planes.iter_mut().enumerate() {
                if (delta >> pi) & 1 == 1 {
                    plane[w] |= bit;
                }
            }
            let mut kk = k;
            while kk != 0 {
                let i = kk.trailing_zeros() as usize;
                dense[i][w] |= bit;
                kk &= kk - 1;
            }
        }
        for (i, row) in dense.iter().enumerate() {
            rows[i] = row
                .iter()
                .enumerate()
                .filter(|&(_, &m)| m != 0)
                .map(|(w, &m)| (w, m))
                .collect();
        }
    }
    let weigh = |y: &[u64]| -> u64 {
        planes
            .iter()
            .enumerate()
            .map(|(pi, p)| {
                let c: u64 = y
                    .iter()
                    .zip(p)
                    .map(|(a, b)| (a & b).count_ones() as u64)
                    .sum();
                c << pi
            })
            .sum()
    };
    let cur = weigh(&y);
    if cur == 0 || g == 0 {
        return (base as usize, 0);
    }
    // Toggling mask m in word y[w] changes popcount(y & P) by pc(m & P) - 2 pc(y_old & m & P):
    // one popcount per touched word and plane.
    let mut walk = GrayWalk {
        rows: Vec::with_capacity(d),
        masked: Vec::with_capacity(d),
        row_const: Vec::with_capacity(d),
        planes: planes_n,
        y,
        cur: cur as i64,
        best: cur as i64,
        best_code: 0,
    };
    // Coordinate i flips every 2^(i+1) steps: give the cheapest rows the low coordinates.
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by_key(|&i| rows[i].len());
    let rows: Vec<Vec<(usize, u64)>> = order
        .iter()
        .map(|&i| std::mem::take(&mut rows[i]))
        .collect();
    for row in rows {
        let mut masked = Vec::with_capacity(row.len() * planes_n);
        let mut c: i64 = 0;
        for &(w, m) in &row {
            for (pi, p) in planes.iter().enumerate() {
                masked.push(m & p[w]);
                c += ((m & p[w]).count_ones() as i64) << pi;
            }
        }
        walk.rows
            .push(row.iter().map(|&(w, m)| (w as u32, m)).collect());
        walk.masked.push(masked);
        walk.row_const.push(c);
    }
    walk.run(d, progress);
    let mut code = 0u64;
    for (pos, &i) in order.iter().enumerate() {
        code |= ((walk.best_code >> pos) & 1) << i;
    }
    ((base as i64 + walk.best) as usize, code)
}

/// The state of a Gray-code walk over grouped positions (see [`gray_walk`]).
struct GrayWalk {
    /// Per basis vector: the words of `y` it toggles and their masks.
    rows: Vec<Vec<(u32, u64)>>,
    /// Per basis vector: for each entry and plane, `mask & plane`.
    masked: Vec<Vec<u64>>,
    /// Per basis vector: `sum_k 2^k pc(mask & plane_k)` over its entries.
    row_const: Vec<i64>,
    planes: usize,
    y: Vec<u64>,
    cur: i64,
    best: i64,
    best_code: u64,
}

impl GrayWalk {
    /// Walks the `2^d` coordinate vectors, stopping early at a zero extra weight (nothing can
    /// beat it).
    fn run(&mut self, d: usize, progress: Progress<'_>) {
        #[cfg(target_arch = "x86_64")]
        {
            if crate::cpu::features().popcnt {
                // SAFETY: the CPU supports popcnt (`cpu::features`), checked just above.
                return unsafe { self.run_popcnt(d, progress) };
            }
        }
        self.steps(d, progress)
    }

    /// [`GrayWalk::steps`] compiled with the popcnt instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn run_popcnt(&mut self, d: usize, progress: Progress<'_>) {
        self.steps(d, progress)
    }

    #[inline(always)]
    fn steps(&mut self, d: usize, progress: Progress<'_>) {
        gray::walk_bits(d, progress, self);
    }
}

impl gray::Visit for GrayWalk {
    /// Toggles basis vector `i`'s groups in `y`; stops at a zero extra weight (nothing can
    /// beat it).
    #[inline(always)]
    fn visit(&mut self, i: usize, _up: bool, step: u64) -> bool {
        let y = &mut self.y;
        let mut neg: i64 = 0;
        if self.planes == 1 {
            for (&(w, m), &mp) in self.rows[i].iter().zip(&self.masked[i]) {
                let old = y[w as usize];
                y[w as usize] = old ^ m;
                neg += (old & mp).count_ones() as i64;
            }
        } else {
            let masked = &self.masked[i];
            for (e, &(w, m)) in self.rows[i].iter().enumerate() {
                let old = y[w as usize];
                y[w as usize] = old ^ m;
                for pi in 0..self.planes {
                    neg += ((old & masked[e * self.planes + pi]).count_ones() as i64) << pi;
                }
            }
        }
        self.cur += self.row_const[i] - 2 * neg;
        if self.cur < self.best {
            self.best = self.cur;
            self.best_code = step ^ (step >> 1);
            return self.cur == 0;
        }
        false
    }
}

/// The Gray walk's work on these groups, in word updates: coordinate `i` (cheapest rows
/// first) is flipped `2^(d - 1 - i)` times and touches the 64-group words holding its groups,
/// plus a little per step.
pub(super) fn walk_cost(groups: &Groups, d: usize) -> u64 {
    let mut words = vec![0u64; d];
    let mut last = vec![usize::MAX; d];
    let live = groups
        .keys
        .iter()
        .zip(groups.c0.iter().zip(&groups.c1))
        .filter(|&(&k, (c0, c1))| k != 0 && c0 != c1);
    for (gi, (&k, _)) in live.enumerate() {
        let mut kk = k;
        while kk != 0 {
            let i = kk.trailing_zeros() as usize;
            if last[i] != gi / 64 {
                last[i] = gi / 64;
                words[i] += 1;
            }
            kk &= kk - 1;
        }
    }
    words.sort_unstable();
    words
        .iter()
        .enumerate()
        .map(|(i, &w)| (w + 2).saturating_mul(1u64 << (d - 1 - i).min(63)))
        .fold(0u64, u64::saturating_add)
}
