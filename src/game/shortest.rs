//! Shortest solutions: the fewest presses that solve a game.
//!
//! Every solution of a solvable game is `k + u` for one solution `k` and a quiet pattern `u` in
//! the kernel of the move map (the paper, Section 2.3), so the shortest solution is a minimum
//! weight vector of the coset `k + ker`. That is NP-hard in general (it is minimum distance
//! decoding), so [`shortest_by_kernel`] searches:
//!
//! * nullity 0: the solution is unique;
//! * nullity up to 64: an exact branch and bound over the kernel coordinates with a lower bound
//!   that tightens as coordinates are fixed (see `docs/theory.md`). Up to
//!   [`Limits::gray_max_nullity`] (32 by default) it is only a probe with a budget measured
//!   against the walk's known cost, and when it does not finish, an exact Gray-code walk over
//!   the whole kernel does (one XOR of a basis vector and an incremental popcount per step);
//! * past the budget of larger kernels, or past 64: the best solution found, labelled
//!   `optimal: false`, with a proven lower bound.
//!
//! Alien Tiles has a kernel with enough structure to do much better ([`alien_shortest`]):
//! O(mn) on even-by-odd boards, and an enumeration of `2^(min(m, n) - 1)` row patterns with a
//! greedy exact choice of the columns on odd-by-odd boards.

use super::Board;
use super::alien::{self, Shape};
use crate::error::{Error, Result};
use crate::gf2::{BitMatrix, BitVec};
use std::collections::HashMap;

/// A solution with as few presses as the search could prove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortest {
    /// The presses (move space, row-major for pressed-cell games).
    pub presses: BitVec,
    /// True when `presses` is proven to have the fewest presses of all solutions.
    pub optimal: bool,
    /// A proven lower bound on the number of presses of every solution; equals the weight of
    /// `presses` when `optimal`.
    pub lower_bound: usize,
    /// How the answer was found: `unique`, `gray-code`, `branch-and-bound`, `closed-form`,
    /// `row-enumeration` (all exact), or `local-search` (best found, not proven optimal).
    pub method: &'static str,
}

impl Shortest {
    /// The number of presses.
    pub fn weight(&self) -> usize {
        self.presses.weight()
    }
}

/// Search limits for [`shortest_by_kernel_with`] and [`alien_shortest_with`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest nullity walked exhaustively by the Gray code (`2^nullity` steps).
    pub gray_max_nullity: usize,
    /// Up to `gray_max_nullity`, first try the branch and bound, and walk only when it does
    /// not finish: it stops once it has spent an eighth of the walk's estimated work (class
    /// updates against word updates) and its own projected total exceeds the walk's, or when
    /// it has spent as much as the walk would. `false` walks straight away.
    pub probe: bool,
    /// Node budget of the branch and bound used for nullities in
    /// `gray_max_nullity + 1 ..= 64`; past it the best solution found is returned with
    /// `optimal: false` and a lower bound.
    pub node_budget: u64,
    /// Largest `min(m, n) - 1` for which odd-by-odd Alien Tiles boards are solved exactly by
    /// enumerating `2^(min(m, n) - 1)` row patterns; larger boards get a labelled local search.
    pub alien_max_enum_bits: usize,
}

impl Default for Limits {
    /// 32-bit Gray walks after a probe, 2^24 branch-and-bound nodes past them, odd-by-odd
    /// Alien Tiles up to 33 rows.
    fn default() -> Self {
        Limits {
            gray_max_nullity: 32,
            probe: true,
            node_budget: 1 << 24,
            alien_max_enum_bits: 32,
        }
    }
}

/// Progress callback: `(done, total)` in units that only the ratio gives meaning to.
pub type Progress<'a> = Option<&'a dyn Fn(u64, u64)>;

/// The fewest presses among `solution + span(kernel)`, with the default [`Limits`].
///
/// `solution` is any solution of the game and `kernel` spans the quiet patterns (it need not be
/// independent). `progress`, when given, is called now and then with `(done, total)`.
///
/// # Errors
/// [`Error::Length`] when a kernel vector's length differs from the solution's.
pub fn shortest_by_kernel(
    solution: &BitVec,
    kernel: &[BitVec],
    progress: Progress<'_>,
) -> Result<Shortest> {
    shortest_by_kernel_with(solution, kernel, &Limits::default(), progress)
}

