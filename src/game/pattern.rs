//! Toggle patterns of the switching games and the game descriptions built on them.
//!
//! A game is a board of `rows x cols` cells and a set of moves; a move adds one (mod the number
//! of states) to every cell of its footprint. For every pattern but Gale–Berlekamp the moves are
//! the presses of the cells (move `i * cols + j` presses cell `(i, j)`); Gale–Berlekamp has one
//! move per row (moves `0..rows`) and one per column (moves `rows..rows + cols`).
//!
//! On a torus the footprint wraps around the edges. A footprint is a *set* of cells: when a
//! pattern wider than a small torus lands on the same cell twice, that cell still changes once,
//! as a player would see it (each cell of the neighbourhood toggles).

use super::Board;
use crate::error::{Error, Result};
use crate::gf2::{BitMatrix, BitVec};
use std::fmt;
use std::str::FromStr;

/// A 0/1 pattern of odd height and width, centred on the pressed cell (the interactive page's
/// editable neighbour pattern).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stencil {
    height: usize,
    width: usize,
    cells: Vec<bool>,
}

impl Stencil {
    /// A stencil from row-major cells.
    ///
    /// # Errors
    /// [`Error::Spec`] when a dimension is even or zero or `cells` has the wrong length.
    pub fn new(height: usize, width: usize, cells: Vec<bool>) -> Result<Self> {
        let spec = || format!("stencil {height}x{width}");
        if height.is_multiple_of(2) || width.is_multiple_of(2) {
            return Err(Error::spec(
                spec(),
                format!("expected odd height and width, found {height}x{width}"),
            ));
        }
        if cells.len() != height * width {
            return Err(Error::spec(
                spec(),
                format!("expected {} cells, found {}", height * width, cells.len()),
            ));
        }
        Ok(Stencil {
            height,
            width,
            cells,
        })
    }

    /// The plus of Lights Out: `010/111/010`.
    pub fn plus() -> Self {
        Self::parse("010/111/010").expect("valid stencil")
    }

    /// The 3x3 block of Toggle Squares: `111/111/111`.
    pub fn block3() -> Self {
        Self::parse("111/111/111").expect("valid stencil")
    }

    /// Parses rows of `0`/`1` (or `.`/`#`) separated by `/`, such as `010/111/010`.
    ///
    /// # Errors
    /// [`Error::Spec`] for bad characters, rows of different lengths or even dimensions.
    pub fn parse(s: &str) -> Result<Self> {
        let bad = |reason: String| Error::spec(s, reason);
        let mut cells = Vec::new();
        let mut width = None;
        let mut height = 0;
        for (r, row) in s.split('/').enumerate() {
            let mut w = 0;
            for ch in row.chars() {
                cells.push(match ch {
                    '0' | '.' => false,
                    '1' | '#' => true,
                    c => {
                        return Err(bad(format!(
                            "stencil row {}: unexpected character {c:?} (expected 0, 1, . or #)",
                            r + 1
                        )));
                    }
                });
                w += 1;
            }
            match width {
                None => width = Some(w),
                Some(x) if x != w => {
                    return Err(bad(format!(
                        "stencil row {} has {w} cells, expected {x}",
                        r + 1
                    )));
                }
                _ => {}
            }
            height += 1;
        }
        let width = width.unwrap_or(0);
        if width == 0 {
            return Err(bad(
                "expected stencil rows such as 010/111/010, found an empty row".into(),
            ));
        }
        Self::new(height, width, cells).map_err(|e| match e {
            Error::Spec { reason, .. } => bad(reason),
            other => other,
        })
    }

    /// Height (odd).
    pub fn height(&self) -> usize {
        self.height
    }

    /// Width (odd).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Cell `(r, c)` of the stencil, `(height / 2, width / 2)` being the pressed cell.
    pub fn get(&self, r: usize, c: usize) -> bool {
        self.cells[r * self.width + c]
    }

    /// The offsets `(dr, dc)` from the pressed cell of the stencil's ones, row-major.
    pub fn offsets(&self) -> Vec<(isize, isize)> {
        let (ch, cw) = ((self.height / 2) as isize, (self.width / 2) as isize);
        (0..self.height)
            .flat_map(|r| (0..self.width).map(move |c| (r, c)))
            .filter(|&(r, c)| self.get(r, c))
            .map(|(r, c)| (r as isize - ch, c as isize - cw))
            .collect()
    }
}

