//! Light chasing over `Z/QZ`: q-state stencil games (lights-out, squares, stencils) on boards
//! far beyond [`super::qstate::MAX_Q_SIZE`].
//!
//! As over GF(2) ([`super::chase`]): with `(a, b)` the leftmost one of the stencil's top row,
//! press `(p, j)` is the last press (row-major) that reaches light `(p + a, j + b)`, so once
//! the earlier presses are known that light decides it: `x_pj = -(b_qk + sum of the other
//! presses reaching (q, k)) (mod Q)`. Presses whose leading light is off the board are the
//! `u` unknowns; the lights that lead no press give `u` constraints. Chasing once with every
//! press an affine form over the unknowns (`u` residues per press, only the stencil's height
//! of press rows alive at once) gives the `u x u` constraint system, reduced once over `Z/QZ`
//! by the Smith normal form of [`super::qstate`]; each board then costs a chase with zero
//! unknowns, one solve of the small system and a chase with the values found. Plain boards
//! only (no torus), `Q <= 127` (residues in bytes), and no change of orientation.

use super::qstate::{QBoard, ZqSystem};
use super::{Game, Pattern};
use crate::error::{Error, Result};
use num_bigint::BigUint;

/// The largest number of states [`QChaser`] handles.
pub const MAX_CHASE_STATES: u32 = 127;

/// The chase's geometry: the board, the stencil and which presses are unknowns.
#[derive(Clone, Debug)]
struct Geometry {
    rows: usize,
    cols: usize,
    q: u8,
    lead: (isize, isize),
    /// The stencil's offsets other than the lead.
    others: Vec<(isize, isize)>,
    offsets: Vec<(isize, isize)>,
    /// The variable of each press, `u32::MAX` for determined presses.
    var: Vec<u32>,
}

/// Light chasing for one q-state game, prepared once.
#[derive(Clone, Debug)]
pub struct QChaser {
    geo: Geometry,
    /// The constraint lights `(r, c)`, in the order of the system's rows.
    constraints: Vec<(usize, usize)>,
    sys: ZqSystem,
}

impl QChaser {
    /// Chases `game` once over the unknowns and reduces the constraint system.
    ///
    /// # Errors
    /// [`Error::Spec`] for a game that is not a plain stencil game with `2..=127` states.
    pub fn new(game: &Game) -> Result<QChaser> {
        let bad = |reason: String| Error::spec(game.to_string(), reason);
        let stencil = super::chase::chase_stencil(game)?;
        if game.torus {
            return Err(bad(
                "q-state light chasing needs a plain board: drop --torus".into(),
            ));
        }
        if !(2..=MAX_CHASE_STATES).contains(&game.states) {
            return Err(bad(format!(
                "q-state light chasing needs 2..={MAX_CHASE_STATES} states, found {}",
                game.states
            )));
        }
        let offsets = stencil.offsets();
        let (a, b) = super::chase::pivot(&offsets);
        let (m, n) = (game.rows, game.cols);
        let mut var = vec![u32::MAX; m * n];
        let mut u = 0u32;
        for p in 0..m {
            for j in 0..n {
                if !on(m, n, p as isize + a, j as isize + b) {
                    var[p * n + j] = u;
                    u += 1;
                }
            }
        }
        let geo = Geometry {
            rows: m,
            cols: n,
            q: game.states as u8,
            lead: (a, b),
            others: offsets.iter().copied().filter(|&o| o != (a, b)).collect(),
            offsets,
            var,
        };
        let (constraints, l) = geo.linear_chase(u as usize);
        let sys = ZqSystem::new(l, u as usize, u as usize, game.states as u64);
        Ok(QChaser {
            geo,
            constraints,
            sys,
        })
    }

    /// The number of unknowns `u`.
    pub fn unknowns(&self) -> usize {
        self.constraints.len()
    }

    /// The number of solutions of every solvable board (`Q^u` over the size of the
    /// constraint system's image).
    pub fn solutions_per_board(&self) -> BigUint {
        self.sys.solutions()
    }