/// [`shortest_by_kernel`] with explicit limits.
///
/// # Errors
/// [`Error::Length`] when a kernel vector's length differs from the solution's.
pub fn shortest_by_kernel_with(
    solution: &BitVec,
    kernel: &[BitVec],
    limits: &Limits,
    progress: Progress<'_>,
) -> Result<Shortest> {
    let len = solution.len();
    if let Some(v) = kernel.iter().find(|v| v.len() != len) {
        return Err(Error::Length {
            expected: len,
            found: v.len(),
        });
    }
    let mut basis = independent_basis(kernel, len);
    let d = basis.len();
    if d == 0 {
        let w = solution.weight();
        return Ok(Shortest {
            presses: solution.clone(),
            optimal: true,
            lower_bound: w,
            method: "unique",
        });
    }
    reduce_weights(&mut basis);
    let gray = d <= limits.gray_max_nullity.min(62);
    if d <= 64 {
        // Heaviest vectors first: the last coordinates stay free longest, and light ones leave
        // most positions decided early, which is what makes the bound bite.
        basis.sort_by_key(|b| std::cmp::Reverse(b.weight()));
        let groups = Groups::new(solution, &basis);
        // Where the Gray walk is available the search is only a probe: the walk's time is
        // known in advance, the search's is not.
        let (budget, report) = if gray {
            (
                Budget {
                    nodes: u64::MAX,
                    work: walk_cost(&groups, d),
                },
                None,
            )
        } else {
            (
                Budget {
                    nodes: limits.node_budget,
                    work: u64::MAX,
                },
                progress,
            )
        };
        let out = if gray && !limits.probe {
            None
        } else {
            Some(branch_and_bound(&groups, d, budget, report))
        };
        if let Some(out) = out.filter(|o| o.complete || !gray) {
            if let (true, Some(p)) = (gray, progress) {
                p(1, 1);
            }
            let presses = combine(solution, &basis, out.best_u);
            debug_assert_eq!(presses.weight() as u64, out.best);
            let optimal = out.complete;
            return Ok(Shortest {
                presses,
                optimal,
                lower_bound: if optimal {
                    out.best as usize
                } else {
                    out.lower_bound as usize
                },
                method: if optimal {
                    "branch-and-bound"
                } else {
                    "local-search"
                },
            });
        }
        let (weight, code) = gray_walk(&groups, d, progress);
        let presses = combine(solution, &basis, code);
        debug_assert_eq!(presses.weight(), weight);
        return Ok(Shortest {
            presses,
            optimal: true,
            lower_bound: weight,
            method: "gray-code",
        });
    }
    // Past 64 coordinates: descend on single basis flips; bound from the grouped positions.
    let presses = local_descent(solution, &basis);
    let lower_bound = grouped_lower_bound(solution, &basis).min(presses.weight());
    Ok(Shortest {
        optimal: lower_bound == presses.weight(),
        lower_bound,
        presses,
        method: "local-search",
    })
}

/// A basis of `span(vectors)` in reduced row echelon form.
fn independent_basis(vectors: &[BitVec], len: usize) -> Vec<BitVec> {
    let mut m = BitMatrix::from_rows(vectors, len);
    let rank = m.rref_in_place().len();
    (0..rank).map(|i| m.row_vec(i)).collect()
}

