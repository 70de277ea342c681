//! Shortest solutions of q-state Alien Tiles through row and column sums.
//!
//! A press vector `x` produces `(A x)_ij = R_i + C_j - x_ij (mod Q)` with `R_i` the sum of row
//! `i` of `x` and `C_j` of column `j`. So `A x = t` exactly when `x_ij = R_i + C_j - t_ij` for
//! sums that are consistent with it; with `s = sum x` (the total of the `R_i` and of the
//! `C_j` alike), summing that identity along row `i` and column `j` gives
//!
//! ```text
//! (n - 1) R_i = T_i - s,   (m - 1) C_j = T'_j - s,   sum R_i = sum C_j = s   (mod Q)
//! ```
//!
//! (`T_i`, `T'_j` the row and column sums of `t`), and conversely every `(s, R, C)` meeting
//! these gives a solution `x`. Each `R_i` ranges over the `gcd(n - 1, Q)` roots of its
//! equation (or none). For each `s` and each admissible row vector `R` the columns are
//! independent but for `sum C_j = s`, so a dynamic programme over the partial sum mod `Q`
//! picks the cheapest `C` exactly. The whole search is exact and enumerates
//! `sum_s prod_i gcd(n - 1, Q)` row vectors at most (the board is transposed first when the
//! columns have fewer): the classic 7x7 four-state puzzle takes `4 * 2^7` of them.

use super::qshortest::QShortest;
use super::qstate::QBoard;

/// The fewest clicks solving the q-state Alien Tiles `board`, or `None` when it is not
/// solvable or would take more than `max_rows` row vectors.
pub fn shortest(board: &QBoard, max_rows: u64) -> Option<QShortest> {
    let (m, n, q) = (board.rows(), board.cols(), board.states());
    // The target `t = -board`: the presses must produce it from the zero board.
    let t: Vec<u32> = board.cells().iter().map(|&v| (q - v) % q).collect();
    let tt = transpose(&t, m, n);
    let transposed = row_vectors(&tt, n, m, q) < row_vectors(&t, m, n, q);
    let (rows, cols, t) = if transposed { (n, m, tt) } else { (m, n, t) };
    if row_vectors(&t, rows, cols, q) > max_rows {
        return None;
    }
    let (cost, x) = search(&t, rows, cols, q)?;
    let presses = if transposed {
        transpose(&x, rows, cols)
    } else {
        x
    };
    Some(QShortest {
        presses,
        optimal: true,
        lower_bound: cost,
        method: "row-sums",
    })
}

fn transpose(v: &[u32], m: usize, n: usize) -> Vec<u32> {
    (0..n * m).map(|k| v[(k % m) * n + k / m]).collect()
}

/// The roots `r` of `a r = b (mod q)`.
fn roots(a: u64, b: u64, q: u32) -> Vec<u32> {
    let q64 = q as u64;
    (0..q)
        .filter(|&r| (a * r as u64) % q64 == b % q64)
        .collect()
}

fn line_sums(t: &[u32], m: usize, n: usize, q: u32) -> (Vec<u64>, Vec<u64>) {
    let mut row = vec![0u64; m];
    let mut col = vec![0u64; n];
    for i in 0..m {
        for j in 0..n {
            row[i] += t[i * n + j] as u64;
            col[j] += t[i * n + j] as u64;
        }
    }
    let q = q as u64;
    (
        row.into_iter().map(|v| v % q).collect(),
        col.into_iter().map(|v| v % q).collect(),
    )
}

/// The admissible values of each row sum and each column sum for the total `s`.
fn options(t: &[u32], m: usize, n: usize, q: u32, s: u32) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let (rs, cs) = line_sums(t, m, n, q);
    let q64 = q as u64;
    let need = |sum: u64| (sum + q64 - s as u64) % q64;
    (
        rs.iter()
            .map(|&r| roots(n as u64 - 1, need(r), q))
            .collect(),
        cs.iter()
            .map(|&c| roots(m as u64 - 1, need(c), q))
            .collect(),
    )
}

/// How many row vectors [`search`] enumerates (saturating).
fn row_vectors(t: &[u32], m: usize, n: usize, q: u32) -> u64 {
    (0..q)
        .map(|s| {
            let (r, _) = options(t, m, n, q, s);
            r.iter()
                .try_fold(1u64, |acc, o| acc.checked_mul(o.len() as u64))
                .unwrap_or(u64::MAX)
        })
        .fold(0u64, u64::saturating_add)
}