    /// Press counts that solve `board` (bring every cell to 0), `Ok(None)` when it is not
    /// solvable.
    ///
    /// # Errors
    /// [`Error::Board`] when the board's size or number of states differs from the game's.
    pub fn solve(&self, board: &QBoard) -> Result<Option<Vec<u32>>> {
        let g = &self.geo;
        if (board.rows(), board.cols(), board.states()) != (g.rows, g.cols, g.q as u32) {
            return Err(Error::Board {
                reason: format!(
                    "expected a {}x{} board with {} states, found {}x{} with {}",
                    g.rows,
                    g.cols,
                    g.q,
                    board.rows(),
                    board.cols(),
                    board.states()
                ),
            });
        }
        let q = g.q as u32;
        let zero = vec![0u32; self.unknowns()];
        let res0 = g.residual(&self.constraints, board, &g.concrete_chase(board, &zero));
        let neg: Vec<u32> = res0.iter().map(|&v| (q - v) % q).collect();
        let Ok(x) = self.sys.attain(&neg) else {
            return Ok(None);
        };
        let presses = g.concrete_chase(board, &x);
        debug_assert!(
            g.residual(&self.constraints, board, &presses)
                .iter()
                .all(|&v| v == 0)
        );
        Ok(Some(presses.into_iter().map(u32::from).collect()))
    }
}

impl Geometry {
    /// The constraint lights with the press row after which each can be evaluated.
    fn constraint_lights(&self) -> Vec<(usize, usize, usize)> {
        let (m, n) = (self.rows, self.cols);
        let (a, b) = self.lead;
        let mut out = Vec::new();
        for r in 0..m {
            for c in 0..n {
                let (p, j) = (r as isize - a, c as isize - b);
                if !on(m, n, p, j) {
                    out.push((r, c, p.clamp(0, m as isize - 1) as usize));
                }
            }
        }
        out.sort_by_key(|x| x.2);
        out
    }

    /// The chase over affine forms (homogeneous part): the constraint lights and the
    /// row-major `u x u` matrix of their forms.
    fn linear_chase(&self, u: usize) -> (Vec<(usize, usize)>, Vec<u64>) {
        let (m, n, q) = (self.rows, self.cols, self.q);
        let (a, b) = self.lead;
        let bottom = self.offsets.iter().map(|o| o.0).max().expect("nonempty");
        let slots = (bottom - a + 1) as usize;
        let mut ring = vec![0u8; slots * n * u.max(1)];
        let at = |r: usize, c: usize| ((r % slots) * n + c) * u;
        let cons = self.constraint_lights();
        let mut l = vec![0u64; u * u];
        let mut ci = 0;
        let mut acc = vec![0u8; u];
        for p in 0..m {
            for j in 0..n {
                let dst = at(p, j);
                let v = self.var[p * n + j];
                if v != u32::MAX {
                    ring[dst..dst + u].fill(0);
                    ring[dst + v as usize] = 1;
                    continue;
                }
                let (r, c) = (p as isize + a, j as isize + b);
                acc.fill(0);
                for &(dr, dc) in &self.others {
                    let (pr, pc) = (r - dr, c - dc);
                    if on(m, n, pr, pc) {
                        let src = at(pr as usize, pc as usize);
                        add_mod(&mut acc, &ring[src..src + u], q);
                    }
                }
                for (d, &s) in ring[dst..dst + u].iter_mut().zip(&acc) {
                    *d = if s == 0 { 0 } else { q - s };
                }
            }
            while ci < cons.len() && cons[ci].2 == p {
                let (r, c, _) = cons[ci];
                acc.fill(0);
                for &(dr, dc) in &self.offsets {
                    let (pr, pc) = (r as isize - dr, c as isize - dc);
                    if on(m, n, pr, pc) {
                        let src = at(pr as usize, pc as usize);
                        add_mod(&mut acc, &ring[src..src + u], q);
                    }
                }
                for (d, &s) in l[ci * u..(ci + 1) * u].iter_mut().zip(&acc) {
                    *d = s as u64;
                }
                ci += 1;
            }
        }
        debug_assert_eq!(ci, u);
        (cons.into_iter().map(|(r, c, _)| (r, c)).collect(), l)
    }