/// Replaces basis vectors by lighter sums of pairs while that helps (bounded passes).
fn reduce_weights(basis: &mut [BitVec]) {
    for _ in 0..4 {
        let mut changed = false;
        for i in 0..basis.len() {
            for j in 0..basis.len() {
                if i == j {
                    continue;
                }
                let w: usize = basis[i]
                    .words()
                    .iter()
                    .zip(basis[j].words())
                    .map(|(a, b)| (a ^ b).count_ones() as usize)
                    .sum();
                if w < basis[i].weight() {
                    let bj = basis[j].clone();
                    basis[i].xor_assign(&bj);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// `solution + sum of basis[i] for the bits i of code`.
fn combine(solution: &BitVec, basis: &[BitVec], code: u64) -> BitVec {
    let mut v = solution.clone();
    for (i, b) in basis.iter().enumerate() {
        if (code >> i) & 1 == 1 {
            v.xor_assign(b);
        }
    }
    v
}

/// Positions grouped by their column in the kernel basis: position `p` has key
/// `sum_i basis[i][p] << i`, and for a kernel coordinate vector `u` its bit is
/// `solution[p] + <u, key>`. A group counts its positions whose solution bit is 0 (`c0`) and 1
/// (`c1`): the group costs `c1` presses when `<u, key> = 0` and `c0` when it is 1.
struct Groups {
    /// Keys, sorted ascending; key 0 (positions no quiet pattern touches) first if present.
    keys: Vec<u64>,
    c0: Vec<u64>,
    c1: Vec<u64>,
}

impl Groups {
    fn new(solution: &BitVec, basis: &[BitVec]) -> Groups {
        assert!(basis.len() <= 64);
        let len = solution.len();
        let mut keys = vec![0u64; len];
        for (i, b) in basis.iter().enumerate() {
            for p in b.ones_iter() {
                keys[p] |= 1 << i;
            }
        }
        let mut map: HashMap<u64, (u64, u64)> = HashMap::new();
        for (p, &k) in keys.iter().enumerate() {
            let e = map.entry(k).or_insert((0, 0));
            if solution.get(p) {
                e.1 += 1;
            } else {
                e.0 += 1;
            }
        }
        let mut v: Vec<(u64, (u64, u64))> = map.into_iter().collect();
        v.sort_unstable_by_key(|&(k, _)| k);
        Groups {
            keys: v.iter().map(|&(k, _)| k).collect(),
            c0: v.iter().map(|&(_, (a, _))| a).collect(),
            c1: v.iter().map(|&(_, (_, b))| b).collect(),
        }
    }
}

/// Exact walk over all `2^d` kernel coordinates in Gray-code order. Returns the least weight
/// and the coordinates (bit `i` = basis vector `i`) that reach it.
///
/// Each group contributes `min(c0, c1)` plus `|c0 - c1|` when it sits on its worse side; the
/// worse-side indicators of all groups form a bit vector `y`, and the extra weights are split
/// into bit planes, so the weight is `base + sum_k 2^k popcount(y & plane_k)`. A step toggles
/// the groups of one basis vector in `y` (an XOR of its precomputed word list) and updates the
/// popcounts of the words it touched.
fn gray_walk(groups: &Groups, d: usize, progress: Progress<'_>) -> (usize, u64) {
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
    let total: u64 = 1u64 << d;
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
    const REPORT: u64 = 1 << 22;
    if let Some(p) = progress {
        p(0, total);
    }
    let mut step: u64 = 1;
    while step < total {
        let end = (step | (REPORT - 1)).saturating_add(1).min(total);
        if walk.run(step, end) {
            break;
        }
        step = end;
        if let Some(p) = progress {
            p(step, total);
        }
    }
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
    /// Steps `from..to`; true when a zero extra weight was reached (nothing can beat it).
    fn run(&mut self, from: u64, to: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("popcnt") {
                // SAFETY: the CPU supports popcnt, checked just above.
                return unsafe { self.run_popcnt(from, to) };
            }
        }
        self.steps(from, to)
    }

    /// [`GrayWalk::steps`] compiled with the popcnt instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn run_popcnt(&mut self, from: u64, to: u64) -> bool {
        self.steps(from, to)
    }

    #[inline(always)]
    fn steps(&mut self, from: u64, to: u64) -> bool {
        let y = &mut self.y;
        let mut cur = self.cur;
        for step in from..to {
            let i = step.trailing_zeros() as usize;
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
            cur += self.row_const[i] - 2 * neg;
            if cur < self.best {
                self.best = cur;
                self.best_code = step ^ (step >> 1);
                if cur == 0 {
                    self.cur = cur;
                    return true;
                }
            }
        }
        self.cur = cur;
        false
    }
}

/// Limits of one branch-and-bound run: nodes, and class updates.
#[derive(Clone, Copy)]
struct Budget {
    nodes: u64,
    work: u64,
}

/// The Gray walk's work on these groups, in word updates: coordinate `i` (cheapest rows
/// first) is flipped `2^(d - 1 - i)` times and touches the 64-group words holding its groups,
/// plus a little per step.
fn walk_cost(groups: &Groups, d: usize) -> u64 {
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

/// Outcome of [`branch_and_bound`].
struct BnbOutcome {
    best: u64,
    best_u: u64,
    complete: bool,
    lower_bound: u64,
}

/// One level of the search: the classes of groups that agree on the coordinates not yet fixed.
/// `keys` are the group keys shifted right by the depth; `a`/`b` the class's weight when its
/// common free bit is 0/1, given the coordinates already fixed.
#[derive(Default, Clone)]
struct Level {
    keys: Vec<u64>,
    a: Vec<u64>,
    b: Vec<u64>,
}

impl Level {
    /// Lower bounds of the two children (fixing the next coordinate to 0 and to 1).
    fn child_bounds(&self) -> [u64; 2] {
        let mut lb = [0u64; 2];
        let n = self.keys.len();
        let mut i = 0;
        while i < n {
            let nk = self.keys[i] >> 1;
            let (mut a0, mut b0, mut a1, mut b1) = (0, 0, 0, 0);
            while i < n && self.keys[i] >> 1 == nk {
                let (a, b) = (self.a[i], self.b[i]);
                a0 += a;
                b0 += b;
                if self.keys[i] & 1 == 1 {
                    a1 += b;
                    b1 += a;
                } else {
                    a1 += a;
                    b1 += b;
                }
                i += 1;
            }
            if nk == 0 {
                lb[0] += a0;
                lb[1] += a1;
            } else {
                lb[0] += a0.min(b0);
                lb[1] += a1.min(b1);
            }
        }
        lb
    }

    /// The level below, with the next coordinate fixed to `v`.
    fn descend(&self, v: bool, out: &mut Level) {
        out.keys.clear();
        out.a.clear();
        out.b.clear();
        for i in 0..self.keys.len() {
            let k = self.keys[i];
            let (a, b) = if v && k & 1 == 1 {
                (self.b[i], self.a[i])
            } else {
                (self.a[i], self.b[i])
            };
            let nk = k >> 1;
            if out.keys.last() == Some(&nk) {
                *out.a.last_mut().expect("nonempty") += a;
                *out.b.last_mut().expect("nonempty") += b;
            } else {
                out.keys.push(nk);
                out.a.push(a);
                out.b.push(b);
            }
        }
    }
}

struct Bnb<'a> {
    d: usize,
    levels: Vec<Level>,
    best: u64,
    best_u: u64,
    u: u64,
    nodes: u64,
    /// Class updates so far (the search's unit of work).
    work: u64,
    budget: Budget,
    aborted: bool,
    /// Least lower bound among subtrees left unexplored when the budget ran out.
    frontier: u64,
    covered: u128,
    progress: Progress<'a>,
}

impl Bnb<'_> {
    fn report(&self) {
        if let Some(p) = self.progress {
            let shift = self.d.saturating_sub(62) as u32;
            p(
                (self.covered >> shift) as u64,
                ((1u128 << self.d) >> shift) as u64,
            );
        }
    }

    /// True when the work budget is spent, or an eighth of it is and the search, extrapolated
    /// from the share of the coordinate space it has covered, would overrun it.
    fn out_of_work(&self) -> bool {
        if self.budget.work == u64::MAX {
            return false;
        }
        if self.work >= self.budget.work {
            return true;
        }
        if self.work < self.budget.work / 8 {
            return false;
        }
        let share = self.covered as f64 / (1u128 << self.d) as f64;
        self.work as f64 > share * self.budget.work as f64
    }

    /// Searches below depth `t` (coordinates `0..t` fixed in `self.u`), whose bound is `lb`.
    fn dfs(&mut self, t: usize, lb: u64) {
        if self.aborted {
            self.frontier = self.frontier.min(lb);
            return;
        }
        if lb >= self.best {
            self.covered += 1u128 << (self.d - t);
            return;
        }
        if t == self.d {
            // All coordinates fixed: the bound is the weight.
            self.best = lb;
            self.best_u = self.u;
            self.covered += 1;
            return;
        }
        if self.nodes >= self.budget.nodes || self.out_of_work() {
            self.aborted = true;
            self.frontier = self.frontier.min(lb);
            return;
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(1 << 16) {
            self.report();
        }
        let bounds = self.levels[t].child_bounds();
        self.work += self.levels[t].keys.len() as u64;
        let first = usize::from(bounds[1] < bounds[0]);
        for v in [first, 1 - first] {
            if bounds[v] >= self.best {
                self.covered += 1u128 << (self.d - t - 1);
                continue;
            }
            if self.aborted {
                self.frontier = self.frontier.min(bounds[v]);
                continue;
            }
            let (upper, lower) = self.levels.split_at_mut(t + 1);
            upper[t].descend(v == 1, &mut lower[0]);
            self.work += upper[t].keys.len() as u64;
            if v == 1 {
                self.u |= 1 << t;
            }
            self.dfs(t + 1, bounds[v]);
            self.u &= !(1u64 << t);
        }
    }
}

/// Exact branch and bound over the `d <= 64` kernel coordinates, fixing coordinate 0 first.
///
/// At depth `t` the groups whose keys agree above bit `t` form a class: whatever the free
/// coordinates are, all of its groups see the same free bit, so the class weighs `a` or `b`
/// and at least `min(a, b)` (exactly `a` for the class of key 0, which is decided). The sum over
/// classes is the bound; classes merge pairwise as coordinates are fixed, so a level is computed
/// from the one above in time linear in its number of classes.
fn branch_and_bound(
    groups: &Groups,
    d: usize,
    budget: Budget,
    progress: Progress<'_>,
) -> BnbOutcome {
    let root = Level {
        keys: groups.keys.clone(),
        a: groups.c1.clone(),
        b: groups.c0.clone(),
    };
    // The incumbent u = 0: the solution itself.
    let start: u64 = groups.c1.iter().sum();
    let root_lb: u64 = (0..root.keys.len())
        .map(|i| {
            if root.keys[i] == 0 {
                root.a[i]
            } else {
                root.a[i].min(root.b[i])
            }
        })
        .sum();
    let mut levels = vec![Level::default(); d + 1];
    levels[0] = root;
    let mut s = Bnb {
        d,
        levels,
        best: start,
        best_u: 0,
        u: 0,
        nodes: 0,
        work: 0,
        budget,
        aborted: false,
        frontier: u64::MAX,
        covered: 0,
        progress,
    };
    if root_lb < start {
        s.dfs(0, root_lb);
    }
    s.covered = 1u128 << d;
    if !s.aborted {
        s.report();
    }
    BnbOutcome {
        best: s.best,
        best_u: s.best_u,
        complete: !s.aborted,
        lower_bound: s.frontier.min(s.best).max(root_lb),
    }
}

/// Steepest descent over single basis-vector flips.
fn local_descent(solution: &BitVec, basis: &[BitVec]) -> BitVec {
    let mut cur = solution.clone();
    let mut w = cur.weight();
    loop {
        let mut best: Option<(usize, usize)> = None;
        for (i, b) in basis.iter().enumerate() {
            let nw: usize = cur
                .words()
                .iter()
                .zip(b.words())
                .map(|(x, y)| (x ^ y).count_ones() as usize)
                .sum();
            if nw < best.map_or(w, |b| b.1) {
                best = Some((i, nw));
            }
        }
        match best {
            Some((i, nw)) => {
                cur.xor_assign(&basis[i]);
                w = nw;
            }
            None => return cur,
        }
    }
}

/// `sum over groups of min(c0, c1)` (exact for the positions no quiet pattern touches): a
/// lower bound for kernels of any dimension.
fn grouped_lower_bound(solution: &BitVec, basis: &[BitVec]) -> usize {
    let len = solution.len();
    let stride = basis.len().div_ceil(64);
    let mut keys = vec![0u64; len * stride];
    for (i, b) in basis.iter().enumerate() {
        for p in b.ones_iter() {
            keys[p * stride + i / 64] |= 1 << (i % 64);
        }
    }
    let mut map: HashMap<&[u64], (usize, usize)> = HashMap::new();
    for p in 0..len {
        let e = map
            .entry(&keys[p * stride..(p + 1) * stride])
            .or_insert((0, 0));
        if solution.get(p) {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }
    map.iter()
        .map(|(k, &(c0, c1))| {
            if k.iter().all(|&w| w == 0) {
                c1
            } else {
                c0.min(c1)
            }
        })
        .sum()
}

// ---------------------------------------------------------------------------------------------
// Alien Tiles
// ---------------------------------------------------------------------------------------------

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
        Shape::EvenEven => fast_psi(board),
        Shape::EvenOdd => {
            let mut k = fast_psi(board);
            if fast_psi(&k) != *board {
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

/// `psi(k)` on packed rows: `k_ij + r_i + c_j`, O(mn / 64) word operations.
fn fast_psi(k: &Board) -> Board {
    let (m, n) = (k.rows(), k.cols());
    let rows = super::chase::Rows::from_bits(m, n, k.bits());
    let stride = rows.stride();
    let mut c = vec![0u64; stride];
    let mut r = vec![false; m];
    for (i, ri) in r.iter_mut().enumerate() {
        let row = rows.row(i);
        let mut par = 0u32;
        for (cw, &w) in c.iter_mut().zip(row) {
            *cw ^= w;
            par ^= w.count_ones();
        }
        *ri = par & 1 == 1;
    }
    let mut out = rows;
    let ones = super::chase::Rows::ones_row(n);
    for (i, &ri) in r.iter().enumerate() {
        let row = out.row_mut(i);
        for (w, (&cw, &o)) in row.iter_mut().zip(c.iter().zip(&ones)) {
            *w ^= cw ^ if ri { o } else { 0 };
        }
    }
    Board::from_bits(m, n, out.to_bits()).expect("same size")
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
        let s = self.s;
        let mut w = self.w0.clone();
        let mut a: u64 = 0;
        let mut a_weight = 0u32;
        let mut best = self.total(&w, 0, u32::MAX);
        let mut best_a = 0u64;
        let total: u64 = 1u64 << (s - 1);
        let report = 1u64 << 20;
        if let Some(p) = progress {
            p(0, total);
        }
        for step in 1..total {
            let i = step.trailing_zeros() as usize + 1;
            let (add, sub) = if (a >> i) & 1 == 1 {
                a_weight -= 1;
                (&self.minus[i], &self.plus[i])
            } else {
                a_weight += 1;
                (&self.plus[i], &self.minus[i])
            };
            for ((x, &p), &q) in w.iter_mut().zip(add).zip(sub) {
                *x = *x + p - q;
            }
            a ^= 1 << i;
            let t = self.total(&w, a_weight, best);
            if t < best {
                best = t;
                best_a = a;
            }
            if step % report == 0
                && let Some(p) = progress
            {
                p(step, total);
            }
        }
        if let Some(p) = progress {
            p(total, total);
        }
        best_a
    }

    /// [`LineCounts::enumerate_any`] with the `W` count words in an array.
    fn enumerate_fixed<const W: usize>(&self, progress: Progress<'_>) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
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
        let bias = (0x80 - (s / 2 + 1)) * BYTES;
        let s_bytes = s * BYTES;
        let arr = |v: &[u64]| -> [u64; W] { v.try_into().expect("W words") };
        // Per row: the change when a_i goes 0 -> 1 and when it goes back.
        let steps: Vec<([u64; W], [u64; W])> = (0..self.s)
            .map(|i| (arr(&self.plus[i]), arr(&self.minus[i])))
            .collect();
        let mut w: [u64; W] = arr(&self.w0);
        let mut a: u64 = 0;
        let mut a_weight = 0u32;
        let mut best = self.total(&w, 0, u32::MAX);
        let mut best_a = 0u64;
        let total: u64 = 1u64 << (s - 1);
        let report = 1u64 << 22;
        if let Some(p) = progress {
            p(0, total);
        }
        let mut step = 1u64;
        while step < total {
            let end = (step | (report - 1)).saturating_add(1).min(total);
            while step < end {
                let i = step.trailing_zeros() as usize + 1;
                let (p, q) = &steps[i];
                let up = (a >> i) & 1 == 0;
                a ^= 1 << i;
                a_weight = if up { a_weight + 1 } else { a_weight - 1 };
                let mut acc = 0u64;
                let mut flags = 0u64;
                for t in 0..W {
                    let x = if up {
                        w[t] + p[t] - q[t]
                    } else {
                        w[t] + q[t] - p[t]
                    };
                    w[t] = x;
                    let (c, f) = min_bytes(x, bias, s_bytes);
                    flags += f;
                    acc += (c & EVEN_BYTES) + ((c >> 8) & EVEN_BYTES);
                }
                let sum = fold16(acc) as u32;
                let cnt = flags.wrapping_mul(BYTES) >> 56;
                let t = if (a_weight + cnt as u32).is_multiple_of(2) {
                    sum
                } else if sum + 1 >= best {
                    u32::MAX
                } else {
                    sum + self.s as u32 - 2 * self.max_cost(&w)
                };
                if t < best {
                    best = t;
                    best_a = a;
                }
                step += 1;
            }
            if let Some(p) = progress {
                p(step, total);
            }
        }
        best_a
    }

    /// The presses `k + a 1^T + 1 b^T` with the best `b` for `a` (parity fixed).
    fn finish(&self, a: u64) -> Board {
        let flips: Vec<bool> = (0..self.s).map(|i| (a >> i) & 1 == 1).collect();
        best_for_rows(&self.k, &flips).0
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_vec(rng: &mut ChaCha8Rng, len: usize) -> BitVec {
        BitVec::from_bools(&(0..len).map(|_| rng.r#gen::<bool>()).collect::<Vec<_>>())
    }

    /// Plain enumeration of the coset: the oracle.
    fn brute(solution: &BitVec, kernel: &[BitVec]) -> usize {
        let basis = independent_basis(kernel, solution.len());
        (0..1u64 << basis.len())
            .map(|c| combine(solution, &basis, c).weight())
            .min()
            .unwrap()
    }

    #[test]
    fn gray_and_bnb_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for trial in 0..200 {
            let len = rng.gen_range(1..150);
            let d = rng.gen_range(0..12);
            let mut kernel: Vec<BitVec> = (0..d).map(|_| random_vec(&mut rng, len)).collect();
            if trial % 3 == 0 && d > 1 {
                // Dependent and sparse vectors too.
                kernel[0] = kernel[1].clone();
                for v in kernel.iter_mut().skip(2).step_by(2) {
                    for i in 0..len {
                        if rng.gen_range(0..4) != 0 {
                            v.set(i, false);
                        }
                    }
                }
            }
            let x = random_vec(&mut rng, len);
            let want = brute(&x, &kernel);
            let auto = shortest_by_kernel(&x, &kernel, None).unwrap();
            assert_eq!(auto.weight(), want, "default, trial {trial}");
            assert!(auto.optimal);
            let walk_only = Limits {
                probe: false,
                ..Limits::default()
            };
            let gray = shortest_by_kernel_with(&x, &kernel, &walk_only, None).unwrap();
            assert_eq!(gray.weight(), want, "gray, trial {trial}");
            assert!(gray.optimal);
            let d = independent_basis(&kernel, len).len();
            assert_eq!(gray.method, if d == 0 { "unique" } else { "gray-code" });
            let bnb_limits = Limits {
                gray_max_nullity: 0,
                ..Limits::default()
            };
            let bnb = shortest_by_kernel_with(&x, &kernel, &bnb_limits, None).unwrap();
            assert_eq!(bnb.weight(), want, "bnb, trial {trial}");
            assert!(bnb.optimal);
            // Both are in the coset.
            for s in [&gray, &bnb] {
                let mut diff = s.presses.clone();
                diff.xor_assign(&x);
                let mut span = kernel.clone();
                span.push(diff);
                assert_eq!(
                    independent_basis(&span, len).len(),
                    independent_basis(&kernel, len).len()
                );
            }
        }
    }

    #[test]
    fn bnb_with_tiny_budget_reports_a_valid_bound() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..30 {
            let len = 120;
            let kernel: Vec<BitVec> = (0..14).map(|_| random_vec(&mut rng, len)).collect();
            let x = random_vec(&mut rng, len);
            let want = brute(&x, &kernel);
            let limits = Limits {
                gray_max_nullity: 0,
                node_budget: 20,
                ..Limits::default()
            };
            let s = shortest_by_kernel_with(&x, &kernel, &limits, None).unwrap();
            assert!(s.lower_bound <= want, "{} > {want}", s.lower_bound);
            assert!(s.weight() >= want);
            if s.optimal {
                assert_eq!(s.weight(), want);
            } else {
                assert_eq!(s.method, "local-search");
            }
        }
    }

    #[test]
    fn weighted_groups_in_the_gray_walk() {
        // Repeated positions make group weights above 1 (several bit planes).
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..50 {
            let base_len = 12;
            let reps = rng.gen_range(1..6);
            let kb: Vec<BitVec> = (0..6).map(|_| random_vec(&mut rng, base_len)).collect();
            let kernel: Vec<BitVec> = kb
                .iter()
                .map(|v| {
                    let mut out = BitVec::zeros(0);
                    for _ in 0..reps {
                        for i in 0..base_len {
                            out.push(v.get(i));
                        }
                    }
                    out
                })
                .collect();
            let x = random_vec(&mut rng, base_len * reps);
            let walk_only = Limits {
                probe: false,
                ..Limits::default()
            };
            let s = shortest_by_kernel_with(&x, &kernel, &walk_only, None).unwrap();
            assert_eq!(s.weight(), brute(&x, &kernel));
            let s = shortest_by_kernel(&x, &kernel, None).unwrap();
            assert_eq!(s.weight(), brute(&x, &kernel));
        }
    }

    #[test]
    fn progress_is_reported_and_lengths_checked() {
        let x = BitVec::zeros(10);
        let k = vec![BitVec::ones(9)];
        assert!(matches!(
            shortest_by_kernel(&x, &k, None),
            Err(Error::Length {
                expected: 10,
                found: 9
            })
        ));
        let calls = std::cell::Cell::new(0);
        let cb = |d: u64, t: u64| {
            assert!(d <= t);
            calls.set(calls.get() + 1);
        };
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let kernel: Vec<BitVec> = (0..8).map(|_| random_vec(&mut rng, 40)).collect();
        let x = random_vec(&mut rng, 40);
        let s = shortest_by_kernel(&x, &kernel, Some(&cb)).unwrap();
        assert!(calls.get() >= 1);
        assert_eq!(s.weight(), brute(&x, &kernel));
    }

    #[test]
    fn fast_psi_matches_paper_psi() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for (m, n) in [(1, 1), (2, 3), (5, 7), (3, 64), (4, 65), (7, 130)] {
            let b = Board::from_bits(m, n, random_vec(&mut rng, m * n)).unwrap();
            assert_eq!(fast_psi(&b), alien::psi(&b), "{m}x{n}");
        }
    }

    #[test]
    fn alien_solutions_solve() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        for (m, n) in [
            (2, 2),
            (2, 3),
            (3, 2),
            (3, 3),
            (4, 5),
            (5, 4),
            (6, 7),
            (7, 7),
            (1, 4),
        ] {
            for _ in 0..20 {
                let k = Board::from_bits(m, n, random_vec(&mut rng, m * n)).unwrap();
                let board = alien::psi(&k);
                let sol = alien_solution(&board).expect("solvable");
                assert_eq!(alien::psi(&sol), board);
                let best = alien_shortest(&board).unwrap();
                assert_eq!(alien::psi(&best), board);
                assert!(best.weight() <= sol.weight());
            }
        }
        let lone = Board::from_rows(&["100", "000", "000"]).unwrap();
        assert!(alien_solution(&lone).is_none());
        assert!(alien_shortest(&lone).is_none());
    }

    #[test]
    fn odd_odd_local_search_is_labelled_with_a_valid_bound() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let limits = Limits {
            alien_max_enum_bits: 2,
            ..Limits::default()
        };
        for _ in 0..10 {
            let k = Board::from_bits(7, 9, random_vec(&mut rng, 63)).unwrap();
            let board = alien::psi(&k);
            let exact = alien_shortest(&board).unwrap().weight();
            let s = alien_shortest_with(&board, &limits, None).unwrap();
            let presses = Board::from_bits(7, 9, s.presses.clone()).unwrap();
            assert_eq!(alien::psi(&presses), board);
            assert!(s.lower_bound <= exact && exact <= s.weight());
            assert_eq!(s.optimal, s.lower_bound == s.weight());
            if !s.optimal {
                assert_eq!(s.method, "local-search");
            }
        }
    }
}
