//! The paper's states decomposition (Section 6): solve a `Q`-state game one prime at a time.
//!
//! `Q` is split into prime powers `p^r` (the Chinese remainder theorem). Over `Z/p^rZ` the
//! presses are found digit by digit: a solution `a` of `A a = g (mod p)` leaves
//! `A a - g = p z`, and the presses `a + p y` solve the game when `A y = -z (mod p^(r-1))`.
//!
//! The paper leaves open which solution `a` to take when `A` has quiet patterns mod `p`: a
//! wrong one makes the next layer unsolvable. Here the choice is made by the next layer itself.
//! With `K` a basis of the quiet patterns mod `p` (from the layer's reduced echelon form) every
//! candidate is `a + K u`, and `A K = p W` for an integer matrix `W`. Then
//! `A (a + K u + p y) = g (mod p^r)` exactly when `[A | W] (y; u) = h (mod p^(r-1))` with
//! `h = (g - A a) / p`: the kernel coordinates `u` join the next layer as extra unknowns, and
//! that layer (decomposed the same way) picks them. Every solution restricted to a layer has
//! this form, so the decomposition succeeds on every solvable board (`docs/theory.md` gives
//! the argument). Only elimination mod a prime is used, on `cells x (moves + sum of kernel
//! dimensions)` matrices.

use super::Game;
use super::qstate::{MAX_Q_SIZE, QBoard, crt_idempotent, factorize};
use crate::error::{Error, Result};

/// One layer: the system `A x = target (mod p)` that the decomposition solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The prime `p`.
    pub prime: u64,
    /// The layer's depth: 0 solves mod `p`, 1 the next digit, and so on.
    pub level: u32,
    /// The layer's target mod `p`, one value per cell.
    pub target: Vec<u32>,
    /// The layer's particular solution mod `p` (zero on the free moves), one value per move.
    pub presses: Vec<u32>,
    /// The dimension of the quiet patterns mod `p` among this layer's unknowns.
    pub kernel_dim: usize,
    /// True when the next layers moved this layer's solution by a quiet pattern (the paper's
    /// choice, the particular solution, would have failed or was not the one found).
    pub adjusted: bool,
}

/// The presses found by decomposition and the layers that found them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decomposition {
    /// Press counts mod `Q`, one per move.
    pub presses: Vec<u32>,
    /// Every layer, prime by prime, lowest level first.
    pub layers: Vec<Layer>,
}

/// The move matrix of `game`, `cells x moves`, 0/1 entries.
fn move_matrix(game: &Game) -> Vec<Vec<u64>> {
    let mut a = vec![vec![0u64; game.num_moves()]; game.num_cells()];
    for (mv, cells) in (0..game.num_moves()).map(|mv| (mv, game.move_cells(mv))) {
        for c in cells {
            a[c][mv] = 1;
        }
    }
    a
}

/// Presses `x` with `A x = target (mod Q)`, the paper's convention, by decomposition; `None`
/// when there are none.
///
/// # Errors
/// [`Error::Limit`] past [`MAX_Q_SIZE`]; [`Error::Length`] for a target of the wrong length.
pub fn attain(game: &Game, target: &[u32]) -> Result<Option<Decomposition>> {
    attain_with(game, target, false)
}

/// [`attain`] with the paper's choice at every layer (the particular solution, never a quiet
/// pattern added): `None` also when that choice makes a later layer unsolvable.
///
/// # Errors
/// As [`attain`].
pub fn attain_naive(game: &Game, target: &[u32]) -> Result<Option<Decomposition>> {
    attain_with(game, target, true)
}

/// Presses that solve `board` (bring every cell to 0), by decomposition.
///
/// # Errors
/// As [`attain`].
pub fn solve(game: &Game, board: &QBoard) -> Result<Option<Decomposition>> {
    let q = game.states;
    let neg: Vec<u32> = board.cells().iter().map(|&v| (q - v) % q).collect();
    attain(game, &neg)
}

fn attain_with(game: &Game, target: &[u32], naive: bool) -> Result<Option<Decomposition>> {
    let (cells, moves) = (game.num_cells(), game.num_moves());
    if cells + moves > MAX_Q_SIZE {
        return Err(Error::Limit {
            what: format!("decomposing {} with {} states", game.spec(), game.states),
            reason: format!(
                "expected cells + moves <= {MAX_Q_SIZE}, found {}",
                cells + moves
            ),
        });
    }
    if target.len() != cells {
        return Err(Error::Length {
            expected: cells,
            found: target.len(),
        });
    }
    let q = game.states as u64;
    let a = move_matrix(game);
    let mut presses = vec![0u64; moves];
    let mut layers = Vec::new();
    for (p, r) in factorize(q) {
        let pr = p.pow(r);
        let g: Vec<u64> = target.iter().map(|&v| v as u64 % pr).collect();
        let mut ctx = Lift {
            p,
            moves,
            naive,
            layers: Vec::new(),
        };
        let Some(x) = ctx.lift(&a, &g, r, 0) else {
            return Ok(None);
        };
        let idem = crt_idempotent(pr, q);
        for (acc, v) in presses.iter_mut().zip(&x) {
            *acc = ((*acc as u128 + *v as u128 * idem as u128) % q as u128) as u64;
        }
        ctx.layers.sort_by_key(|l| l.level);
        layers.extend(ctx.layers);
    }
    Ok(Some(Decomposition {
        presses: presses.into_iter().map(|v| v as u32).collect(),
        layers,
    }))
}