impl fmt::Display for Stencil {
    /// Rows of `0`/`1` separated by `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in 0..self.height {
            if r > 0 {
                f.write_str("/")?;
            }
            for c in 0..self.width {
                f.write_str(if self.get(r, c) { "1" } else { "0" })?;
            }
        }
        Ok(())
    }
}

impl FromStr for Stencil {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Stencil::parse(s)
    }
}

/// The toggle pattern of a switching game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Lights Out: the pressed cell and its four orthogonal neighbours (a plus).
    LightsOut,
    /// Alien Tiles: the whole row and the whole column of the pressed cell.
    Alien,
    /// Toggle Squares: the 3x3 block centred on the pressed cell.
    Squares,
    /// Gale–Berlekamp: a move flips a whole row or a whole column; the moves are the
    /// `rows + cols` lines, not the cells.
    GaleBerlekamp,
    /// Any 0/1 stencil centred on the pressed cell.
    Stencil(Stencil),
}

impl Pattern {
    /// The pattern's name as written in game specs (`lights-out`, `alien`, `squares`,
    /// `gale-berlekamp`, `stencil:ROWS/...`).
    pub fn spec_name(&self) -> String {
        match self {
            Pattern::LightsOut => "lights-out".into(),
            Pattern::Alien => "alien".into(),
            Pattern::Squares => "squares".into(),
            Pattern::GaleBerlekamp => "gale-berlekamp".into(),
            Pattern::Stencil(s) => format!("stencil:{s}"),
        }
    }

    /// The stencil this pattern presses with, for the patterns that are stencils
    /// (lights-out, squares, explicit stencils).
    pub fn stencil(&self) -> Option<Stencil> {
        match self {
            Pattern::LightsOut => Some(Stencil::plus()),
            Pattern::Squares => Some(Stencil::block3()),
            Pattern::Stencil(s) => Some(s.clone()),
            Pattern::Alien | Pattern::GaleBerlekamp => None,
        }
    }
}

/// A switching game: a pattern on a `rows x cols` board, plain or on a torus, with `states`
/// states per cell (2 for the classic on/off games).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    /// The toggle pattern.
    pub pattern: Pattern,
    /// Number of rows `m`.
    pub rows: usize,
    /// Number of columns `n`.
    pub cols: usize,
    /// True when the pattern wraps around the edges.
    pub torus: bool,
    /// Number of states per cell (`>= 2`); a move adds 1 mod `states` to each cell it touches.
    pub states: u32,
}

impl Game {
    /// A plain two-state game.
    pub fn new(pattern: Pattern, rows: usize, cols: usize) -> Self {
        Game {
            pattern,
            rows,
            cols,
            torus: false,
            states: 2,
        }
    }

    /// The same game on a torus (or not).
    pub fn with_torus(mut self, torus: bool) -> Self {
        self.torus = torus;
        self
    }

    /// The same game with `states` states per cell.
    pub fn with_states(mut self, states: u32) -> Self {
        self.states = states;
        self
    }

    /// Number of cells, `rows * cols`.
    pub fn num_cells(&self) -> usize {
        self.rows * self.cols
    }

    /// Number of moves: `rows * cols`, or `rows + cols` for Gale–Berlekamp.
    pub fn num_moves(&self) -> usize {
        match self.pattern {
            Pattern::GaleBerlekamp => self.rows + self.cols,
            _ => self.rows * self.cols,
        }
    }

    /// The rows and columns a move lays out as a grid: the board for pressed-cell games, and
    /// `1 x (rows + cols)` (rows first) for Gale–Berlekamp.
    pub fn move_shape(&self) -> (usize, usize) {
        match self.pattern {
            Pattern::GaleBerlekamp => (1, self.rows + self.cols),
            _ => (self.rows, self.cols),
        }
    }

