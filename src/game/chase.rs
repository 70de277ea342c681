//! Light chasing: solving stencil games (Lights Out, Toggle Squares, any 0/1 stencil) on
//! boards far too large for an `mn x mn` matrix.
//!
//! Order the presses row-major. The *leading* offset `(a, b)` of a stencil is its topmost row's
//! leftmost one. Press `(p, j)` is then the last press (in that order) that reaches light
//! `(p + a, j + b)`, so once every earlier press is known, that light decides it. Presses whose
//! leading light is off the board are unknowns; lights that lead no press are constraints (as
//! many as unknowns). Chasing once with every press an *affine form* over the unknowns (packed
//! bit rows, only the stencil's height of press rows alive at once) turns the constraint lights
//! into a small `u x u` system; solving it with [`crate::gf2`] and chasing again with the values
//! solves the board. For the plus of Lights Out `u = n`, for Toggle Squares `u = m + n - 1`.
//! The board is first turned (one of the eight symmetries) to the orientation with the fewest
//! unknowns.
//!
//! On a torus a press row has no edge, so chasing needs a stencil with one outermost row (or
//! column) holding a single one; the first `height - 1` press rows are the unknowns and the
//! `height - 1` lights rows they lead are the constraints.
//!
//! The Toggle Squares clearing sweeps of the notes are in [`super::squares`].

use super::{Board, Game, Pattern};
use crate::error::{Error, Result};
use crate::gf2::{BitMatrix, BitVec, Echelon, extract_bits, words_for};

// ---------------------------------------------------------------------------------------------
// Packed rows: boards as `BitMatrix` (rows padded to whole words)
// ---------------------------------------------------------------------------------------------

/// `dst ^= src << s` over whole words (bit `j` of `src` to bit `j + s`); caller masks the tail.
fn shl_xor(dst: &mut [u64], src: &[u64], s: usize) {
    let (ws, bs) = (s / 64, s % 64);
    for (i, d) in dst.iter_mut().skip(ws).enumerate() {
        let mut v = src[i] << bs;
        if bs > 0 && i >= 1 {
            v |= src[i - 1] >> (64 - bs);
        }
        *d ^= v;
    }
}

/// `dst ^= src >> s` (bit `j + s` of `src` to bit `j`).
fn shr_xor(dst: &mut [u64], src: &[u64], s: usize) {
    let (ws, bs) = (s / 64, s % 64);
    let len = src.len();
    for (w, d) in dst.iter_mut().enumerate() {
        let i = w + ws;
        if i >= len {
            break;
        }
        let mut v = src[i] >> bs;
        if bs > 0 && i + 1 < len {
            v |= src[i + 1] << (64 - bs);
        }
        *d ^= v;
    }
}

/// `dst ^= src` moved `s` columns right (bit `j` of `src` to bit `j + s` of `dst`) in a row of
/// `n` columns: bits pushed past an edge are dropped, or wrap around on a torus.
fn shift_xor(dst: &mut [u64], src: &[u64], n: usize, s: isize, torus: bool) {
    if torus {
        let s = s.rem_euclid(n as isize) as usize;
        if s == 0 {
            for (d, x) in dst.iter_mut().zip(src) {
                *d ^= x;
            }
        } else {
            shl_xor(dst, src, s);
            shr_xor(dst, src, n - s);
        }
    } else if s >= 0 {
        if (s as usize) < n {
            shl_xor(dst, src, s as usize);
        }
    } else if ((-s) as usize) < n {
        shr_xor(dst, src, (-s) as usize);
    }
    if !n.is_multiple_of(64)
        && let Some(last) = dst.get_mut(n / 64)
    {
        *last &= (1u64 << (n % 64)) - 1;
    }
}

/// `data[dst..dst + len] ^= data[src..src + len]` for disjoint ranges.
#[inline]
fn xor_within(data: &mut [u64], dst: usize, src: usize, len: usize) {
    if dst < src {
        let (lo, hi) = data.split_at_mut(src);
        for (d, s) in lo[dst..dst + len].iter_mut().zip(&hi[..len]) {
            *d ^= s;
        }
    } else {
        let (lo, hi) = data.split_at_mut(dst);
        for (d, s) in hi[..len].iter_mut().zip(&lo[src..src + len]) {
            *d ^= s;
        }
    }
}