/// The lifting over one prime power.
struct Lift {
    p: u64,
    /// The game's moves: the leading unknowns of every layer.
    moves: usize,
    naive: bool,
    layers: Vec<Layer>,
}

impl Lift {
    /// A solution of `a x = g (mod p^r)` (entries of `a` and `g` already mod `p^r`).
    fn lift(&mut self, a: &[Vec<u64>], g: &[u64], r: u32, level: u32) -> Option<Vec<u64>> {
        let p = self.p;
        let pr = p.pow(r);
        let cols = a.first().map_or(0, Vec::len);
        let (part, kernel) = solve_mod_p(a, g, p)?;
        let mut layer = Layer {
            prime: p,
            level,
            target: g.iter().map(|&v| (v % p) as u32).collect(),
            presses: part[..self.moves].iter().map(|&v| v as u32).collect(),
            kernel_dim: kernel.len(),
            adjusted: false,
        };
        if r == 1 {
            self.layers.push(layer);
            return Some(part);
        }
        // h = (g - A part) / p, exact: the layer solved g mod p.
        let ap = mul(a, &part, pr);
        let h: Vec<u64> = g
            .iter()
            .zip(&ap)
            .map(|(&gi, &x)| (gi + pr - x) % pr / p)
            .collect();
        let next_pr = pr / p;
        let extra = if self.naive { 0 } else { kernel.len() };
        // The next layer's unknowns: y (cols), then u (one per quiet pattern).
        let next: Vec<Vec<u64>> = a
            .iter()
            .map(|row| {
                let mut out: Vec<u64> = row.iter().map(|&v| v % next_pr).collect();
                for k in &kernel[..extra] {
                    let ak = mul(std::slice::from_ref(row), k, pr)[0];
                    out.push(ak / p % next_pr);
                }
                out
            })
            .collect();
        let z = self.lift(&next, &h, r - 1, level + 1)?;
        let (y, u) = z.split_at(cols);
        let mut x: Vec<u64> = part
            .iter()
            .zip(y)
            .map(|(&a, &b)| (a + p * b) % pr)
            .collect();
        for (k, &uk) in kernel.iter().zip(u) {
            if uk % pr != 0 {
                layer.adjusted = true;
            }
            for (xi, &ki) in x.iter_mut().zip(k) {
                *xi = (*xi + ki * uk) % pr;
            }
        }
        self.layers.push(layer);
        Some(x)
    }
}

/// `a x mod m`.
fn mul(a: &[Vec<u64>], x: &[u64], m: u64) -> Vec<u64> {
    a.iter()
        .map(|row| {
            row.iter().zip(x).fold(0u128, |acc, (&v, &w)| {
                (acc + (v % m) as u128 * (w % m) as u128) % m as u128
            }) as u64
        })
        .collect()
}

/// Gauss–Jordan elimination mod a prime: a solution of `a x = g (mod p)` that is zero on the
/// free columns, and a basis of the kernel (one vector per free column), or `None`.
fn solve_mod_p(a: &[Vec<u64>], g: &[u64], p: u64) -> Option<(Vec<u64>, Vec<Vec<u64>>)> {
    let cols = a.first().map_or(0, Vec::len);
    let mut m: Vec<Vec<u64>> = a
        .iter()
        .zip(g)
        .map(|(row, &gi)| row.iter().chain([&gi]).map(|&v| v % p).collect())
        .collect();
    let mut pivots = Vec::new();
    let mut r = 0;
    for c in 0..cols {
        let Some(i) = (r..m.len()).find(|&i| m[i][c] != 0) else {
            continue;
        };
        m.swap(r, i);
        let inv = inverse_mod_p(m[r][c], p);
        for v in m[r].iter_mut() {
            *v = *v * inv % p;
        }
        let pivot = m[r].clone();
        for (i, row) in m.iter_mut().enumerate() {
            if i != r && row[c] != 0 {
                let f = row[c];
                for (v, &s) in row.iter_mut().zip(&pivot) {
                    *v = (*v + (p - f) * s) % p;
                }
            }
        }
        pivots.push(c);
        r += 1;
    }
    if m[r..].iter().any(|row| row[cols] != 0) {
        return None;
    }
    let mut x = vec![0u64; cols];
    for (i, &c) in pivots.iter().enumerate() {
        x[c] = m[i][cols];
    }
    let free = (0..cols).filter(|c| !pivots.contains(c));
    let kernel = free
        .map(|f| {
            let mut k = vec![0u64; cols];
            k[f] = 1;
            for (i, &c) in pivots.iter().enumerate() {
                k[c] = (p - m[i][f]) % p;
            }
            k
        })
        .collect();
    Some((x, kernel))
}

fn inverse_mod_p(a: u64, p: u64) -> u64 {
    // Fermat: a^(p-2), by square and multiply.
    let (mut base, mut e, mut out) = (a % p, p - 2, 1u64);
    while e > 0 {
        if e & 1 == 1 {
            out = out * base % p;
        }
        base = base * base % p;
        e >>= 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elimination_mod_p_solves_and_spans_the_kernel() {
        let a = vec![vec![1, 2, 0], vec![2, 4, 1]];
        let (x, k) = solve_mod_p(&a, &[3, 1], 5).unwrap();
        assert_eq!(mul(&a, &x, 5), vec![3, 1]);
        assert_eq!(k.len(), 1);
        assert_eq!(mul(&a, &k[0], 5), vec![0, 0]);
        assert!(solve_mod_p(&[vec![1, 1], vec![2, 2]], &[1, 1], 3).is_none());
        assert_eq!(inverse_mod_p(3, 7) * 3 % 7, 1);
    }
}
