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
//!
//! Each layer's matrix is reduced by the packed elimination over `GF(p)` of `game::gfp`
//! (bytes, sparse-aware, the reduction of square-free `Q`), built column by column: the
//! game's moves from their footprints, the quiet-pattern columns `W` dense. When a layer has
//! no quiet patterns the next layer's matrix is the same mod `p` and its factorisation is
//! reused, so a game whose move matrix is invertible mod `p` is factorised once per prime.
//! The bound is the packed one, per layer: `unknowns^2 x (cells + unknowns) <=`
//! [`MAX_PACKED_WORK`], with `unknowns` the moves plus the quiet-pattern coordinates carried
//! from the earlier layers (square games up to 128 x 128 when no layer has quiet patterns).

use super::Game;
use super::gfp::Gfp;
use super::qstate::{MAX_PACKED_WORK, QBoard, crt_idempotent, effect_q, factorize};
use crate::error::{Error, Result};
use num_bigint::BigUint;
use num_traits::{One, Pow};

/// The largest prime the decomposition eliminates modulo (the packed elimination's entries
/// are bytes).
pub const MAX_DECOMPOSE_PRIME: u64 = 251;

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
    /// True for [`attain_naive`]: the layers carry no quiet-pattern columns.
    pub naive: bool,
}

impl Decomposition {
    /// True when the presses are the only solution: the move matrix has no quiet pattern mod
    /// any prime of `Q` (then none mod `Q` either).
    pub fn unique(&self) -> bool {
        self.layers.iter().all(|l| l.level > 0 || l.kernel_dim == 0)
    }

    /// The number of solutions (of every solvable board) when the layers tell it: 1 when
    /// [`unique`](Self::unique), otherwise the product over the primes of `p^k`, `k` the
    /// kernel dimension of the prime's last layer, when every prime divides `Q` at most twice
    /// (`Q` = 4, 9, 12, 36, ...); `None` for a higher power with quiet patterns, and for
    /// [`attain_naive`].
    ///
    /// Over `Z/p^2Z` a quiet pattern `x` is `K u + p y` for unique `u, y` mod `p`, and
    /// `A x = p (W u + A y) (mod p^2)`: the quiet patterns mod `p^2` are in bijection with the
    /// kernel of the second layer's `[A | W]` mod `p`. Past the second digit the carries of
    /// `K u` make that correspondence nonlinear.
    pub fn solutions(&self) -> Option<BigUint> {
        if self.unique() {
            return Some(BigUint::one());
        }
        if self.naive {
            return None;
        }
        let mut count = BigUint::one();
        let mut i = 0;
        while i < self.layers.len() {
            let p = self.layers[i].prime;
            let depth = self.layers[i..].iter().take_while(|l| l.prime == p).count();
            if depth > 2 {
                return None;
            }
            let last = &self.layers[i + depth - 1];
            count *= BigUint::from(p).pow(last.kernel_dim as u32);
            i += depth;
        }
        Some(count)
    }
}

/// Presses `x` with `A x = target (mod Q)`, the paper's convention, by decomposition; `None`
/// when there are none.
///
/// # Errors
/// [`Error::Limit`] when a layer passes [`MAX_PACKED_WORK`] or a prime of `Q` is above
/// [`MAX_DECOMPOSE_PRIME`]; [`Error::Length`] for a target of the wrong length.
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

/// Checks that `game` is within reach of the decomposition before any layer is built: its
/// primes, and the first layer's work (later layers are checked as their quiet-pattern
/// coordinates join).
///
/// # Errors
/// As [`attain`].
pub fn check(game: &Game) -> Result<()> {
    let what = || format!("decomposing {} with {} states", game.spec(), game.states);
    if let Some((p, _)) = factorize(game.states as u64)
        .into_iter()
        .find(|&(p, _)| p > MAX_DECOMPOSE_PRIME)
    {
        return Err(Error::Limit {
            what: what(),
            reason: format!(
                "expected primes of Q up to {MAX_DECOMPOSE_PRIME} (each layer eliminates mod p \
                 in bytes), found {p}; the Smith normal form (--method gauss) takes any Q up \
                 to cells + moves <= 2048"
            ),
        });
    }
    check_layer(game, game.num_moves(), 0)
}

/// The packed work bound for a layer with `unknowns` unknowns.
fn check_layer(game: &Game, unknowns: usize, level: u32) -> Result<()> {
    let work = (unknowns as u128).pow(2) * (game.num_cells() as u128 + unknowns as u128);
    if work <= MAX_PACKED_WORK {
        return Ok(());
    }
    Err(Error::Limit {
        what: format!("decomposing {} with {} states", game.spec(), game.states),
        reason: format!(
            "expected unknowns^2 x (cells + unknowns) <= 2^43 for each layer's packed \
             elimination, found {work} at layer {level} ({unknowns} unknowns: {} moves and \
             {} quiet-pattern coordinates of earlier layers); square games are limited to \
             128x128, or fewer moves when the game has quiet patterns mod a prime of Q",
            game.num_moves(),
            unknowns - game.num_moves()
        ),
    })
}

