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

/// The covering radius of a code: the largest Hamming distance from any word to the nearest
/// codeword.
///
/// Alien codes use the closed forms of [`alien::covering_radius`]; `hamming:N` and `secded:N` a
/// breadth-first search
/// over their `2^(n - k)` syndromes; repetition codes have radius `floor(n / 2)` and
/// single-parity-check codes radius 1 (both also checked against the search in the tests).
///
/// # Errors
/// [`Error::Limit`] when the syndrome space is past [`MAX_SYNDROME_BITS`] bits (no valid spec
/// reaches it: `hamming:16777216` has 25).
pub fn covering_radius(code: &dyn BlockCode) -> Result<usize> {
    Ok(match code.spec() {
        Spec::Alien { rows, cols } => alien::covering_radius(rows, cols),
        Spec::Repetition(n) => n / 2,
        Spec::Parity(_) => 1,
        Spec::Hamming(n) => {
            let r = ceil_log2(n + 1);
            syndrome_bfs(r, || 1..=n as u64)?
        }
        Spec::Secded(n) => {
            // Index 0 (the overall parity) has column (0, 1); index i >= 1 has (i, 1).
            let r = ceil_log2(n);
            syndrome_bfs(r + 1, || (0..n as u64).map(move |i| i | 1 << r))?
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
    fn non_spanning_columns_are_reported() {
        assert!(syndrome_bfs(3, || [1u64, 2].into_iter()).is_err());
        assert!(syndrome_bfs(MAX_SYNDROME_BITS + 1, || [1u64].into_iter()).is_err());
    }
}
