//! The hardest boards of small games: the solvable boards whose shortest solution is longest
//! (for Alien Tiles this is CSPLib's prob027).
//!
//! A breadth-first search from the zero board over the group of reachable boards, one click
//! (one move pressed once, mod `Q`) per edge, gives every board its fewest clicks at once. A
//! board `b` is solved by the presses that produce `-b`, so the hardest boards are the
//! negatives of the farthest ones. The boards are numbered in base `Q` (cell `c` is digit `c`)
//! and the distances kept one byte per number, so the search is limited to `Q^cells <=`
//! [`MAX_BOARDS`].

use super::Game;
use super::qstate::{QBoard, QSolver};
use super::shortest::Progress;
use super::solve::Solve;
use crate::error::{Error, Result};

/// The largest `Q^cells` [`distances`] accepts (one byte each).
pub const MAX_BOARDS: u64 = 1 << 26;

const UNREACHED: u8 = u8::MAX;

/// The fewest clicks producing each board from the zero board.
#[derive(Clone, Debug)]
pub struct Distances {
    game: Game,
    /// `dist[number] = fewest clicks`, [`UNREACHED`] for boards no presses produce.
    dist: Vec<u8>,
    /// `Q^c` for each cell `c`.
    place: Vec<u64>,
}

/// A hardest solvable board with one of its shortest solutions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hardest {
    /// The board.
    pub board: QBoard,
    /// A shortest solution: press counts per move.
    pub presses: Vec<u32>,
    /// The clicks of every shortest solution of `board` (the sum of `presses`).
    pub press_count: u64,
    /// The number of solvable boards.
    pub solvable_boards: u64,
    /// The number of solvable boards that need `press_count` clicks.
    pub hardest_boards: u64,
}

impl Distances {
    /// The board with number `k`.
    fn board(&self, k: u64) -> QBoard {
        let q = self.game.states as u64;
        let cells = self.place.iter().map(|&p| (k / p % q) as u32).collect();
        QBoard::from_cells(self.game.rows, self.game.cols, self.game.states, cells)
            .expect("digits below Q")
    }

    /// The number of `board`.
    fn number(&self, board: &QBoard) -> u64 {
        board
            .cells()
            .iter()
            .zip(&self.place)
            .map(|(&v, &p)| v as u64 * p)
            .sum()
    }

    /// The fewest clicks solving `board` (producing its negative), or `None` when it is not
    /// solvable.
    ///
    /// # Panics
    /// If the board does not fit the game.
    pub fn shortest(&self, board: &QBoard) -> Option<u64> {
        let q = self.game.states;
        let neg: Vec<u32> = board.cells().iter().map(|&v| (q - v) % q).collect();
        let neg = QBoard::from_cells(board.rows(), board.cols(), q, neg).expect("same shape");
        let d = self.dist[self.number(&neg) as usize];
        (d != UNREACHED).then_some(d as u64)
    }
}

/// The moves as changes of board numbers.
struct Moves {
    q: u64,
    place: Vec<u64>,
    cells: Vec<Vec<usize>>,
    /// For two states, each move as an XOR mask.
    masks: Option<Vec<u64>>,
}

impl Moves {
    fn new(game: &Game, place: Vec<u64>) -> Moves {
        let q = game.states as u64;
        let cells: Vec<Vec<usize>> = (0..game.num_moves())
            .map(|mv| game.move_cells(mv))
            .collect();
        let masks = (q == 2).then(|| {
            cells
                .iter()
                .map(|cs| cs.iter().fold(0u64, |acc, &c| acc | 1 << c))
                .collect()
        });
        Moves {
            q,
            place,
            cells,
            masks,
        }
    }

    fn len(&self) -> usize {
        self.cells.len()
    }

    /// The number of board `k` after pressing `mv` once (`down`: pressed `Q - 1` times).
    fn press(&self, k: u64, mv: usize, down: bool) -> u64 {
        if let Some(m) = &self.masks {
            return k ^ m[mv];
        }
        let q = self.q;
        let mut k = k;
        for &c in &self.cells[mv] {
            let p = self.place[c];
            let digit = k / p % q;
            k = match (down, digit) {
                (false, d) if d == q - 1 => k - d * p,
                (false, _) => k + p,
                (true, 0) => k + (q - 1) * p,
                (true, _) => k - p,
            };
        }
        k
    }
}

