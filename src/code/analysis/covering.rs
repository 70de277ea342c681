//! Covering radii: the largest distance from any word to the code.
//!
//! For alien codes the closed forms of [`crate::game::alien::covering_radius`] (the paper's
//! Section 4.3, corrected for elongated odd-by-odd boards); for Hamming-type codes a
//! breadth-first search over the syndrome space, where the covering radius is the largest
//! number of parity-check columns any syndrome needs.

use crate::code::spec::ceil_log2;
use crate::code::{BlockCode, Spec};
use crate::error::{Error, Result};
use crate::game::alien;

/// The largest syndrome space [`syndrome_bfs`] searches: `2^26` syndromes (three bit sets of
/// 8 MiB each).
pub const MAX_SYNDROME_BITS: usize = 26;

/// The covering radius of a code with `bits`-bit syndromes and the given parity-check columns:
/// the largest number of columns any syndrome needs, found by a breadth-first search from the
/// zero syndrome that stops as soon as every syndrome has been reached (the last one reached is
/// the farthest).
///
/// # Errors
/// [`Error::Limit`] past [`MAX_SYNDROME_BITS`], or when the columns do not span the syndrome
/// space (not a parity-check matrix of full rank).
pub fn syndrome_bfs<I, F>(bits: usize, columns: F) -> Result<usize>
where
    I: Iterator<Item = u64>,
    F: Fn() -> I,
{
    if bits > MAX_SYNDROME_BITS {
        return Err(Error::Limit {
            what: "the covering radius".into(),
            reason: format!(
                "a breadth-first search over 2^{bits} syndromes exceeds the limit of 2^{MAX_SYNDROME_BITS}"
            ),
        });
    }
    let size = 1usize << bits;
    let words = size.div_ceil(64);
    let mut seen = vec![0u64; words];
    let mut frontier = vec![0u64; words];
    let mut next = vec![0u64; words];
    seen[0] = 1;
    frontier[0] = 1;
    let mut reached = 1usize;
    let mut radius = 0usize;
    while reached < size {
        radius += 1;
        let mut grew = false;
        'layer: for (wi, &bits_here) in frontier.iter().enumerate() {
            let mut word = bits_here;
            while word != 0 {
                let x = (wi * 64 + word.trailing_zeros() as usize) as u64;
                word &= word - 1;
                for c in columns() {
                    let y = (x ^ c) as usize;
                    let (yw, yb) = (y / 64, 1u64 << (y % 64));
                    if seen[yw] & yb == 0 {
                        seen[yw] |= yb;
                        next[yw] |= yb;
                        reached += 1;
                        grew = true;
                        if reached == size {
                            break 'layer;
                        }
                    }
                }
            }
        }
        if !grew {
            return Err(Error::Limit {
                what: "the covering radius".into(),
                reason: format!(
                    "the parity-check columns reach only {reached} of the 2^{bits} syndromes"
                ),
            });
        }
        std::mem::swap(&mut frontier, &mut next);
        next.iter_mut().for_each(|w| *w = 0);
    }
    Ok(radius)
}

/// The most work (syndromes times parity-check columns) [`covering_radius`] spends on a
/// breadth-first search; larger Hamming-type codes use their closed forms.
pub const MAX_SEARCH_WORK: u64 = 1 << 30;

/// The covering radius of `hamming:N`, `r = ceil(log2(N + 1))`: 1 when `N = 2^r - 1` (the
/// perfect Hamming code), else 2.
///
/// Proof: the syndrome of a word is the XOR of the positions `1..=N` of its ones, and the
/// syndromes are all `r`-bit values. A syndrome `s <= N` is one column. Since
/// `2^(r-1) <= N`, a syndrome `s > N` has its top bit set and is the XOR of the columns
/// `2^(r-1)` and `s - 2^(r-1)` (both in `1..=N`, and different); it is not one column. Such an
/// `s` exists exactly when `N < 2^r - 1`.
pub fn hamming_covering_radius(n: usize) -> usize {
    if (n + 1).is_power_of_two() { 1 } else { 2 }
}