    /// The presses for `board` with the unknowns set to `x`.
    fn concrete_chase(&self, board: &QBoard, x: &[u32]) -> Vec<u8> {
        let (m, n, q) = (self.rows, self.cols, self.q);
        let (a, b) = self.lead;
        let cells = board.cells();
        let mut presses = vec![0u8; m * n];
        for p in 0..m {
            for j in 0..n {
                let v = self.var[p * n + j];
                if v != u32::MAX {
                    presses[p * n + j] = x[v as usize] as u8;
                    continue;
                }
                let (r, c) = (p as isize + a, j as isize + b);
                let mut s = cells[r as usize * n + c as usize];
                for &(dr, dc) in &self.others {
                    let (pr, pc) = (r - dr, c - dc);
                    if on(m, n, pr, pc) {
                        s += presses[pr as usize * n + pc as usize] as u32;
                    }
                }
                let s = (s % q as u32) as u8;
                presses[p * n + j] = if s == 0 { 0 } else { q - s };
            }
        }
        presses
    }

    /// The board's values plus the presses' effect on each constraint light, mod `Q`.
    fn residual(&self, constraints: &[(usize, usize)], board: &QBoard, presses: &[u8]) -> Vec<u32> {
        let (m, n) = (self.rows, self.cols);
        let q = self.q as u32;
        constraints
            .iter()
            .map(|&(r, c)| {
                let mut s = board.get(r, c);
                for &(dr, dc) in &self.offsets {
                    let (pr, pc) = (r as isize - dr, c as isize - dc);
                    if on(m, n, pr, pc) {
                        s += presses[pr as usize * n + pc as usize] as u32;
                    }
                }
                s % q
            })
            .collect()
    }
}

/// True when `(r, c)` is on an `m x n` board.
#[inline]
fn on(m: usize, n: usize, r: isize, c: isize) -> bool {
    (0..m as isize).contains(&r) && (0..n as isize).contains(&c)
}

/// `acc = acc + src (mod q)`, entries below `q <= 127`.
#[inline]
fn add_mod(acc: &mut [u8], src: &[u8], q: u8) {
    for (d, &s) in acc.iter_mut().zip(src) {
        let t = *d + s;
        *d = if t >= q { t - q } else { t };
    }
}

/// True when [`QChaser`] applies to `game`.
pub fn applies(game: &Game) -> bool {
    !game.torus
        && !matches!(game.pattern, Pattern::Alien | Pattern::GaleBerlekamp)
        && (2..=MAX_CHASE_STATES).contains(&game.states)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::qstate::{QSolver, effect_q, random_solvable_q};
    use crate::game::solve::Solve;
    use rand::SeedableRng;

    #[test]
    fn agrees_with_the_smith_normal_form() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for spec in ["lights-out:4x5", "squares:5x4", "stencil:011/110/010:4x4"] {
            for q in [2, 3, 4, 6, 9] {
                let game = spec.parse::<Game>().unwrap().with_states(q);
                let c = QChaser::new(&game).unwrap();
                let s = QSolver::new(&game).unwrap();
                assert_eq!(c.solutions_per_board(), s.solutions_per_board(), "{game}");
                for k in 0..20 {
                    let board = if k % 2 == 0 {
                        random_solvable_q(&game, &mut rng)
                    } else {
                        let cells = (0..game.num_cells())
                            .map(|i| (i as u32 * 7 + k) % q)
                            .collect();
                        QBoard::from_cells(game.rows, game.cols, q, cells).unwrap()
                    };
                    let direct = s.solve(&board);
                    match c.solve(&board).unwrap() {
                        Some(x) => {
                            assert!(direct.is_ok(), "{game}: chased an unsolvable board");
                            let made = effect_q(&game, &x);
                            for (m, b) in made.cells().iter().zip(board.cells()) {
                                assert_eq!((m + b) % q, 0, "{game}");
                            }
                        }
                        None => assert!(direct.is_err(), "{game}: missed a solution"),
                    }
                }
            }
        }
    }
}