    /// The distinct offsets `(dr, dc)` a press covers, for the stencil patterns (lights-out,
    /// squares, stencils); `None` for alien and Gale–Berlekamp. On a torus the offsets are
    /// reduced to `0..rows` x `0..cols` and deduplicated, so that a press covers each cell of
    /// its footprint once.
    pub fn stencil_offsets(&self) -> Option<Vec<(isize, isize)>> {
        let offsets = self.pattern.stencil()?.offsets();
        if !self.torus {
            return Some(offsets);
        }
        let (m, n) = (self.rows as isize, self.cols as isize);
        let mut wrapped: Vec<(isize, isize)> = offsets
            .into_iter()
            .map(|(dr, dc)| (dr.rem_euclid(m), dc.rem_euclid(n)))
            .collect();
        wrapped.sort_unstable();
        wrapped.dedup();
        Some(wrapped)
    }

    /// The row-major cells changed by move `mv`, in increasing order without repeats.
    ///
    /// # Panics
    /// If `mv >= self.num_moves()`.
    pub fn move_cells(&self, mv: usize) -> Vec<usize> {
        assert!(
            mv < self.num_moves(),
            "move {mv} of a game with {} moves",
            self.num_moves()
        );
        let (m, n) = (self.rows, self.cols);
        let mut cells = match &self.pattern {
            Pattern::GaleBerlekamp => {
                if mv < m {
                    (mv * n..(mv + 1) * n).collect()
                } else {
                    let j = mv - m;
                    (0..m).map(|i| i * n + j).collect()
                }
            }
            Pattern::Alien => {
                let (i, j) = (mv / n, mv % n);
                let mut v: Vec<usize> = (i * n..(i + 1) * n).collect();
                v.extend((0..m).filter(|&r| r != i).map(|r| r * n + j));
                v
            }
            _ => {
                let offsets = self.stencil_offsets().expect("stencil pattern");
                let (i, j) = (mv / n, mv % n);
                offsets
                    .into_iter()
                    .filter_map(|off| self.offset_cell(i, j, off))
                    .collect()
            }
        };
        cells.sort_unstable();
        cells
    }

    /// The cell reached from `(i, j)` by a stencil offset, wrapping on a torus.
    #[inline]
    fn offset_cell(&self, i: usize, j: usize, (dr, dc): (isize, isize)) -> Option<usize> {
        let (r, c) = (i as isize + dr, j as isize + dc);
        let (m, n) = (self.rows as isize, self.cols as isize);
        if self.torus {
            Some((r.rem_euclid(m) * n + c.rem_euclid(n)) as usize)
        } else if (0..m).contains(&r) && (0..n).contains(&c) {
            Some((r * n + c) as usize)
        } else {
            None
        }
    }

    /// Checks that a board has this game's size.
    ///
    /// # Errors
    /// [`Error::Board`] naming both sizes.
    pub fn check_board(&self, board: &Board) -> Result<()> {
        self.check_size(board.rows(), board.cols())
    }

    /// Checks that a `rows x cols` board has the game's size.
    ///
    /// # Errors
    /// [`Error::Board`] naming the size expected and the size found.
    pub fn check_size(&self, rows: usize, cols: usize) -> Result<()> {
        if (rows, cols) != (self.rows, self.cols) {
            return Err(Error::Board {
                reason: format!(
                    "expected a {}x{} board for {}, found {rows}x{cols}",
                    self.rows,
                    self.cols,
                    self.spec(),
                ),
            });
        }
        Ok(())
    }

    /// `psi(presses)`: the board produced from the all-off board by the moves set in
    /// `presses` (length [`Game::num_moves`]), in O(cells x footprint) (O(mn) for alien and
    /// Gale–Berlekamp). A board `b` is solved by `presses` exactly when this equals `b`.
    ///
    /// # Panics
    /// If `presses` does not have `num_moves` bits.
    pub fn effect(&self, presses: &BitVec) -> Board {
        assert_eq!(
            presses.len(),
            self.num_moves(),
            "{} has {} moves, found {} presses",
            self.spec(),
            self.num_moves(),
            presses.len()
        );
        let (m, n) = (self.rows, self.cols);
        match &self.pattern {
            Pattern::Alien => {
                let k = Board::from_bits(m, n, presses.clone()).expect("sizes match");
                super::alien::psi(&k)
            }
            Pattern::GaleBerlekamp => {
                let mut b = Board::zeros(m, n);
                for i in 0..m {
                    for j in 0..n {
                        if presses.get(i) ^ presses.get(m + j) {
                            b.flip(i, j);
                        }
                    }
                }
                b
            }
            _ => {
                let offsets = self.stencil_offsets().expect("stencil pattern");
                let mut b = Board::zeros(m, n);
                let bits = b.bits_mut();
                for mv in presses.ones_iter() {
                    let (i, j) = (mv / n, mv % n);
                    for &off in &offsets {
                        if let Some(c) = self.offset_cell(i, j, off) {
                            bits.flip(c);
                        }
                    }
                }
                b
            }
        }
    }