fn attain_with(game: &Game, target: &[u32], naive: bool) -> Result<Option<Decomposition>> {
    check(game)?;
    let (cells, moves) = (game.num_cells(), game.num_moves());
    if target.len() != cells {
        return Err(Error::Length {
            expected: cells,
            found: target.len(),
        });
    }
    let q = game.states as u64;
    let mut presses = vec![0u64; moves];
    let mut layers = Vec::new();
    for (p, r) in factorize(q) {
        let pr = p.pow(r);
        let g: Vec<u64> = target.iter().map(|&v| v as u64 % pr).collect();
        let mut ctx = Lift {
            game,
            p,
            naive,
            layers: Vec::new(),
        };
        let Some(x) = ctx.lift(Vec::new(), &g, r, 0, None)? else {
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
        naive,
    }))
}

/// The lifting over one prime power. A layer's matrix is `[A | W]`: the game's move matrix
/// `A`, then the dense columns `W` of the quiet patterns carried from the earlier layers.
struct Lift<'a> {
    game: &'a Game,
    p: u64,
    naive: bool,
    layers: Vec<Layer>,
}

impl Lift<'_> {
    /// A solution of `[A | w] x = g (mod p^r)` (entries of `w` and `g` already mod `p^r`);
    /// `reuse` is the factorisation of `[A | w] mod p` when the caller has it.
    fn lift(
        &mut self,
        w: Vec<Vec<u64>>,
        g: &[u64],
        r: u32,
        level: u32,
        reuse: Option<Gfp>,
    ) -> Result<Option<Vec<u64>>> {
        let (p, moves) = (self.p, self.game.num_moves());
        let pr = p.pow(r);
        let cols = moves + w.len();
        check_layer(self.game, cols, level)?;
        let gfp = match reuse {
            Some(f) => f,
            None => self.factorize(&w),
        };
        let c: Vec<u8> = g.iter().map(|&v| (v % p) as u8).collect();
        let Ok(part) = gfp.solve(&c) else {
            return Ok(None);
        };
        let part: Vec<u64> = part.into_iter().map(u64::from).collect();
        let kernel_dim = cols - gfp.rank();
        let mut layer = Layer {
            prime: p,
            level,
            target: c.iter().map(|&v| v as u32).collect(),
            presses: part[..moves].iter().map(|&v| v as u32).collect(),
            kernel_dim,
            adjusted: false,
        };
        if r == 1 {
            self.layers.push(layer);
            return Ok(Some(part));
        }
        let kernel: Vec<Vec<u64>> = if self.naive || kernel_dim == 0 {
            Vec::new()
        } else {
            let k = gfp.kernel();
            k.into_iter()
                .map(|v| v.into_iter().map(u64::from).collect())
                .collect()
        };
        // The next layer's matrix is this one mod p when no column joins it.
        let reuse = kernel.is_empty().then_some(gfp);
        // h = (g - [A | w] part) / p, exact: the layer solved g mod p.
        let ap = self.mul(&w, &part, pr);
        let h: Vec<u64> = g
            .iter()
            .zip(&ap)
            .map(|(&gi, &x)| (gi + pr - x) % pr / p)
            .collect();
        let next_pr = pr / p;
        // The next layer's unknowns: y (cols), then u (one per quiet pattern), whose columns
        // are [A | w] k / p.
        let mut next: Vec<Vec<u64>> = w
            .iter()
            .map(|col| col.iter().map(|&v| v % next_pr).collect())
            .collect();
        for k in &kernel {
            let ak = self.mul(&w, k, pr);
            next.push(ak.into_iter().map(|v| v / p % next_pr).collect());
        }
        drop(w);
        let Some(z) = self.lift(next, &h, r - 1, level + 1, reuse)? else {
            return Ok(None);
        };
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
        Ok(Some(x))
    }

    /// `[A | w] mod p`, factorised: the moves' columns from their footprints (a cell listed
    /// twice counts twice), then `w`'s.
    fn factorize(&self, w: &[Vec<u64>]) -> Gfp {
        let (game, moves) = (self.game, self.game.num_moves());
        Gfp::from_entries(game.num_cells(), moves + w.len(), self.p as u8, |j| {
            if j < moves {
                game.move_cells(j).into_iter().map(|i| (i, 1)).collect()
            } else {
                w[j - moves]
                    .iter()
                    .enumerate()
                    .filter(|&(_, &v)| v % self.p != 0)
                    .map(|(i, &v)| (i, v))
                    .collect()
            }
        })
    }

    /// `[A | w] x mod m`, for `m` a power of `p` dividing `Q` and entries of `x` below `m`:
    /// `A` through [`effect_q`] (linear time for alien and Gale–Berlekamp).
    fn mul(&self, w: &[Vec<u64>], x: &[u64], m: u64) -> Vec<u64> {
        let moves = self.game.num_moves();
        let presses: Vec<u32> = x[..moves].iter().map(|&v| v as u32).collect();
        let mut out: Vec<u64> = effect_q(self.game, &presses)
            .cells()
            .iter()
            .map(|&v| v as u64 % m)
            .collect();
        for (col, &xj) in w.iter().zip(&x[moves..]) {
            if xj % m != 0 {
                for (o, &v) in out.iter_mut().zip(col) {
                    *o = ((*o as u128 + v as u128 * xj as u128) % m as u128) as u64;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