/// Every board's fewest clicks, by breadth-first search from the zero board.
///
/// # Errors
/// [`Error::Limit`] when `Q^cells > MAX_BOARDS`; as [`QSolver::new`] otherwise.
pub fn distances(game: &Game, progress: Progress<'_>) -> Result<Distances> {
    let q = game.states as u64;
    let cells = game.num_cells();
    let size = (0..cells).try_fold(1u64, |acc, _| acc.checked_mul(q));
    let Some(size) = size.filter(|&s| s <= MAX_BOARDS) else {
        return Err(Error::Limit {
            what: format!("searching every board of {} with {q} states", game.spec()),
            reason: format!(
                "expected at most {MAX_BOARDS} boards (Q^cells), found {q}^{cells}; \
                 try a smaller board or fewer states"
            ),
        });
    };
    let reachable = u64::try_from(QSolver::new(game)?.solvable_count()).unwrap_or(u64::MAX);
    let place: Vec<u64> = (0..cells as u32).map(|c| q.pow(c)).collect();
    let moves = Moves::new(game, place.clone());
    let mut dist = vec![UNREACHED; size as usize];
    dist[0] = 0;
    let mut frontier = vec![0u64];
    let mut seen = 1u64;
    let mut d = 0u8;
    while !frontier.is_empty() {
        assert!(d < UNREACHED - 1, "a distance past {}", UNREACHED - 1);
        let mut next = Vec::new();
        for &k in &frontier {
            for mv in 0..moves.len() {
                let to = moves.press(k, mv, false);
                if dist[to as usize] == UNREACHED {
                    dist[to as usize] = d + 1;
                    next.push(to);
                }
            }
        }
        seen += next.len() as u64;
        if let Some(p) = progress {
            p(seen, reachable);
        }
        frontier = next;
        d += 1;
    }
    Ok(Distances {
        game: game.clone(),
        dist,
        place,
    })
}

/// The hardest solvable board of `game` (the least-numbered one among the hardest), with a
/// shortest solution.
///
/// # Errors
/// As [`distances`].
pub fn hardest(game: &Game, progress: Progress<'_>) -> Result<Hardest> {
    let d = distances(game, progress)?;
    let reached = || d.dist.iter().filter(|&&x| x != UNREACHED);
    let max = *reached().max().expect("the zero board is reached");
    let far = d
        .dist
        .iter()
        .position(|&x| x == max)
        .expect("the maximum occurs") as u64;
    let moves = Moves::new(game, d.place.clone());
    // Walk back to zero one click at a time; the clicks produce `far`.
    let mut presses = vec![0u32; moves.len()];
    let mut k = far;
    while k != 0 {
        let now = d.dist[k as usize];
        let (mv, back) = (0..moves.len())
            .map(|mv| (mv, moves.press(k, mv, true)))
            .find(|&(_, b)| d.dist[b as usize] == now - 1)
            .expect("a board at distance d > 0 has a neighbour at d - 1");
        presses[mv] += 1;
        k = back;
    }
    let far_board = d.board(far);
    let board = QBoard::from_cells(
        game.rows,
        game.cols,
        game.states,
        far_board
            .cells()
            .iter()
            .map(|&v| (game.states - v) % game.states)
            .collect(),
    )
    .expect("digits below Q");
    Ok(Hardest {
        board,
        presses,
        press_count: max as u64,
        solvable_boards: reached().count() as u64,
        hardest_boards: reached().filter(|&&x| x == max).count() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::qstate::effect_q;

    #[test]
    fn the_hardest_board_is_solved_by_its_presses() {
        let game: Game = "lights-out:2x3".parse::<Game>().unwrap().with_states(3);
        let h = hardest(&game, None).unwrap();
        let made = effect_q(&game, &h.presses);
        for (a, b) in made.cells().iter().zip(h.board.cells()) {
            assert_eq!((a + b) % 3, 0);
        }
        assert_eq!(
            h.presses.iter().map(|&v| v as u64).sum::<u64>(),
            h.press_count
        );
    }

    #[test]
    fn refuses_past_the_limit() {
        let game: Game = "lights-out:6x6".parse().unwrap();
        let e = distances(&game, None).unwrap_err().to_string();
        assert!(e.contains("2^36"), "{e}");
    }
}