    /// The move matrix over GF(2): `num_cells x num_moves`, column `mv` the footprint of move
    /// `mv`. A board `b` is solved by presses `x` exactly when `A x = b`.
    pub fn move_matrix(&self) -> BitMatrix {
        let mut a = BitMatrix::zeros(self.num_cells(), self.num_moves());
        for mv in 0..self.num_moves() {
            for c in self.move_cells(mv) {
                a.set(c, mv, true);
            }
        }
        a
    }

    /// The game spec without flags, e.g. `lights-out:5x5`.
    pub fn spec(&self) -> String {
        format!("{}:{}x{}", self.pattern.spec_name(), self.rows, self.cols)
    }
}

impl fmt::Display for Game {
    /// The spec, followed by ` --torus` and ` --states Q` when they apply.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec())?;
        if self.torus {
            f.write_str(" --torus")?;
        }
        if self.states != 2 {
            write!(f, " --states {}", self.states)?;
        }
        Ok(())
    }
}

fn parse_dims(spec: &str, dims: &str) -> Result<(usize, usize)> {
    let bad = || {
        Error::spec(
            spec,
            format!("expected board size MxN (rows x columns) such as 5x5, found `{dims}`"),
        )
    };
    let (a, b) = dims.split_once(['x', 'X']).ok_or_else(bad)?;
    let m: usize = a.trim().parse().map_err(|_| bad())?;
    let n: usize = b.trim().parse().map_err(|_| bad())?;
    if m == 0 || n == 0 {
        return Err(Error::spec(
            spec,
            format!("expected at least one row and one column, found {m}x{n}"),
        ));
    }
    Ok((m, n))
}

impl FromStr for Game {
    type Err = Error;

