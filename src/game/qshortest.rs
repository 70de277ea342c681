//! Shortest solutions of q-state games: the fewest clicks, a press counted `0..Q-1` times.
//!
//! The solutions of a solvable board are `x + K` for one solution `x` and the group `K` of
//! quiet patterns (the kernel of the move matrix over `Z/QZ`). [`Solve::quiet_generators`]
//! gives `K` as a direct sum of cyclic groups `<g_i>` of orders `o_i`, so every solution is
//! `x + sum c_i g_i` for exactly one tuple `0 <= c_i < o_i`. [`shortest_q`] walks those tuples
//! in mixed-radix Gray order (one generator added or subtracted per step, the click count
//! updated on the generator's support) when `|K|` is at most [`QLimits::max_kernel`], which
//! proves the minimum. Past that it descends from `x` by multiples of single generators and
//! reports the best found, `optimal: false`, with the clicks of the cells no quiet pattern
//! touches as a proven lower bound.
//!
//! Alien Tiles goes through its row and column sums instead ([`super::qalien`]), exactly, in
//! time independent of the kernel's size.

use super::gray;
use super::qalien;
use super::qstate::{QBoard, QSolver};
use super::shortest::Progress;
use super::solve::Solve;
use super::{Game, Pattern};
use crate::error::Result;

/// A q-state solution with as few clicks as the search could prove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QShortest {
    /// Press counts per move, `0..Q`.
    pub presses: Vec<u32>,
    /// True when no solution has fewer clicks.
    pub optimal: bool,
    /// A proven lower bound on the clicks of every solution; equals [`QShortest::clicks`]
    /// when `optimal`.
    pub lower_bound: u64,
    /// How it was found: `unique`, `kernel-walk`, `row-sums` (exact) or `local-search` (best
    /// found, not proven optimal).
    pub method: &'static str,
}

impl QShortest {
    /// The number of clicks: the sum of the press counts.
    pub fn clicks(&self) -> u64 {
        clicks(&self.presses)
    }
}

/// The sum of press counts.
pub fn clicks(presses: &[u32]) -> u64 {
    presses.iter().map(|&v| v as u64).sum()
}

/// Search limits for [`shortest_q_with`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QLimits {
    /// The largest number of quiet patterns walked exhaustively.
    pub max_kernel: u64,
    /// The largest number of row-sum vectors enumerated for Alien Tiles (per total).
    pub max_alien_rows: u64,
}

impl Default for QLimits {
    /// 2^26 kernel elements, 2^22 row-sum vectors.
    fn default() -> Self {
        QLimits {
            max_kernel: 1 << 26,
            max_alien_rows: 1 << 22,
        }
    }
}

/// The fewest clicks solving `board`, with the default [`QLimits`]; `None` when the board is
/// not solvable.
///
/// # Errors
/// As [`Solve::check_board`]: a board of the wrong size or number of states.
pub fn shortest_q(
    solver: &QSolver,
    board: &QBoard,
    progress: Progress<'_>,
) -> Result<Option<QShortest>> {
    shortest_q_with(solver, board, &QLimits::default(), progress)
}

/// [`shortest_q`] with explicit limits.
///
/// # Errors
/// As [`Solve::check_board`]: a board of the wrong size or number of states.
pub fn shortest_q_with(
    solver: &QSolver,
    board: &QBoard,
    limits: &QLimits,
    progress: Progress<'_>,
) -> Result<Option<QShortest>> {
    let Ok(x) = solver.try_solve(board)? else {
        return Ok(None);
    };
    let game = solver.game();
    if game.pattern == Pattern::Alien
        && let Some(best) = qalien::shortest(board, limits.max_alien_rows)
    {
        return Ok(Some(best));
    }
    Ok(Some(by_kernel(game, &x, solver, limits, progress)))
}

/// A quiet pattern as its nonzero entries, and its order.
struct Generator {
    support: Vec<(usize, u32)>,
    order: u64,
}