/// The covering radius of `secded:N`, `r = ceil(log2 N)`: 2 when `N = 2^r` (the extended
/// Hamming code), else 3.
///
/// Proof: the column of index `i` is `(i, 1)` for `i` in `0..N` (Hamming position and overall
/// parity), so a syndrome `(s, e)` needs an odd number of columns when `e = 1` and an even
/// number when `e = 0`. `(s, 1)` with `s < N` is one column. `(s, 0)` with `s != 0` is two:
/// `(s, 1) + (0, 1)` when `s < N`, else `(2^(r-1), 1) + (s - 2^(r-1), 1)` (here
/// `2^(r-1) < N <= s`, so both are columns and distinct). `(s, 1)` with `s >= N` is not a
/// column, but three: `(2^(r-1), 1) + (s - 2^(r-1), 1) + (0, 1)`. It exists exactly when
/// `N < 2^r`.
pub fn secded_covering_radius(n: usize) -> usize {
    if n.is_power_of_two() { 2 } else { 3 }
}

/// The covering radius of `product:MxN`, `max(m, n)`.
///
/// Proof: a syndrome is a pair `(R, C)` of row and column parity vectors with `|R| = |C|`
/// mod 2, and a cell `(i, j)` toggles `R_i` and `C_j`. A word of weight `w` changes at most
/// `w` rows and `w` columns, so `(R, C)` needs at least `max(|R|, |C|)` cells; that many
/// suffice: with `|R| >= |C|`, pair `|C|` odd rows with the odd columns, and the remaining
/// (even number of) odd rows two by two in one column. The largest `max(|R|, |C|)` is
/// `max(m, n)` (all rows odd, and `0` or `1` odd columns to match the parity).
pub fn product_covering_radius(m: usize, n: usize) -> usize {
    m.max(n)
}