    /// Parses `lights-out:5x5`, `alien:4x5`, `squares:6x6`, `gale-berlekamp:4x4` or
    /// `stencil:010/111/010:5x5` into a plain two-state game (torus and states are set by the
    /// caller).
    fn from_str(spec: &str) -> Result<Self> {
        let spec = spec.trim();
        let (name, dims) = spec.rsplit_once(':').ok_or_else(|| {
            Error::spec(
                spec,
                "expected GAME:MxN such as lights-out:5x5 (games: lights-out, alien, squares, \
                 gale-berlekamp, stencil:ROWS/ROWS/...)",
            )
        })?;
        let (rows, cols) = parse_dims(spec, dims)?;
        let pattern = match name.to_ascii_lowercase().as_str() {
            "lights-out" | "lightsout" | "lights_out" => Pattern::LightsOut,
            "alien" | "alien-tiles" => Pattern::Alien,
            "squares" | "toggle-squares" => Pattern::Squares,
            "gale-berlekamp" | "gb" => Pattern::GaleBerlekamp,
            other => match other.strip_prefix("stencil:") {
                Some(s) => Pattern::Stencil(Stencil::parse(s).map_err(|e| match e {
                    Error::Spec { reason, .. } => Error::spec(spec, reason),
                    e => e,
                })?),
                None => {
                    return Err(Error::spec(
                        spec,
                        format!(
                            "expected a game lights-out, alien, squares, gale-berlekamp or \
                             stencil:ROWS/ROWS/..., found `{name}`"
                        ),
                    ));
                }
            },
        };
        Ok(Game::new(pattern, rows, cols))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(g: &Game, i: usize, j: usize) -> Vec<usize> {
        g.move_cells(i * g.cols + j)
    }

    #[test]
    fn parse_specs() {
        let g: Game = "lights-out:5x5".parse().unwrap();
        assert_eq!(g, Game::new(Pattern::LightsOut, 5, 5));
        let g: Game = "stencil:010/111/010:3x4".parse().unwrap();
        assert_eq!(g.pattern, Pattern::Stencil(Stencil::plus()));
        assert_eq!((g.rows, g.cols), (3, 4));
        assert_eq!(g.spec(), "stencil:010/111/010:3x4");
        assert_eq!(
            "gale-berlekamp:4x6".parse::<Game>().unwrap().num_moves(),
            10
        );
        for bad in [
            "lights-out",
            "lights-out:5",
            "lights-out:0x5",
            "chess:5x5",
            "stencil:01/11:5x5",
            "stencil:010/11/010:5x5",
            "stencil:0a0:5x5",
            "stencil::5x5",
        ] {
            let e = bad.parse::<Game>().unwrap_err();
            assert!(matches!(e, Error::Spec { .. }), "{bad}: {e}");
        }
        let shown = Game::new(Pattern::Squares, 4, 4)
            .with_torus(true)
            .with_states(3);
        assert_eq!(shown.to_string(), "squares:4x4 --torus --states 3");
    }

    #[test]
    fn footprints() {
        let lo = Game::new(Pattern::LightsOut, 3, 3);
        assert_eq!(cells(&lo, 0, 0), vec![0, 1, 3]);
        assert_eq!(cells(&lo, 1, 1), vec![1, 3, 4, 5, 7]);
        let t = lo.clone().with_torus(true);
        assert_eq!(cells(&t, 0, 0), vec![0, 1, 2, 3, 6]);
        let al = Game::new(Pattern::Alien, 2, 3);
        assert_eq!(cells(&al, 1, 2), vec![2, 3, 4, 5]);
        let sq = Game::new(Pattern::Squares, 3, 3);
        assert_eq!(cells(&sq, 0, 0), vec![0, 1, 3, 4]);
        assert_eq!(cells(&sq, 1, 1), (0..9).collect::<Vec<_>>());
        let gb = Game::new(Pattern::GaleBerlekamp, 2, 3);
        assert_eq!(gb.move_cells(1), vec![3, 4, 5]);
        assert_eq!(gb.move_cells(3), vec![1, 4]);
        // A plus on a 2x2 torus covers each neighbour once, not twice.
        let small = Game::new(Pattern::LightsOut, 2, 2).with_torus(true);
        assert_eq!(small.move_cells(0), vec![0, 1, 2]);
        // A 3x3 block on a 1x2 torus covers both cells once.
        let thin = Game::new(Pattern::Squares, 1, 2).with_torus(true);
        assert_eq!(thin.move_cells(1), vec![0, 1]);
    }

    #[test]
    fn effect_matches_move_matrix() {
        let games = [
            "lights-out:4x5",
            "alien:3x4",
            "squares:5x3",
            "gale-berlekamp:3x4",
            "stencil:00100/01010/10001:6x4",
        ];
        for spec in games {
            for torus in [false, true] {
                let g = spec.parse::<Game>().unwrap().with_torus(torus);
                let a = g.move_matrix();
                for seed in 0..20u64 {
                    let mut x = BitVec::zeros(g.num_moves());
                    for mv in 0..g.num_moves() {
                        x.set(mv, (seed.wrapping_mul(0x9e37_79b9) >> (mv % 29)) & 1 == 1);
                    }
                    assert_eq!(g.effect(&x).into_bits(), a.mul_vec(&x), "{g}");
                }
            }
        }
    }

    #[test]
    fn board_size_is_checked() {
        let g: Game = "lights-out:2x3".parse().unwrap();
        assert!(g.check_board(&Board::zeros(2, 3)).is_ok());
        let e = g.check_board(&Board::zeros(3, 2)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad board: expected a 2x3 board for lights-out:2x3, found 3x2"
        );
    }

    #[test]
    fn move_matrix_columns_are_footprints() {
        let g: Game = "stencil:101/010/101:4x5".parse().unwrap();
        let a = g.move_matrix();
        assert_eq!((a.rows(), a.cols()), (20, 20));
        for mv in 0..g.num_moves() {
            assert_eq!(
                a.col_vec(mv).ones_iter().collect::<Vec<_>>(),
                g.move_cells(mv)
            );
        }
        // The interactive page's 2x2 moves m11..m22.
        let lo = Game::new(Pattern::LightsOut, 2, 2);
        let cols: Vec<String> = (0..4)
            .map(|j| lo.move_matrix().col_vec(j).to_string())
            .collect();
        assert_eq!(cols, ["1110", "1101", "1011", "0111"]);
    }
}