/// `data[dst..dst + len] ^= data[s..s + len]` for every `s` in `srcs` (at most four ranges,
/// each disjoint from the destination), in one pass over the destination.
#[inline]
fn xor_many_within(data: &mut [u64], dst: usize, srcs: &[usize], len: usize) {
    let (lo, rest) = data.split_at_mut(dst);
    let (d, hi) = rest.split_at_mut(len);
    let src = |s: usize| -> &[u64] {
        if s < dst {
            &lo[s..s + len]
        } else {
            &hi[s - dst - len..s - dst]
        }
    };
    match *srcs {
        [] => {}
        [a] => d.iter_mut().zip(src(a)).for_each(|(d, a)| *d ^= a),
        [a, b] => {
            for ((d, a), b) in d.iter_mut().zip(src(a)).zip(src(b)) {
                *d ^= a ^ b;
            }
        }
        [a, b, c] => {
            for (((d, a), b), c) in d.iter_mut().zip(src(a)).zip(src(b)).zip(src(c)) {
                *d ^= a ^ b ^ c;
            }
        }
        _ => {
            for &s in srcs {
                d.iter_mut().zip(src(s)).for_each(|(d, a)| *d ^= a);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Orientation
// ---------------------------------------------------------------------------------------------

/// One of the eight symmetries of the grid: an optional transpose, then optional flips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Orient {
    transpose: bool,
    flip_rows: bool,
    flip_cols: bool,
}

impl Orient {
    fn all() -> impl Iterator<Item = Orient> {
        (0..8).map(|k| Orient {
            transpose: k & 4 != 0,
            flip_rows: k & 1 != 0,
            flip_cols: k & 2 != 0,
        })
    }

    fn is_identity(self) -> bool {
        !(self.transpose || self.flip_rows || self.flip_cols)
    }

    fn dims(self, m: usize, n: usize) -> (usize, usize) {
        if self.transpose { (n, m) } else { (m, n) }
    }

    fn offset(self, (dr, dc): (isize, isize)) -> (isize, isize) {
        let (r, c) = if self.transpose { (dc, dr) } else { (dr, dc) };
        (
            if self.flip_rows { -r } else { r },
            if self.flip_cols { -c } else { c },
        )
    }

    /// Original cell `(i, j)` of an `m x n` board to its transformed cell.
    fn cell(self, m: usize, n: usize, i: usize, j: usize) -> (usize, usize) {
        let (mt, nt) = self.dims(m, n);
        let (r, c) = if self.transpose { (j, i) } else { (i, j) };
        (
            if self.flip_rows { mt - 1 - r } else { r },
            if self.flip_cols { nt - 1 - c } else { c },
        )
    }

    /// Row-major bits of an `m x n` board, transformed.
    fn forward(self, m: usize, n: usize, bits: &BitVec) -> BitVec {
        if self.is_identity() {
            return bits.clone();
        }
        let (_, nt) = self.dims(m, n);
        let mut out = BitVec::zeros(m * n);
        for p in bits.ones_iter() {
            let (r, c) = self.cell(m, n, p / n, p % n);
            out.set(r * nt + c, true);
        }
        out
    }

    /// Transformed bits back to the original `m x n` orientation.
    fn backward(self, m: usize, n: usize, bits: &BitVec) -> BitVec {
        if self.is_identity() {
            return bits.clone();
        }
        let (_, nt) = self.dims(m, n);
        let mut out = BitVec::zeros(m * n);
        for i in 0..m {
            for j in 0..n {
                let (r, c) = self.cell(m, n, i, j);
                if bits.get(r * nt + c) {
                    out.set(i * n + j, true);
                }
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// The chaser
// ---------------------------------------------------------------------------------------------

/// Where a press's value comes from during a chase.
enum Source {
    /// Off the board (plain boards): contributes nothing.
    Off,
    /// An unknown: the unit form of variable `v`.
    Var(usize),
    /// A determined press stored at this word offset of the ring of press rows.
    Ring(usize),
}

/// The geometry of a chase in the chosen orientation.
#[derive(Clone, Debug)]
struct Layout {
    m: usize,
    n: usize,
    torus: bool,
    offsets: Vec<(isize, isize)>,
    /// The leading offset `(a, b)`.
    lead: (isize, isize),
    /// The offsets other than the leading one.
    others: Vec<(isize, isize)>,
    /// Lowest stencil row offset `D`; the stencil spans rows `a..=D`.
    bottom: isize,
    /// `D - a + 1`.
    height: usize,
    /// First variable of each press row (plain boards); `m + 1` entries.
    row_first_var: Vec<usize>,
    unknowns: usize,
    /// True when the top row of the stencil is the single leading one.
    single_top: bool,
}

/// The stencil cell light chasing pivots on: the leftmost one of its top row, as an offset
/// `(row, column)` from the pressed cell.
pub(crate) fn pivot(offsets: &[(isize, isize)]) -> (isize, isize) {
    let a = offsets
        .iter()
        .map(|o| o.0)
        .min()
        .expect("a stencil has a one");
    let b = offsets
        .iter()
        .filter(|o| o.0 == a)
        .map(|o| o.1)
        .min()
        .expect("top row");
    (a, b)
}

impl Layout {
    fn new(m: usize, n: usize, torus: bool, offsets: Vec<(isize, isize)>) -> Layout {
        let (a, b) = pivot(&offsets);
        let bottom = offsets.iter().map(|o| o.0).max().expect("nonempty");
        let height = (bottom - a + 1) as usize;
        let single_top = offsets.iter().filter(|o| o.0 == a).count() == 1;
        let others: Vec<_> = offsets.iter().copied().filter(|&o| o != (a, b)).collect();
        let mut row_first_var = vec![0; m + 1];
        let mut unknowns = 0;
        for (p, first) in row_first_var.iter_mut().take(m).enumerate() {
            *first = unknowns;
            unknowns += if torus {
                if p + 1 < height { n } else { 0 }
            } else {
                let q = p as isize + a;
                if q < 0 || q >= m as isize {
                    n
                } else {
                    (b.unsigned_abs()).min(n)
                }
            };
        }
        row_first_var[m] = unknowns;
        Layout {
            m,
            n,
            torus,
            offsets,
            lead: (a, b),
            others,
            bottom,
            height,
            row_first_var,
            unknowns,
            single_top,
        }
    }

    /// The variable of press `(p, j)` if it is an unknown.
    #[inline]
    fn var(&self, p: usize, j: usize) -> Option<usize> {
        let first = self.row_first_var[p];
        let count = self.row_first_var[p + 1] - first;
        if count == 0 {
            None
        } else if count == self.n {
            Some(first + j)
        } else {
            let b = self.lead.1;
            if b < 0 {
                (j < count).then_some(first + j)
            } else {
                let start = self.n - count;
                (j >= start).then(|| first + j - start)
            }
        }
    }

    /// The light that decides the determined press `(p, j)`.
    #[inline]
    fn leading_light(&self, p: usize, j: usize) -> (usize, usize) {
        let (a, b) = self.lead;
        let (q, k) = (p as isize + a, j as isize + b);
        if self.torus {
            (
                q.rem_euclid(self.m as isize) as usize,
                k.rem_euclid(self.n as isize) as usize,
            )
        } else {
            (q as usize, k as usize)
        }
    }

    /// Cell `(r, c)` on the board, wrapped on a torus, `None` off a plain board.
    #[inline]
    fn place(&self, r: isize, c: isize) -> Option<(usize, usize)> {
        let (m, n) = (self.m as isize, self.n as isize);
        if self.torus {
            Some((r.rem_euclid(m) as usize, c.rem_euclid(n) as usize))
        } else if (0..m).contains(&r) && (0..n).contains(&c) {
            Some((r as usize, c as usize))
        } else {
            None
        }
    }

    /// The constraint lights, each with the press row after which it can be evaluated, in
    /// evaluation order.
    fn constraints(&self) -> Vec<(usize, usize, usize)> {
        let (m, n) = (self.m, self.n);
        let (a, b) = self.lead;
        let mut out = Vec::with_capacity(self.unknowns);
        if self.torus {
            for p0 in 0..self.height - 1 {
                let q = (p0 as isize + a).rem_euclid(m as isize) as usize;
                for k in 0..n {
                    out.push((q, k, m - 1));
                }
            }
            return out;
        }
        for q in 0..m {
            let lead_row = q as isize - a;
            if lead_row < 0 || lead_row >= m as isize {
                let e = lead_row.clamp(0, m as isize - 1) as usize;
                for k in 0..n {
                    out.push((q, k, e));
                }
            } else {
                for k in 0..n {
                    let lead_col = k as isize - b;
                    if lead_col < 0 || lead_col >= n as isize {
                        out.push((q, k, lead_row as usize));
                    }
                }
            }
        }
        out.sort_by_key(|c| c.2);
        out
    }

    /// True when the concrete chase can run on packed rows: each determined press row is the
    /// shifted residual of one light row.
    fn packed(&self) -> bool {
        self.single_top && (self.torus || self.lead.1 == 0)
    }
}

/// Light chasing for one game, prepared once and reused for many boards.
///
/// [`Chaser::new`] chases affine forms once (board independent) and reduces the constraint
/// system; [`Chaser::solve`] then costs two O(mn) chases and a `u x u` back substitution.
#[derive(Clone, Debug)]
pub struct Chaser {
    rows: usize,
    cols: usize,
    orient: Orient,
    layout: Option<Layout>,
    constraints: Vec<(usize, usize)>,
    echelon: Echelon,
}

impl Chaser {
    /// Prepares light chasing for a two-state stencil game (lights-out, squares, stencil),
    /// plain or on a torus.
    ///
    /// # Errors
    /// [`Error::Spec`] when the game is not a two-state stencil game, or, on a torus, when no
    /// outermost row or column of the stencil holds a single one, or the board is smaller than
    /// the stencil.
    pub fn new(game: &Game) -> Result<Chaser> {
        let bad = |reason: String| Error::spec(game.to_string(), reason);
        if game.states != 2 {
            return Err(bad(format!(
                "light chasing needs a two-state game, found {} states",
                game.states
            )));
        }
        let stencil = chase_stencil(game)?;
        let (m, n) = (game.rows, game.cols);
        let offsets = stencil.offsets();
        if offsets.is_empty() || m == 0 || n == 0 {
            // Presses change nothing: only the dark board is solvable.
            return Ok(Chaser {
                rows: m,
                cols: n,
                orient: Orient {
                    transpose: false,
                    flip_rows: false,
                    flip_cols: false,
                },
                layout: None,
                constraints: Vec::new(),
                echelon: BitMatrix::zeros(0, 0).echelon(),
            });
        }
        let mut best: Option<(usize, bool, Orient, Layout)> = None;
        for o in Orient::all() {
            let (mt, nt) = o.dims(m, n);
            let offs: Vec<_> = offsets.iter().map(|&x| o.offset(x)).collect();
            let layout = Layout::new(mt, nt, game.torus, offs);
            if game.torus {
                let width = {
                    let lo = layout.offsets.iter().map(|x| x.1).min().expect("nonempty");
                    let hi = layout.offsets.iter().map(|x| x.1).max().expect("nonempty");
                    (hi - lo + 1) as usize
                };
                if !layout.single_top || layout.height > mt || width > nt {
                    continue;
                }
            }
            let key = (layout.unknowns, !layout.packed());
            if best.as_ref().is_none_or(|b| key < (b.0, b.1)) {
                best = Some((key.0, key.1, o, layout));
            }
        }
        let Some((_, _, orient, layout)) = best else {
            return Err(bad(
                if stencil.height() > m.min(n) || stencil.width() > m.min(n) {
                    format!(
                        "light chasing on a torus needs a board at least as large as the stencil \
                     ({}x{}), found {m}x{n}",
                        stencil.height(),
                        stencil.width()
                    )
                } else {
                    "light chasing on a torus needs a stencil whose top, bottom, left or right row \
                 holds a single one"
                        .into()
                },
            ));
        };
        let (constraints, l) = constraint_system(&layout);
        Ok(Chaser {
            rows: m,
            cols: n,
            orient,
            layout: Some(layout),
            constraints,
            echelon: l.echelon(),
        })
    }

    /// The number of unknowns `u` of the chase (presses not decided by a light).
    pub fn unknowns(&self) -> usize {
        self.layout.as_ref().map_or(0, |l| l.unknowns)
    }

    /// The nullity of the game: `u - rank` of the constraint system.
    pub fn nullity(&self) -> usize {
        match &self.layout {
            Some(l) => l.unknowns - self.echelon.rank(),
            None => self.rows * self.cols,
        }
    }

    /// Presses that solve `board`, `Ok(None)` when it is unsolvable.
    ///
    /// # Errors
    /// [`Error::Spec`] when the board's size differs from the game's.
    pub fn solve(&self, board: &Board) -> Result<Option<BitVec>> {
        let (m, n) = (self.rows, self.cols);
        if (board.rows(), board.cols()) != (m, n) {
            return Err(Error::Board {
                reason: format!(
                    "expected a {m}x{n} board, found {}x{}",
                    board.rows(),
                    board.cols()
                ),
            });
        }
        let Some(layout) = &self.layout else {
            return Ok(board.bits().is_zero().then(|| BitVec::zeros(m * n)));
        };
        let b = self.orient.forward(m, n, board.bits());
        let b_rows = BitMatrix::from_row_major(layout.m, layout.n, &b);
        // Chase with every unknown 0: the constraint lights left lit are the right-hand side.
        let zero = BitVec::zeros(layout.unknowns);
        let p0 = concrete_chase(layout, &b_rows, &zero);
        let resid = residual(layout, &b_rows, &p0);
        let rhs = BitVec::from_bools(
            &self
                .constraints
                .iter()
                .map(|&(q, k)| resid.get(q, k))
                .collect::<Vec<_>>(),
        );
        let Ok(x) = self.echelon.solve(&rhs) else {
            return Ok(None);
        };
        let p = concrete_chase(layout, &b_rows, &x);
        debug_assert!(residual(layout, &b_rows, &p).is_zero());
        Ok(Some(self.orient.backward(m, n, &p.to_row_major())))
    }

    /// A basis of the quiet patterns (presses that change nothing), from the kernel of the
    /// constraint system chased over the dark board.
    pub fn quiet_patterns(&self) -> Vec<BitVec> {
        let (m, n) = (self.rows, self.cols);
        let Some(layout) = &self.layout else {
            return (0..m * n).map(|i| BitVec::unit(m * n, i)).collect();
        };
        let dark = BitMatrix::zeros(layout.m, layout.n);
        self.echelon
            .kernel()
            .iter()
            .map(|x| {
                let p = concrete_chase(layout, &dark, x);
                self.orient.backward(m, n, &p.to_row_major())
            })
            .collect()
    }
}

/// The stencil of a game light chasing can take, or the error saying it needs one.
pub(crate) fn chase_stencil(game: &Game) -> Result<super::Stencil> {
    game.pattern.stencil().ok_or_else(|| {
        Error::spec(
            game.to_string(),
            format!(
                "light chasing needs a stencil game (lights-out, squares, stencil), found {}",
                game.pattern.spec_name()
            ),
        )
    })
}

/// One-shot light chasing: presses that solve `board`, `Ok(None)` when it is unsolvable.
///
/// # Errors
/// As [`Chaser::new`] and [`Chaser::solve`].
pub fn chase_solve(game: &Game, board: &Board) -> Result<Option<BitVec>> {
    Chaser::new(game)?.solve(board)
}

/// The constraint lights in equation order and the `u x u` matrix of their forms: for plain
/// Lights Out by its polynomial ([`super::chebyshev`]), else by [`linear_chase`].
fn constraint_system(layout: &Layout) -> (Vec<(usize, usize)>, BitMatrix) {
    let mut plus = layout.offsets.clone();
    plus.sort_unstable();
    if !layout.torus && plus == [(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)] {
        // Row 0's presses are the unknowns and row m - 1's lights the constraints, in order.
        let (m, n) = (layout.m, layout.n);
        debug_assert!((0..n).all(|j| layout.var(0, j) == Some(j)) && layout.unknowns == n);
        let constraints: Vec<_> = (0..n).map(|k| (m - 1, k)).collect();
        debug_assert!(
            layout
                .constraints()
                .iter()
                .map(|c| (c.0, c.1))
                .eq(constraints.iter().copied())
        );
        return (constraints, super::chebyshev::lights_out_constraints(m, n));
    }
    linear_chase(layout)
}

/// The chase over affine forms: every press as a packed form over the `u` unknowns. Returns the
/// constraint lights in equation order and the `u x u` matrix of their forms.
fn linear_chase(layout: &Layout) -> (Vec<(usize, usize)>, BitMatrix) {
    let (m, n, u) = (layout.m, layout.n, layout.unknowns);
    let w = words_for(u).max(1);
    let b = layout.lead.1;
    let h = layout.height;
    // With a single top one in the centre column and a bottom row of just (D, 0), press
    // (p - h + 1, j) is read last by press (p, j): its slot can be reused in place, so only
    // h - 1 press rows live at once (two for Lights Out).
    let in_place = layout.single_top
        && b == 0
        && h >= 2
        && layout
            .offsets
            .iter()
            .filter(|o| o.0 == layout.bottom)
            .eq([(layout.bottom, 0)].iter());
    let slots = if in_place { h - 1 } else { h };
    let mut ring = vec![0u64; slots * n * w];
    let cons = layout.constraints();
    debug_assert_eq!(cons.len(), u);
    let mut l = BitMatrix::zeros(u, u);
    let mut ci = 0;
    let slot_of = |r: usize, c: usize| ((r % slots) * n + c) * w;
    // Where the form of press (r, c) lives while press row `cur` is being computed.
    let source = |r: isize, c: isize, cur: usize| -> Source {
        match layout.place(r, c) {
            None => Source::Off,
            Some((r, c)) => match layout.var(r, c) {
                Some(v) => Source::Var(v),
                None => {
                    debug_assert!(r <= cur && r + slots > cur, "row {r} outside the ring");
                    Source::Ring(slot_of(r, c))
                }
            },
        }
    };
    let keep = (layout.bottom, 0);
    for p in 0..m {
        for j in 0..n {
            let dst = slot_of(p, j);
            if let Some(v) = layout.var(p, j) {
                ring[dst..dst + w].fill(0);
                ring[dst + v / 64] |= 1 << (v % 64);
                continue;
            }
            let (q, k) = layout.leading_light(p, j);
            let reuse = in_place && p + 1 >= h;
            if !reuse {
                ring[dst..dst + w].fill(0);
            }
            // Ring sources are XORed into the slot together, so that the slot (which on wide
            // boards comes from memory) is read and written once, not once per source.
            let mut offs = [0usize; 4];
            let mut count = 0;
            for &(dr, dc) in &layout.others {
                if reuse && (dr, dc) == keep {
                    continue;
                }
                match source(q as isize - dr, k as isize - dc, p) {
                    Source::Off => {}
                    Source::Var(v) => ring[dst + v / 64] ^= 1 << (v % 64),
                    Source::Ring(off) if count < offs.len() => {
                        offs[count] = off;
                        count += 1;
                    }
                    Source::Ring(off) => xor_within(&mut ring, dst, off, w),
                }
            }
            xor_many_within(&mut ring, dst, &offs[..count], w);
        }
        while ci < cons.len() && cons[ci].2 == p {
            let (q, k, _) = cons[ci];
            let row = l.row_mut(ci);
            for &(dr, dc) in &layout.offsets {
                match source(q as isize - dr, k as isize - dc, p) {
                    Source::Off => {}
                    Source::Var(v) => row[v / 64] ^= 1 << (v % 64),
                    Source::Ring(off) => {
                        for (d, s) in row.iter_mut().zip(&ring[off..off + w]) {
                            *d ^= s;
                        }
                    }
                }
            }
            ci += 1;
        }
    }
    debug_assert_eq!(ci, cons.len());
    (cons.into_iter().map(|(q, k, _)| (q, k)).collect(), l)
}

/// The chase with bit values: presses for board `b` with the unknowns set to `x`.
fn concrete_chase(layout: &Layout, b: &BitMatrix, x: &BitVec) -> BitMatrix {
    let (m, n) = (layout.m, layout.n);
    let mut p = BitMatrix::zeros(m, n);
    if layout.packed() {
        let (a, bl) = layout.lead;
        let stride = p.stride();
        let mut res = vec![0u64; stride];
        for r in 0..m {
            let first = layout.row_first_var[r];
            if layout.row_first_var[r + 1] - first == n {
                extract_bits(x.words(), first, n, p.row_mut(r));
                continue;
            }
            let Some((q, _)) = layout.place(r as isize + a, 0) else {
                unreachable!("a determined row has its leading light row on the board")
            };
            res.copy_from_slice(b.row(q));
            for &(dr, dc) in &layout.others {
                let Some((src, _)) = layout.place(q as isize - dr, 0) else {
                    continue;
                };
                // The top row is the lead alone, so every other offset reads an earlier row.
                debug_assert!(src < r);
                shift_xor(
                    &mut res,
                    &p.data()[src * stride..(src + 1) * stride],
                    n,
                    dc,
                    layout.torus,
                );
            }
            let out = p.row_mut(r);
            out.fill(0);
            shift_xor(out, &res, n, -bl, layout.torus);
        }
        return p;
    }
    for r in 0..m {
        for j in 0..n {
            let v = match layout.var(r, j) {
                Some(v) => x.get(v),
                None => {
                    let (q, k) = layout.leading_light(r, j);
                    let mut v = b.get(q, k);
                    for &(dr, dc) in &layout.others {
                        if let Some((sr, sc)) = layout.place(q as isize - dr, k as isize - dc) {
                            v ^= p.get(sr, sc);
                        }
                    }
                    v
                }
            };
            if v {
                p.set(r, j, true);
            }
        }
    }
    p
}

/// `b + effect(p)`: the lights left on after pressing `p`.
fn residual(layout: &Layout, b: &BitMatrix, p: &BitMatrix) -> BitMatrix {
    let mut out = b.clone();
    apply_offsets(&layout.offsets, layout.torus, p, &mut out);
    out
}

/// `out += effect of presses p` for distinct stencil offsets.
fn apply_offsets(offsets: &[(isize, isize)], torus: bool, p: &BitMatrix, out: &mut BitMatrix) {
    let (m, n) = (p.rows(), p.cols());
    for q in 0..m {
        for &(dr, dc) in offsets {
            let r = q as isize - dr;
            let r = if torus {
                r.rem_euclid(m as isize) as usize
            } else if (0..m as isize).contains(&r) {
                r as usize
            } else {
                continue;
            };
            let stride = p.stride();
            shift_xor(
                &mut out.data_mut()[q * stride..(q + 1) * stride],
                &p.data()[r * stride..(r + 1) * stride],
                n,
                dc,
                torus,
            );
        }
    }
}

/// The board produced from the dark board by `presses` (one bit per move).
///
/// Stencil games run on packed rows (O(mn |stencil| / 64)); other games go move by move.
///
/// # Errors
/// [`Error::Length`] when `presses` has not one bit per move; [`Error::Spec`] for games with
/// more than two states.
pub fn effect(game: &Game, presses: &BitVec) -> Result<Board> {
    if presses.len() != game.num_moves() {
        return Err(Error::Length {
            expected: game.num_moves(),
            found: presses.len(),
        });
    }
    if game.states != 2 {
        return Err(Error::spec(
            game.to_string(),
            format!("expected a two-state game, found {} states", game.states),
        ));
    }
    let (m, n) = (game.rows, game.cols);
    let stencil = match &game.pattern {
        Pattern::Alien | Pattern::GaleBerlekamp => None,
        p => p.stencil(),
    };
    let Some(stencil) = stencil else {
        let mut b = Board::zeros(m, n);
        for mv in presses.ones_iter() {
            for c in game.move_cells(mv) {
                b.bits_mut().flip(c);
            }
        }
        return Ok(b);
    };
    // A footprint is a set: on a torus smaller than the stencil, offsets landing on the same
    // cell toggle it once.
    let mut offsets: Vec<(isize, isize)> = stencil.offsets();
    if game.torus {
        let (mi, ni) = (m as isize, n as isize);
        let mut seen = std::collections::HashSet::new();
        offsets.retain(|&(dr, dc)| seen.insert((dr.rem_euclid(mi), dc.rem_euclid(ni))));
    }
    let p = BitMatrix::from_row_major(m, n, presses);
    let mut out = BitMatrix::zeros(m, n);
    apply_offsets(&offsets, game.torus, &p, &mut out);
    Board::from_bits(m, n, out.to_row_major())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_bits(rng: &mut ChaCha8Rng, len: usize) -> BitVec {
        BitVec::from_bools(&(0..len).map(|_| rng.r#gen::<bool>()).collect::<Vec<_>>())
    }

    #[test]
    fn lights_out_polynomial_agrees_with_the_chase_over_forms() {
        let plus = vec![(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)];
        for m in 1..=20 {
            for n in (1..=20).chain([63, 64, 65, 130]) {
                let layout = Layout::new(m, n, false, plus.clone());
                assert_eq!(constraint_system(&layout), linear_chase(&layout), "{m}x{n}");
            }
        }
    }

    #[test]
    fn rows_roundtrip_and_shifts() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for (m, n) in [(1, 1), (3, 5), (2, 64), (3, 65), (4, 130), (2, 200)] {
            let bits = random_bits(&mut rng, m * n);
            let r = BitMatrix::from_row_major(m, n, &bits);
            assert_eq!(r.to_row_major(), bits, "{m}x{n}");
            for s in [-70isize, -3, -1, 0, 1, 2, 63, 64, 65, 199] {
                for torus in [false, true] {
                    let mut dst = vec![0u64; r.stride()];
                    shift_xor(&mut dst, r.row(0), n, s, torus);
                    for j in 0..n as isize {
                        let from = j - s;
                        let want = if torus {
                            bits.get(from.rem_euclid(n as isize) as usize)
                        } else {
                            (0..n as isize).contains(&from) && bits.get(from as usize)
                        };
                        let got = (dst[j as usize / 64] >> (j % 64)) & 1 == 1;
                        assert_eq!(got, want, "{n} cols, shift {s}, torus {torus}, col {j}");
                    }
                    if n % 64 != 0 {
                        assert_eq!(dst[n / 64] >> (n % 64), 0);
                    }
                }
            }
        }
    }

    #[test]
    fn effect_matches_move_cells() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for spec in [
            "lights-out:4x5",
            "squares:5x3",
            "stencil:101/010/101:4x4",
            "stencil:00100/00000/11011:3x6",
            "alien:3x4",
            "gale-berlekamp:3x4",
        ] {
            for torus in [false, true] {
                let game: Game = spec.parse::<Game>().unwrap().with_torus(torus);
                let a = game.move_matrix();
                for _ in 0..10 {
                    let x = random_bits(&mut rng, game.num_moves());
                    let want = a.mul_vec(&x);
                    assert_eq!(effect(&game, &x).unwrap().into_bits(), want, "{game}");
                }
            }
        }
        // A plus on a 2x2 torus: set semantics.
        let g = Game::new(Pattern::LightsOut, 2, 2).with_torus(true);
        let x = BitVec::unit(4, 0);
        assert_eq!(
            effect(&g, &x).unwrap().into_bits(),
            g.move_matrix().mul_vec(&x)
        );
    }

    #[test]
    fn orientations_roundtrip() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let bits = random_bits(&mut rng, 12);
        for o in Orient::all() {
            let f = o.forward(3, 4, &bits);
            assert_eq!(o.backward(3, 4, &f), bits, "{o:?}");
        }
    }
}