/// The cheapest solution `(clicks, x)` of `A x = t`, if any.
fn search(t: &[u32], m: usize, n: usize, q: u32) -> Option<(u64, Vec<u32>)> {
    let mut best: Option<(u64, Vec<u32>, Vec<u32>)> = None;
    for s in 0..q {
        let (ropts, copts) = options(t, m, n, q, s);
        if ropts.iter().chain(&copts).any(Vec::is_empty) {
            continue;
        }
        let mut pick = vec![0usize; m];
        loop {
            let r: Vec<u32> = pick.iter().zip(&ropts).map(|(&k, o)| o[k]).collect();
            if r.iter().map(|&v| v as u64).sum::<u64>() % q as u64 == s as u64
                && let Some((cost, c)) = best_columns(t, m, n, q, s, &r, &copts)
                && best.as_ref().is_none_or(|b| cost < b.0)
            {
                best = Some((cost, r, c));
            }
            // The next row vector, odometer style.
            let Some(i) = (0..m).find(|&i| pick[i] + 1 < ropts[i].len()) else {
                break;
            };
            pick[i] += 1;
            pick[..i].fill(0);
        }
    }
    let (cost, r, c) = best?;
    let x = (0..m * n)
        .map(|k| (r[k / n] + c[k % n] + q - t[k]) % q)
        .collect();
    Some((cost, x))
}

/// For fixed row sums `r`: the column sums (from `copts`, totalling `s`) with the fewest
/// clicks, by a dynamic programme over the partial total mod `q`.
fn best_columns(
    t: &[u32],
    m: usize,
    n: usize,
    q: u32,
    s: u32,
    r: &[u32],
    copts: &[Vec<u32>],
) -> Option<(u64, Vec<u32>)> {
    let qs = q as usize;
    const NONE: u64 = u64::MAX;
    let mut dp = vec![NONE; qs];
    dp[0] = 0;
    // choice[j][total after j] = (option taken, total before j)
    let mut choice = vec![vec![(0u32, 0usize); qs]; n];
    for j in 0..n {
        let mut next = vec![NONE; qs];
        for &c in &copts[j] {
            let cost: u64 = (0..m)
                .map(|i| ((r[i] + c + q - t[i * n + j]) % q) as u64)
                .sum();
            for (before, &d) in dp.iter().enumerate() {
                if d == NONE {
                    continue;
                }
                let after = (before + c as usize) % qs;
                if d + cost < next[after] {
                    next[after] = d + cost;
                    choice[j][after] = (c, before);
                }
            }
        }
        dp = next;
    }
    let total = dp[s as usize];
    if total == NONE {
        return None;
    }
    let mut c = vec![0u32; n];
    let mut at = s as usize;
    for j in (0..n).rev() {
        let (v, before) = choice[j][at];
        c[j] = v;
        at = before;
    }
    Some((total, c))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::qshortest::clicks;
    use crate::game::qstate::effect_q;

    /// The fewest clicks of every board, over all press vectors.
    pub(crate) fn brute(game: &Game) -> std::collections::HashMap<Vec<u32>, u64> {
        let q = game.states;
        let moves = game.num_moves();
        let mut out = std::collections::HashMap::new();
        let mut x = vec![0u32; moves];
        loop {
            let b = effect_q(game, &x).cells().to_vec();
            let c = clicks(&x);
            let e = out.entry(b).or_insert(c);
            *e = (*e).min(c);
            let Some(i) = (0..moves).find(|&i| x[i] + 1 < q) else {
                break;
            };
            x[i] += 1;
            x[..i].fill(0);
        }
        out
    }

    #[test]
    fn equals_brute_force_on_small_boards() {
        for (m, n, q) in [
            (2, 2, 4),
            (2, 3, 3),
            (3, 2, 4),
            (1, 4, 3),
            (2, 2, 6),
            (3, 3, 2),
        ] {
            let game = Game::new(crate::game::Pattern::Alien, m, n).with_states(q);
            for (made, fewest) in brute(&game) {
                let neg: Vec<u32> = made.iter().map(|&v| (q - v) % q).collect();
                let board = QBoard::from_cells(m, n, q, neg).unwrap();
                let best = shortest(&board, u64::MAX).expect("solvable");
                assert_eq!(best.clicks(), fewest, "{m}x{n} q={q} board {made:?}");
                let back = effect_q(&game, &best.presses);
                assert_eq!(back.cells(), &made[..]);
            }
        }
    }
}
