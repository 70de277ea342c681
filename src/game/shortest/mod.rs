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
//! One module per method: `gray_walk`, `bnb` (branch and bound) and `alien_tiles`; q-state
//! games have their own searches in [`super::qshortest`] and [`super::qalien`].
//!
//! Alien Tiles has a kernel with enough structure to do much better ([`alien_shortest`]):
//! O(mn) on even-by-odd boards, and an enumeration of `2^(min(m, n) - 1)` row patterns with a
//! greedy exact choice of the columns on odd-by-odd boards.

mod alien_tiles;
mod bnb;
mod gray_walk;
#[cfg(test)]
mod tests;

pub use alien_tiles::{alien_shortest, alien_shortest_with, alien_solution};
use bnb::{Budget, branch_and_bound};
use gray_walk::{gray_walk, walk_cost};

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
