//! The structure of q-state Alien Tiles in closed form, at any size: the number of quiet
//! patterns and the invariant factors of the move matrix over `Z/QZ`, without eliminating it.
//!
//! By the identity of [`qalien`](super::qalien), a press vector `x` is quiet (`A x = 0`)
//! exactly when `x_ij = R_i + C_j` for a triple `(s, R, C)` with
//!
//! ```text
//! (n - 1) R_i = -s,   (m - 1) C_j = -s,   sum R_i = sum C_j = s   (mod Q),
//! ```
//!
//! and the triple is then the row sums, column sums and total of `x`, so quiet patterns and
//! triples correspond one to one. With `g = gcd(n - 1, Q)` and `h = Q / g`, the equation
//! `(n - 1) r = -s` has roots exactly when `g | s`, and they are `r_0 + h u` for `u` in
//! `Z/gZ`. A row vector of roots sums to `m r_0 + h (u_1 + ... + u_m)`, which is `s` exactly
//! when `h | s - m r_0` and then for `g^(m - 1)` choices of the `u_i`. The columns are the
//! same with `m` and `n` exchanged. So
//!
//! ```text
//! |kernel| = N * gcd(n - 1, Q)^(m - 1) * gcd(m - 1, Q)^(n - 1),
//! ```
//!
//! `N` the number of totals `s` in `Z/QZ` admissible on both sides (`s = 0` always is).
//!
//! Over a prime power `p^r` the kernel sizes over `Z/p^kZ`, `k = 1..r`, give the local
//! Smith normal form: the move matrix is square, and with `K_k = log_p |kernel mod p^k|`,
//! `K_k - K_(k-1)` diagonal entries have valuation at least `k`. Combining the primes as
//! [`QSolver::invariant_factors`](super::QSolver::invariant_factors) does gives the same
//! invariant factors, hence the McCoy rank, the solvable boards (`Q^(mn) / |kernel|`) and the
//! solutions per board (`|kernel|`).

use super::qstate::factorize;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::Pow;

/// `gcd(a, q)`, with `gcd(0, q) = q`.
fn gcd(a: u64, q: u64) -> u64 {
    a.gcd(&q)
}

/// True when some vector of `m` roots of `a r = -s (mod q)` sums to `s`.
fn admissible(a: u64, m: u64, s: u64, q: u64) -> bool {
    let a = a % q;
    let g = gcd(a, q);
    let target = (q - s % q) % q;
    if !target.is_multiple_of(g) {
        return false;
    }
    let h = q / g;
    if h == 1 {
        return true;
    }
    // A root `r0` of `(a / g) r = target / g (mod h)`, `a / g` a unit mod `h`.
    let unit = ((a / g) % h) as i128;
    let inv = unit.extended_gcd(&(h as i128)).x.rem_euclid(h as i128) as u128;
    let r0 = ((target / g) as u128 % h as u128 * inv % h as u128) as u64;
    let mr0 = ((m % h) as u128 * r0 as u128 % h as u128) as u64;
    (s % h + h - mr0).is_multiple_of(h)
}

/// The number of admissible totals `s` in `Z/qZ` of the `m x n` board.
fn totals(m: usize, n: usize, q: u64) -> u64 {
    let (a, b) = (n as u64 - 1, m as u64 - 1);
    (0..q)
        .filter(|&s| admissible(a, m as u64, s, q) && admissible(b, n as u64, s, q))
        .count() as u64
}

/// The number of quiet patterns of `m x n` Alien Tiles with `q` states (the kernel of the
/// move matrix over `Z/qZ`, which is also the number of solutions of each solvable board).
///
/// # Panics
/// If `m`, `n` or `q` is zero.
pub fn kernel_size(m: usize, n: usize, q: u64) -> BigUint {
    assert!(m > 0 && n > 0 && q > 0, "an empty board or modulus");
    let g1 = gcd((n as u64 - 1) % q, q);
    let g2 = gcd((m as u64 - 1) % q, q);
    BigUint::from(totals(m, n, q)) * BigUint::from(g1).pow(m - 1) * BigUint::from(g2).pow(n - 1)
}

/// `log_p x` for a power `x` of `p`.
fn log(mut x: u64, p: u64) -> u64 {
    let mut e = 0;
    while x > 1 {
        debug_assert!(x.is_multiple_of(p), "not a power of {p}");
        x /= p;
        e += 1;
    }
    e
}

/// `log_p` of the kernel size over `Z/p^kZ`.
fn kernel_log(m: usize, n: usize, p: u64, k: u32) -> u64 {
    let pk = p.pow(k);
    let g1 = gcd((n as u64 - 1) % pk, pk);
    let g2 = gcd((m as u64 - 1) % pk, pk);
    log(totals(m, n, pk), p) + (m as u64 - 1) * log(g1, p) + (n as u64 - 1) * log(g2, p)
}