/// The covering radius of a code: the largest Hamming distance from any word to the nearest
/// codeword.
///
/// * alien codes: the closed forms of [`alien::covering_radius`];
/// * `hamming:N` and `secded:N`: a breadth-first search over the `2^(n - k)` syndromes
///   ([`syndrome_bfs`]) while that costs at most [`MAX_SEARCH_WORK`] column steps (up to about
///   `N = 2^15`); past it the search grows as `4^(n - k)` (every syndrome outside the first
///   layer is reached from a frontier of about `N` words, each expanded by `N` columns), and
///   the proven closed forms [`hamming_covering_radius`] and [`secded_covering_radius`], which
///   the tests check against the search, answer instead;
/// * repetition codes `floor(n / 2)`, single-parity-check codes 1 (both also checked against
///   the search in the tests).
///
/// # Errors
/// None for the codes of this crate today; the `Result` leaves room for codes without a closed
/// form whose syndrome space is past [`MAX_SYNDROME_BITS`] bits ([`Error::Limit`]).
pub fn covering_radius(code: &dyn BlockCode) -> Result<usize> {
    let affordable = |bits: usize, columns: usize| {
        bits <= MAX_SYNDROME_BITS
            && (1u64 << bits).saturating_mul(columns as u64) <= MAX_SEARCH_WORK
    };
    Ok(match code.spec() {
        Spec::Alien { rows, cols } => alien::covering_radius(rows, cols),
        Spec::Repetition(n) => n / 2,
        Spec::Parity(_) => 1,
        Spec::Product { rows, cols } => product_covering_radius(rows, cols),
        Spec::Hamming(n) => {
            let r = ceil_log2(n + 1);
            if affordable(r, n) {
                syndrome_bfs(r, || 1..=n as u64)?
            } else {
                hamming_covering_radius(n)
            }
        }
        Spec::Secded(n) => {
            // Index 0 (the overall parity) has column (0, 1); index i >= 1 has (i, 1).
            let r = ceil_log2(n);
            if affordable(r + 1, n) {
                syndrome_bfs(r + 1, || (0..n as u64).map(move |i| i | 1 << r))?
            } else {
                secded_covering_radius(n)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetition_and_parity_by_search() {
        for n in 1..=14usize {
            // repetition: checks x_0 + x_i = 0, column 0 is all ones, column i is e_(i-1)
            let all = (1u64 << (n - 1)) - 1;
            let rep = syndrome_bfs(n - 1, || {
                std::iter::once(all).chain((0..n - 1).map(|i| 1 << i))
            })
            .unwrap();
            assert_eq!(rep, n / 2, "repetition:{n}");
            if n >= 2 {
                assert_eq!(syndrome_bfs(1, || std::iter::repeat_n(1u64, n)).unwrap(), 1);
            }
        }
    }

    #[test]
    fn product_radius_by_search() {
        for m in 2..=6usize {
            for n in 2..=6usize {
                // Syndrome bits: rows 0..m, then columns 0..n-1 (the last column's parity
                // follows from the others).
                let cols = move || {
                    (0..m * n).map(move |p| {
                        let (i, j) = (p / n, p % n);
                        let c = if j + 1 < n { 1u64 << (m + j) } else { 0 };
                        (1u64 << i) | c
                    })
                };
                let r = syndrome_bfs(m + n - 1, cols).unwrap();
                assert_eq!(r, product_covering_radius(m, n), "{m}x{n}");
            }
        }
    }

    #[test]
    fn hamming_family_radii() {
        // Perfect Hamming codes have radius 1; shortened ones 2; SECDED 2 (perfect) or 3.
        for r in 3..=10usize {
            let n = (1usize << r) - 1;
            assert_eq!(
                covering_radius(&crate::code::HammingCode::new(n)).unwrap(),
                1
            );
            assert_eq!(
                covering_radius(&crate::code::SecdedCode::new(n + 1)).unwrap(),
                2
            );
            assert_eq!(
                covering_radius(&crate::code::HammingCode::new(n - 1)).unwrap(),
                2
            );
            assert_eq!(
                covering_radius(&crate::code::SecdedCode::new(n)).unwrap(),
                3
            );
        }
    }

    #[test]
    fn elongated_odd_boards_exceed_the_papers_formula() {
        // The word with row parities 0 and column parities 1 in columns 1..=4 of a 3x9 board:
        // its coset's lightest words have weight 4 = min(max(0, 4), max(3, 5)). The paper's
        // min(m, n) - [m == n] says 3.
        let radius = |s: &str| covering_radius(crate::code::from_spec_str(s).unwrap().as_ref());
        assert_eq!(radius("alien:3x9").unwrap(), 4);
        assert_eq!(radius("alien:9x3").unwrap(), 4);
        assert_eq!(radius("alien:5x13").unwrap(), 6);
        // square and near-square boards agree with the paper
        assert_eq!(radius("alien:9x9").unwrap(), 8);
        assert_eq!(radius("alien:3x7").unwrap(), 3);
        assert_eq!(radius("alien:1x9").unwrap(), 4);
        assert_eq!(radius("alien:1x1").unwrap(), 0);
    }

    #[test]
    fn hamming_closed_forms_match_the_search() {
        let mut lengths: Vec<usize> = (3..=300).collect();
        for k in 9..=12 {
            let p = 1usize << k;
            lengths.extend([p - 2, p - 1, p, p + 1]);
        }
        for n in lengths {
            let r = ceil_log2(n + 1);
            assert_eq!(
                syndrome_bfs(r, || 1..=n as u64).unwrap(),
                hamming_covering_radius(n),
                "hamming:{n}"
            );
            if n >= 4 {
                let r = ceil_log2(n);
                assert_eq!(
                    syndrome_bfs(r + 1, || (0..n as u64).map(move |i| i | 1 << r)).unwrap(),
                    secded_covering_radius(n),
                    "secded:{n}"
                );
            }
        }
    }

    #[test]
    fn the_largest_codes_are_answered_at_once() {
        let h = crate::code::HammingCode::new(crate::code::MAX_N);
        assert_eq!(covering_radius(&h).unwrap(), 2);
        let s = crate::code::SecdedCode::new(crate::code::MAX_N);
        assert_eq!(covering_radius(&s).unwrap(), 2);
        let s = crate::code::SecdedCode::new(crate::code::MAX_N - 1);
        assert_eq!(covering_radius(&s).unwrap(), 3);
    }

    #[test]
    fn non_spanning_columns_are_reported() {
        assert!(syndrome_bfs(3, || [1u64, 2].into_iter()).is_err());
        assert!(syndrome_bfs(MAX_SYNDROME_BITS + 1, || [1u64].into_iter()).is_err());
    }
}