fn by_kernel(
    game: &Game,
    x: &[u32],
    solver: &QSolver,
    limits: &QLimits,
    progress: Progress<'_>,
) -> QShortest {
    let q = game.states;
    let gens: Vec<Generator> = solver
        .quiet_generators()
        .into_iter()
        .filter(|g| g.order > 1)
        .map(|g| Generator {
            support: g
                .presses
                .iter()
                .enumerate()
                .filter(|&(_, &v)| v != 0)
                .map(|(i, &v)| (i, v))
                .collect(),
            order: g.order,
        })
        .collect();
    if gens.is_empty() {
        let c = clicks(x);
        return QShortest {
            presses: x.to_vec(),
            optimal: true,
            lower_bound: c,
            method: "unique",
        };
    }
    let size = gens
        .iter()
        .try_fold(1u64, |acc, g| acc.checked_mul(g.order));
    match size {
        Some(size) if size <= limits.max_kernel => walk_kernel(x, &gens, q, progress),
        _ => descend(x, &gens, q),
    }
}

/// Adds `sign * g` to `cur` (mod `q`), keeping `cost` the sum of `cur`.
fn add(cur: &mut [u32], cost: &mut u64, g: &Generator, up: bool, q: u32) {
    for &(i, v) in &g.support {
        let old = cur[i];
        let new = if up { (old + v) % q } else { (old + q - v) % q };
        cur[i] = new;
        *cost = *cost + new as u64 - old as u64;
    }
}

fn walk_kernel(x: &[u32], gens: &[Generator], q: u32, progress: Progress<'_>) -> QShortest {
    let radices: Vec<u64> = gens.iter().map(|g| g.order).collect();
    let mut cur = x.to_vec();
    let mut cost = clicks(x);
    let mut best = (cost, cur.clone());
    gray::walk(&radices, progress, |i, up| {
        add(&mut cur, &mut cost, &gens[i], up, q);
        if cost < best.0 {
            best = (cost, cur.clone());
        }
        true
    });
    QShortest {
        presses: best.1,
        optimal: true,
        lower_bound: best.0,
        method: "kernel-walk",
    }
}

fn descend(x: &[u32], gens: &[Generator], q: u32) -> QShortest {
    let mut cur = x.to_vec();
    let mut cost = clicks(x);
    loop {
        let mut improved = false;
        for g in gens {
            let (mut c, mut v) = (cost, cur.clone());
            for _ in 1..g.order {
                add(&mut v, &mut c, g, true, q);
                if c < cost {
                    (cost, cur) = (c, v.clone());
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    // Cells no quiet pattern touches have the same count in every solution.
    let mut free = vec![false; x.len()];
    for g in gens {
        for &(i, _) in &g.support {
            free[i] = true;
        }
    }
    let lower_bound = x
        .iter()
        .zip(&free)
        .filter(|&(_, &f)| !f)
        .map(|(&v, _)| v as u64)
        .sum();
    QShortest {
        optimal: lower_bound == cost,
        presses: cur,
        lower_bound,
        method: "local-search",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::qstate::effect_q;

    #[test]
    fn a_kernel_walk_beats_a_plain_solution_and_still_solves() {
        // Pressing cell 0 three times makes a board that one more press clears.
        let game: Game = "lights-out:2x2".parse::<Game>().unwrap().with_states(4);
        let s = QSolver::new(&game).unwrap();
        let board = effect_q(&game, &[3, 0, 0, 0]);
        let best = shortest_q(&s, &board, None).unwrap().unwrap();
        assert!(best.optimal);
        assert_eq!(best.clicks(), 1);
        let made = effect_q(&game, &best.presses);
        let sum: Vec<u32> = made
            .cells()
            .iter()
            .zip(board.cells())
            .map(|(a, b)| (a + b) % 4)
            .collect();
        assert!(sum.iter().all(|&v| v == 0), "{sum:?}");
    }

    #[test]
    fn descent_is_labelled_and_bounded() {
        let game: Game = "lights-out:4x4".parse::<Game>().unwrap().with_states(2);
        let s = QSolver::new(&game).unwrap();
        let board = effect_q(&game, &[1; 16]);
        let limits = QLimits {
            max_kernel: 1,
            max_alien_rows: 1,
        };
        let best = shortest_q_with(&s, &board, &limits, None).unwrap().unwrap();
        assert_eq!(best.method, "local-search");
        assert!(best.lower_bound <= best.clicks());
        let exact = shortest_q(&s, &board, None).unwrap().unwrap();
        assert_eq!(exact.method, "kernel-walk");
        assert!(exact.clicks() <= best.clicks());
        assert!(exact.clicks() >= best.lower_bound);
    }
}