/// The invariant factors of the move matrix of `m x n` Alien Tiles over `Z/qZ`, exactly as
/// [`QSolver::invariant_factors`](super::QSolver::invariant_factors) reports them: `(d,
/// count)` pairs, `d` a divisor of `q` in increasing order, `d = 0` a zero factor; `mn`
/// factors in all.
///
/// # Panics
/// If `m` or `n` is zero or `q < 2`.
pub fn invariant_factors(m: usize, n: usize, q: u64) -> Vec<(u64, usize)> {
    assert!(
        m > 0 && n > 0 && q >= 2,
        "an empty board or a modulus below 2"
    );
    let size = (m * n) as u64;
    // Per prime: runs (exponent, count) in increasing exponent, `r` for a zero entry.
    let runs: Vec<(u64, Vec<(u32, u64)>)> = factorize(q)
        .into_iter()
        .map(|(p, r)| {
            // at_least[k] = the number of diagonal entries of valuation >= k.
            let mut at_least = vec![size];
            let mut prev = 0;
            for k in 1..=r {
                let kk = kernel_log(m, n, p, k);
                at_least.push(kk - prev);
                prev = kk;
            }
            let mut run = Vec::new();
            for e in 0..=r {
                let c = if e < r {
                    at_least[e as usize] - at_least[e as usize + 1]
                } else {
                    at_least[r as usize]
                };
                if c > 0 {
                    run.push((e, c));
                }
            }
            (p, run)
        })
        .collect();
    // Walk the positions 0..mn through every prime's runs at once.
    let mut out: Vec<(u64, usize)> = Vec::new();
    let mut at: Vec<(usize, u64)> = vec![(0, 0); runs.len()]; // (run index, used of it)
    let mut left = size;
    while left > 0 {
        let step = runs
            .iter()
            .zip(&at)
            .map(|((_, run), &(i, used))| run[i].1 - used)
            .min()
            .expect("q has a prime factor");
        let mut f = 1u64;
        for ((p, run), &(i, _)) in runs.iter().zip(&at) {
            f *= p.pow(run[i].0);
        }
        let f = if f == q { 0 } else { f };
        match out.iter_mut().find(|(d, _)| *d == f) {
            Some((_, c)) => *c += step as usize,
            None => out.push((f, step as usize)),
        }
        for ((_, run), pos) in runs.iter().zip(at.iter_mut()) {
            pos.1 += step;
            if pos.1 == run[pos.0].1 && pos.0 + 1 < run.len() {
                *pos = (pos.0 + 1, 0);
            }
        }
        left -= step;
    }
    out.sort_by_key(|&(d, _)| if d == 0 { u64::MAX } else { d });
    out
}

/// The number of quiet-pattern generators [`QSolver`](super::QSolver) lists for the game: one
/// per invariant factor other than 1, per prime power of `q` (the diagonal entries divisible by
/// `p`).
pub fn generator_count(m: usize, n: usize, q: u64) -> usize {
    factorize(q)
        .into_iter()
        .map(|(p, _)| kernel_log(m, n, p, 1) as usize)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::qalien;
    use crate::game::{Game, Pattern, QSolver, Solve};

    /// The kernel size by the dynamic programme over partial sums: per `s`, the row vectors
    /// of roots summing to `s` times the column vectors likewise.
    fn kernel_by_dp(m: usize, n: usize, q: u64) -> u64 {
        let count = |len: usize, a: u64, s: u64| -> u64 {
            let roots: Vec<u64> = (0..q).filter(|&r| (a * r + s).is_multiple_of(q)).collect();
            let mut dp = vec![0u64; q as usize];
            dp[0] = 1;
            for _ in 0..len {
                let mut next = vec![0u64; q as usize];
                for (before, &d) in dp.iter().enumerate() {
                    for &r in &roots {
                        next[(before + r as usize) % q as usize] += d;
                    }
                }
                dp = next;
            }
            dp[s as usize]
        };
        (0..q)
            .map(|s| count(m, n as u64 - 1, s) * count(n, m as u64 - 1, s))
            .sum()
    }

    /// The closed form's kernel size and invariant factors equal elimination's.
    fn agrees(m: usize, n: usize, q: u32) -> (Game, QSolver, BigUint) {
        let game = Game::new(Pattern::Alien, m, n).with_states(q);
        let s = QSolver::new(&game).unwrap();
        let k = kernel_size(m, n, q as u64);
        assert_eq!(k, s.solutions_per_board(), "{m}x{n} q={q}");
        let f = invariant_factors(m, n, q as u64);
        assert_eq!(f, s.invariant_factors(), "{m}x{n} q={q}");
        (game, s, k)
    }

    #[test]
    fn equals_elimination_dp_and_brute_force() {
        for q in 2..=6u32 {
            for m in 1..=5 {
                for n in 1..=5 {
                    let (game, s, k) = agrees(m, n, q);
                    let q64 = q as u64;
                    assert_eq!(k, BigUint::from(kernel_by_dp(m, n, q64)), "{m}x{n} q={q}");
                    assert_eq!(
                        generator_count(m, n, q64),
                        s.quiet_generators().len(),
                        "{m}x{n} q={q}"
                    );
                    if (q as f64).powi((m * n) as i32) <= 2e5 {
                        // Every press vector: the boards it makes are the image.
                        let image = qalien::tests::brute(&game).len();
                        assert_eq!(k * image, BigUint::from(q).pow(m * n), "{m}x{n} q={q}");
                    }
                }
            }
        }
    }

    #[test]
    fn larger_moduli_and_boards_match_elimination() {
        for (m, n, q) in [
            (6, 7, 8),
            (7, 7, 9),
            (4, 9, 12),
            (8, 5, 16),
            (6, 6, 10),
            (3, 10, 7),
        ] {
            agrees(m, n, q);
        }
    }

    #[test]
    fn large_boards_are_instant() {
        let k = kernel_size(200, 200, 3);
        // 199 = 1 (mod 3): one root per line, R_i = C_j = -s, and every s is admissible
        // (3 | 201 s): the constant boards, each cell pressed 399 = 0 (mod 3) times.
        assert_eq!(k, BigUint::from(3u32));
        let f = invariant_factors(1000, 999, 6);
        assert_eq!(f.iter().map(|&(_, c)| c).sum::<usize>(), 999_000);
    }
}
